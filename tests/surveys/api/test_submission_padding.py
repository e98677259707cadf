"""Every submission body of a survey has one length (issue 24): the definition names it, the
server accepts spaces in ``padding`` and ignores them, and refuses anything else there.
The browser side (static/js/body.js) is in tests/js/body.test.mjs and
tests/e2e/test_submission_shape.py."""

import json
import uuid

import pytest

from surveys import services
from surveys.models import PREFER_NOT_TO_SAY, Submission
from surveys.services import grouping
from tests.helpers import MIXED_QUESTIONS

pytestmark = pytest.mark.django_db


@pytest.fixture
def mixed_grouped_survey(make_survey):
    optional = [{**question, "required": False} for question in MIXED_QUESTIONS]
    survey = make_survey(questions=optional, status="draft")
    grouping.grouping_question_add(survey=survey, text="Department?", options=("A", "B"))
    return services.survey_open(survey=survey)


def definition(respondent, survey):
    return respondent.get(f"/api/v1/public/surveys/{survey.slug}/").json()


def post(respondent, survey, body):
    raw = json.dumps(body, separators=(",", ":"))
    response = respondent.post(
        f"/api/v1/public/surveys/{survey.slug}/responses/", raw, content_type="application/json"
    )
    return response, len(raw.encode())


def padded(body, length):
    bare = len(json.dumps({**body, "padding": ""}, separators=(",", ":")).encode())
    return {**body, "padding": " " * (length - bare)}


def test_the_length_is_the_widest_body_the_survey_can_receive(respondent, mixed_grouped_survey):
    survey = mixed_grouped_survey
    spec = definition(respondent, survey)
    yes_no, warner, choice, numeric = (q["id"] for q in spec["questions"])
    (gq,) = spec["grouping_questions"]
    # Reference: the numeric question's reports are accepted within dpengine.report_bounds of
    # [0, 30] at ε = 2 (the 1e-9 tail, 20.7233 noise scales): [-311, 341]; "-311" is the widest.
    widest = {
        "submission_id": str(uuid.uuid4()),
        "answers": {str(yes_no): False, str(warner): False, str(choice): 2, str(numeric): -311},
        "design_fingerprint": spec["design_fingerprint"],
        "groups": {str(gq["id"]): PREFER_NOT_TO_SAY},
        "order": [choice, yes_no, numeric, warner],  # the order the page showed
        "padding": "",
    }
    response, length = post(respondent, survey, widest)
    assert response.status_code == 201, response.json()
    assert spec["submission_length"] == length
    # Any wider report is refused: nothing accepted is longer.
    wider = {**widest, "submission_id": str(uuid.uuid4())}
    wider["answers"] = {**widest["answers"], str(numeric): -312}
    assert post(respondent, survey, wider)[0].status_code == 400


def test_padded_bodies_of_every_pattern_have_one_length_and_are_stored_alike(
    respondent, mixed_grouped_survey
):
    survey = mixed_grouped_survey
    spec = definition(respondent, survey)
    ids = [str(q["id"]) for q in spec["questions"]]
    gq = spec["grouping_questions"][0]
    patterns = [
        (
            {ids[0]: True, ids[1]: True, ids[2]: 0, ids[3]: 5},
            {str(gq["id"]): str(gq["options"][0]["id"])},
        ),
        (
            {ids[0]: False, ids[1]: False, ids[2]: 2, ids[3]: -45},
            {str(gq["id"]): PREFER_NOT_TO_SAY},
        ),
        ({ids[0]: True, ids[2]: 1}, {}),
    ]
    lengths = set()
    orders = [ids, ids[::-1], [ids[2], ids[0], ids[3], ids[1]]]
    for (answers, groups), order in zip(patterns, orders, strict=True):
        body = {
            "submission_id": str(uuid.uuid4()),
            "answers": answers,
            "design_fingerprint": spec["design_fingerprint"],
            "groups": groups,
            # Every order shown has the same ids, so the same length.
            "order": [int(qid) for qid in order],
        }
        response, length = post(respondent, survey, padded(body, spec["submission_length"]))
        assert response.status_code == 201, response.json()
        lengths.add(length)
        stored = Submission.objects.get(submission_id=body["submission_id"])
        assert stored.reports == {f"q{qid}": report for qid, report in answers.items()}
        assert stored.positions == {f"q{qid}": n for n, qid in enumerate(order, start=1)}
    assert lengths == {spec["submission_length"]}


@pytest.mark.parametrize(
    "padding, message",
    [
        ("   x", "Must be spaces only."),
        ("\t", "Must be spaces only."),
        (17, "Must be spaces only."),
        (None, "Must be spaces only."),
        (" " * 12289, "At most 12288 characters, got 12289."),
    ],
)
def test_padding_other_than_spaces_is_a_400_naming_it_and_stores_nothing(
    respondent, open_survey, padding, message
):
    ids = open_survey.questions.values_list("id", flat=True)
    body = {
        "submission_id": str(uuid.uuid4()),
        "answers": {str(qid): True for qid in ids},
        "padding": padding,
    }
    response, _length = post(respondent, open_survey, body)
    assert response.status_code == 400
    assert response.json()["errors"] == {"padding": [message]}
    assert not Submission.objects.exists()


def test_a_body_without_padding_is_still_accepted(respondent, open_survey):
    """Padding is the page's promise about sizes; other clients (docs/api.md) may leave it out."""
    ids = open_survey.questions.values_list("id", flat=True)
    body = {"submission_id": str(uuid.uuid4()), "answers": {str(qid): True for qid in ids}}
    assert post(respondent, open_survey, body)[0].status_code == 201
