"""A direct-questioning control group (issue 27 item 2): the arms' counts from the codes, the
comparison by dpengine.compare_direct, min_n per arm, and the question's own row."""

import math
import uuid

import pytest

import dpengine
from surveys import selectors, services
from surveys.selectors.control_group import (
    COMPARED,
    NO_CONTROL_GROUP,
    SUPPRESSED,
    survey_control_group,
)
from tests.helpers import simulate_responses

pytestmark = pytest.mark.django_db

QUESTIONS = [
    {"text": "Did you take office supplies home?", "compare_direct": True},
    {"text": "Did you call in sick when well?", "design": {"kind": "warner", "p": 0.8}},
    {
        "text": "Did you pad an expense claim?",
        "compare_direct": True,
        "design": {"kind": "warner", "p": 0.8},
    },
]


def _survey(make_survey, *, control_share=0.3, min_n=10):
    return make_survey(questions=QUESTIONS, control_share=control_share, min_n=min_n)


def _submit(survey, codes):
    """Store submissions sent by hand: each a code per compared question (and a bit for Q2)."""
    first, second, third = survey.questions.all()
    for code_1, code_3 in codes:
        services.submission_receive(
            slug=survey.slug,
            submission_id=str(uuid.uuid4()),
            answers={str(first.pk): code_1, str(second.pk): True, str(third.pk): code_3},
        )


def test_the_arms_are_counted_from_the_codes_and_compared_by_dpengine(make_survey):
    survey = _survey(make_survey, min_n=2)
    # First question: randomized no, yes, yes; direct no, yes, no, no. Third: all direct yes
    # and randomized yes (a hand-made mix of arms: each question reads its own codes).
    _submit(survey, [(0, 1), (1, 1), (1, 1), (2, 3), (3, 3), (2, 3), (2, 3)])
    results = survey_control_group(survey=survey)
    assert [row.column for row in results.rows] == ["Q1", "Q3"]
    first, third = results.rows
    assert (first.arms.randomized_n, first.arms.randomized_yes) == (3, 2)
    assert (first.arms.direct_n, first.arms.direct_yes) == (4, 1)
    assert (third.arms.randomized_n, third.arms.randomized_yes) == (3, 3)
    assert (third.arms.direct_n, third.arms.direct_yes) == (4, 4)
    assert first.status == COMPARED
    design = selectors.survey_coins(survey)
    expected = dpengine.estimate(yes=2, n=3, design=design, confidence=survey.confidence)
    assert first.randomized.estimate == pytest.approx(expected.estimate, abs=1e-12)
    direct = dpengine.compare_direct(
        estimate=expected.estimate,
        std_error=expected.std_error,
        direct_yes=1,
        direct_n=4,
        confidence=survey.confidence,
    )
    assert first.comparison.p_value == pytest.approx(direct.p_value, rel=1e-12)
    assert first.comparison.difference == pytest.approx(expected.estimate - 0.25, abs=1e-12)
    assert first.direct.share == 0.25
    # The exact interval shown holds the estimate of the difference of the clamped shares.
    assert first.shown.low <= first.shown.estimate <= first.shown.high
    row = first.as_dict()
    assert row["randomized_n"] == 3 and row["direct_yes"] == 1
    assert row["p_value_more_is_better"] == first.comparison.p_value


def test_the_question_row_estimates_from_the_randomized_arm_only(make_survey):
    survey = _survey(make_survey, min_n=0)
    _submit(survey, [(0, 1), (1, 1), (1, 0), (3, 3), (3, 2)])
    estimates = selectors.survey_estimates(survey=survey)
    first = estimates.rows[0]
    assert (first.n, first.estimate.yes) == (3, 2)
    third = estimates.rows[2]
    assert (third.n, third.estimate.yes) == (3, 2)
    assert estimates.rows[1].n == 5


def test_each_arm_below_min_n_is_suppressed(make_survey):
    survey = _survey(make_survey, min_n=3)
    _submit(survey, [(0, 0), (1, 1), (1, 0), (3, 3), (2, 3)])
    first, _third = survey_control_group(survey=survey).rows
    assert first.status == SUPPRESSED
    assert first.randomized is None and first.comparison is None
    assert first.as_dict()["difference"] is None


def test_without_a_control_share_there_is_nothing_to_compare(make_survey):
    survey = _survey(make_survey, control_share=0.0, min_n=0)
    _submit(survey, [(0, 1), (1, 1)])
    results = survey_control_group(survey=survey)
    assert not results.has_control_group
    assert {row.status for row in results.rows} == {NO_CONTROL_GROUP}


def test_simulated_under_reporting_is_found_and_the_arm_share_is_the_published_one(
    make_survey,
):
    # 4000 respondents, control_share 0.3: the direct arm holds Binomial(4000, 0.3) of them
    # (within 4 standard deviations); true share 0.4, but asked directly 0.2 say yes: the
    # one-sided test finds it and the difference's interval holds 0.2.
    survey = _survey(make_survey, control_share=0.3, min_n=30)
    simulate_responses(survey, n=4000, seed=27, shares=[(0.4, 0.2), 0.3, (0.4, 0.4)])
    first, third = survey_control_group(survey=survey).rows
    assert abs(first.arms.direct_n - 1200) <= 4 * math.sqrt(4000 * 0.3 * 0.7)
    # One draw per respondent: both questions were asked in the same arm.
    assert first.arms.direct_n == third.arms.direct_n
    assert first.comparison.p_value < 1e-6
    assert first.shown.low <= 0.2 <= first.shown.high
    # No under-reporting in the third: no evidence that randomized response revealed more.
    assert third.comparison.p_value > 0.01
    assert third.shown.low <= 0 <= third.shown.high
