"""The public endpoints: a survey's definition by slug, and the single submission path."""

import math
import uuid

import pytest

from surveys.models import Submission
from tests.helpers import question_tallies

pytestmark = pytest.mark.django_db


def responses_url(survey):
    return f"/api/v1/public/surveys/{survey.slug}/responses/"


def test_definition_has_what_the_browser_needs_and_nothing_private(respondent, open_survey):
    response = respondent.get(f"/api/v1/public/surveys/{open_survey.slug}/")
    assert response.status_code == 200
    body = response.json()
    assert body["slug"] == open_survey.slug
    assert body["accepting_responses"] is True
    assert body["status"] == "open"
    assert (body["p_truth"], body["p_forced_yes"]) == (0.5, 0.5)
    assert body["epsilon_per_answer"] == pytest.approx(math.log(3))
    assert body["epsilon_total"] == pytest.approx(2 * math.log(3))
    assert [q["id"] for q in body["questions"]] == list(
        open_survey.questions.values_list("id", flat=True)
    )
    assert set(body) == {
        "slug", "title", "intro", "language", "status", "accepting_responses",
        "p_truth", "p_forced_yes", "epsilon_per_answer", "epsilon_total", "questions",
        "grouping_questions", "design_fingerprint", "shared_devices", "default_language",
        "languages",
        # Survey-level, the same for every respondent: the pilot flag, the schedule, consent.
        "pilot", "opens_at", "closes_at", "consent_text", "consent_version",
    }  # fmt: skip
    assert body["grouping_questions"] == []


def test_unknown_slug_is_404_in_the_error_shape(respondent):
    response = respondent.get("/api/v1/public/surveys/no-such-survey/")
    assert response.status_code == 404
    assert response.json() == {"detail": "Not found.", "errors": {}}


def test_submission_is_stored_with_its_randomized_bits(submit, open_survey):
    submission_id = uuid.uuid4()
    response = submit(open_survey, [True, False], submission_id=submission_id)
    assert response.status_code == 201
    assert response.json() == {"submission_id": str(submission_id), "status": "recorded"}
    stored = Submission.objects.get(survey=open_survey)
    assert stored.submission_id == submission_id
    first, second = open_survey.questions.all()
    assert stored.reports == {f"q{first.pk}": True, f"q{second.pk}": False}
    open_survey.refresh_from_db()
    assert open_survey.response_count == 1


def test_replayed_submission_is_stored_once_with_the_same_answer(submit, open_survey):
    submission_id = uuid.uuid4()
    first = submit(open_survey, [True, False], submission_id=submission_id)
    again = submit(open_survey, [True, False], submission_id=submission_id)
    changed = submit(open_survey, [False, False], submission_id=submission_id)
    assert first.status_code == again.status_code == changed.status_code == 201
    assert first.json() == again.json() == changed.json()
    first_id, second_id = open_survey.questions.values_list("id", flat=True)
    assert list(Submission.objects.values_list("reports", flat=True)) == [
        {f"q{first_id}": True, f"q{second_id}": False}  # the first attempt's, whole
    ]
    assert question_tallies(open_survey) == [(1, 1), (1, 0)]


def _valid(survey):
    ids = list(survey.questions.values_list("id", flat=True))
    return {"submission_id": str(uuid.uuid4()), "answers": {str(q): True for q in ids}}


def _without(body, key):
    return {k: v for k, v in body.items() if k != key}


MALFORMED = {
    "no submission id": (lambda b, ids: _without(b, "submission_id"), "submission_id"),
    "submission id not a uuid": (lambda b, ids: {**b, "submission_id": "abc"}, "submission_id"),
    "submission id a number": (lambda b, ids: {**b, "submission_id": 12.5}, "submission_id"),
    "no answers": (lambda b, ids: _without(b, "answers"), "answers"),
    # Both questions are required: the first one left out is named.
    "answers empty": (lambda b, ids: {**b, "answers": {}}, lambda ids: f"answers.{ids[0]}"),
    "answers a list": (lambda b, ids: {**b, "answers": [True, False]}, "answers"),
    "answer a string": (
        lambda b, ids: {**b, "answers": {str(ids[0]): "yes", str(ids[1]): True}},
        "answers",
    ),
    "answer a number": (
        lambda b, ids: {**b, "answers": {str(ids[0]): 1, str(ids[1]): True}},
        "answers",
    ),
    "answer null": (
        lambda b, ids: {**b, "answers": {str(ids[0]): None, str(ids[1]): True}},
        "answers",
    ),
    "a required question missing": (
        lambda b, ids: {**b, "answers": {str(ids[0]): True}},
        lambda ids: f"answers.{ids[1]}",
    ),
    "a foreign question": (
        lambda b, ids: {**b, "answers": {**b["answers"], "999999": True}},
        "answers",
    ),
    "question id not a number": (
        lambda b, ids: {**b, "answers": {**b["answers"], "first": True}},
        "answers",
    ),
    "a true answer smuggled in": (
        lambda b, ids: {**b, "true_answers": b["answers"]},
        "true_answers",
    ),
    "body a list": (lambda b, ids: [b], "non_field_errors"),
}


@pytest.mark.parametrize("case", MALFORMED)
def test_malformed_submission_is_400_naming_the_field_and_stores_nothing(
    respondent, open_survey, case
):
    ids = list(open_survey.questions.values_list("id", flat=True))
    make, field = MALFORMED[case]
    field = field(ids) if callable(field) else field
    response = respondent.post(
        f"/api/v1/public/surveys/{open_survey.slug}/responses/", make(_valid(open_survey), ids)
    )
    assert response.status_code == 400
    assert field in response.json()["errors"]
    assert not Submission.objects.exists()


@pytest.mark.parametrize(
    ("status", "message"),
    [
        ("draft", "This survey is not open for responses yet."),
        ("closed", "This survey is closed and no longer accepts responses."),
    ],
)
def test_draft_and_closed_surveys_refuse_responses_with_409(make_survey, submit, status, message):
    survey = make_survey(status=status)
    response = submit(survey, [True, False])
    assert response.status_code == 409
    assert response.json() == {"detail": message, "errors": {}}
    assert not Submission.objects.exists()


def test_submission_to_unknown_survey_is_404(respondent):
    response = respondent.post(
        "/api/v1/public/surveys/nope/responses/",
        {"submission_id": str(uuid.uuid4()), "answers": {"1": True}},
    )
    assert response.status_code == 404


def test_public_endpoints_ignore_credentials(respondent, open_survey):
    respondent.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    assert respondent.get(f"/api/v1/public/surveys/{open_survey.slug}/").status_code == 200


def test_a_retry_after_the_survey_closed_still_gets_the_first_answer(submit, open_survey):
    submission_id = uuid.uuid4()
    first = submit(open_survey, [True, False], submission_id=submission_id)
    open_survey.status = "closed"
    open_survey.save()
    retry = submit(open_survey, [True, False], submission_id=submission_id)
    assert (retry.status_code, retry.json()) == (201, first.json())
    assert Submission.objects.count() == 1
    assert submit(open_survey, [True, False]).status_code == 409


# The submission endpoint is a plain Django view (surveys/api/public.py, for speed); it must
# keep the contract the DRF views keep.


def test_submission_endpoint_answers_other_methods_405_in_the_error_shape(respondent, open_survey):
    response = respondent.get(responses_url(open_survey))
    assert response.status_code == 405
    assert response["Allow"] == "POST"
    assert response.json() == {"detail": 'Method "GET" not allowed.', "errors": {}}


def test_submission_endpoint_takes_json_only(respondent, open_survey):
    response = respondent.post(
        responses_url(open_survey),
        "submission_id=x",
        content_type="application/x-www-form-urlencoded",
    )
    assert response.status_code == 415
    assert response.json()["errors"] == {}
    assert not Submission.objects.exists()


def test_an_empty_submission_names_the_missing_fields(respondent, open_survey):
    response = respondent.post(responses_url(open_survey), b"", content_type="application/json")
    assert response.status_code == 400
    assert set(response.json()["errors"]) == {"submission_id", "answers"}


def test_a_malformed_body_for_no_survey_is_404_first(respondent):
    response = respondent.post("/api/v1/public/surveys/Nope1234Nope1234/responses/", [1, 2])
    assert response.status_code == 404
    assert response.json() == {"detail": "Not found.", "errors": {}}


def test_submission_errors_speak_the_respondents_language(respondent, open_survey):
    response = respondent.post(responses_url(open_survey), {}, HTTP_ACCEPT_LANGUAGE="ko")
    assert response.status_code == 400
    assert response.json()["errors"]["answers"] == ["필수 항목입니다."]


def test_the_schema_still_documents_the_submission_endpoint(respondent):
    schema = respondent.get("/api/schema/?format=json").json()
    post = schema["paths"]["/api/v1/public/surveys/{slug}/responses/"]["post"]
    assert post["operationId"] == "public_response_create"
    assert {"201", "400", "404", "409", "413", "415", "429"} <= set(post["responses"])
