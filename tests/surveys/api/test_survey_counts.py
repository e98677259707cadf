"""The survey's API answer counts the questions the researcher wrote, the practice rounds
apart, and warns when its minimum before results are shown is more than the people invited
(issue 36 items 2 and 7)."""

import pytest

from surveys.services import invitations
from tests.helpers import EVERY_KIND_QUESTIONS, EVERY_KIND_SETTINGS

pytestmark = pytest.mark.django_db


def test_question_count_counts_what_the_researcher_wrote(make_survey, owner_api):
    survey = make_survey(questions=EVERY_KIND_QUESTIONS, status="draft", **EVERY_KIND_SETTINGS)
    body = owner_api.get(f"/api/v1/surveys/{survey.pk}/").json()
    assert body["question_count"] == len(EVERY_KIND_QUESTIONS) == len(body["questions"])
    # Practice rounds: one per practised yes/no design (coins, Warner).
    assert body["practice_rounds"] >= 2


def test_warnings_say_when_min_n_is_more_than_the_people_invited(make_survey, owner_api):
    survey = make_survey(status="draft", access="invitation", min_n=30)
    url = f"/api/v1/surveys/{survey.pk}/"
    assert owner_api.get(url).json()["warnings"] == []
    invitations.invitations_create(survey=survey, count=25)
    warnings = owner_api.get(url).json()["warnings"]
    assert [warning["code"] for warning in warnings] == ["min_n_above_invited"]
    assert warnings[0]["message"].startswith("Results appear from 30 responses; you invited 25.")
    assert owner_api.patch(url, {"min_n": 5}, format="json").status_code == 200
    assert owner_api.get(url).json()["warnings"] == []
