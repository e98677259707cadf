"""Random question order (issue 27 item 5): the survey field ``shuffle_questions`` in the API,
the builder and the frozen design's fingerprint."""

import pytest
from django.urls import reverse

from surveys import selectors, services
from surveys.models import Survey

pytestmark = pytest.mark.django_db

LIST_URL = "/api/v1/surveys/"


def new_survey(**fields):
    return {
        "title": "Order effects",
        "p_truth": 0.5,
        "p_forced_yes": 0.5,
        "questions": [{"text": f"Question {i}?"} for i in range(4)],
        **fields,
    }


def test_the_api_stores_and_shows_shuffle_questions(owner_api, respondent):
    response = owner_api.post(LIST_URL, new_survey(shuffle_questions=True))
    assert response.status_code == 201, response.json()
    assert response.json()["shuffle_questions"] is True
    survey = Survey.objects.get(pk=response.json()["id"])
    assert survey.shuffle_questions is True
    assert owner_api.post(LIST_URL, new_survey()).json()["shuffle_questions"] is False
    services.survey_open(survey=survey)
    public = respondent.get(f"/api/v1/public/surveys/{survey.slug}/").json()
    assert public["shuffle_questions"] is True


@pytest.mark.parametrize("bad", ["yes", 1, 0, None, "true", [True]])
def test_a_non_boolean_shuffle_questions_is_a_400_naming_it(owner_api, bad):
    response = owner_api.post(LIST_URL, new_survey(shuffle_questions=bad))
    assert response.status_code == 400
    assert "shuffle_questions" in response.json()["errors"]
    assert not Survey.objects.exists()


def test_the_fingerprint_changes_with_shuffle_questions_and_old_ones_do_not(make_survey):
    survey = make_survey(status="draft")
    before = selectors.survey_design_fingerprint(survey=survey)
    # Left out when false: a survey without it keeps the fingerprint it always had (the
    # digest of the same design computed without the argument at all).
    survey.shuffle_questions = True
    survey.save(update_fields=["shuffle_questions"])
    assert selectors.survey_design_fingerprint(survey=survey) != before
    survey.shuffle_questions = False
    survey.save(update_fields=["shuffle_questions"])
    assert selectors.survey_design_fingerprint(survey=survey) == before


def test_shuffle_questions_is_frozen_once_the_survey_has_opened(owner_api, make_survey):
    survey = make_survey()  # open
    response = owner_api.patch(f"{LIST_URL}{survey.id}/", {"shuffle_questions": True})
    # Like the coins: a frozen design is a conflict with the survey's state, naming the field.
    assert response.status_code == 409
    assert "shuffle_questions" in str(response.json())
    survey.refresh_from_db()
    assert survey.shuffle_questions is False


def test_the_builder_shows_a_shuffle_checkbox(owner_client, make_survey):
    survey = make_survey(status="draft")
    page = owner_client.get(reverse("surveys:builder", args=[survey.pk])).content.decode()
    assert 'name="shuffle_questions"' in page
    assert "Show the questions in a random order" in page
