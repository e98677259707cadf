"""Optional answers (docs/researchers.md, "Optional questions"): a skipped optional question
sends nothing
and is stored as nothing; a missing required one is a 400 naming it, storing nothing; every
estimate uses its own question's n; "Prefer not to say" is missing, never a group.

Runs on SQLite and PostgreSQL (``DATABASE_URL``), on the one-statement path and on the ORM
transaction (``SUBMISSION_STATEMENT`` off).
"""

import csv
import io
import re
import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

import dpengine
import dpengine.continual
from surveys import selectors, services
from surveys.exports.r import r_export_rows
from surveys.models import (
    PREFER_NOT_TO_SAY,
    GroupAnswer,
    GroupTally,
    Question,
    Submission,
    TallyShard,
)
from surveys.services import grouping, public_release
from tests.helpers import question_tallies


def published(slug, now):
    """The public page as a visitor sees it at ``now``: the releases due made, then read."""
    survey = selectors.public_results_survey(slug=slug)
    public_release.make_due_releases(survey=survey, today=selectors.utc_today(now))
    return selectors.public_results(survey=survey, now=now)


pytestmark = pytest.mark.django_db

QUESTIONS = [
    {"text": "Have you ever taken office supplies home?", "required": True},
    {"text": "Have you used drugs at work in the past year?", "required": False},
]


@pytest.fixture(params=["statement", "orm"])
def store_path(request, settings):
    settings.SUBMISSION_STATEMENT = request.param == "statement"
    return request.param


@pytest.fixture
def survey(make_survey, store_path):
    """Q1 required, Q2 optional; one grouping question (optional, the default): Team."""
    draft = make_survey(status="draft", questions=QUESTIONS, min_n=0)
    grouping.grouping_question_add(survey=draft, text="Team?", options=["Red", "Blue"])
    return services.survey_open(survey=draft)


def ids_of(survey):
    q1, q2 = survey.questions.values_list("id", flat=True)
    gq = survey.grouping_questions.get()
    red, blue = gq.options.values_list("id", flat=True)
    return q1, q2, gq.pk, red, blue


def post(respondent, survey, answers, groups=None, *, submission_id=None):
    body = {"submission_id": str(submission_id or uuid.uuid4()), "answers": answers}
    if groups is not None:
        body["groups"] = groups
    return respondent.post(f"/api/v1/public/surveys/{survey.slug}/responses/", body, format="json")


def nothing_stored(survey):
    return (
        not Submission.objects.exists()
        and not GroupAnswer.objects.exists()
        and survey.response_count == 0
        and question_tallies(survey) == [(0, 0), (0, 0)]
        and not any(n for _qid, _oid, n, _yes in GroupTally.objects.totals())
    )


def test_omitting_an_optional_question_stores_no_key_for_it(survey, respondent):
    q1, _q2, _gq, _red, _blue = ids_of(survey)
    response = post(respondent, survey, {str(q1): True})
    assert response.status_code == 201, response.json()
    assert Submission.objects.get().reports == {f"q{q1}": True}
    assert question_tallies(survey) == [(1, 1), (0, 0)]  # a missing answer is not a "no"
    assert survey.response_count == 1
    assert not GroupAnswer.objects.exists()  # the optional grouping question skipped too


def test_omitting_a_required_question_is_400_naming_it_and_stores_nothing(survey, respondent):
    q1, q2, _gq, _red, _blue = ids_of(survey)
    response = post(respondent, survey, {str(q2): True})
    assert response.status_code == 400
    body = response.json()
    assert list(body["errors"]) == [f"answers.{q1}"]
    assert body["detail"].startswith(f"answers.{q1}: ")
    assert nothing_stored(survey)


def test_a_required_grouping_question_left_out_is_400_naming_it(survey, respondent):
    q1, _q2, gq, _red, _blue = ids_of(survey)
    survey.grouping_questions.update(required=True)
    response = post(respondent, survey, {str(q1): False})
    assert response.status_code == 400
    assert list(response.json()["errors"]) == [f"groups.{gq}"]
    assert nothing_stored(survey)
    # "Prefer not to say" answers it.
    response = post(respondent, survey, {str(q1): False}, {str(gq): PREFER_NOT_TO_SAY})
    assert response.status_code == 201, response.json()


def test_an_optional_question_is_still_only_true_or_false(survey, respondent):
    q1, q2, _gq, _red, _blue = ids_of(survey)
    for value in (None, "skip", 0):
        response = post(respondent, survey, {str(q1): True, str(q2): value})
        assert response.status_code == 400
        assert f"answers.{q2}" in response.json()["errors"]
    assert nothing_stored(survey)


def test_a_submission_with_every_optional_question_skipped_counts_as_a_response(
    make_survey, store_path
):
    survey = make_survey(questions=[{"text": "Optional?", "required": False}])
    outcome = services.submission_receive(slug=survey.slug, submission_id=uuid.uuid4(), answers={})
    assert outcome.created
    assert Submission.objects.get().reports == {}
    assert survey.response_count == 1
    assert question_tallies(survey) == [(0, 0)]


def test_prefer_not_to_say_is_stored_counted_apart_and_in_no_group(survey, respondent):
    q1, q2, gq, red, blue = ids_of(survey)
    assert (
        post(respondent, survey, {str(q1): True}, {str(gq): PREFER_NOT_TO_SAY}).status_code == 201
    )
    assert (
        post(respondent, survey, {str(q1): True, str(q2): True}, {str(gq): red}).status_code == 201
    )
    assert post(respondent, survey, {str(q1): False}, {}).status_code == 201  # skipped
    assert sorted(GroupAnswer.objects.values_list("option_id", flat=True), key=str) == sorted(
        [None, red], key=str
    )
    answered = selectors.grouping_answer_counts(grouping_question=survey.grouping_questions.get())
    assert answered.declined == 1
    assert answered.options == {red: 1, blue: 0}
    tallies = {(q, o): (n, yes) for q, o, n, yes in GroupTally.objects.totals()}
    # Red's respondent answered both questions; nobody in Blue; the declined one is in no row.
    assert tallies == {(q1, red): (1, 1), (q2, red): (1, 1), (q1, blue): (0, 0), (q2, blue): (0, 0)}

    breakdown = selectors.survey_breakdown(
        survey=survey, grouping_question=survey.grouping_questions.get()
    )
    assert (breakdown.respondents, breakdown.declined, breakdown.skipped) == (1, 1, 1)
    assert [row.overall.n for row in breakdown.rows] == [1, 1]  # only those in a group

    # The recount from the stored rows agrees with the running tallies.
    services.group_tallies_rebuild(survey=survey)
    answered = selectors.grouping_answer_counts(grouping_question=survey.grouping_questions.get())
    assert answered.declined == 1
    assert answered.options == {red: 1, blue: 0}


def test_estimates_use_each_questions_own_n(
    survey,
    respondent,
    owner_api,
    owner_client,
):
    q1, q2, _gq, _red, _blue = ids_of(survey)
    # Five respondents answer Q1 (three yes), three of them answer Q2 (one yes).
    sent = [
        ({str(q1): True, str(q2): True}),
        ({str(q1): True, str(q2): False}),
        ({str(q1): False, str(q2): False}),
        ({str(q1): True}),
        ({str(q1): False}),
    ]
    for answers in sent:
        assert post(respondent, survey, answers).status_code == 201
    design = dpengine.CLASSIC
    estimates = selectors.survey_estimates(survey=survey)
    assert [row.estimate for row in estimates.rows] == [
        dpengine.estimate_with_coverage(
            yes=3, n=5, design=design, confidence=0.95, method="wilson"
        ),
        dpengine.estimate_with_coverage(
            yes=1, n=3, design=design, confidence=0.95, method="wilson"
        ),
    ]
    # The results page shows each question's own n.
    page = owner_client.get(f"/surveys/{survey.pk}/results/").content.decode()
    assert re.findall(r'<td class="num" data-label="n">(\d+)</td>', page) == ["5", "3"]
    body = owner_api.get(f"/api/v1/surveys/{survey.pk}/estimates/").json()
    assert body["response_count"] == 5
    assert [(row["n"], row["yes"]) for row in body["estimates"]] == [(5, 3), (3, 1)]

    text = owner_api.get(f"/api/v1/surveys/{survey.pk}/estimates.csv").getvalue().decode()
    header, *rows = list(csv.reader(io.StringIO(text)))
    n, yes = header.index("n"), header.index("reported_yes")
    assert [(row[header.index("column")], row[n], row[yes]) for row in rows] == [
        ("Q1", "5", "3"),
        ("Q2", "3", "1"),
    ]

    # Raw reports: an empty cell for a skipped question, never a 0.
    raw = owner_api.get(f"/api/v1/surveys/{survey.pk}/responses.csv").getvalue().decode()
    header, *reports = list(csv.reader(io.StringIO(raw)))
    column = header.index("Q2")
    assert sorted(row[column] for row in reports) == ["", "", "0", "0", "1"]
    assert sorted(row[header.index("Q1")] for row in reports) == ["0", "0", "1", "1", "1"]


def test_regression_leaves_out_reports_without_a_group_answer(survey, respondent):
    q1, _q2, gq, red, blue = ids_of(survey)
    groups = [{str(gq): red}, {str(gq): blue}, {str(gq): PREFER_NOT_TO_SAY}, {}]
    for index, chosen in enumerate(groups * 3):
        assert post(respondent, survey, {str(q1): index % 2 == 0}, chosen).status_code == 201
    result = selectors.survey_regression(survey=survey, question=Question.objects.get(pk=q1))
    assert (result.n, result.left_out) == (6, 6)
    [covariate] = result.covariates
    assert [level.respondents for level in covariate.levels] == [3, 3]


def test_r_export_keeps_skipped_and_declined_apart(survey, respondent):
    """A skip is an empty cell, "Prefer not to say" its code (issue 24: both were empty)."""
    q1, _q2, gq, red, _blue = ids_of(survey)
    for chosen in ({str(gq): red}, {str(gq): PREFER_NOT_TO_SAY}, {}):
        assert post(respondent, survey, {str(q1): True}, chosen).status_code == 201
    header, *rows = list(r_export_rows(survey=survey))
    assert sorted(row[header.index("G1")] or "" for row in rows) == [
        "",
        "Red",
        PREFER_NOT_TO_SAY,
    ]


def test_a_retake_that_answers_a_skipped_question_is_stored_once_as_first_sent(survey, respondent):
    q1, q2, _gq, _red, _blue = ids_of(survey)
    submission_id = uuid.uuid4()
    first = post(respondent, survey, {str(q1): True}, submission_id=submission_id)
    retake = post(respondent, survey, {str(q1): True, str(q2): True}, submission_id=submission_id)
    assert first.status_code == retake.status_code == 201
    assert first.json() == retake.json()
    assert Submission.objects.get().reports == {f"q{q1}": True}  # the first attempt's, whole
    assert question_tallies(survey) == [(1, 1), (0, 0)]
    assert sum(TallyShard.objects.values_list("responses", flat=True)) == 1


def test_the_public_definition_says_which_questions_are_required(survey, respondent):
    body = respondent.get(f"/api/v1/public/surveys/{survey.slug}/").json()
    assert [question["required"] for question in body["questions"]] == [True, False]
    assert [question["required"] for question in body["grouping_questions"]] == [False]


def test_the_public_page_uses_an_optional_questions_own_released_n(survey, respondent, monkeypatch):
    monkeypatch.setattr(dpengine.continual, "sample_discrete_laplace", lambda scale, rng: 0)
    q1, q2, _gq, _red, _blue = ids_of(survey)
    today = selectors.utc_today()
    public_release.public_results_update(
        survey=survey, enabled=True, epsilon=1.0, release_days=1, releases=5, today=today
    )
    for index in range(6):
        answers = {str(q1): True} if index % 3 else {str(q1): True, str(q2): index == 0}
        assert post(respondent, survey, answers).status_code == 201
    # Respondents, two yes counts, Q2's report count and one option count per grouping question.
    assert selectors.noisy_counts(survey=survey) == 1 + 2 + 1 + 1
    results = published(slug=survey.slug, now=timezone.now() + timedelta(days=1))
    assert results.respondents == 6
    assert [(row.estimate.n, row.estimate.yes) for row in results.rows] == [(6, 6), (2, 1)]
    assert results.optional_questions == 1
