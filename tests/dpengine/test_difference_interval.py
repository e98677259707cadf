"""The interval shown for the difference of two randomized-response shares (and of a
randomized share against a directly asked one): exact coverage, by enumerating both binomials.

Coverage at true shares ``(p_1, p_2)`` is ``sum_{y_1, y_2} P(y_1) P(y_2) 1[p_1 - p_2 in
I(y_1, y_2)]`` (:func:`dpengine.difference_coverage`), computed on a grid of true shares that
includes the edges 0 and 1 of both. The grid only illustrates: the level is proven for every
pair (see :func:`dpengine.difference_interval`), so these tests check that the code does what the
proof assumes, and show how far Wald falls short where it is replaced.
"""

import numpy as np
import pytest

from dpengine import (
    CLASSIC,
    DIFFERENCE_METHOD,
    ForcedResponse,
    binomial_interval,
    compare,
    compare_direct,
    difference_coverage,
    difference_interval,
    difference_interval_table,
    estimate,
    prevalence_interval,
)
from dpengine.errors import DPEngineError, Reason

STRONG = ForcedResponse(p_truth=0.25)  # a = 0.625, b = 0.375: a weaker signal than classic
DIRECT = (1.0, 0.0)  # asked directly: the report is the truth


def rates(design):
    return (design.p_yes_given_yes, design.p_yes_given_no)


def least_coverage(table, *, n_first, first, n_second, second, points=41):
    """Least exact coverage over a ``points x points`` grid of true shares in [0, 1]^2."""
    grid = np.linspace(0.0, 1.0, points)
    p_1, p_2 = (axis.ravel() for axis in np.meshgrid(grid, grid, indexing="ij"))
    coverage = difference_coverage(
        low=table.low,
        high=table.high,
        n_first=n_first,
        n_second=n_second,
        first_rates=first[1] + (first[0] - first[1]) * p_1,
        second_rates=second[1] + (second[0] - second[1]) * p_2,
        first_shares=p_1,
        second_shares=p_2,
    )
    return float(coverage.min())


def wald_table(*, n_first, first, n_second, second, confidence=0.95):
    """Wald's interval of the difference for every pair of counts, as dpengine.compare gives
    it (a zero standard error makes it a single point)."""
    z = 1.959963984540054 if confidence == 0.95 else None

    def side(n, a, b):
        rate = np.arange(n + 1) / n
        return (rate - b) / (a - b), np.sqrt(rate * (1 - rate) / n) / (a - b)

    p_1, se_1 = side(n_first, *first)
    p_2, se_2 = side(n_second, *second)
    d = p_1[:, None] - p_2[None, :]
    half = z * np.hypot(se_1[:, None], se_2[None, :])
    return np.clip(d - half, -1, 1), np.clip(d + half, -1, 1)


def test_the_interval_joins_each_groups_exact_interval_at_levels_multiplying_to_the_confidence():
    first = estimate(yes=30, n=50, design=CLASSIC)
    second = estimate(yes=400, n=2000, design=STRONG)
    shown = difference_interval(first=first, second=second)
    assert shown.method == DIFFERENCE_METHOD == "exact-product"
    assert shown.first_level * shown.second_level == pytest.approx(0.95, rel=1e-12)
    # The smaller group gets most of the level: its interval is the wider one.
    assert shown.first_level < shown.second_level
    low_1, high_1 = prevalence_interval(
        yes=30, n=50, design=CLASSIC, confidence=shown.first_level, method="exact"
    )
    low_2, high_2 = prevalence_interval(
        yes=400, n=2000, design=STRONG, confidence=shown.second_level, method="exact"
    )
    assert shown.low == pytest.approx(low_1 - high_2, abs=1e-12)
    assert shown.high == pytest.approx(high_1 - low_2, abs=1e-12)
    # Shown estimate: the clamped shares' difference, 0.7 - 0 (400/2000 is below b = 0.375).
    assert shown.estimate == pytest.approx(0.7, abs=1e-12)


@pytest.mark.parametrize(
    ("n_first", "n_second"), [(10, 10), (20, 20), (50, 50), (100, 100), (7, 13), (10, 100)]
)
@pytest.mark.parametrize(
    ("first", "second"),
    [(CLASSIC, CLASSIC), (STRONG, CLASSIC)],
    ids=["classic-classic", "strong-classic"],
)
def test_exact_coverage_is_at_least_the_level_at_every_grid_pair(n_first, n_second, first, second):
    table = difference_interval_table(
        n_first=n_first, first_rates=rates(first), n_second=n_second, second_rates=rates(second)
    )
    least = least_coverage(
        table, n_first=n_first, first=rates(first), n_second=n_second, second=rates(second)
    )
    # Proven at least 0.95; exact product of two exact intervals is well above it in practice.
    assert least >= 0.95


def test_wald_which_it_replaces_falls_far_short_with_small_groups():
    # Two groups of 7 and 13 under the classic design (the case): Wald's least
    # coverage on the 41 x 41 grid is 0.872 (this enumeration), far below the 0.93 floor.
    classic = rates(CLASSIC)
    low, high = wald_table(n_first=7, first=classic, n_second=13, second=classic)
    table = type("Table", (), {"low": low, "high": high})
    assert least_coverage(table, n_first=7, first=classic, n_second=13, second=classic) < 0.9


def test_the_shown_estimate_lies_inside_its_interval_for_every_pair_of_counts():
    for yes_1 in range(8):
        for yes_2 in range(14):
            shown = difference_interval(
                first=estimate(yes=yes_1, n=7, design=CLASSIC),
                second=estimate(yes=yes_2, n=13, design=CLASSIC),
            )
            assert shown.low <= shown.estimate <= shown.high
            assert -1 <= shown.low <= shown.high <= 1


@pytest.mark.parametrize(("yes_1", "yes_2"), [(30, 10), (25, 20), (40, 5), (20, 20), (3, 17)])
def test_the_p_value_is_below_the_miss_exactly_when_the_interval_leaves_out_zero(yes_1, yes_2):
    first = estimate(yes=yes_1, n=50, design=CLASSIC)
    second = estimate(yes=yes_2, n=40, design=CLASSIC)
    for confidence in (0.8, 0.9, 0.95, 0.99):
        shown = difference_interval(first=first, second=second, confidence=confidence)
        # The p-value search is accurate to 1 % of itself; skip levels that close to it.
        if abs(shown.p_value - (1 - confidence)) < 0.02 * shown.p_value:
            continue
        excludes_zero = not (shown.low <= 0 <= shown.high)
        assert excludes_zero == (shown.p_value < 1 - confidence)


def test_compare_keeps_wald_and_carries_the_interval_to_show():
    group = estimate(yes=130, n=400, design=CLASSIC)
    rest = estimate(yes=90, n=300, design=CLASSIC)
    result = compare(group=group, rest=rest)
    assert result.shown == difference_interval(first=group, second=rest)
    assert result.method == "exact-product"
    # Wald's fields are unchanged: 0.05 +/- 1.96 se.
    assert result.difference == pytest.approx(0.05, abs=1e-15)
    assert result.ci_high - result.difference == pytest.approx(1.959963984540054 * result.std_error)


@pytest.mark.parametrize(("n_randomized", "n_direct"), [(10, 10), (20, 50), (100, 100)])
def test_direct_comparison_interval_covers_by_exact_enumeration(n_randomized, n_direct):
    table = difference_interval_table(
        n_first=n_randomized, first_rates=rates(CLASSIC), n_second=n_direct, second_rates=DIRECT
    )
    least = least_coverage(
        table, n_first=n_randomized, first=rates(CLASSIC), n_second=n_direct, second=DIRECT
    )
    assert least >= 0.95


def test_compare_direct_shows_the_exact_interval_when_given_the_randomized_reports():
    randomized = estimate(yes=14, n=20, design=CLASSIC)
    result = compare_direct(
        estimate=randomized.estimate,
        std_error=randomized.std_error,
        direct_yes=3,
        direct_n=20,
        randomized=randomized,
    )
    shown = result.shown
    assert shown.method == "exact-product"
    low_1, high_1 = prevalence_interval(
        yes=14, n=20, design=CLASSIC, confidence=shown.first_level, method="exact"
    )
    # The direct group's share is a plain binomial: its own exact interval, unmapped.
    low_2, high_2 = binomial_interval(yes=3, n=20, confidence=shown.second_level, method="exact")
    assert shown.low == pytest.approx(low_1 - high_2, abs=1e-12)
    assert shown.high == pytest.approx(high_1 - low_2, abs=1e-12)
    assert shown.estimate == pytest.approx(0.9 - 0.15, abs=1e-12)
    assert shown.low <= shown.estimate <= shown.high
    assert result.as_dict()["shown"]["method"] == "exact-product"
    # Without the reports there is nothing to back an interval with.
    bare = compare_direct(estimate=0.3, std_error=0.05, direct_yes=20, direct_n=100)
    assert bare.shown is None and bare.as_dict()["shown"] is None


def test_compare_direct_refuses_reports_that_disagree_with_the_estimate():
    randomized = estimate(yes=14, n=20, design=CLASSIC)
    with pytest.raises(DPEngineError) as raised:
        compare_direct(
            estimate=0.1,
            std_error=randomized.std_error,
            direct_yes=3,
            direct_n=20,
            randomized=randomized,
        )
    assert raised.value.field == "randomized" and raised.value.reason == Reason.OUT_OF_RANGE


@pytest.mark.parametrize("confidence", [0.8, 0.9, 0.99])
@pytest.mark.parametrize(("n_first", "n_second"), [(10, 50), (50, 100), (100, 100)])
def test_exact_coverage_holds_at_other_levels_on_a_finer_grid(confidence, n_first, n_second):
    table = difference_interval_table(
        n_first=n_first,
        first_rates=rates(STRONG),
        n_second=n_second,
        second_rates=rates(CLASSIC),
        confidence=confidence,
    )
    least = least_coverage(
        table,
        n_first=n_first,
        first=rates(STRONG),
        n_second=n_second,
        second=rates(CLASSIC),
        points=81,
    )
    assert least >= confidence
