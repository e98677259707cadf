"""Every 95 % interval the product shows, at n = 10, 20, 50, 100 and 1000 (issue 23).

The acceptance: coverage at least 0.93 for each statistic, question type, design and interval
method, at ranges 0-5 to 0-1000 and epsilon 0.5 to 2.2.

- Yes/no designs: exact, by enumerating the binomial (``dpengine.exact_coverage``), at every
  true prevalence of a 1001-point grid: nothing sampled, so no tolerance.
- Multiple choice (Bonferroni) and numeric statistics: seeded simulation of whole surveys
  (``dpengine.simulate_*_coverage``, which run the estimators themselves). Tolerance, from the
  simulation size: with R surveys a coverage c is seen with standard error sqrt(c (1 - c) / R),
  0.0049 at c = 0.95 for R = 2000 (0.0069 for R = 1000). Each setting must show at least 0.93:
  an interval at its nominal 0.95 falls below that with probability below 3e-5 (4.1 standard
  errors; 0.2 % at R = 1000, 2.9), while one whose true coverage is 0.91 or less passes with
  probability below 0.1 % (3.1 standard errors at R = 2000). So the check measures "at least
  about 0.92", and each seed is fixed per setting, so a run is reproducible in any order.

What the product shows, and the textbook methods' own record. The Wald interval everywhere at
small n, and the Wilson and Jeffreys intervals at some prevalences for n <= 20 (yes/no) or
Wilson's Bonferroni intervals for 4 or 8 options at n <= 20 or 50, fall short of 0.93. The
product does not show them there: ``dpengine.guarantee`` replaces an interval that cannot keep
``confidence - 0.02`` at that n with the exact (Clopper-Pearson) one. So the tests of the
acceptance run on the interval the product shows (``interval_method`` /
``choice_interval_method``), and separate tests keep the textbook methods' shortfalls on
record (the statistics page's tables), failing if the record goes stale either way.
"""

import functools
import math
from pathlib import Path

import numpy as np
import pytest

from dpengine import (
    DESIGNS,
    METHODS,
    BoundedNumeric,
    KaryRandomizedResponse,
    choice_interval_method,
    discrete_laplace_pmf,
    estimate_share_above,
    exact_coverage,
    interval_method,
    minimum_coverage,
    share_above_probabilities,
    simulate_choice_coverage,
    simulate_mean_coverage,
    simulate_numeric_reports,
    simulate_share_above_coverage,
)
from tests.helpers import agrees, table_under

SIZES = (10, 20, 50, 100, 1000)
FLOOR = 0.93
RANGES = (5, 10, 30, 100, 1000)  # questions 0-5 ... 0-1000
EPSILONS = (0.5, 1.0, math.log(3), 2.2)
# The exact method guarantees its level; coverage is a float sum of binomial probabilities.
FLOAT_SLACK = 1e-12


# --- yes/no: exact enumeration, every design and interval method -------------------------------

# (method, design) -> the sizes at which the textbook method's least coverage over every
# prevalence is below 0.93 (dpengine.minimum_coverage: wilson 0.9191 at n = 10 and 0.9263-0.9289
# at n = 20; jeffreys 0.8681 to 0.899 at n = 10 and unrelated_question 0.9241 at n = 50; wald
# 0.73-0.93 up to n = 100). The product shows the exact interval there.
YES_NO_SHORTFALLS = {
    "wald": {kind: {10, 20, 50, 100} for kind in DESIGNS},
    "wilson": {kind: {10, 20} for kind in DESIGNS},
    "jeffreys": {
        kind: {10, 20, 50} if kind == "unrelated_question" else {10, 20} for kind in DESIGNS
    },
    "exact": {},
}


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("kind", DESIGNS)
def test_yes_no_interval_shown_covers_at_least_93_percent_at_every_prevalence(kind, method, n):
    design = DESIGNS[kind]()
    shown = interval_method(design=design, n=n, method=method)
    least = minimum_coverage(design=design, n=n, method=shown.method)
    assert least >= FLOOR, (shown, least)
    # Replaced exactly where the textbook method falls short (the record below).
    assert shown.replaced == (n in YES_NO_SHORTFALLS[method].get(kind, set()))


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("kind", DESIGNS)
def test_the_textbook_yes_no_shortfalls_are_on_record(kind, method):
    design = DESIGNS[kind]()
    short = {n for n in SIZES if minimum_coverage(design=design, n=n, method=method) < FLOOR}
    assert short == YES_NO_SHORTFALLS[method].get(kind, set())
    # The 1001-point grid of the tables sees the same shortfalls.
    on_grid = {
        n for n in SIZES if exact_coverage(design=design, n=n, method=method).min_coverage < FLOOR
    }
    assert on_grid == short


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("kind", DESIGNS)
def test_exact_yes_no_interval_never_covers_less_than_95_percent(kind, n):
    least = minimum_coverage(design=DESIGNS[kind](), n=n, method="exact")
    assert least >= 0.95 - FLOAT_SLACK


# --- multiple choice: joint coverage of the Bonferroni intervals --------------------------------

# (method, k) -> sizes whose joint coverage fell below 0.93 in this sweep (smallest seen: wald
# 0.03 for 8 options at n = 10, where most counts are 0 and its interval a point; wilson 0.856
# for 8 options at n = 10, its per-option level 0.99375 being too much for its normal tail;
# wilson 0.9285 for 8 options at n = 100, at the boundary; 0.931 for 4 options at n = 20).
CHOICE_SHORTFALLS = {
    ("wald", 2): {10},
    ("wald", 4): {10, 20, 50},
    ("wald", 8): {10, 20, 50, 100},
    ("wilson", 4): {10},
    ("wilson", 8): {10, 20, 50, 100},
}
CHOICE_OPTIONS = (2, 4, 8)
CHOICE_EPSILONS = (0.5, math.log(3), 2.2)


def choice_truths(k):
    """Uniform shares, all on one option, and two options of one half each."""
    return {
        "uniform": np.full(k, 1 / k),
        "one": np.eye(k)[0],
        "two halves": np.r_[0.5, 0.5, np.zeros(k - 2)],
    }


@functools.cache
def choice_worst(k, method, n):
    """Per epsilon, the lowest joint coverage of ``method``'s Bonferroni intervals over the true
    shares, 2000 surveys each, seeded per setting: ((coverage, epsilon, truth), ...)."""
    worst = []
    for e_index, epsilon in enumerate(CHOICE_EPSILONS):
        mechanism = KaryRandomizedResponse(k=k, epsilon=epsilon)
        seen = []
        for t_index, (name, shares) in enumerate(choice_truths(k).items()):
            rng = np.random.default_rng([23, k, n, METHODS.index(method), e_index, t_index])
            result = simulate_choice_coverage(
                shares=shares, n=n, mechanism=mechanism, replications=2000, rng=rng, method=method
            )
            seen.append((result.coverage, round(epsilon, 3), name))
        worst.append(min(seen))
    return tuple(worst)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("k", CHOICE_OPTIONS)
@pytest.mark.slow
def test_choice_intervals_shown_hold_every_share_at_once_at_least_93_percent(k, method, n):
    shown = []
    for e_index, epsilon in enumerate(CHOICE_EPSILONS):
        mechanism = KaryRandomizedResponse(k=k, epsilon=epsilon)
        used = choice_interval_method(mechanism=mechanism, n=n, method=method).method
        shown.append(used)
        # This epsilon's intervals, with the method the product shows for them.
        assert choice_worst(k, used, n)[e_index][0] >= FLOOR, (used, choice_worst(k, used, n))
    # Every recorded shortfall is replaced (the rule may replace more: it is sufficient only).
    if n in CHOICE_SHORTFALLS.get((method, k), set()):
        assert set(shown) == {"exact"}


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("k", CHOICE_OPTIONS)
def test_the_textbook_choice_shortfalls_are_on_record(k, method, n):
    known = n in CHOICE_SHORTFALLS.get((method, k), set())
    assert (min(choice_worst(k, method, n))[0] < FLOOR) == known, choice_worst(k, method, n)


# --- numeric questions: the mean and the share above a threshold --------------------------------


def share_answer_sets(hi, threshold, n):
    """True answers of n respondents (0-hi): at the ends, near the threshold, and spread."""
    tenth = max(1, n // 10)
    return {
        "all at 0": np.zeros(n, dtype=int),
        "all at the top": np.full(n, hi),
        "half at each end": np.r_[np.zeros(n - n // 2, dtype=int), np.full(n // 2, hi)],
        "one in ten at the top": np.r_[np.zeros(n - tenth, dtype=int), np.full(tenth, hi)],
        "all at the threshold": np.full(n, threshold),
        "all just above": np.full(n, threshold + 1),
        "half at t, half at t + 1": np.r_[
            np.full(n - n // 2, threshold), np.full(n // 2, threshold + 1)
        ],
        "spread evenly": spread(hi, n),
    }


def spread(hi, n):
    """n answers taking 11 evenly spaced values from 0 to hi in turn."""
    return np.resize(np.linspace(0, hi, 11).round().astype(int), n)


def thresholds(hi):
    return sorted({0, hi // 2, hi - 1})


@functools.cache
def share_sweep(n):
    """Every setting's coverage of the share above a threshold at n respondents: ranges x
    epsilons x thresholds x answer sets, 2000 surveys each (seeded per setting)."""
    results = []
    for hi in RANGES:
        for e_index, epsilon in enumerate(EPSILONS):
            question = BoundedNumeric(lo=0, hi=hi, epsilon=epsilon)
            for threshold in thresholds(hi):
                for a_index, (name, answers) in enumerate(
                    share_answer_sets(hi, threshold, n).items()
                ):
                    rng = np.random.default_rng([23, 1, n, hi, e_index, threshold, a_index])
                    result = simulate_share_above_coverage(
                        answers=answers,
                        question=question,
                        threshold=threshold,
                        replications=2000,
                        rng=rng,
                    )
                    results.append((result.coverage, hi, round(epsilon, 3), threshold, name))
    return tuple(sorted(results))


def mean_answer_sets(hi, n):
    tenth = max(1, n // 10)
    return {
        "all at 0": np.zeros(n, dtype=int),
        "half at each end": np.r_[np.zeros(n - n // 2, dtype=int), np.full(n // 2, hi)],
        "one in ten at the top": np.r_[np.zeros(n - tenth, dtype=int), np.full(tenth, hi)],
        "spread evenly": spread(hi, n),
    }


@functools.cache
def mean_sweep(n):
    """Every setting's coverage of the mean at n respondents: ranges x epsilons x answer sets,
    1000 surveys each (seeded per setting)."""
    results = []
    for hi in RANGES:
        for e_index, epsilon in enumerate(EPSILONS):
            question = BoundedNumeric(lo=0, hi=hi, epsilon=epsilon)
            for a_index, (name, answers) in enumerate(mean_answer_sets(hi, n).items()):
                rng = np.random.default_rng([23, 2, n, hi, e_index, a_index])
                result = simulate_mean_coverage(
                    answers=answers, question=question, replications=1000, rng=rng
                )
                results.append((result.coverage, hi, round(epsilon, 3), name))
    return tuple(sorted(results))


# Each sweep takes 2-10 s on one core: slow.
@pytest.mark.slow
@pytest.mark.parametrize("n", SIZES)
def test_share_above_interval_covers_at_least_93_percent(n):
    sweep = share_sweep(n)
    assert len(sweep) == 4 * sum(len(thresholds(hi)) * 8 for hi in RANGES)
    assert sweep[0][0] >= FLOOR, sweep[:3]


@pytest.mark.slow
@pytest.mark.parametrize("n", SIZES)
def test_mean_interval_covers_at_least_93_percent(n):
    sweep = mean_sweep(n)
    assert len(sweep) == len(RANGES) * len(EPSILONS) * 4
    assert sweep[0][0] >= FLOOR, sweep[:3]


@pytest.mark.slow
def test_the_readmes_numeric_coverage_table_is_this_sweep():
    readme = Path(__file__).resolve().parents[2] / "README.md"
    text = readme.read_text(encoding="utf-8")
    rows = {row[0]: row[1:] for row in table_under(text, "Numeric questions at small samples")}
    assert set(rows) == {"mean", "share above a threshold"}
    for statistic, sweep in (("mean", mean_sweep), ("share above a threshold", share_sweep)):
        for n, cell in zip(SIZES, rows[statistic], strict=True):
            assert agrees(cell, sweep(n)[0][0]), (statistic, n, cell, sweep(n)[0])


# --- the simulators are what they say ------------------------------------------------------------


@pytest.mark.parametrize(("hi", "epsilon"), [(5, 2.2), (30, math.log(3)), (1000, 0.5)])
def test_report_probabilities_match_the_summed_pmf(hi, epsilon):
    # The simulator draws the share's counts from these closed forms; here they are summed from
    # the pmf over |z| <= K instead (the mass beyond, 2 alpha^(K+1) / (1 + alpha), below 1e-13).
    question = BoundedNumeric(lo=0, hi=hi, epsilon=epsilon)
    alpha = question.alpha
    reach = math.ceil(math.log(1e-13) / math.log(alpha))
    z = np.arange(-reach, reach + 1)
    pmf = discrete_laplace_pmf(z, scale=float(question.exact_scale))
    threshold = hi // 2
    for x in (0, threshold, threshold + 1, hi):
        y = x + z
        summed = [
            pmf[y < threshold].sum(),
            pmf[y == threshold].sum(),
            pmf[y == threshold + 1].sum(),
            pmf[y > threshold + 1].sum(),
        ]
        closed = share_above_probabilities(x, threshold=threshold, alpha=alpha)
        assert closed == pytest.approx(summed, abs=1e-11), x


@pytest.mark.parametrize(
    ("hi", "epsilon", "threshold", "answers"),
    [
        # The case: 0-30 at ln 3, 22 respondents, one above 15 (coverage was 0.53).
        (30, math.log(3), 15, [0] * 21 + [20]),
        (5, 2.2, 2, [2] * 10 + [3] * 10),
        (10, 1.0, 5, list(range(11)) * 5),
    ],
)
@pytest.mark.slow
def test_counts_shortcut_agrees_with_whole_surveys_through_the_estimator(
    hi, epsilon, threshold, answers
):
    # 1000 whole surveys (reports drawn one by one, estimate_share_above on each) against the
    # multinomial shortcut: two independent estimates of one coverage, each with standard error
    # at most 0.016, so their difference stays within 0.07 (3 standard errors of a difference).
    question = BoundedNumeric(lo=0, hi=hi, epsilon=epsilon)
    rng = np.random.default_rng([23, 3, hi, threshold])
    truth = np.mean(np.asarray(answers) > threshold)
    held = 0
    for _ in range(1000):
        share = estimate_share_above(
            reports=simulate_numeric_reports(answers, question, rng),
            question=question,
            threshold=threshold,
        )
        held += share.ci_low <= truth <= share.ci_high
    shortcut = simulate_share_above_coverage(
        answers=answers, question=question, threshold=threshold, replications=1000, rng=rng
    )
    assert shortcut.truth == truth
    assert abs(held / 1000 - shortcut.coverage) <= 0.07
    assert held / 1000 >= FLOOR
