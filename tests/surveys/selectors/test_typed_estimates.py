"""Estimates per question type and design equal dpengine's on known reports."""

import math
import uuid
from collections import Counter

import numpy as np
import pytest

import dpengine
from dpengine import BoundedNumeric, KaryRandomizedResponse, Warner
from surveys import selectors, services
from tests.helpers import MIXED_QUESTIONS, numeric_histogram_counts, stored_numeric_reports

# Reports per question, one list per respondent: forced response, Warner, choice, numeric.
REPORTS = [
    (True, True, 0, 3),
    (False, True, 1, -2),
    (True, False, 1, 12),
    (True, True, 2, 30),
    (False, False, 1, 7),
    (True, True, 0, 41),
]


@pytest.fixture
def mixed_survey(make_survey):
    survey = make_survey(questions=MIXED_QUESTIONS, min_n=1)
    ids = list(survey.questions.values_list("id", flat=True))
    for row in REPORTS:
        services.submission_receive(
            slug=survey.slug,
            submission_id=str(uuid.uuid4()),
            answers={str(qid): value for qid, value in zip(ids, row, strict=True)},
        )
    survey.refresh_from_db()
    return survey


def _column(index):
    return [row[index] for row in REPORTS]


@pytest.mark.parametrize("method", ["wilson", "exact", "wald", "jeffreys"])
def test_yes_no_questions_debias_with_their_own_design(mixed_survey, method):
    estimates = selectors.survey_estimates(survey=mixed_survey, confidence=0.9, method=method)
    forced, warner = estimates.rows[0], estimates.rows[1]
    assert forced.kind == "yes_no" and forced.design_name == "forced_response"
    assert warner.design_name == "warner"
    expected = dpengine.estimate_with_coverage(
        yes=sum(_column(1)), n=6, design=Warner(p=0.75), confidence=0.9, method=method
    )
    assert warner.estimate == expected
    coins = selectors.survey_design(survey=mixed_survey)
    assert forced.estimate == dpengine.estimate_with_coverage(
        yes=sum(_column(0)), n=6, design=coins, confidence=0.9, method=method
    )
    assert warner.epsilon == pytest.approx(math.log(3))


def test_choice_question_has_every_option_with_simultaneous_intervals(mixed_survey):
    estimates = selectors.survey_estimates(survey=mixed_survey, method="exact")
    row = estimates.rows[2]
    assert row.kind == "choice"
    question = mixed_survey.questions.all()[2]
    expected = dpengine.estimate_choice_with_coverage(
        counts=[2, 3, 1],
        mechanism=KaryRandomizedResponse(k=3, epsilon=question.epsilon),
        confidence=mixed_survey.confidence,
        method="exact",
    )
    assert [option.label for option in row.options] == ["None", "Pens", "Paper"]
    assert [option.count for option in row.options] == [2, 3, 1]
    assert [option.estimate for option in row.options] == list(expected.shares)
    assert [option.ci_low for option in row.options] == list(expected.ci_low)
    assert [option.ci_high for option in row.options] == list(expected.ci_high)
    assert row.per_option_confidence == pytest.approx(1 - (1 - mixed_survey.confidence) / 3)


def test_numeric_question_mean_and_share_above_equal_dpengine(mixed_survey):
    estimates = selectors.survey_estimates(survey=mixed_survey, confidence=0.95, thresholds={})
    row = estimates.rows[3]
    mechanism = BoundedNumeric(lo=0, hi=30, epsilon=2.0)
    mean = dpengine.estimate_mean(reports=_column(3), question=mechanism, confidence=0.95)
    assert row.kind == "numeric" and row.threshold == 15  # the middle of 0..30
    for name in ("estimate", "clamped", "std_error", "ci_low", "ci_high"):
        assert getattr(row.mean, name) == pytest.approx(getattr(mean, name), rel=1e-12)
    share = dpengine.estimate_share_above(
        reports=_column(3), question=mechanism, threshold=15, confidence=0.95
    )
    # The same up to rounding: the database hands the reports over in the order of their
    # random keys, not in the order they were stored, and a floating-point sum follows it.
    for name in ("estimate", "clamped", "std_error", "ci_low", "ci_high"):
        assert getattr(row.share_above, name) == pytest.approx(getattr(share, name), rel=1e-12)


def test_numeric_threshold_is_the_researchers(mixed_survey):
    numeric_id = mixed_survey.questions.all()[3].pk
    row = selectors.survey_estimates(survey=mixed_survey, thresholds={numeric_id: 6}).rows[3]
    share = dpengine.estimate_share_above(
        reports=_column(3),
        question=BoundedNumeric(lo=0, hi=30, epsilon=2.0),
        threshold=6,
        confidence=mixed_survey.confidence,
    )
    assert row.threshold == 6 and row.share_above == share


def test_every_type_is_suppressed_below_the_minimum(make_survey):
    survey = make_survey(questions=MIXED_QUESTIONS, min_n=50)
    rows = selectors.survey_estimates(survey=survey).rows
    assert [row.suppressed for row in rows] == [True] * 4


def test_estimates_carry_the_ledger_total(mixed_survey):
    estimates = selectors.survey_estimates(survey=mixed_survey)
    ledger = selectors.privacy_ledger(survey=mixed_survey)
    assert estimates.ledger.total_epsilon == ledger.total_epsilon
    assert [row.epsilon for row in estimates.rows] == [e.epsilon for e in ledger.entries]
    assert estimates.mixed


def test_simulated_typed_reports_are_stored_and_counted(make_survey):
    survey = make_survey(questions=MIXED_QUESTIONS, min_n=1)
    reports = services.simulated_reports_draw(
        survey=survey,
        shares=[0.3, 0.6, [0.2, 0.5, 0.3], 10],
        n=4000,
        rng=np.random.default_rng(5),
    )
    services.simulated_submissions_record(survey=survey, reports=reports)
    rows = selectors.survey_estimates(survey=survey).rows
    # Seeded; tolerances are about 4 standard errors at n = 4000.
    assert rows[0].estimate.estimate == pytest.approx(0.3, abs=0.06)
    assert rows[1].estimate.estimate == pytest.approx(0.6, abs=0.07)
    assert [o.estimate for o in rows[2].options] == pytest.approx([0.2, 0.5, 0.3], abs=0.08)
    assert rows[3].mean.estimate == pytest.approx(10, abs=0.6)
    stored = stored_numeric_reports(survey, rows[3].question_id)
    assert all(isinstance(value, int) for value in stored) and len(stored) == 4000
    assert (
        sum(stored)
        == selectors.survey_tallies(survey=survey).counts_of(rows[3].question_id, width=2)[0]
    )
    # The histogram the share above is read from counts each stored report once.
    assert numeric_histogram_counts(rows[3].question_id) == dict(Counter(stored))
    assert rows[3].share_above == dpengine.estimate_share_above(
        reports=stored, question=rows[3].mechanism, threshold=rows[3].threshold
    )
    assert rows[3].manipulation_check == dpengine.manipulation_check(
        reports=stored, question=rows[3].mechanism
    )
