"""Surveys CRUD with nested questions, open and close."""

import math

import pytest
from django.urls import reverse

from surveys import services
from surveys.models import Question, Survey

pytestmark = pytest.mark.django_db

LIST_URL = "/api/v1/surveys/"
CLASSIC = {"p_truth": 0.5, "p_forced_yes": 0.5}


def detail_url(survey_id):
    return f"/api/v1/surveys/{survey_id}/"


def new_survey(**fields):
    return {
        "title": "Workplace habits",
        **CLASSIC,
        "questions": [{"text": "Taken office supplies home?"}, {"text": "Used drugs at work?"}],
        **fields,
    }


def test_create_answers_201_with_id_slug_and_full_representation(owner_api, owner):
    response = owner_api.post(
        LIST_URL, new_survey(intro="Anonymous.", language="ko", min_n=10, ci_method="exact")
    )
    assert response.status_code == 201
    body = response.json()
    survey = Survey.objects.get(pk=body["id"], owner=owner)
    assert body["slug"] == survey.slug
    assert body["status"] == "draft"
    assert body["language"] == "ko"
    assert body["intro"] == "Anonymous."
    assert body["min_n"] == 10
    assert body["ci_method"] == "exact"
    assert body["confidence"] == 0.95
    assert body["response_count"] == 0
    assert body["questions_locked"] is False
    assert [q["text"] for q in body["questions"]] == [
        "Taken office supplies home?",
        "Used drugs at work?",
    ]
    assert [q["id"] for q in body["questions"]] == list(
        survey.questions.values_list("id", flat=True)
    )
    assert [q["position"] for q in body["questions"]] == [0, 1]
    assert body["epsilon"] == pytest.approx(math.log(3))
    assert body["epsilon_total"] == pytest.approx(2 * math.log(3))
    assert body["respond_url"] == f"http://testserver/s/{survey.slug}/"


def test_create_with_no_questions_makes_a_draft_to_fill_later(owner_api):
    response = owner_api.post(LIST_URL, new_survey(questions=[]))
    assert response.status_code == 201
    assert response.json()["questions"] == []


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"title": ""}, "title"),
        ({"title": "   "}, "title"),
        ({"title": "x" * 201}, "title"),
        ({"title": 7}, "title"),
        ({"title": None}, "title"),
        ({"p_truth": 1.0}, "p_truth"),
        ({"p_truth": 0}, "p_truth"),
        ({"p_truth": "0.5"}, "p_truth"),
        ({"p_truth": True}, "p_truth"),
        ({"p_forced_yes": -0.1}, "p_forced_yes"),
        ({"p_forced_yes": 1e-400}, "p_forced_yes"),
        ({"p_forced_yes": 10**400}, "p_forced_yes"),
        ({"language": "xx"}, "language"),
        ({"confidence": 1}, "confidence"),
        ({"confidence": 0.3}, "confidence"),
        ({"ci_method": "bootstrap"}, "ci_method"),
        ({"min_n": -1}, "min_n"),
        ({"min_n": 2.5}, "min_n"),
        ({"min_n": 10**30}, "min_n"),
        ({"questions": "Q?"}, "questions"),
        ({"questions": ["Q?"]}, "questions"),
        ({"questions": [{"text": ""}]}, "questions"),
        ({"questions": [{"text": "x" * 1001}]}, "questions"),
        ({"questions": [{"text": "Q?", "answer": "yes"}]}, "questions"),
        ({"questions": [{"text": "Q?"}] * 101}, "questions"),
        ({"status": "open", "colour": "red"}, "colour"),
    ],
)
def test_create_rejects_bad_field_naming_it_and_stores_nothing(owner_api, change, field):
    body = new_survey(**change)
    response = owner_api.post(LIST_URL, body)
    assert response.status_code == 400
    payload = response.json()
    assert field in payload["errors"]
    assert payload["detail"].startswith(f"{field}: ")
    assert not Survey.objects.exists()
    assert not Question.objects.exists()


@pytest.mark.parametrize("missing", ["title", "p_truth", "p_forced_yes", "questions"])
def test_create_requires_title_design_and_questions(owner_api, missing):
    body = new_survey()
    del body[missing]
    response = owner_api.post(LIST_URL, body)
    assert response.status_code == 400
    assert response.json()["errors"] == {missing: ["This field is required."]}


def test_nested_question_errors_say_which_question(owner_api):
    response = owner_api.post(LIST_URL, new_survey(questions=[{"text": "Fine?"}, {}]))
    assert response.json()["errors"]["questions"] == ["[1] text: This field is required."]


def test_list_shows_only_own_surveys_newest_first(owner_api, make_survey, other_researcher):
    older = make_survey(title="Older")
    newer = make_survey(title="Newer")
    make_survey(by=other_researcher, title="Not mine")
    response = owner_api.get(LIST_URL)
    assert response.status_code == 200
    assert [item["id"] for item in response.json()] == [newer.id, older.id]


def test_get_returns_the_survey_with_questions_and_counts(owner_api, open_survey, submit):
    submit(open_survey, [True, False])
    body = owner_api.get(detail_url(open_survey.id)).json()
    assert body["id"] == open_survey.id
    assert body["status"] == "open"
    assert body["response_count"] == 1
    assert body["questions_locked"] is True
    assert len(body["questions"]) == 2


def test_patch_changes_only_the_fields_sent(owner_api, make_survey):
    survey = make_survey(status="draft", intro="Old intro")
    response = owner_api.patch(detail_url(survey.id), {"title": "New title", "min_n": 5})
    assert response.status_code == 200
    survey.refresh_from_db()
    assert (survey.title, survey.min_n, survey.intro) == ("New title", 5, "Old intro")
    assert response.json()["title"] == "New title"


def test_patch_questions_replaces_the_list(owner_api, make_survey):
    survey = make_survey(status="draft")
    response = owner_api.patch(detail_url(survey.id), {"questions": [{"text": "Only this one?"}]})
    assert response.status_code == 200
    assert [q["text"] for q in response.json()["questions"]] == ["Only this one?"]
    assert list(survey.questions.values_list("text", flat=True)) == ["Only this one?"]


def test_patch_accepts_its_own_representation_back(owner_api, make_survey):
    survey = make_survey(status="draft")
    representation = owner_api.get(detail_url(survey.id)).json()
    representation["title"] = "Round trip"
    response = owner_api.patch(detail_url(survey.id), representation)
    assert response.status_code == 200
    assert response.json()["title"] == "Round trip"


@pytest.mark.parametrize(
    "change",
    [
        {"questions": [{"text": "Sneaky new question?"}]},
        {"p_truth": 0.75},
        {"p_forced_yes": 0.25},
    ],
)
def test_questions_and_coins_are_409_once_responses_exist(owner_api, open_survey, submit, change):
    submit(open_survey, [True, True])
    before = list(open_survey.questions.values_list("id", "text"))
    response = owner_api.patch(detail_url(open_survey.id), change)
    assert response.status_code == 409
    assert "has been opened" in response.json()["detail"]
    open_survey.refresh_from_db()
    assert (open_survey.p_truth, open_survey.p_forced_yes) == (0.5, 0.5)
    assert list(open_survey.questions.values_list("id", "text")) == before


@pytest.mark.parametrize(
    "change",
    [
        {"questions": [{"text": "Sneaky new question?"}]},
        {"p_truth": 0.75},
        {"p_forced_yes": 0.25},
    ],
)
def test_questions_and_coins_are_409_once_opened_even_without_responses(
    owner_api, make_survey, change
):
    # The attack of issue 12: open with one design, close, switch coins, reopen. Respondents
    # may hold the page from the first opening on, so the design is frozen from then.
    survey = services.survey_close(survey=make_survey())
    assert survey.response_count == 0
    fingerprint = survey.design_fingerprint
    response = owner_api.patch(detail_url(survey.id), change)
    assert response.status_code == 409
    assert "has been opened" in response.json()["detail"]
    survey.refresh_from_db()
    assert (survey.p_truth, survey.p_forced_yes, survey.design_fingerprint) == (
        0.5,
        0.5,
        fingerprint,
    )
    assert owner_api.get(detail_url(survey.id)).json()["questions_locked"] is True


def test_a_draft_survey_is_not_locked(owner_api, make_survey):
    survey = make_survey(status="draft")
    response = owner_api.patch(detail_url(survey.id), {"p_truth": 0.25})
    assert response.status_code == 200
    assert response.json()["questions_locked"] is False


@pytest.mark.parametrize(
    ("coins", "accepted"),
    [
        # ln 9 exactly (a = 9b): p_truth 0.8, p_forced_yes 0.5 -> a 0.9, b 0.1.
        ({"p_truth": 0.8, "p_forced_yes": 0.5}, True),
        ({"p_truth": 0.81, "p_forced_yes": 0.5}, False),
        # Issue 12's example: ε = 13.8 per answer.
        ({"p_truth": 0.999, "p_forced_yes": 0.001}, False),
        ({"p_truth": 0.5, "p_forced_yes": 0.5}, True),
    ],
)
def test_coins_above_the_epsilon_ceiling_are_refused(owner_api, make_survey, coins, accepted):
    survey = make_survey(status="draft")
    response = owner_api.patch(detail_url(survey.id), coins)
    if accepted:
        assert response.status_code == 200
        return
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["p_truth"]
    assert "ceiling" in response.json()["detail"]
    survey.refresh_from_db()
    assert (survey.p_truth, survey.p_forced_yes) == (0.5, 0.5)
    created = owner_api.post(
        reverse("api:survey-list"), {"title": "Too weak", "questions": [], **coins}
    )
    assert created.status_code == 400


def test_the_epsilon_ceiling_follows_the_setting(owner_api, make_survey, settings):
    settings.MAX_EPSILON_PER_ANSWER = 0.6  # stronger than the classic ln 3 ≈ 1.10
    survey = make_survey(status="draft")
    response = owner_api.patch(detail_url(survey.id), {"title": "Same coins", "p_truth": 0.5})
    assert response.status_code == 400
    assert owner_api.patch(detail_url(survey.id), {"p_truth": 0.25}).status_code == 200


def test_a_draft_whose_coins_exceed_the_ceiling_cannot_open(owner_api, make_survey, settings):
    survey = make_survey(status="draft")
    settings.MAX_EPSILON_PER_ANSWER = 0.6  # lowered after the coins were saved
    response = owner_api.post(reverse("api:survey-open", kwargs={"survey_id": survey.id}))
    assert response.status_code == 409
    assert list(response.json()["errors"]) == ["p_truth"]
    survey.refresh_from_db()
    assert (survey.status, survey.opened_at) == ("draft", None)


def test_title_can_still_change_once_responses_exist(owner_api, open_survey, submit):
    submit(open_survey, [True, True])
    response = owner_api.patch(detail_url(open_survey.id), {"title": "Renamed"})
    assert response.status_code == 200


def test_patch_rejects_bad_field_and_changes_nothing(owner_api, make_survey):
    survey = make_survey(status="draft")
    response = owner_api.patch(detail_url(survey.id), {"title": "Fine", "p_truth": 2})
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["p_truth"]
    survey.refresh_from_db()
    assert survey.title == "Workplace habits"


def test_delete_removes_the_survey(owner_api, open_survey, submit):
    submit(open_survey, [True, False])
    response = owner_api.delete(detail_url(open_survey.id))
    assert response.status_code == 204
    assert not Survey.objects.filter(pk=open_survey.pk).exists()


def test_open_then_close(owner_api, make_survey):
    survey = make_survey(status="draft")
    opened = owner_api.post(f"/api/v1/surveys/{survey.id}/open/")
    assert opened.status_code == 200
    assert opened.json()["status"] == "open"
    closed = owner_api.post(f"/api/v1/surveys/{survey.id}/close/")
    assert closed.status_code == 200
    assert closed.json()["status"] == "closed"
    survey.refresh_from_db()
    assert survey.status == Survey.Status.CLOSED


def test_opening_a_survey_without_questions_is_409(owner_api, make_survey):
    survey = make_survey(status="draft", questions=[])
    response = owner_api.post(f"/api/v1/surveys/{survey.id}/open/")
    assert response.status_code == 409
    assert response.json() == {
        "detail": "Add at least one question before opening the survey.",
        "errors": {},
    }
    survey.refresh_from_db()
    assert survey.status == Survey.Status.DRAFT


def test_unsupported_method_is_405_in_the_error_shape(owner_api, open_survey):
    response = owner_api.put(detail_url(open_survey.id), new_survey())
    assert response.status_code == 405
    assert response.json()["detail"] == 'Method "PUT" not allowed.'
