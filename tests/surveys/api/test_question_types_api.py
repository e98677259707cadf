"""Question types through the API (issue 17): a survey created and changed with typed questions,
each read back with its type, parameters, design name and ε; bad parameters answer 400 naming
``questions.<index>.<field>`` with nothing stored; option labels translated."""

import math

import pytest

from dpengine import Kuk, Warner
from surveys import selectors
from surveys.models import Survey
from surveys.selectors import languages

pytestmark = pytest.mark.django_db

LIST_URL = "/api/v1/surveys/"
LN3 = math.log(3)

TYPED = [
    {"text": "Taken office supplies home?"},
    {"text": "Lied to your manager?", "design": {"kind": "warner", "p": 0.75}},
    {"text": "Cards?", "type": "yes_no", "design": {"kind": "kuk"}},
    {"text": "Which did you take?", "type": "choice", "options": ["None", "Pens", "Paper"]},
    {"text": "Drinks a week?", "type": "numeric", "min": 0, "max": 30, "epsilon": 2.0},
]


def new_survey(questions=TYPED, **fields):
    return {
        "title": "Habits",
        "p_truth": 0.5,
        "p_forced_yes": 0.5,
        "questions": questions,
        **fields,
    }


def detail_url(survey_id):
    return f"/api/v1/surveys/{survey_id}/"


def test_typed_questions_are_created_and_read_back_whole(owner_api):
    response = owner_api.post(LIST_URL, new_survey(), format="json")
    assert response.status_code == 201, response.json()
    questions = response.json()["questions"]
    common = {"translations": {}, "required": True}
    expected = [
        {"type": "yes_no", "design": {}, "options": None, "min": None, "max": None},
        {
            "type": "yes_no",
            "design": {"kind": "warner", "p": 0.75},
            "options": None,
            "min": None,
            "max": None,
        },
        {"type": "yes_no", "design": {"kind": "kuk", **Kuk().parameters}, "options": None},
        {"type": "choice", "design": None, "options": ["None", "Pens", "Paper"], "max": None},
        {"type": "numeric", "design": None, "options": None, "min": 0, "max": 30},
    ]
    for question, fields in zip(questions, expected, strict=True):
        assert question.items() >= {**common, **fields}.items()
    assert [q["design_name"] for q in questions] == [
        "forced_response",
        "warner",
        "kuk",
        "choice",
        "numeric",
    ]
    assert [q["epsilon"] for q in questions] == pytest.approx(
        [LN3, Warner().epsilon, Kuk().epsilon, LN3, 2.0]
    )
    body = response.json()
    assert body["epsilon"] == pytest.approx(LN3)  # the survey's coins
    assert body["epsilon_total"] == pytest.approx(LN3 + LN3 + Kuk().epsilon + LN3 + 2.0)
    survey = Survey.objects.get(pk=body["id"])
    ledger = selectors.privacy_ledger(survey=survey)
    assert body["epsilon_total"] == pytest.approx(ledger.total_epsilon)


def test_a_client_sending_only_texts_gets_yes_no_questions_as_before(owner_api):
    response = owner_api.post(LIST_URL, new_survey(questions=[{"text": "Ever?"}]), format="json")
    assert response.status_code == 201
    (question,) = response.json()["questions"]
    assert question["type"] == "yes_no" and question["design"] == {}


def test_a_read_survey_echoed_back_is_accepted_unchanged(owner_api):
    created = owner_api.post(LIST_URL, new_survey(), format="json").json()
    echoed = [
        {key: value for key, value in q.items() if key not in ("id", "position")}
        for q in created["questions"]
    ]
    response = owner_api.patch(detail_url(created["id"]), {"questions": echoed}, format="json")
    assert response.status_code == 200, response.json()
    strip = lambda qs: [{k: v for k, v in q.items() if k != "id"} for q in qs]  # noqa: E731
    assert strip(response.json()["questions"]) == strip(created["questions"])


def test_update_changes_types(owner_api):
    created = owner_api.post(LIST_URL, new_survey(questions=[{"text": "Ever?"}]), format="json")
    survey_id = created.json()["id"]
    questions = [{"text": "How many?", "type": "numeric", "min": 1, "max": 9}]
    response = owner_api.patch(detail_url(survey_id), {"questions": questions}, format="json")
    assert response.status_code == 200
    (question,) = response.json()["questions"]
    assert question["type"] == "numeric" and question["epsilon"] == pytest.approx(LN3)


@pytest.mark.parametrize(
    ("question", "field"),
    [
        ({"type": "rating"}, "questions.1.type"),
        ({"type": "choice", "options": ["only"]}, "questions.1.options"),
        ({"type": "choice", "options": ["a", ""]}, "questions.1.options.1"),
        ({"type": "choice", "options": ["a", "b"], "epsilon": 99}, "questions.1.epsilon"),
        ({"type": "choice", "options": ["a", "b"], "epsilon": "1"}, "questions.1.epsilon"),
        ({"type": "numeric", "min": 3, "max": 1}, "questions.1.max"),
        ({"type": "numeric", "min": 0.5, "max": 3}, "questions.1.min"),
        ({"type": "numeric", "min": 0, "max": 3, "options": ["a", "b"]}, "questions.1.options"),
        ({"design": {"kind": "coin"}}, "questions.1.design.kind"),
        ({"design": {"kind": "warner", "p": 0.5}}, "questions.1.design.p"),
        ({"design": {"kind": "mangat", "t": 0}}, "questions.1.design.t"),
        ({"design": {"kind": "warner", "p": "0.7"}}, "questions.1.design.p"),
        ({"design": "warner"}, "questions.1.design"),
    ],
)
def test_bad_parameters_answer_400_naming_the_field_and_store_nothing(
    owner_api, owner, question, field
):
    questions = [{"text": "Fine?"}, {"text": "Bad?", **question}]
    response = owner_api.post(LIST_URL, new_survey(questions=questions), format="json")
    assert response.status_code == 400
    assert list(response.json()["errors"]) == [field]
    assert not Survey.objects.filter(owner=owner).exists()


def test_a_refused_update_leaves_the_questions_as_they_were(owner_api):
    created = owner_api.post(LIST_URL, new_survey(), format="json").json()
    bad = [{"text": "New?"}, {"text": "Bad?", "type": "numeric", "min": 0, "max": 5000}]
    response = owner_api.patch(
        detail_url(created["id"]), {"title": "Renamed", "questions": bad}, format="json"
    )
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["questions.1.max"]
    again = owner_api.get(detail_url(created["id"])).json()
    assert again["title"] == "Habits"
    assert again["questions"] == created["questions"]


def test_option_labels_are_translated_through_the_api(owner_api):
    questions = [
        {
            "text": "Which?",
            "type": "choice",
            "options": ["Red", "Blue"],
            "translations": {"ko": {"text": "어느 것?", "options": ["빨강", "파랑"]}},
        }
    ]
    response = owner_api.post(LIST_URL, new_survey(questions=questions), format="json")
    assert response.status_code == 201, response.json()
    (question,) = response.json()["questions"]
    assert question["translations"] == {"ko": {"text": "어느 것?", "options": ["빨강", "파랑"]}}


@pytest.mark.parametrize(
    ("translations", "message"),
    [
        ({"ko": {"options": ["빨강"]}}, "one label per option: 2, got 1"),
        ({"ko": {"options": "빨강"}}, "list of option labels"),
        ({"ko": {"options": ["빨강", 3]}}, "Must be text"),
    ],
)
def test_bad_option_translations_are_refused(owner_api, owner, translations, message):
    questions = [
        {
            "text": "Which?",
            "type": "choice",
            "options": ["Red", "Blue"],
            "translations": translations,
        }
    ]
    response = owner_api.post(LIST_URL, new_survey(questions=questions), format="json")
    assert response.status_code == 400
    assert message in response.json()["errors"]["questions"][0]
    assert not Survey.objects.filter(owner=owner).exists()


def test_a_yes_no_question_has_no_options_to_translate(owner_api):
    questions = [{"text": "Ever?", "translations": {"ko": {"options": ["예", "아니오"]}}}]
    response = owner_api.post(LIST_URL, new_survey(questions=questions), format="json")
    assert response.status_code == 400
    assert "Only a multiple-choice question has options." in response.json()["detail"]


def test_translated_labels_make_the_language_offered(owner_api):
    questions = [{"text": "Which?", "type": "choice", "options": ["Red", "Blue"]}]
    translations = {"ko": {"text": "어느 것?", "options": ["빨강", ""]}}
    body = new_survey(questions=[{**questions[0], "translations": translations}])
    body["translations"] = {"ko": {"title": "습관"}}
    created = owner_api.post(LIST_URL, body, format="json").json()
    assert created["languages"] == ["en"]  # one label missing
    questions[0]["translations"] = {"ko": {"text": "어느 것?", "options": ["빨강", "파랑"]}}
    response = owner_api.patch(detail_url(created["id"]), {"questions": questions}, format="json")
    assert response.json()["languages"] == ["en", "ko"]
    survey = languages.survey_for_respondent(
        survey=Survey.objects.get(pk=created["id"]), preferences=["ko"]
    )
    assert survey.questions.all()[0].options == ["빨강", "파랑"]
