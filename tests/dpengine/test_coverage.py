"""Interval quality, computed exactly by enumerating the binomial distribution.

For each true prevalence p on a 1001-point grid of [0, 1] the yes-count is
Binomial(n, b + (a - b) p); coverage is the probability mass of the counts whose
reported interval contains p. Nothing here is sampled.
"""

import numpy as np
import pytest
from scipy import stats

from dpengine import (
    CLASSIC,
    ForcedResponse,
    binomial_interval,
    estimate,
    exact_coverage,
    simulate_estimates,
)

ASYMMETRIC = ForcedResponse(p_truth=0.6, p_forced_yes=0.3)
DESIGNS = {"classic": CLASSIC, "asymmetric": ASYMMETRIC}
SIZES = [20, 50, 100, 200, 500, 1000]
# Coverage is a sum of binomial probabilities in floating point; the exact method's
# guarantee is checked up to that rounding.
FLOAT_SLACK = 1e-12


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("design_name", DESIGNS)
def test_default_wilson_interval_never_covers_much_less_than_95_percent(design_name, n):
    profile = exact_coverage(design=DESIGNS[design_name], n=n, confidence=0.95)
    assert profile.method == "wilson"
    assert profile.p.size >= 101
    floor = 0.93 if n >= 100 else 0.925
    assert profile.min_coverage >= floor, (profile.min_coverage, profile.argmin_p)
    assert abs(profile.mean_coverage - 0.95) < 0.005


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("design_name", DESIGNS)
def test_exact_interval_never_covers_less_than_95_percent(design_name, n):
    profile = exact_coverage(design=DESIGNS[design_name], n=n, method="exact")
    assert profile.min_coverage >= 0.95 - FLOAT_SLACK, profile.argmin_p


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("design_name", DESIGNS)
def test_wilson_interval_is_on_average_hardly_wider_than_wald(design_name, n):
    wilson = exact_coverage(design=DESIGNS[design_name], n=n, method="wilson")
    wald = exact_coverage(design=DESIGNS[design_name], n=n, method="wald")
    assert wilson.mean_width <= 1.05 * wald.mean_width


def test_wald_interval_under_covers_badly_at_n_20():
    # Documented property, not a requirement: on this grid the minimum is 0.8835
    # (at p = 0.113) for the classic design and 0.806 for the asymmetric one.
    assert exact_coverage(design=CLASSIC, n=20, method="wald").min_coverage < 0.9
    assert exact_coverage(design=ASYMMETRIC, n=20, method="wald").min_coverage < 0.85


@pytest.mark.parametrize("design_name", DESIGNS)
@pytest.mark.parametrize("method", ["wald", "wilson", "exact", "jeffreys"])
def test_boundary_prevalences_are_covered_exactly_when_the_rate_interval_reaches_them(
    design_name, method
):
    design = DESIGNS[design_name]
    a, b = design.p_yes_given_yes, design.p_yes_given_no
    n = 50
    profile = exact_coverage(design=design, n=n, method=method, p=np.array([0.0, 1.0]))
    counts = np.arange(n + 1)
    rate_interval = binomial_interval(yes=counts, n=n, method=method)
    # Clipping to [0, 1] may also cover p = 0 when the whole rate interval lies below b
    # (it collapses to the point 0), so the rate-level coverage is a lower bound.
    rate_coverage_at_0 = stats.binom.pmf(counts, n, b)[rate_interval.low <= b].sum()
    rate_coverage_at_1 = stats.binom.pmf(counts, n, a)[rate_interval.high >= a].sum()
    assert profile.coverage[0] >= rate_coverage_at_0 - FLOAT_SLACK
    assert profile.coverage[1] >= rate_coverage_at_1 - FLOAT_SLACK
    assert profile.coverage[0] >= 0.9
    assert profile.coverage[1] >= 0.9


def test_interval_reaching_below_the_forced_yes_rate_is_clipped_to_include_zero():
    result = estimate(yes=5, n=20, design=CLASSIC)
    assert result.ci_low == 0.0
    assert result.ci_high > 0.0


def test_enumerated_coverage_agrees_with_a_simulated_survey():
    # 4000 simulated surveys: the Monte Carlo coverage has standard error about 0.0035,
    # so 4.5 standard errors (0.016) separate agreement from a broken enumeration.
    p, n = 0.3, 60
    exact = exact_coverage(design=ASYMMETRIC, n=n, method="wilson", p=np.array([p]))
    simulated = simulate_estimates(
        p=p, n=n, design=ASYMMETRIC, replications=4000, rng=np.random.default_rng(20240501)
    )
    assert abs(simulated.coverage - exact.coverage[0]) < 0.016
    assert abs(simulated.bias) < 0.01


def test_coverage_profile_rejects_empty_surveys_and_grids_outside_the_unit_interval():
    with pytest.raises(ValueError, match="n must be at least 1"):
        exact_coverage(design=CLASSIC, n=0)
    with pytest.raises(ValueError, match="p must be"):
        exact_coverage(design=CLASSIC, n=10, p=np.array([0.5, 1.2]))
