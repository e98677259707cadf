"""Direct questions through the API (issue 27 item 1): ``"randomized": false`` on yes/no,
choice and numeric questions and the direct-only ``text`` type; read back as direct, outside
ε; bad parameters answer 400 naming ``questions.<index>.<field>``; the fingerprint changes
with ``randomized``; text answers keep the body's one length in any script."""

import json
import uuid

import pytest

from surveys import selectors, services
from surveys.models import Question, Submission, Survey
from surveys.services.answers import text_answer_decode, text_answer_encode

pytestmark = pytest.mark.django_db

LIST_URL = "/api/v1/surveys/"

DIRECT = [
    {"text": "Ever taken supplies home?"},
    {"text": "Do you manage people?", "randomized": False},
    {"text": "Department?", "type": "choice", "options": ["A", "B", "C"], "randomized": False},
    {"text": "Years here?", "type": "numeric", "min": 0, "max": 40, "randomized": False},
    {"text": "Anything else?", "type": "text", "randomized": False, "required": False},
]


def create(owner_api, questions):
    return owner_api.post(
        LIST_URL,
        {"title": "Direct", "p_truth": 0.5, "p_forced_yes": 0.5, "questions": questions},
        format="json",
    )


def test_direct_questions_are_created_and_read_back_as_direct(owner_api):
    response = create(owner_api, DIRECT)
    assert response.status_code == 201, response.json()
    body = response.json()
    questions = body["questions"]
    assert [q["randomized"] for q in questions] == [True, False, False, False, False]
    assert [q["type"] for q in questions] == ["yes_no", "yes_no", "choice", "numeric", "text"]
    assert [q["design_name"] for q in questions[1:]] == ["direct"] * 4
    for question in questions[1:]:
        assert question["epsilon"] is None and question["design"] is None
    assert questions[2]["options"] == ["A", "B", "C"]
    assert (questions[3]["min"], questions[3]["max"]) == (0, 40)
    # Only the randomized question counts towards ε.
    survey = Survey.objects.get(pk=body["id"])
    ledger = selectors.privacy_ledger(survey=survey)
    assert body["epsilon_total"] == pytest.approx(ledger.total_epsilon)
    assert ledger.questions == 1 and len(ledger.direct) == 4
    assert ledger.total_epsilon == pytest.approx(survey_coins_epsilon(survey))


def survey_coins_epsilon(survey):
    return selectors.survey_coins(survey).epsilon


@pytest.mark.parametrize(
    ("question", "field", "words"),
    [
        ({"text": "Why?", "type": "text"}, "questions.0.randomized", "randomized false"),
        (
            {"text": "Why?", "type": "text", "randomized": True},
            "questions.0.randomized",
            "directly",
        ),
        ({"text": "Ever?", "randomized": "no"}, "questions.0.randomized", "true or false"),
        (
            {"text": "Ever?", "randomized": False, "design": {"kind": "warner", "p": 0.75}},
            "questions.0.design",
            "direct",
        ),
        (
            {
                "text": "How?",
                "type": "choice",
                "options": ["a", "b"],
                "randomized": False,
                "epsilon": 1.0,
            },
            "questions.0.epsilon",
            "direct",
        ),
        ({"text": "Why?", "type": "text", "randomized": False, "min": 0}, "questions.0.min", ""),
        (
            {"text": "Years?", "type": "numeric", "min": 5, "max": 5, "randomized": False},
            "questions.0.max",
            "",
        ),
    ],
)
def test_bad_direct_parameters_are_400s_naming_the_field(owner_api, question, field, words):
    before = Survey.objects.count()
    response = create(owner_api, [question])
    assert response.status_code == 400
    errors = response.json()["errors"] if "errors" in response.json() else response.json()
    assert field in json.dumps(errors), errors
    assert words in json.dumps(errors, ensure_ascii=False), errors
    assert Survey.objects.count() == before


def test_at_most_five_text_questions(owner_api):
    texts = [{"text": f"Why {n}?", "type": "text", "randomized": False} for n in range(6)]
    response = create(owner_api, texts)
    assert response.status_code == 400
    assert "questions" in json.dumps(response.json())
    assert create(owner_api, texts[:5]).status_code == 201


def test_the_fingerprint_changes_with_randomized(make_survey):
    fingerprints = set()
    for randomized in (True, False):
        for kind in ({}, {"type": "choice", "options": ["A", "B"]}):
            spec = {"text": "Ever?", **kind}
            if not randomized:
                spec["randomized"] = False
            survey = make_survey(status="draft", questions=[spec])
            fingerprints.add(selectors.survey_design_fingerprint(survey=survey))
    assert len(fingerprints) == 4


@pytest.mark.slow
def test_text_answers_are_stored_as_written_in_a_body_of_the_one_length(respondent, make_survey):
    survey = make_survey(status="draft", questions=DIRECT)
    survey = services.survey_open(survey=survey)
    spec = respondent.get(f"/api/v1/public/surveys/{survey.slug}/").json()
    ids = [q["id"] for q in spec["questions"]]
    assert spec["questions"][4]["direct"] is True
    lengths = set()
    for text in ("", "No.", '직장 내 괴롭힘은 없었다 — "정말"', "가" * 100):
        body = {
            "submission_id": str(uuid.uuid4()),
            "answers": {
                str(ids[0]): True,
                str(ids[1]): False,
                str(ids[2]): 2,
                str(ids[3]): 40,
                str(ids[4]): text_answer_encode(text),
            },
            "design_fingerprint": spec["design_fingerprint"],
        }
        bare = len(json.dumps({**body, "padding": ""}, separators=(",", ":")).encode())
        body["padding"] = " " * (spec["submission_length"] - bare)
        raw = json.dumps(body, separators=(",", ":"))
        lengths.add(len(raw.encode()))
        response = respondent.post(
            f"/api/v1/public/surveys/{survey.slug}/responses/", raw, content_type="application/json"
        )
        assert response.status_code == 201, response.json()
        stored = Submission.objects.get(submission_id=body["submission_id"]).reports
        assert stored[f"q{ids[4]}"] == text
        assert stored[f"q{ids[3]}"] == 40
    assert lengths == {spec["submission_length"]}


@pytest.mark.parametrize(
    "value",
    [
        "plain words",
        text_answer_encode("ok")[:-4],
        text_answer_encode("ok") + "AAAA",
        7,
    ],
)
def test_a_text_answer_not_encoded_as_the_page_does_is_a_400_naming_it(
    respondent, make_survey, value
):
    survey = services.survey_open(
        survey=make_survey(status="draft", questions=[DIRECT[4] | {"required": True}])
    )
    qid = survey.questions.get().pk
    response = respondent.post(
        f"/api/v1/public/surveys/{survey.slug}/responses/",
        {"submission_id": str(uuid.uuid4()), "answers": {str(qid): value}},
        format="json",
    )
    assert response.status_code == 400
    assert f"answers.{qid}" in json.dumps(response.json())
    assert not Submission.objects.filter(survey=survey).exists()


def test_a_direct_number_outside_its_range_is_refused(respondent, make_survey):
    survey = services.survey_open(survey=make_survey(status="draft", questions=[DIRECT[3]]))
    qid = survey.questions.get().pk
    response = respondent.post(
        f"/api/v1/public/surveys/{survey.slug}/responses/",
        {"submission_id": str(uuid.uuid4()), "answers": {str(qid): 41}},
        format="json",
    )
    assert response.status_code == 400
    assert f"answers.{qid}" in json.dumps(response.json())


def test_text_encoding_round_trips_korean_within_the_byte_limit():
    for text in ("", "가" * 100, "x" * 300, "\u00e9" * 150):
        encoded = text_answer_encode(text)
        assert len(encoded) == 400 and encoded.isascii()
        assert text_answer_decode(encoded) == text
    with pytest.raises(ValueError):
        text_answer_encode("가" * 101)  # 303 bytes
    assert Question.Kind.TEXT == "text"
