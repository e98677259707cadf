"""Numeric reports an honest respondent cannot plausibly send: the accepted bounds
(numeric.report_bounds) and the manipulation check (manipulation.manipulation_check)."""

import math
import random

import numpy as np
import pytest
from scipy import stats

import dpengine.numeric.question
from dpengine import (
    DETECTION_LEVEL,
    REPORT_SCALES,
    REPORT_TAIL,
    BoundedNumeric,
    DPEngineError,
    estimate_mean,
    extreme_report_probability,
    manipulation_check,
    randomize_number,
    report_bounds,
    simulate_numeric_reports,
)

LN3 = BoundedNumeric(lo=0, hi=10, epsilon=math.log(3))
RANGES = [(0, 5), (0, 10), (0, 30), (-50, 50), (0, 1000)]
EPSILONS = [0.5, 1.0, math.log(3), 2.2]


def _tail_beyond(question, slack):
    """P(|Z| > slack) = 2 alpha^(slack + 1) / (1 + alpha), alpha^j as exp(-j epsilon / R)."""
    rate = float(question.exact_epsilon / question.sensitivity)
    return 2 * math.exp(-(slack + 1) * rate) / (1 + question.alpha)


# --- accepted reports ------------------------------------------------------------------


def test_the_accepted_slack_is_ln_1e9_noise_scales_rounded_up():
    assert math.log(1 / REPORT_TAIL) <= REPORT_SCALES < math.log(1 / REPORT_TAIL) + 1e-4
    # 0-10 at ε = ln 3: scale 9.1024, 20.7233 scales = 188.63, so 189 on each side.
    assert report_bounds(LN3) == dpengine.numeric.ReportBounds(low=-189, high=199, slack=189)
    # 0-30 at ε = 2: scale 15, 310.85 -> 311 (it was 60 scales, 900, before).
    assert report_bounds(BoundedNumeric(lo=0, hi=30, epsilon=2)).slack == 311


def test_an_honest_report_is_outside_the_accepted_bounds_with_probability_below_1e_9():
    """For 2,000 random ranges and ε (floats as stored), the tail beyond the slack is at most
    REPORT_TAIL, and the slack is within two of the tightest one."""
    rng = random.Random(23)
    cases = [BoundedNumeric(lo=lo, hi=hi, epsilon=eps) for lo, hi in RANGES for eps in EPSILONS]
    for _ in range(2000):
        lo = rng.randint(-1000, 1000)
        cases.append(
            BoundedNumeric(lo=lo, hi=lo + rng.randint(1, 1000), epsilon=rng.uniform(0.01, 2.2))
        )
    for question in cases:
        bounds = report_bounds(question)
        assert (bounds.low, bounds.high) == (question.lo - bounds.slack, question.hi + bounds.slack)
        assert _tail_beyond(question, bounds.slack) <= REPORT_TAIL, question
        assert _tail_beyond(question, bounds.slack - 2) > 0.999 * REPORT_TAIL, question


def test_the_tail_formula_matches_the_pmf():
    question = BoundedNumeric(lo=0, hi=3, epsilon=2)  # scale 1.5: the tail sums quickly
    slack = report_bounds(question).slack
    z = np.arange(slack + 1, slack + 400)
    summed = 2 * dpengine.discrete_laplace_pmf(z, scale=1.5).sum()
    assert math.isclose(summed, _tail_beyond(question, slack), rel_tol=1e-9)


@pytest.mark.parametrize(
    "question",
    [BoundedNumeric(lo=0, hi=3, epsilon=2), BoundedNumeric(lo=-2, hi=5, epsilon=0.5), LN3],
)
def test_the_clamped_report_is_still_epsilon_private(question):
    """The sender's clamp to the accepted bounds is post-processing: the exact distribution of
    the clamped report (the two ends carry the whole tails beyond them) changes by at most a
    factor e^ε between any two answers, at every report."""
    bounds = report_bounds(question)
    rate = float(question.exact_epsilon / question.sensitivity)
    alpha = question.alpha

    def clamped_pmf(x):
        y = np.arange(bounds.low, bounds.high + 1)
        pmf = dpengine.discrete_laplace_pmf(y - x, scale=float(question.exact_scale))
        # P(Z >= j) = alpha^j / (1 + alpha) for j >= 0, on each side.
        pmf[-1] = math.exp(-(bounds.high - x) * rate) / (1 + alpha)
        pmf[0] = math.exp(-(x - bounds.low) * rate) / (1 + alpha)
        return pmf

    answers = range(question.lo, question.hi + 1)
    table = np.array([clamped_pmf(x) for x in answers])
    assert np.allclose(table.sum(axis=1), 1, rtol=0, atol=1e-12)
    worst = float((table.max(axis=0) / table.min(axis=0)).max())
    assert worst <= math.exp(float(question.epsilon)) * (1 + 1e-9)
    assert worst == pytest.approx(math.exp(float(question.epsilon)))


def test_randomize_number_keeps_reports_within_the_accepted_bounds(monkeypatch):
    bounds = report_bounds(LN3)
    for noise, expected in ((10**6, bounds.high), (-(10**6), bounds.low), (7, 10 + 7)):
        monkeypatch.setattr(
            dpengine.numeric.question,
            "geometric_mechanism",
            lambda value, noise=noise, **_kwargs: value + noise,
        )
        assert randomize_number(10, LN3) == expected


def test_simulated_reports_stay_within_the_accepted_bounds():
    class FarNoise:
        """numpy's geometric, rigged: the first draw (added) huge or 1, the second 1 or huge."""

        def __init__(self, first, second):
            self.draws = [first, second]

        def geometric(self, success, size):
            return np.full(size, self.draws.pop(0))

    bounds = report_bounds(LN3)
    up = simulate_numeric_reports([0, 5, 10], LN3, FarNoise(10**6, 1))
    down = simulate_numeric_reports([0, 5, 10], LN3, FarNoise(1, 10**6))
    assert up.tolist() == [bounds.high] * 3 and down.tolist() == [bounds.low] * 3


# --- the manipulation check ------------------------------------------------------------


def _honest_beyond_probability(question, truth, margin):
    """P(truth + Z beyond the range by more than margin), summed from the pmf (an oracle
    independent of extreme_report_probability's closed form)."""
    reach = margin + question.sensitivity + 20 * math.ceil(float(question.exact_scale)) + 50
    z = np.arange(-reach, reach + 1)
    pmf = dpengine.discrete_laplace_pmf(z, scale=float(question.exact_scale))
    y = truth + z
    return float(pmf[(y < question.lo - margin) | (y > question.hi + margin)].sum())


@pytest.mark.parametrize(("lo", "hi"), [(0, 5), (0, 10), (3, 30)])
@pytest.mark.parametrize("epsilon", [0.5, math.log(3), 2.2])
def test_the_worst_case_is_an_extreme_answer_and_matches_the_pmf(lo, hi, epsilon):
    question = BoundedNumeric(lo=lo, hi=hi, epsilon=epsilon)
    check = manipulation_check(reports=[lo], question=question)
    margin = check.high - hi
    p_max = extreme_report_probability(question)
    by_answer = [_honest_beyond_probability(question, x, margin) for x in range(lo, hi + 1)]
    assert math.isclose(max(by_answer), p_max, rel_tol=1e-9)
    assert math.isclose(by_answer[0], p_max, rel_tol=1e-9)
    assert max(by_answer) <= p_max * (1 + 1e-9)
    assert p_max < math.exp(-10)


def _flag_threshold(question, n):
    """The fewest extreme reports among n that the check flags (None: none flags)."""
    low = manipulation_check(reports=[question.lo], question=question).low
    for count in range(min(n, 50) + 1):
        reports = [low - 1] * count + [question.lo] * (n - count)
        if manipulation_check(reports=reports, question=question).flagged:
            return count
    return None


@pytest.mark.parametrize("n", [10, 20, 50, 100, 1000, 10000])
@pytest.mark.parametrize(("lo", "hi"), [(0, 5), (0, 100), (0, 1000)])
@pytest.mark.parametrize("epsilon", [0.5, 2.2])
def test_the_false_alarm_rate_at_the_worst_honest_survey_is_exactly_at_most_the_level(
    n, lo, hi, epsilon
):
    """Every respondent at the maximum: the honest count of extreme reports is exactly
    Binomial(n, p) with p summed from the pmf, so the false-alarm rate is its tail at the
    check's threshold."""
    question = BoundedNumeric(lo=lo, hi=hi, epsilon=epsilon)
    margin = manipulation_check(reports=[lo], question=question).high - hi
    p = _honest_beyond_probability(question, hi, margin)
    threshold = _flag_threshold(question, n)
    assert threshold is not None and threshold >= 1
    false_alarms = stats.binom.sf(threshold - 1, n, p)
    assert false_alarms <= DETECTION_LEVEL <= 0.01


def test_the_false_alarm_rate_on_simulated_honest_surveys_is_below_one_percent():
    """3,600 seeded honest surveys (n from 10 to 5,000, ranges 0-5 to 0-1000, ε 0.5 to 2.2;
    answers uniform, all at the minimum, all at the maximum): at most 1 % flagged. The
    level is 0.1 %, so 36 flags would be far out (binomial tail below 1e-20)."""
    rng = np.random.default_rng(2023)
    flagged = surveys = 0
    for n in (10, 20, 50, 100, 1000, 5000):
        for lo, hi in RANGES:
            for epsilon in EPSILONS:
                question = BoundedNumeric(lo=lo, hi=hi, epsilon=epsilon)
                for truths in ("uniform", "min", "max"):
                    for _ in range(10):
                        if truths == "uniform":
                            answers = rng.integers(lo, hi + 1, size=n)
                        else:
                            answers = np.full(n, lo if truths == "min" else hi)
                        reports = simulate_numeric_reports(answers, question, rng)
                        flagged += manipulation_check(reports=reports, question=question).flagged
                        surveys += 1
    assert surveys == 3600
    assert flagged <= 0.01 * surveys
    assert flagged <= 10  # the expected count is below 3.6


def test_ten_scripted_reports_at_the_accepted_maximum_are_flagged():
    """The case of issue 23: 1,000 honest reports of 0-10 at ε = ln 3 and 10 scripted reports
    of the accepted maximum (10 + 189 = 199), in 200 seeded surveys: flagged every time. The
    mean still moves, by 10 (199 - 5) / 1010 = 1.9, but the page now says why."""
    rng = np.random.default_rng(7)
    top = report_bounds(LN3).high
    shifts = []
    for _ in range(200):
        honest = simulate_numeric_reports(rng.integers(0, 11, size=1000), LN3, rng)
        scripted = np.concatenate([honest, np.full(10, top)])
        check = manipulation_check(reports=scripted, question=LN3)
        assert check.flagged and check.beyond >= 10 and check.p_value < 1e-15
        assert not manipulation_check(reports=honest, question=LN3).flagged
        shifts.append(
            estimate_mean(reports=scripted, question=LN3).estimate
            - estimate_mean(reports=honest, question=LN3).estimate
        )
    assert 1.7 < np.mean(shifts) < 2.1


def test_no_reports_is_no_flag():
    check = manipulation_check(reports=[], question=LN3)
    assert (check.n, check.beyond, check.expected_at_most, check.p_value, check.flagged) == (
        0,
        0,
        0.0,
        1.0,
        False,
    )


def test_the_check_counts_reports_strictly_beyond_k_scales():
    # 0-10 at ε = ln 3: 10 scales = 91.02, so reports below -91 or above 101 count.
    check = manipulation_check(reports=[-91, 101, -92, 102, 5], question=LN3)
    assert (check.low, check.high, check.beyond, check.n) == (-91, 101, 2, 5)
    assert math.isclose(check.expected_at_most, 5 * extreme_report_probability(LN3))
    assert math.isclose(check.p_value, stats.binom.sf(1, 5, extreme_report_probability(LN3)))
    assert check.excess == pytest.approx(2 - check.expected_at_most)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"reports": [1.5, 2]}, "reports"),
        ({"reports": [[1]]}, "reports"),
        ({"question": "0-10"}, "question"),
        ({"level": 1.5}, "level"),
        ({"scales": 0}, "scales"),
    ],
)
def test_bad_input_to_the_check_names_the_field(kwargs, field):
    arguments = {"reports": [1, 2], "question": LN3, **kwargs}
    with pytest.raises(DPEngineError) as excinfo:
        manipulation_check(**arguments)
    assert excinfo.value.field == field
