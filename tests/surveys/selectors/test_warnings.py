"""A minimum before results are shown that the invitations cannot reach is said before it
hides every result (issue 36 item 7)."""

import pytest

from surveys.selectors.warnings import MIN_N_ABOVE_INVITED, survey_warnings
from surveys.services import invitations

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("access", "invited", "min_n", "warned"),
    [
        ("invitation", 25, 30, True),
        ("both", 25, 30, True),
        ("invitation", 30, 30, False),  # 30 invitees can reach 30 responses
        ("invitation", 0, 30, False),  # nobody invited yet: nothing to compare
        ("link", 0, 30, False),
    ],
)
def test_min_n_above_the_number_invited_is_warned(make_survey, access, invited, min_n, warned):
    survey = make_survey(status="draft", access=access, min_n=min_n)
    if invited:
        invitations.invitations_create(survey=survey, count=invited)
    found = survey_warnings(survey=survey)
    assert [warning.code for warning in found] == ([MIN_N_ABOVE_INVITED] if warned else [])
    if warned:
        assert f"Results appear from {min_n} responses; you invited {invited}." in found[0].message
        assert "coin noise" in found[0].message
        assert ("Only invitees can answer" in found[0].message) == (access == "invitation")


def test_revoked_invitations_are_not_counted_as_invited(make_survey):
    survey = make_survey(status="draft", access="invitation", min_n=3)
    made = invitations.invitations_create(survey=survey, count=3)
    assert survey_warnings(survey=survey) == []
    invitations.invitation_revoke(survey=survey, invitation_id=made[0].id)
    assert "you invited 2" in survey_warnings(survey=survey)[0].message
