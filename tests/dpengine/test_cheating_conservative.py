"""Cheating-detection intervals at small samples (dpengine/cheating/conservative.py): the
conservative interval's construction and coverage, the rule that picks it over Wald's, and
the exact sweep behind the rule's threshold.

Coverage is computed exactly, as tests/dpengine/test_cheating.py's ``_min_coverage`` does:
both groups' binomial counts enumerated, at the grid of truths there, 95 % nominal.
"""

import math

import numpy as np
import pytest

from dpengine import CheatingDetection, StochasticLieDetector, estimate_cheating
from dpengine.cheating import (
    CONSERVATIVE_METHOD,
    WALD_MIN_GROUP,
    CheatingMethodReason,
    cheating_interval_method,
    closed_form,
    conservative_intervals,
)
from dpengine.cheating.conservative import WALD_LEVELS, parameter_of_rates
from tests.dpengine.test_cheating import (
    CDM_TRUTHS,
    COVERAGE_CASES,
    SLD_TRUTHS,
    _grid,
    _least_coverage,
    _wald_family,
)

FLOOR = 0.93


def _reported(design, n1, n2, confidence=0.95):
    """The intervals estimate_cheating reports at every pair of counts (vectorised: the
    rule's choice, then that family; test_reported_intervals_are_the_vectorised_ones ties
    this to estimate_cheating cell by cell)."""
    if cheating_interval_method(n1=n1, n2=n2, confidence=confidence).replaced:
        yes1, yes2 = _grid(n1, n2)
        return conservative_intervals(
            design=design, n1=n1, yes1=yes1, n2=n2, yes2=yes2, confidence=confidence
        )
    return _wald_family(design, n1, n2, confidence)


# --- the conservative interval ------------------------------------------------------------


@pytest.mark.parametrize(
    "design",
    [
        CheatingDetection(p=(0.2, 0.8)),
        CheatingDetection(p=(0.9, 0.5)),
        StochasticLieDetector(p=(0.2, 0.8)),
        StochasticLieDetector(p=(0.7, 0.3)),
    ],
)
def test_parameter_extremes_over_a_rectangle_lie_at_its_corners(design):
    # Seeded rectangles of yes-rates; each parameter on a dense 41 x 41 grid inside against
    # its four corners. Linear parameters: the grid never beats the corners. The SLD's t:
    # the same where its denominator keeps one sign; where it can reach 0 the grid runs out
    # of [0, 1], which is why the interval is then [0, 1].
    rng = np.random.default_rng(31)
    p1, p2 = (float(q) for q in design.p)
    crossings = 0
    for _ in range(200):
        low1, high1 = np.sort(rng.uniform(0, 1, 2))
        low2, high2 = np.sort(rng.uniform(0, 1, 2))
        grid1, grid2 = np.meshgrid(np.linspace(low1, high1, 41), np.linspace(low2, high2, 41))
        inside = parameter_of_rates(design, grid1, grid2)
        corners = parameter_of_rates(
            design, np.array([low1, low1, high1, high1]), np.array([low2, high2, low2, high2])
        )
        for name in design.parameter_names:
            if name == "t":
                denominators = [(b - a) + (p2 - p1) for a in (low1, high1) for b in (low2, high2)]
                if min(denominators) <= 0 <= max(denominators):
                    crossings += 1
                    lost = ~np.isfinite(inside[name]) | (inside[name] < 0) | (inside[name] > 1)
                    assert lost.any()
                    continue
            assert inside[name].min() >= corners[name].min() - 1e-12
            assert inside[name].max() <= corners[name].max() + 1e-12
    if design.kind == "sld":
        assert 0 < crossings < 200


def test_conservative_interval_by_hand():
    # CDM p = (0.2, 0.8), 3 of 10 and 8 of 10 "yes". Clopper-Pearson at sqrt(0.95):
    # beta quantiles; pi = (0.8 l1 - 0.2 l2) / 0.6 is largest at (high1, low2).
    from scipy import stats

    design = CheatingDetection(p=(0.2, 0.8))
    tail = (1 - math.sqrt(0.95)) / 2
    low1, high1 = stats.beta.ppf(tail, 3, 8), stats.beta.ppf(1 - tail, 4, 7)
    low2, high2 = stats.beta.ppf(tail, 8, 3), stats.beta.ppf(1 - tail, 9, 2)
    result = estimate_cheating(design=design, n1=10, yes1=3, n2=10, yes2=8)
    assert result.method == CONSERVATIVE_METHOD and result.method_replaced
    assert result.method_reason == "small_groups" and result.requested_method == "wald"
    pi = result["pi"]
    assert pi.method == CONSERVATIVE_METHOD
    assert pi.ci_high == pytest.approx((0.8 * high1 - 0.2 * low2) / 0.6, rel=1e-9)
    assert pi.ci_low == pytest.approx(max(0.0, (0.8 * low1 - 0.2 * high2) / 0.6), abs=1e-12)
    beta = result["beta"]
    assert (beta.ci_low, beta.ci_high) == pytest.approx(
        (max(0.0, (low2 - high1) / 0.6), min(1.0, (high2 - low1) / 0.6)), rel=1e-9
    )


def test_sld_t_is_the_unit_interval_when_carriers_may_be_absent():
    # 15 of 20 and 6 of 20 "yes" with p = (0.2, 0.8): l2 - l1 + 0.6 (0.15 here) reaches 0 inside
    # the rectangle, t is unbounded there, and the interval is [0, 1].
    design = StochasticLieDetector(p=(0.2, 0.8))
    result = estimate_cheating(design=design, n1=20, yes1=15, n2=20, yes2=6)
    assert tuple(result["t"].ci) == (0.0, 1.0)
    # Many carriers: the denominator stays positive and t's interval is a proper one.
    clear = estimate_cheating(design=design, n1=20, yes1=10, n2=20, yes2=16)
    assert 0 < clear["t"].ci_low < clear["t"].ci_high <= 1


@pytest.mark.parametrize(("n1", "n2"), [(10, 10), (8, 30), (20, 20)])
def test_the_rectangle_holds_both_yes_rates_at_least_at_the_level(n1, n2):
    # The guarantee's core, exactly: P(l1 in CP1 and l2 in CP2) = P(l1 in CP1) P(l2 in CP2)
    # >= sqrt(c)^2 = c at every pair of rates. Each group at level c instead would not do:
    # the product falls below c (why the level is sqrt(c)).
    from scipy import stats

    from dpengine.cheating.conservative import yes_rate_rectangle

    def held(n, low, high, rate):
        return float(
            (stats.binom.pmf(np.arange(n + 1), n, rate) * ((low <= rate) & (rate <= high))).sum()
        )

    rates = np.linspace(0.01, 0.99, 99)
    yes1, yes2 = np.arange(n1 + 1), np.arange(n2 + 1)
    low1, high1, low2, high2 = yes_rate_rectangle(
        n1=n1, yes1=yes1, n2=n2, yes2=yes2, confidence=0.95
    )
    first = [held(n1, low1, high1, r) for r in rates]
    second = [held(n2, low2, high2, r) for r in rates]
    assert min(first) * min(second) >= 0.95
    assert min(a * b for a in first for b in second) >= 0.95
    # Each at 0.95: some pair of rates is held less than 95 % of the time.
    from dpengine.intervals import binomial_interval

    one = binomial_interval(yes=yes1, n=n1, confidence=0.95, method="exact")
    two = binomial_interval(yes=yes2, n=n2, confidence=0.95, method="exact")
    first = [held(n1, one.low, one.high, r) for r in rates]
    second = [held(n2, two.low, two.high, r) for r in rates]
    assert min(a * b for a in first for b in second) < 0.95


@pytest.mark.parametrize(("design", "truths"), COVERAGE_CASES)
@pytest.mark.parametrize(("n1", "n2"), [(3, 3), (5, 5), (10, 10), (5, 20), (25, 25)])
def test_conservative_interval_covers_at_least_its_level(design, truths, n1, n2):
    yes1, yes2 = _grid(n1, n2)
    for confidence in (0.95, 0.8):
        intervals = conservative_intervals(
            design=design, n1=n1, yes1=yes1, n2=n2, yes2=yes2, confidence=confidence
        )
        worst = _least_coverage(design, n1, n2, truths, intervals)
        assert min(worst.values()) >= confidence, (confidence, worst)


# --- what estimate_cheating reports -------------------------------------------------------


@pytest.mark.parametrize(("design", "truths"), COVERAGE_CASES)
@pytest.mark.parametrize(
    ("n1", "n2"), [(5, 5), (10, 10), (25, 25), (50, 50), (30, 60), (150, 150), (100, 200)]
)
def test_reported_intervals_cover_at_least_093_at_small_n(design, truths, n1, n2):
    # n = 10, 20, 50, 100 (and 90 unequally), where Wald's fell to 0.50-0.93, and 300.
    worst = _least_coverage(design, n1, n2, truths, _reported(design, n1, n2))
    assert min(worst.values()) >= FLOOR, worst


@pytest.mark.parametrize(
    ("design", "n1", "n2", "name"),
    [
        (CheatingDetection(p=(0.2, 0.8)), 5, 5, "gamma"),
        (CheatingDetection(p=(0.9, 0.5)), 25, 25, "gamma"),
        (StochasticLieDetector(p=(0.2, 0.8)), 5, 5, "t"),
        (StochasticLieDetector(p=(0.2, 0.8)), 25, 25, "t"),
    ],
)
def test_wald_falls_short_where_the_conservative_interval_is_shown(design, n1, n2, name):
    # The defect: these sizes are below WALD_MIN_GROUP, and Wald's interval misses the floor.
    truths = CDM_TRUTHS if design.kind == "cdm" else SLD_TRUTHS
    assert _least_coverage(design, n1, n2, truths, _wald_family(design, n1, n2))[name] < FLOOR
    assert cheating_interval_method(n1=n1, n2=n2, confidence=0.95).replaced


@pytest.mark.parametrize(
    "design", [CheatingDetection(p=(0.2, 0.8)), StochasticLieDetector(p=(0.3, 0.7))]
)
def test_reported_intervals_are_the_vectorised_ones(design):
    for n1, n2 in ((5, 7), (WALD_MIN_GROUP, WALD_MIN_GROUP)):
        vectorised = _reported(design, n1, n2)
        for yes1 in range(0, n1 + 1, max(1, n1 // 6)):
            for yes2 in range(0, n2 + 1, max(1, n2 // 6)):
                result = estimate_cheating(design=design, n1=n1, yes1=yes1, n2=n2, yes2=yes2)
                for name, (low, high) in vectorised.items():
                    assert result[name].ci_low == pytest.approx(low[yes1, yes2], abs=1e-12)
                    assert result[name].ci_high == pytest.approx(high[yes1, yes2], abs=1e-12)


@pytest.mark.parametrize(
    "design", [CheatingDetection(p=(0.2, 0.8)), StochasticLieDetector(p=(0.2, 0.8))]
)
def test_point_estimates_and_standard_errors_do_not_depend_on_the_interval(design):
    # The closed form on the counts, as estimate_cheating computed it before it had a second
    # interval (RRreg's values: tests/dpengine/test_cheating.py compares them to 1e-12).
    for n1, n2 in ((6, 9), (40, 40)):
        for y1 in range(n1 + 1):
            for y2 in (0, n2 // 3, n2):
                result = estimate_cheating(design=design, n1=n1, yes1=y1, n2=n2, yes2=y2)
                assert result.method == CONSERVATIVE_METHOD
                forms = closed_form(design=design, n1=n1, yes1=y1, n2=n2, yes2=y2)
                for name, (est, se) in forms.items():
                    expected = (float(est), float(se))
                    got = (result[name].estimate, result[name].std_error)
                    assert got == tuple(None if math.isnan(x) else x for x in expected)


def test_the_rule():
    below = cheating_interval_method(n1=WALD_MIN_GROUP - 1, n2=500, confidence=0.95)
    assert below.replaced and below.reason == CheatingMethodReason.SMALL_GROUPS
    assert below.floor == 0.93
    at = cheating_interval_method(n1=WALD_MIN_GROUP, n2=WALD_MIN_GROUP, confidence=0.95)
    assert not at.replaced and at.reason == CheatingMethodReason.LARGE_GROUPS
    unswept = cheating_interval_method(n1=1000, n2=1000, confidence=0.85)
    assert unswept.replaced and unswept.reason == CheatingMethodReason.UNSWEPT_LEVEL
    empty = estimate_cheating(design=CheatingDetection(), n1=0, yes1=0, n2=5, yes2=1)
    assert empty.method_reason == "no_data" and not empty.method_replaced
    large = estimate_cheating(design=StochasticLieDetector(), n1=150, yes1=60, n2=150, yes2=90)
    assert large.method == "wald" and large["t"].method == "fieller"
    assert large["pi"].method == "wald" and large.as_dict()["method_reason"] == "large_groups"


# --- the sweep behind WALD_MIN_GROUP ------------------------------------------------------

SWEEP_CASES = [
    *COVERAGE_CASES,
    # Two weaker designs (their groups' p closer together).
    (CheatingDetection(p=(0.3, 0.6)), CDM_TRUTHS),
    (StochasticLieDetector(p=(0.35, 0.65)), SLD_TRUTHS),
]
# Per level, the last shortfall below the floor: (SWEEP_CASES index, n1, n2).
LAST_SHORTFALL = {0.90: (3, 68, 68), 0.95: (2, 71, 142), 0.99: (2, 62, 124)}


def _sweep_sizes(smallest):
    for m in smallest:
        yield from ((m, m), (m, 2 * m), (2 * m, m))


@pytest.mark.slow
@pytest.mark.parametrize("confidence", sorted(LAST_SHORTFALL))
def test_wald_keeps_the_floor_from_the_threshold_on(confidence):
    # About 30 s a level. The last shortfall is below WALD_MIN_GROUP; from the next smaller
    # group to 160, then 180, 200, 250, 300, 400 (equal groups and one twice the other) no
    # design falls short (docs/statistics.md has the table).
    floor = round(confidence - 0.02, 12)
    assert WALD_LEVELS[0] <= confidence <= WALD_LEVELS[1]
    index, n1, n2 = LAST_SHORTFALL[confidence]
    design, truths = SWEEP_CASES[index]
    worst = _least_coverage(design, n1, n2, truths, _wald_family(design, n1, n2, confidence))
    assert min(worst.values()) < floor
    assert min(n1, n2) < WALD_MIN_GROUP
    sizes = [*range(min(n1, n2) + 1, 161), 180, 200, 250, 300, 400]
    for design, truths in SWEEP_CASES:
        for n1, n2 in _sweep_sizes(sizes):
            intervals = _wald_family(design, n1, n2, confidence)
            worst = _least_coverage(design, n1, n2, truths, intervals)
            assert min(worst.values()) >= floor, (design, n1, n2, worst)


def test_wald_falls_short_at_80_percent_beyond_the_threshold():
    # Why 80 % is outside WALD_LEVELS: SLD p = (0.2, 0.8) with 143 a group covers pi less
    # than 0.78 at some truth of the grid.
    design, truths = SWEEP_CASES[3]
    worst = _least_coverage(design, 143, 143, truths, _wald_family(design, 143, 143, 0.8))
    assert worst["pi"] < 0.78
    assert cheating_interval_method(n1=143, n2=143, confidence=0.8).replaced


def test_the_statistics_pages_small_sample_table_is_computed_exactly():
    # docs/statistics.md, "Cheating detection: CDM and SLD", its small-sample table: each
    # design's Wald (Fieller) least coverage at n = 10-200 (equal groups), with the parameter
    # where it is least, and the reported intervals' least coverage over all of them.
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "statistics.md").read_text("utf-8")
    sizes = (5, 10, 25, 50, 100)
    symbols = {"π": "pi", "β": "beta", "γ": "gamma", "t": "t"}
    rows = re.findall(r"^\| (CDM|SLD) \((\S+), (\S+)\), Wald\S* \| (.+) \|$", text, re.M)
    assert len(rows) == 5
    for kind, p1, p2, cells in rows:
        design = (CheatingDetection if kind == "CDM" else StochasticLieDetector)(
            p=(float(p1), float(p2))
        )
        truths = CDM_TRUTHS if kind == "CDM" else SLD_TRUTHS
        for m, cell in zip(sizes, cells.split(" | "), strict=True):
            worst = _least_coverage(design, m, m, truths, _wald_family(design, m, m))
            value, *name = cell.replace("(", "").replace(")", "").split()
            least = min(worst, key=worst.get)
            assert f"{worst[least]:.3f}" == value, (kind, p1, p2, m)
            assert [symbols[n] for n in name] in ([], [least])
    reported = re.search(r"^\| every design above, as reported \| (.+) \|$", text, re.M)
    for m, cell in zip(sizes, reported.group(1).split(" | ")[:4], strict=False):
        bound = float(cell.removeprefix("≥ "))
        for design, truths in COVERAGE_CASES:
            worst = _least_coverage(design, m, m, truths, _reported(design, m, m))
            assert min(worst.values()) >= bound
