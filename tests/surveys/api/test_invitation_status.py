"""The invitation status route: what a code can still do, asked by its holder's page before
any question (docs/invitations.md, "A second device"). It changes nothing, stores nothing,
says no more than the token route, and is throttled with it."""

import pytest

from surveys.models import Invitation
from surveys.services import invitations
from tests.helpers import stored_row_counts
from tests.surveys.api.test_invitation_tokens import obtain_token, tokens_url


def status_url(survey):
    return f"/api/v1/public/surveys/{survey.slug}/invitation-status/"


def ask(client, survey, code):
    return client.post(status_url(survey), {"code": code}, format="json")


@pytest.fixture
def study(make_survey):
    return make_survey(access="invitation")


@pytest.fixture
def codes(study):
    return [view.code for view in invitations.invitations_create(survey=study, count=3)]


def test_a_code_is_unused_then_issued_and_asking_changes_nothing(respondent, study, codes):
    before = stored_row_counts()
    statuses = list(Invitation.objects.filter(survey=study).values_list("pk", "status"))
    first = ask(respondent, study, codes[0])
    assert first.status_code == 200
    assert first.json() == {"status": "unused"}
    assert first["Cache-Control"] == "no-store"
    assert "Set-Cookie" not in first
    assert ask(respondent, study, codes[0]).json() == {"status": "unused"}  # asked twice
    assert stored_row_counts() == before
    assert list(Invitation.objects.filter(survey=study).values_list("pk", "status")) == statuses
    token, issued = obtain_token(respondent, study, codes[0])
    assert issued.status_code == 201 and token is not None
    assert ask(respondent, study, codes[0]).json() == {"status": "issued"}
    assert ask(respondent, study, codes[1]).json() == {"status": "unused"}


def test_a_typed_code_is_the_same_code(respondent, study, codes):
    typed = "-".join(codes[0][i : i + 4] for i in range(0, 32, 4)).upper()
    obtain_token(respondent, study, codes[0])
    assert ask(respondent, study, typed).json() == {"status": "issued"}


@pytest.mark.parametrize("code", ["", "a" * 32, "not a code", "0" * 32])
def test_an_unknown_or_malformed_code_is_invalid(respondent, study, codes, code):
    response = ask(respondent, study, code)
    assert response.status_code == 200
    assert response.json() == {"status": "invalid"}


def test_a_revoked_or_reset_code_says_so(respondent, study, codes):
    revoked, reset = Invitation.objects.filter(survey=study).order_by("pk")[:2]
    invitations.invitation_revoke(survey=study, invitation_id=revoked.pk)
    invitations.invitation_reset(survey=study, invitation_id=reset.pk)
    assert ask(respondent, study, codes[0]).json() == {"status": "revoked"}
    assert ask(respondent, study, codes[1]).json() == {"status": "invalid"}  # replaced


def test_a_code_of_another_survey_is_invalid_here(respondent, study, codes, make_survey):
    other = make_survey(access="invitation")
    invitations.invitations_create(survey=other, count=1)
    assert ask(respondent, other, codes[0]).json() == {"status": "invalid"}


def test_it_says_no_more_than_the_token_route(respondent, study, codes):
    """A used code: 409 there, "issued" here; an unknown or revoked one: 404 there. The token
    route answers before it signs (an oversized blinded message leaves the code unused)."""
    obtain_token(respondent, study, codes[0])
    revoked = Invitation.objects.filter(survey=study).order_by("pk")[2]
    invitations.invitation_revoke(survey=study, invitation_id=revoked.pk)
    probe = {"blinded_message": "_" * 342}
    there = [
        respondent.post(tokens_url(study), {"code": code, **probe}, format="json").status_code
        for code in (codes[0], "a" * 32, codes[2], codes[1])
    ]
    assert there == [409, 404, 404, 400]
    here = [ask(respondent, study, code).json()["status"] for code in codes]
    assert here == ["issued", "unused", "revoked"]
    assert ask(respondent, study, codes[1]).json() == {"status": "unused"}  # the 400 kept it


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "code"),
        ({"code": 5}, "code"),
        ({"code": None}, "code"),
        ({"code": ["a"]}, "code"),
        ({"code": "a" * 129}, "code"),
        ({"code": "a" * 32, "blinded_message": "AAAA"}, "blinded_message"),
    ],
)
def test_a_malformed_request_is_a_400_naming_the_field(respondent, study, codes, body, field):
    response = respondent.post(status_url(study), body, format="json")
    assert response.status_code == 400
    assert field in response.json()["errors"]


def test_a_body_that_is_not_an_object_is_a_400(respondent, study):
    response = respondent.post(status_url(study), ["code"], format="json")
    assert response.status_code == 400


def test_a_link_survey_or_a_draft_or_no_survey_is_a_404(respondent, open_survey, make_survey):
    draft = make_survey(access="invitation", status="draft")
    for slug in (open_survey.slug, draft.slug, "no-such-survey"):
        response = respondent.post(
            f"/api/v1/public/surveys/{slug}/invitation-status/", {"code": "a" * 32}, format="json"
        )
        assert response.status_code == 404, slug


def test_other_methods_are_refused(respondent, study, codes):
    assert respondent.get(status_url(study), {"code": codes[0]}).status_code == 405


def test_checks_and_token_requests_share_one_throttle(respondent, study, codes, settings):
    settings.RESPONSE_RATE_LIMIT = "3/min"
    statuses = [ask(respondent, study, codes[0]).status_code for _ in range(2)]
    statuses.append(
        respondent.post(
            tokens_url(study), {"code": "a" * 32, "blinded_message": "AAAA"}, format="json"
        ).status_code
    )
    statuses.append(ask(respondent, study, codes[0]).status_code)
    assert statuses == [200, 200, 404, 429]
    throttled = ask(respondent, study, codes[0])
    assert throttled.status_code == 429
    assert int(throttled["Retry-After"]) > 0
