"""The interval the product shows keeps its stated level: ``dpengine.guarantee``.

Exact throughout: coverage is enumerated from the binomial (yes/no, and each option of a
multiple-choice question) or the multinomial (joint coverage of a choice question's intervals),
never sampled.
"""

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from dpengine import (
    CHECK_LIMIT,
    DESIGNS,
    METHODS,
    ForcedResponse,
    KaryRandomizedResponse,
    MethodReason,
    binomial_interval,
    choice_interval_method,
    estimate,
    estimate_choice,
    estimate_choice_with_coverage,
    estimate_with_coverage,
    exact_coverage,
    interval_method,
    interval_minimum_coverage,
    minimum_coverage,
    prevalence_interval,
)
from dpengine.errors import DPEngineError
from tests.dpengine.sweeps import LEVELS, TEXTBOOK, rarest

# --- the least coverage over every prevalence --------------------------------------------------


@pytest.mark.parametrize("n", [1, 7, 10, 20, 43, 100])
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("kind", ["forced_response", "unrelated_question", "mangat"])
@pytest.mark.slow
def test_minimum_coverage_is_the_least_coverage_at_any_prevalence(kind, method, n):
    design = DESIGNS[kind]()
    least = minimum_coverage(design=design, n=n, method=method)
    # Oracle: exact_coverage at every interval end and a hair either side of it (where the
    # coverage jumps), plus a grid. The hair moves lambda by 1e-10, the coverage by far less
    # than the tolerance.
    interval = prevalence_interval(yes=np.arange(n + 1), n=n, design=design, method=method)
    ends = np.unique(np.r_[interval.low, interval.high])
    probes = np.clip(np.r_[ends, ends - 1e-10, ends + 1e-10, np.linspace(0, 1, 1001)], 0, 1)
    oracle = exact_coverage(design=design, n=n, method=method, p=probes).min_coverage
    assert least == pytest.approx(oracle, abs=1e-7)
    # An infimum: no prevalence of a much finer grid does worse.
    dense = exact_coverage(design=design, n=n, method=method, p=np.linspace(0, 1, 20001))
    assert dense.min_coverage >= least - 1e-12


@pytest.mark.parametrize("confidence", LEVELS)
@pytest.mark.parametrize("n", [1, 10, 20, 50, 333])
def test_the_exact_method_never_covers_less_than_its_level(n, confidence):
    for kind in DESIGNS:
        least = minimum_coverage(design=DESIGNS[kind](), n=n, confidence=confidence, method="exact")
        assert least >= confidence - 1e-12, (kind, least)


def test_minimum_coverage_refuses_no_data():
    with pytest.raises(DPEngineError) as refused:
        minimum_coverage(design=DESIGNS["warner"](), n=0)
    assert refused.value.field == "n"


# --- which method is shown ---------------------------------------------------------------------


@pytest.mark.parametrize("confidence", LEVELS)
@pytest.mark.parametrize("method", TEXTBOOK)
@pytest.mark.parametrize("kind", list(DESIGNS))
def test_a_method_is_kept_exactly_when_its_least_coverage_reaches_the_floor(
    kind, method, confidence
):
    design = DESIGNS[kind]()
    floor = round(confidence - 0.02, 12)
    for n in (1, 5, 10, 20, 30, 42, 43, 50, 75, 100, 150, 250):
        chosen = interval_method(design=design, n=n, confidence=confidence, method=method)
        assert (chosen.requested, chosen.n, chosen.floor) == (method, n, floor)
        if chosen.reason == MethodReason.LARGE_SAMPLE:
            assert n * rarest(design.p_yes_given_yes, design.p_yes_given_no) >= 300
            continue
        least = minimum_coverage(design=design, n=n, confidence=confidence, method=method)
        assert chosen.coverage_bound == least
        assert chosen.method == (method if least >= floor else "exact"), (n, least)
        assert chosen.replaced == (least < floor)


@pytest.mark.slow
def test_wilson_is_shown_from_43_reports_at_95_percent_under_the_classic_design():
    # The docs' promise in one number: up to 42 reports (0.92985 there) the default Wilson
    # interval can hold the truth less than 93 % of the time at some prevalences, so the exact
    # one is shown; coverage wobbles with n, so a few sizes below 43 keep Wilson (1, 29, 34,
    # 37 to 39), and none from 43 on.
    design = DESIGNS["forced_response"]()
    replaced = {
        n for n in range(1, 400) if interval_method(design=design, n=n, method="wilson").replaced
    }
    assert max(replaced) == 42
    assert set(range(1, 43)) - replaced == {1, 29, 34, 37, 38, 39}


def test_the_exact_method_and_no_data_keep_what_was_asked():
    design = DESIGNS["kuk"]()
    assert interval_method(design=design, n=12, method="exact").reason == MethodReason.GUARANTEED
    kept = interval_method(design=design, n=0, method="wald")
    assert (kept.method, kept.reason, kept.replaced) == ("wald", MethodReason.GUARANTEED, False)


def test_too_many_reports_to_enumerate_and_too_few_to_skip_give_the_exact_method():
    # a = 0.0199, b = 0.0099: the rarest report is expected n b times, 0.0099 n < 300 until
    # n = 30,304, beyond the enumeration limit of 5000: nothing is checked, exact is shown.
    design = ForcedResponse(p_truth=0.01, p_forced_yes=0.01)
    chosen = interval_method(design=design, n=CHECK_LIMIT + 1, method="wilson")
    assert (chosen.method, chosen.reason, chosen.coverage_bound) == (
        "exact",
        MethodReason.UNCHECKED,
        None,
    )
    assert interval_method(design=design, n=31_000, method="wilson").method == "wilson"


def test_the_large_sample_rule_needs_a_swept_level():
    design = DESIGNS["warner"]()
    assert interval_method(design=design, n=4000, method="wald").reason == (
        MethodReason.LARGE_SAMPLE
    )
    # 70 % is outside the sweep: enumerated instead.
    chosen = interval_method(design=design, n=4000, confidence=0.7, method="wald")
    assert chosen.reason in (MethodReason.CHECKED, MethodReason.BELOW_FLOOR)


def test_the_estimate_shown_differs_from_dpengines_only_in_its_interval():
    design = DESIGNS["forced_response"]()
    shown = estimate_with_coverage(yes=7, n=12, design=design, method="wilson")
    plain = estimate(yes=7, n=12, design=design, method="wilson")
    exact = estimate(yes=7, n=12, design=design, method="exact")
    assert (shown.method, shown.requested_method, shown.method_replaced) == (
        "exact",
        "wilson",
        True,
    )
    assert shown.ci == exact.ci != plain.ci
    assert (shown.estimate, shown.clamped, shown.std_error) == (
        plain.estimate,
        plain.clamped,
        plain.std_error,
    )
    assert shown.as_dict()["requested_method"] == "wilson"
    # dpengine's own estimate is unchanged: it uses what it is asked for.
    assert (plain.method, plain.requested_method, plain.method_replaced) == (
        "wilson",
        "wilson",
        False,
    )
    kept = estimate_with_coverage(yes=70, n=120, design=design, method="wilson")
    assert kept == estimate(yes=70, n=120, design=design, method="wilson")


# --- multiple choice: Bonferroni over each option's exact least coverage ------------------------


def per_option_least(mechanism, n, confidence, method):
    level = 1 - (1 - confidence) / mechanism.k
    p, q = mechanism.keep_probability, mechanism.other_probability
    interval = binomial_interval(yes=np.arange(n + 1), n=n, confidence=level, method=method)
    low = np.clip((interval.low - q) / (p - q), 0, 1)
    high = np.clip((interval.high - q) / (p - q), 0, 1)
    return interval_minimum_coverage(low=low, high=high, n=n, a=p, b=q)


@pytest.mark.parametrize("method", TEXTBOOK)
@pytest.mark.parametrize(("k", "epsilon"), [(2, 0.5), (4, math.log(3)), (8, 2.2), (20, 1.0)])
def test_choice_keeps_a_method_when_bonferroni_proves_the_floor(k, epsilon, method):
    mechanism = KaryRandomizedResponse(k=k, epsilon=epsilon)
    for n in (10, 20, 50, 100, 300):
        chosen = choice_interval_method(mechanism=mechanism, n=n, method=method)
        if chosen.reason == MethodReason.LARGE_SAMPLE:
            continue
        least = per_option_least(mechanism, n, 0.95, method)
        # The Bonferroni bound on the joint coverage, against the floor 0.93.
        assert chosen.coverage_bound == pytest.approx(1 - k * (1 - least), abs=1e-12)
        assert chosen.method == (method if 1 - k * (1 - least) >= 0.93 else "exact")


def joint_coverage(shares, *, n, mechanism, method, confidence=0.95):
    """P(every option's interval holds its share), enumerating the multinomial exactly.

    Each option's interval depends on its own count only (Bonferroni), so it is read once per
    count from estimate_choice (as option 0 of the counts (c, n - c, 0, ...))."""
    k = mechanism.k
    table = [
        estimate_choice(
            counts=[c, n - c] + [0] * (k - 2),
            mechanism=mechanism,
            confidence=confidence,
            method=method,
        )
        for c in range(n + 1)
    ]
    low = np.array([result.ci_low[0] for result in table])
    high = np.array([result.ci_high[0] for result in table])
    p, q = mechanism.keep_probability, mechanism.other_probability
    rates = q + (p - q) * np.asarray(shares)
    held = 0.0
    for counts in itertools.product(range(n + 1), repeat=k - 1):
        last = n - sum(counts)
        if last < 0:
            continue
        counts = (*counts, last)
        if all(low[c] <= share <= high[c] for c, share in zip(counts, shares, strict=True)):
            held += stats.multinomial.pmf(counts, n, rates)
    return held


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize(("k", "n"), [(3, 10), (3, 20), (4, 10), (4, 16)])
def test_choice_intervals_shown_hold_together_at_least_93_percent(k, n, method):
    mechanism = KaryRandomizedResponse(k=k, epsilon=math.log(3))
    shown = choice_interval_method(mechanism=mechanism, n=n, method=method).method
    truths = [np.full(k, 1 / k), np.eye(k)[0], np.r_[0.5, 0.5, np.zeros(k - 2)]]
    truths += list(np.random.default_rng([23, k, n]).dirichlet(np.ones(k), size=6))
    worst = min(
        joint_coverage(np.asarray(t), n=n, mechanism=mechanism, method=shown) for t in truths
    )
    assert worst >= 0.93, (shown, worst)


def test_the_choice_estimate_shown_carries_the_requested_method():
    mechanism = KaryRandomizedResponse(k=8, odds=3)
    counts = [3, 1, 0, 2, 0, 1, 2, 1]
    shown = estimate_choice_with_coverage(counts=counts, mechanism=mechanism, method="wilson")
    exact = estimate_choice(counts=counts, mechanism=mechanism, method="exact")
    assert (shown.method, shown.requested_method, shown.method_replaced) == (
        "exact",
        "wilson",
        True,
    )
    assert np.array_equal(shown.ci_low, exact.ci_low)
    assert np.array_equal(shown.ci_high, exact.ci_high)
    assert np.array_equal(shown.shares, exact.shares)
