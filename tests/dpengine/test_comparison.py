import math

import numpy as np
import pytest
from scipy import stats

from dpengine import (
    CLASSIC,
    ForcedResponse,
    compare,
    estimate,
    power_difference,
    required_sample_size_difference,
)
from dpengine.errors import Reason


def test_difference_and_standard_error_combine_two_independent_groups():
    first = estimate(yes=130, n=400, design=CLASSIC)
    second = estimate(yes=90, n=300, design=CLASSIC)
    result = compare(group=first, rest=second)
    # 0.15 - (2 * 0.3 - 0.5) = 0.05; SEs by hand from sqrt(l (1 - l) / n) / 0.5.
    se = math.hypot(math.sqrt(0.325 * 0.675 / 400) / 0.5, math.sqrt(0.3 * 0.7 / 300) / 0.5)
    assert result.difference == pytest.approx(0.05, abs=1e-15)
    assert result.std_error == pytest.approx(se, rel=1e-14)
    assert result.z == pytest.approx(0.05 / se, rel=1e-12)
    assert result.p_value == pytest.approx(2 * stats.norm.sf(0.05 / se), rel=1e-12)
    assert result.ci_low == pytest.approx(0.05 - 1.959963984540054 * se, rel=1e-12)
    assert result.ci_high == pytest.approx(0.05 + 1.959963984540054 * se, rel=1e-12)


def test_groups_may_use_different_designs():
    strong = ForcedResponse(p_truth=0.25)
    result = compare(
        group=estimate(yes=50, n=100, design=strong), rest=estimate(yes=50, n=100, design=CLASSIC)
    )
    assert result.difference == pytest.approx(0.0, abs=1e-15)
    assert result.p_value == pytest.approx(1.0)


def test_swapping_the_groups_flips_the_sign_only():
    first = estimate(yes=130, n=400, design=CLASSIC)
    second = estimate(yes=90, n=300, design=CLASSIC)
    forward = compare(group=first, rest=second)
    backward = compare(group=second, rest=first)
    assert forward.difference == -backward.difference
    assert forward.p_value == backward.p_value


def test_comparison_with_an_empty_group_is_refused_with_a_reason():
    with pytest.raises(ValueError, match=r"rest has no data \(n = 0\)") as refused:
        compare(
            group=estimate(yes=3, n=10, design=CLASSIC), rest=estimate(yes=0, n=0, design=CLASSIC)
        )
    assert refused.value.reason is Reason.NO_DATA
    assert refused.value.field == "rest"


def test_comparison_without_any_variance_is_refused_with_a_reason():
    with pytest.raises(ValueError, match="zero estimated variance") as refused:
        compare(
            group=estimate(yes=0, n=10, design=CLASSIC),
            rest=estimate(yes=20, n=20, design=CLASSIC),
        )
    assert refused.value.reason is Reason.ZERO_VARIANCE


def test_comparison_needs_estimates():
    with pytest.raises(ValueError, match="group must be an Estimate"):
        compare(group=0.3, rest=estimate(yes=3, n=10, design=CLASSIC))


def test_comparison_takes_its_groups_by_keyword_only():
    first = estimate(yes=130, n=400, design=CLASSIC)
    with pytest.raises(TypeError):
        compare(first, first)


def _rejection_rate(*, p_first, p_second, n, design, pairs, rng):
    lam_first = design.p_yes_given_no + design.information * p_first
    lam_second = design.p_yes_given_no + design.information * p_second
    rejections = 0
    first_counts = rng.binomial(n, lam_first, size=pairs)
    second_counts = rng.binomial(n, lam_second, size=pairs)
    for yes_first, yes_second in zip(first_counts, second_counts, strict=True):
        result = compare(
            group=estimate(yes=int(yes_first), n=n, design=design),
            rest=estimate(yes=int(yes_second), n=n, design=design),
        )
        rejections += result.p_value < 0.05
    return rejections / pairs


@pytest.mark.slow
def test_false_positive_rate_is_near_the_nominal_five_percent():
    # 2000 pairs of groups with the same prevalence; binomial SE of the rate 0.005.
    rate = _rejection_rate(
        p_first=0.3, p_second=0.3, n=400, design=CLASSIC, pairs=2000, rng=np.random.default_rng(1)
    )
    assert 0.03 <= rate <= 0.07


@pytest.mark.slow
def test_power_matches_the_planning_formula():
    # Per-group n for 80 % power at a 10-point difference; 2000 simulated pairs give a
    # rejection rate with SE 0.009, so +/- 0.05 allows for sampling and the normal
    # approximation behind the formula.
    n = required_sample_size_difference(design=CLASSIC, difference=0.1, power=0.8, p=0.3)
    assert power_difference(design=CLASSIC, n=n, difference=0.1, p=0.3) >= 0.8
    rate = _rejection_rate(
        p_first=0.3, p_second=0.4, n=n, design=CLASSIC, pairs=2000, rng=np.random.default_rng(2)
    )
    assert abs(rate - 0.8) <= 0.05
