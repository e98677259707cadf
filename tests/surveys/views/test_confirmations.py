"""Irreversible actions ask on a page first, saying what is lost (issue 36 item 5): opening
for the real study, revoking an invitation (discarding a pilot and deleting a survey have
their own pages). The page works without a script; its form posts the one request the action
always took, which the API still makes in one call."""

import re

import numpy as np
import pytest

from surveys import services
from surveys.models import Invitation, Submission, Survey
from surveys.services import invitations

pytestmark = pytest.mark.django_db


def text_of(response):
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode()))


def test_the_builder_asks_before_opening_a_pilot_for_the_real_study(make_survey, owner_client):
    survey = make_survey(status="pilot")
    services.simulated_submissions_record(survey=survey, reports=np.ones((3, 2), dtype=bool))
    builder = owner_client.get(f"/surveys/{survey.pk}/").content.decode()
    # The builder's button leads to the question, it does not open.
    assert re.search(rf'<form method="get" action="/surveys/{survey.pk}/open/">', builder)
    page = owner_client.get(f"/surveys/{survey.pk}/open/")
    assert page.status_code == 200
    text = text_of(page)
    assert "Open for the real study?" in text
    assert "The 3 pilot responses are deleted, with everything counted from them." in text
    assert "locked for good" in text
    survey.refresh_from_db()
    assert survey.status == Survey.Status.PILOT
    assert Submission.objects.filter(survey=survey).count() == 3
    # Confirming is the one POST it always was.
    assert owner_client.post(f"/surveys/{survey.pk}/open/").status_code == 302
    survey.refresh_from_db()
    assert survey.status == Survey.Status.OPEN
    assert Submission.objects.filter(survey=survey).count() == 0


def test_opening_a_draft_asks_and_names_no_pilot_responses(make_survey, owner_client):
    survey = make_survey(status="draft")
    text = text_of(owner_client.get(f"/surveys/{survey.pk}/open/"))
    assert "Open the survey?" in text and "locked for good" in text
    assert "pilot response" not in text


def test_an_open_survey_has_nothing_to_confirm(make_survey, owner_client):
    survey = make_survey()
    response = owner_client.get(f"/surveys/{survey.pk}/open/")
    assert "This survey is open already." in text_of(response)
    assert '<form method="post"' not in response.content.decode().split('id="confirm-title"')[1]


def test_revoking_an_invitation_asks_first(make_survey, owner_client):
    survey = make_survey(status="draft", access="invitation")
    made = invitations.invitations_create(survey=survey, emails=["ana@example.org"])
    url = f"/surveys/{survey.pk}/invitees/{made[0].id}/revoke/"
    listing = owner_client.get(f"/surveys/{survey.pk}/invitees/").content.decode()
    assert f'href="{url}"' in listing  # a link to the question, no form that revokes
    page = owner_client.get(url)
    assert page.status_code == 200
    text = text_of(page)
    assert "Revoke this invitation?" in text and "ana@example.org" in text
    assert "stop working for good" in text and "No invitation or reminder is sent" in text
    assert Invitation.objects.get(pk=made[0].id).status == Invitation.Status.UNUSED
    owner_client.post(url)
    assert Invitation.objects.get(pk=made[0].id).status == Invitation.Status.REVOKED
    assert "This invitation is revoked already." in text_of(owner_client.get(url))


def test_another_surveys_invitation_is_not_found(make_survey, owner_client):
    survey = make_survey(status="draft", access="invitation")
    other = make_survey(status="draft", access="invitation")
    made = invitations.invitations_create(survey=other, count=1)
    response = owner_client.get(f"/surveys/{survey.pk}/invitees/{made[0].id}/revoke/")
    assert response.status_code == 404
