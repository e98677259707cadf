"""The public endpoints: a survey's definition by slug, and the single submission path."""

import math
import uuid

import pytest
from rest_framework.exceptions import ValidationError

from surveys import selectors, services
from surveys.api.serializers.submissions import AnswersField
from surveys.models import Submission
from surveys.services import translations
from tests.helpers import MIXED_QUESTIONS, question_tallies, translation_texts

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
        "grouping_questions", "design_fingerprint", "shared_devices", "shuffle_questions",
        "default_language",
        "languages", "submission_length", "access", "token_key", "token_scheme", "control_share",
        # The practice rounds of a comprehension check (empty here): designs and hidden ids.
        "comprehension",
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
        lambda ids: f"answers.{ids[0]}",
    ),
    "answer a number": (
        lambda b, ids: {**b, "answers": {str(ids[0]): 1, str(ids[1]): True}},
        lambda ids: f"answers.{ids[0]}",
    ),
    "answer null": (
        lambda b, ids: {**b, "answers": {str(ids[0]): None, str(ids[1]): True}},
        lambda ids: f"answers.{ids[0]}",
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


# --- question types (issue 17) -------------------------------------------------------------


def test_definition_gives_each_question_its_type_parameters_and_epsilon(respondent, mixed_survey):
    body = respondent.get(f"/api/v1/public/surveys/{mixed_survey.slug}/").json()
    plain, warner, choice, numeric = body["questions"]
    common = {"id", "text", "required", "type", "epsilon"}
    assert set(plain) == set(warner) == common | {"design"}
    assert plain["type"] == warner["type"] == "yes_no"
    # An empty design is the survey's two coins, spelled as dpengine spells forced response.
    assert plain["design"] == {"kind": "forced_response", "p_truth": 0.5, "p_forced_yes": 0.5}
    assert warner["design"] == {"kind": "warner", "p": 0.75}
    assert plain["epsilon"] == pytest.approx(math.log(3))
    assert warner["epsilon"] == pytest.approx(math.log(3))  # p / (1 - p) = 3
    assert set(choice) == common | {"options"}
    assert (choice["type"], choice["options"]) == ("choice", ["None", "Pens", "Paper"])
    assert choice["epsilon"] == pytest.approx(math.log(3))  # the default ε of a typed question
    assert set(numeric) == common | {"min", "max", "report_min", "report_max"}
    assert (numeric["type"], numeric["min"], numeric["max"], numeric["epsilon"]) == (
        "numeric",
        0,
        30,
        2.0,
    )
    # The reports the server accepts (dpengine.report_bounds): 311 = ceil(20.7233 x 30 / 2).
    assert (numeric["report_min"], numeric["report_max"]) == (-311, 341)
    # The total is the ledger's: every question's ε added up (3 ln 3 + 2), not 4 × the coins'.
    assert body["epsilon_total"] == pytest.approx(3 * math.log(3) + 2.0)
    assert body["epsilon_total"] == pytest.approx(sum(q["epsilon"] for q in body["questions"]))
    assert body["epsilon_per_answer"] == pytest.approx(math.log(3))


def test_definition_epsilon_is_the_decimal_the_browser_samples_with(respondent, mixed_survey):
    # JSON writes a float as its repr: exactly the string browser_parameters gives, which
    # exact.js and dpengine both read as the same rational.
    response = respondent.get(f"/api/v1/public/surveys/{mixed_survey.slug}/")
    raw = response.content.decode()
    for question in mixed_survey.questions.exclude(kind="yes_no"):
        expected = selectors.browser_parameters(question, survey=mixed_survey)["epsilon"]
        assert f'"epsilon":{expected}' in raw.replace(" ", "")


def test_definition_gives_option_labels_in_the_language_asked_for(respondent, make_survey):
    survey = make_survey(questions=MIXED_QUESTIONS, status="draft")
    translations.survey_translations_save(
        survey=survey, texts=translation_texts(survey, into=("ko",))
    )
    choice = survey.questions.get(kind="choice")
    choice.translations = {
        **choice.translations,
        "ko": {**choice.translations.get("ko", {}), "options": ["없음", "펜", "종이"]},
    }
    choice.save(update_fields=["translations"])
    survey = services.survey_open(survey=survey)
    url = f"/api/v1/public/surveys/{survey.slug}/"
    korean = respondent.get(url, {"lang": "ko"}).json()
    english = respondent.get(url).json()
    assert korean["language"] == "ko"
    assert korean["questions"][2]["options"] == ["없음", "펜", "종이"]
    assert english["questions"][2]["options"] == ["None", "Pens", "Paper"]


def test_typed_answers_are_accepted_as_integers_and_stored(respondent, mixed_survey):
    ids = [str(i) for i in mixed_survey.questions.values_list("id", flat=True)]
    body = {
        "submission_id": str(uuid.uuid4()),
        "answers": dict(zip(ids, [True, False, 2, -7], strict=True)),
    }
    response = respondent.post(responses_url(mixed_survey), body, format="json")
    assert response.status_code == 201, response.json()
    stored = Submission.objects.get(survey=mixed_survey).reports
    assert stored == {f"q{ids[0]}": True, f"q{ids[1]}": False, f"q{ids[2]}": 2, f"q{ids[3]}": -7}


@pytest.mark.parametrize(
    ("position", "value"),
    [
        (2, 1.0),  # a float, even a whole one
        (2, "1"),  # a string
        (2, True),  # a boolean for a choice question
        (2, 3),  # no option 3 of 3
        (3, 17.5),
        (3, "17"),
        (3, False),
        (3, None),
        (0, 1),  # an integer for a yes/no question
        (1, 0),
    ],
)
def test_a_report_of_the_wrong_json_type_is_400_naming_the_question(
    respondent, mixed_survey, position, value
):
    ids = [str(i) for i in mixed_survey.questions.values_list("id", flat=True)]
    answers = dict(zip(ids, [True, False, 2, 5], strict=True))
    answers[ids[position]] = value
    body = {"submission_id": str(uuid.uuid4()), "answers": answers}
    response = respondent.post(responses_url(mixed_survey), body, format="json")
    assert response.status_code == 400
    errors = response.json()["errors"]
    # Every type's refusal names the question's own field.
    assert list(errors) == [f"answers.{ids[position]}"]
    if position < 2:
        (message,) = errors[f"answers.{ids[position]}"]
        assert f"question {ids[position]} must be true or false" in message
    assert not Submission.objects.exists()


def test_the_schema_documents_reports_as_booleans_or_integers(respondent):
    schema = respondent.get("/api/schema/?format=json").json()
    submission = schema["components"]["schemas"]["SubmissionRequest"]["properties"]["answers"]
    assert submission["additionalProperties"] == {
        "oneOf": [{"type": "boolean"}, {"type": "integer"}]
    }
    example = submission["example"]
    assert {type(value) for value in example.values()} == {bool, int}
    question = schema["components"]["schemas"]["PublicQuestion"]["properties"]
    assert {"type", "epsilon", "design", "options", "min", "max"} <= set(question)


def test_the_answers_field_refuses_what_is_not_a_boolean_or_an_integer():
    field = AnswersField()
    assert field.run_validation({"1": True, "2": 3, "3": -4}) == {"1": True, "2": 3, "3": -4}
    for bad in (1.0, "1", None, [1]):
        with pytest.raises(ValidationError):
            field.run_validation({"1": bad})


def test_the_accepted_answer_is_what_json_response_writes():
    from django.http import JsonResponse

    from surveys.api.public import accepted_response

    submission_id = uuid.uuid4()
    ours = accepted_response(submission_id)
    theirs = JsonResponse({"submission_id": str(submission_id), "status": "recorded"}, status=201)
    assert ours.status_code == theirs.status_code == 201
    assert ours.content == theirs.content
    assert dict(ours.headers) == dict(theirs.headers)
