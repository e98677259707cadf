"""The builder and the invitations page say when the minimum before results are shown is
more than the people invited, and what the minimum protects (issue 36 item 7)."""

import re

import pytest

from surveys.services import invitations

pytestmark = pytest.mark.django_db

SAID = "Results appear from 30 responses; you invited 25."


def text_of(response):
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode()))


@pytest.mark.parametrize("path", ["", "invitees/"])
def test_the_pages_warn_when_min_n_is_more_than_the_people_invited(make_survey, owner_client, path):
    survey = make_survey(status="draft", access="invitation", min_n=30)
    invitations.invitations_create(survey=survey, count=25)
    text = text_of(owner_client.get(f"/surveys/{survey.pk}/{path}"))
    assert SAID in text and "mostly coin noise" in text
    survey.min_n = 25
    survey.save(update_fields=["min_n"])
    assert "Results appear from" not in text_of(owner_client.get(f"/surveys/{survey.pk}/{path}"))
