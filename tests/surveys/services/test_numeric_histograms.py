"""The histogram of each randomized numeric question's reports (``models.NumericTally``), kept
by every path that stores a submission, in its transaction, outside a test transaction too
(as a live server commits): what the share above a threshold and the manipulation check read.
"""

import uuid
from collections import Counter

import numpy as np
import pytest
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

import dpengine
from surveys import selectors, services
from surveys.models import NumericTally
from tests.helpers import lock_recorder, numeric_histogram_counts, stored_numeric_reports

PATHS = pytest.mark.parametrize("statement", [True, False], ids=["statement", "orm"])
QUESTIONS = (
    {"text": "Drinks in a week?", "type": "numeric", "min": 0, "max": 30, "epsilon": 2.0},
    {"text": "Days off sick?", "type": "numeric", "min": -5, "max": 5, "epsilon": 1.0},
    {"text": "Age?", "type": "numeric", "min": 18, "max": 99, "randomized": False},
    {"text": "Have you lied to your manager?"},
)


def _post(client, survey, answers, submission_id=None):
    return client.post(
        f"/api/v1/public/surveys/{survey.slug}/responses/",
        {
            "submission_id": str(submission_id or uuid.uuid4()),
            "answers": {str(qid): report for qid, report in answers.items()},
        },
        format="json",
    )


def _answers(survey, rng):
    """A valid submission: noisy reports within each randomized question's accepted range."""
    answers = {}
    for question in survey.questions.all():
        if question.kind == "yes_no":
            answers[question.pk] = bool(rng.integers(2))
        else:
            _kind, low, high = selectors.report_range(question)
            answers[question.pk] = int(rng.integers(low, high + 1))
    return answers


@PATHS
@pytest.mark.django_db(transaction=True)
def test_every_stored_report_is_counted_once_in_its_histogram(make_survey, statement):
    survey = make_survey(questions=QUESTIONS)
    drinks, sick, age, _bit = survey.questions.all()
    rng = np.random.default_rng(28)
    client = APIClient()
    sent = []
    with override_settings(SUBMISSION_STATEMENT=statement), lock_recorder() as outside:
        for _ in range(40):
            answers = _answers(survey, rng)
            # A few reports share a value, so rows are added to as well as created.
            answers[sick.pk] = int(rng.integers(-1, 2))
            submission_id = uuid.uuid4()
            assert _post(client, survey, answers, submission_id).status_code == 201
            sent.append((submission_id, answers))
        # Replays, the same body and another one under a used id: answered as the first time
        # (201), stored once, counted once.
        for submission_id, answers in sent[:5]:
            assert _post(client, survey, answers, submission_id).status_code == 201
            other = {**answers, drinks.pk: answers[drinks.pk] - 1}
            assert _post(client, survey, other, submission_id).status_code == 201
    assert outside == []
    for question in (drinks, sick):
        expected = Counter(answers[question.pk] for _sid, answers in sent)
        assert numeric_histogram_counts(question.pk) == dict(expected)
        assert numeric_histogram_counts(question.pk) == dict(
            Counter(stored_numeric_reports(survey, question.pk))
        )
    assert max(numeric_histogram_counts(sick.pk).values()) > 1
    # Asked directly: no noise, no share above, no histogram.
    assert not NumericTally.objects.filter(question=age).exists()


@PATHS
@pytest.mark.django_db(transaction=True)
def test_a_refused_submission_adds_nothing_to_the_histograms(make_survey, statement):
    survey = make_survey(questions=QUESTIONS)
    drinks, sick, _age, _bit = survey.questions.all()
    rng = np.random.default_rng(5)
    client = APIClient()
    with override_settings(SUBMISSION_STATEMENT=statement):
        good = _answers(survey, rng)
        assert _post(client, survey, good).status_code == 201
        before = {q.pk: numeric_histogram_counts(q.pk) for q in (drinks, sick)}
        # One report beyond what the question accepts: nothing of the submission is stored,
        # the other question's valid report included.
        too_far = {**_answers(survey, rng), sick.pk: selectors.report_range(sick)[2] + 1}
        response = _post(client, survey, too_far)
        assert response.status_code == 400
        assert response.json()["detail"].startswith(f"answers.{sick.pk}:")
        # A required question left out.
        missing = _answers(survey, rng)
        del missing[drinks.pk]
        assert _post(client, survey, missing).status_code == 400
        services.survey_close(survey=survey)
        assert _post(client, survey, _answers(survey, rng)).status_code == 409
    assert {q.pk: numeric_histogram_counts(q.pk) for q in (drinks, sick)} == before
    assert sum(before[drinks.pk].values()) == 1


@pytest.mark.django_db
def test_discarding_a_pilot_empties_its_histograms(make_survey):
    survey = make_survey(questions=QUESTIONS, status="pilot")
    drinks = survey.questions.first()
    rng = np.random.default_rng(3)
    for _ in range(3):
        assert _post(APIClient(), survey, _answers(survey, rng)).status_code == 201
    assert sum(numeric_histogram_counts(drinks.pk).values()) == 3
    services.survey_pilot_discard(survey=survey)
    assert not NumericTally.objects.filter(question__survey=survey).exists()


@pytest.mark.django_db
def test_simulated_respondents_add_to_the_histograms(make_survey):
    survey = make_survey(questions=QUESTIONS)
    drinks, sick, age, _bit = survey.questions.all()
    rng = np.random.default_rng(11)
    assert _post(APIClient(), survey, _answers(survey, rng)).status_code == 201
    for seed in (1, 2):
        reports = services.simulated_reports_draw(
            survey=survey, shares=[10, 0, 40, 0.3], n=500, rng=np.random.default_rng(seed)
        )
        services.simulated_submissions_record(survey=survey, reports=reports)
    for question in (drinks, sick):
        stored = stored_numeric_reports(survey, question.pk)
        assert len(stored) == 1001
        assert numeric_histogram_counts(question.pk) == dict(Counter(stored))
    assert not NumericTally.objects.filter(question=age).exists()


@pytest.mark.django_db
def test_estimates_read_the_histograms_not_the_submissions(make_survey):
    survey = make_survey(questions=QUESTIONS, min_n=1)
    reports = services.simulated_reports_draw(
        survey=survey, shares=[10, 0, 40, 0.3], n=300, rng=np.random.default_rng(7)
    )
    services.simulated_submissions_record(survey=survey, reports=reports)
    with CaptureQueriesContext(connection) as queries:
        rows = selectors.survey_estimates(survey=survey, thresholds={}).rows
    assert not any("surveys_submission" in query["sql"] for query in queries.captured_queries)
    assert [row.share_above.n for row in rows[:2]] == [300, 300]
    for row in rows[:2]:
        stored = stored_numeric_reports(survey, row.question_id)
        assert row.share_above == dpengine.estimate_share_above(
            reports=stored, question=row.mechanism, threshold=row.threshold
        )
        assert row.manipulation_check == dpengine.manipulation_check(
            reports=stored, question=row.mechanism
        )
