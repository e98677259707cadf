"""selectors.results_precision: each question's interval now against the planner's
respondents for ±5 points, by type."""

import numpy as np
import pytest

import dpengine
from surveys import selectors, services

pytestmark = pytest.mark.django_db

QUESTIONS = (
    {"text": "Have you taken office supplies home?"},
    {"text": "Which did you do most?", "type": "choice", "options": ["None", "Pens", "Paper"]},
    {"text": "Drinks in a week?", "type": "numeric", "min": 0, "max": 30, "epsilon": 2.0},
)


def _precision(survey, **query):
    estimates = selectors.survey_estimates(survey=survey, **query)
    return estimates, selectors.results_precision(survey=survey, estimates=estimates)


def test_each_type_reads_its_own_interval_and_plan(make_survey):
    survey = make_survey(questions=QUESTIONS, min_n=10)
    reports = services.simulated_reports_draw(
        survey=survey, shares=[0.3, [0.5, 0.3, 0.2], 8], n=200, rng=np.random.default_rng(4)
    )
    services.simulated_submissions_record(survey=survey, reports=reports)
    estimates, (yes_no, choice, numeric) = _precision(survey, confidence=0.9)
    rows = estimates.rows
    assert yes_no.half_width == pytest.approx(
        (rows[0].estimate.ci_high - rows[0].estimate.ci_low) / 2
    )
    # A choice question: its widest option's interval.
    widths = [(option.ci_high - option.ci_low) / 2 for option in rows[1].options]
    assert choice.half_width == pytest.approx(max(widths)) and len(set(widths)) > 1
    assert numeric.half_width == pytest.approx((rows[2].mean.ci_high - rows[2].mean.ci_low) / 2)
    # The plans at the page's level (90 %), as the planner computes them.
    mechanism = dpengine.BoundedNumeric(lo=0, hi=30, epsilon=2.0)
    assert yes_no.needed == dpengine.required_sample_size(
        design=dpengine.CLASSIC, margin=0.05, confidence=0.9
    )
    assert numeric.needed == dpengine.required_sample_size_mean(
        question=mechanism, margin=1.5, confidence=0.9
    )
    assert numeric.units_margin == pytest.approx(1.5)
    assert [item.n for item in (yes_no, choice, numeric)] == [200, 200, 200]
    assert yes_no.more == yes_no.needed - 200


def test_a_suppressed_question_has_no_width_but_a_plan(make_survey):
    survey = make_survey(questions=QUESTIONS[:1], min_n=50)
    reports = services.simulated_reports_draw(
        survey=survey, shares=[0.3], n=20, rng=np.random.default_rng(1)
    )
    services.simulated_submissions_record(survey=survey, reports=reports)
    _estimates, (item,) = _precision(survey)
    assert (item.n, item.half_width, item.needed, item.more) == (20, None, 1537, 1517)
