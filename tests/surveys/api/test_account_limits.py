"""An account holds a bounded number of surveys and questions, with a clear message."""

import pytest

from surveys import services
from surveys.models import Question, Survey

pytestmark = pytest.mark.django_db


def test_the_survey_limit_refuses_one_more_with_a_clear_message(owner, owner_api, settings):
    settings.MAX_SURVEYS_PER_USER = 2
    services.survey_create(owner=owner, title="One")
    services.survey_create(owner=owner, title="Two")
    response = owner_api.post(
        "/api/v1/surveys/", {"title": "Three", "p_truth": 0.5, "p_forced_yes": 0.5, "questions": []}
    )
    assert response.status_code == 400
    assert "limit of 2 surveys" in response.json()["detail"]
    assert Survey.objects.filter(owner=owner).count() == 2


def test_the_survey_limit_is_per_account(owner, other_researcher, settings):
    settings.MAX_SURVEYS_PER_USER = 1
    services.survey_create(owner=owner, title="Mine")
    assert services.survey_create(owner=other_researcher, title="Theirs").pk


def test_the_survey_limit_shows_on_the_new_survey_page(owner, owner_client, settings):
    settings.MAX_SURVEYS_PER_USER = 1
    services.survey_create(owner=owner, title="One")
    response = owner_client.post(
        "/surveys/new/",
        {
            "title": "Two",
            "language": "en",
            "preset": "classic",
            "p_truth": 0.5,
            "p_forced_yes": 0.5,
            "ci_method": "wilson",
            "confidence": 0.95,
            "min_n": 30,
        },
    )
    assert response.status_code == 400
    assert "limit of 1 surveys" in response.content.decode()


def test_the_question_limit_counts_every_survey_of_the_account(owner, owner_api, settings):
    settings.MAX_QUESTIONS_PER_USER = 3
    first = services.survey_create(owner=owner, title="A", questions=["Q1?", "Q2?"])
    second = services.survey_create(owner=owner, title="B", questions=["Q3?"])
    with pytest.raises(services.ValidationError) as refused:
        services.question_add(survey=second, text="Q4?")
    assert "at most 3 questions in all" in str(refused.value)
    # Replacing a survey's questions counts the new list instead of the old one.
    patched = owner_api.patch(
        f"/api/v1/surveys/{first.id}/", {"questions": [{"text": "Only?"}, {"text": "Two?"}]}
    )
    assert patched.status_code == 200
    too_many = owner_api.patch(
        f"/api/v1/surveys/{first.id}/",
        {"questions": [{"text": "a?"}, {"text": "b?"}, {"text": "c?"}]},
    )
    assert too_many.status_code == 400
    assert list(too_many.json()["errors"]) == ["questions"]
    assert Question.objects.filter(survey__owner=owner).count() == 3
