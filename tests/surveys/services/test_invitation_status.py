"""``services.invitation_status``: a code's state, read without changing it."""

import pytest
from django.core.exceptions import ValidationError
from django.http import Http404

from surveys.models import Invitation
from surveys.services import invitations
from surveys.services.invitation_status import CodeState, invitation_status


@pytest.fixture
def study(make_survey):
    return make_survey(access="invitation")


def test_each_state_of_a_code(study):
    unused, issued, revoked = invitations.invitations_create(survey=study, count=3)
    Invitation.objects.filter(pk=issued.id).update(status=Invitation.Status.ISSUED)
    invitations.invitation_revoke(survey=study, invitation_id=revoked.id)
    assert invitation_status(slug=study.slug, code=unused.code) is CodeState.UNUSED
    assert invitation_status(slug=study.slug, code=issued.code) is CodeState.ISSUED
    assert invitation_status(slug=study.slug, code=revoked.code) is CodeState.REVOKED
    assert invitation_status(slug=study.slug, code="b" * 32) is CodeState.INVALID
    assert invitation_status(slug=study.slug, code="too short") is CodeState.INVALID


def test_a_code_made_before_the_secret_key_changed_is_still_found(study, settings):
    (made,) = invitations.invitations_create(survey=study, count=1)
    settings.SECRET_KEY_FALLBACKS = [settings.SECRET_KEY]
    settings.SECRET_KEY = "a new secret key for this test, long enough to be one"
    assert invitation_status(slug=study.slug, code=made.code) is CodeState.UNUSED


def test_not_text_is_a_validation_error_naming_code(study):
    with pytest.raises(ValidationError) as raised:
        invitation_status(slug=study.slug, code=12)
    assert "code" in raised.value.message_dict


def test_a_link_survey_has_no_codes(open_survey):
    with pytest.raises(Http404):
        invitation_status(slug=open_survey.slug, code="a" * 32)
