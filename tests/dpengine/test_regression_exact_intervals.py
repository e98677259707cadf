"""The intervals shown for a one-question logistic regression: exact coverage by enumeration.

With one grouping question the model is saturated: the intercept is the reference group's
log-odds ``logit(p_ref)`` and each coefficient is ``logit(p_j) - logit(p_ref)``. The shown
interval of a coefficient is the exact product construction of
:func:`dpengine.difference_interval` carried through logit
(:func:`dpengine.log_odds_ratio_interval`).
Coverage at true shares ``(p_1, p_2)`` is ``sum_{y_1, y_2} P(y_1) P(y_2) 1[truth in I(y_1, y_2)]``
on the extended real line (a share of 0 or 1 has an infinite log-odds, covered only by an
infinite end); a grid of shares that includes 0, 1 and shares near 5 %, where Wald fails.
"""

import numpy as np
import pytest
from scipy import stats

from dpengine import (
    CLASSIC,
    ForcedResponse,
    estimate,
    fit_logistic,
    log_odds_interval,
    log_odds_ratio_interval,
    log_odds_ratio_interval_table,
    prevalence_interval,
)

STRONG = ForcedResponse(p_truth=0.25)
DIRECT = (1.0, 0.0)
GRID = np.array([0.0, 0.01, 0.03, 0.05, 0.1, 0.2, 0.35, 0.5, 0.65, 0.8, 0.9, 0.95, 0.99, 1.0])


def rates(design):
    return design if isinstance(design, tuple) else (design.p_yes_given_yes, design.p_yes_given_no)


def logit(p):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(p) - np.log1p(-p)


def least_coverage(*, n_first, first, n_second, second):
    table = log_odds_ratio_interval_table(
        n_first=n_first, first_rates=first, n_second=n_second, second_rates=second
    )
    least = 1.0
    for p_1 in GRID:
        for p_2 in GRID:
            with np.errstate(invalid="ignore"):
                truth = logit(p_1) - logit(p_2)
            if np.isnan(truth):  # both shares 0 (or both 1): no odds ratio exists
                continue
            pmf_1 = stats.binom.pmf(
                np.arange(n_first + 1), n_first, first[1] + (first[0] - first[1]) * p_1
            )
            pmf_2 = stats.binom.pmf(
                np.arange(n_second + 1), n_second, second[1] + (second[0] - second[1]) * p_2
            )
            inside = (table.low <= truth) & (truth <= table.high)
            least = min(least, float(pmf_1 @ inside @ pmf_2))
    return least


@pytest.mark.parametrize("n", [10, 20, 50, 100])
@pytest.mark.parametrize(
    ("first", "second"),
    [(CLASSIC, CLASSIC), (STRONG, STRONG), (DIRECT, DIRECT)],
    ids=["classic", "strong", "direct"],
)
def test_each_coefficients_interval_covers_at_every_grid_pair(n, first, second):
    assert least_coverage(n_first=n, first=rates(first), n_second=n, second=rates(second)) >= 0.95


@pytest.mark.parametrize(("n_first", "n_second"), [(10, 100), (7, 13), (50, 20)])
def test_unequal_groups_cover_too(n_first, n_second):
    least = least_coverage(
        n_first=n_first, first=rates(CLASSIC), n_second=n_second, second=rates(CLASSIC)
    )
    assert least >= 0.95


@pytest.mark.parametrize("n", [10, 20, 50, 100])
def test_three_groups_every_coefficient_and_the_intercept_cover(n):
    # Reference r, levels j and k: each coefficient's interval involves only its own two
    # groups, so its coverage is the two-group one; the intercept's is Clopper-Pearson's.
    a, b = rates(CLASSIC)
    for p in GRID:
        pmf = stats.binom.pmf(np.arange(n + 1), n, b + (a - b) * p)
        ends = np.array(
            [
                tuple(log_odds_interval(group=estimate(yes=y, n=n, design=CLASSIC)))
                for y in range(n + 1)
            ]
        )
        inside = (ends[:, 0] <= logit(p)) & (logit(p) <= ends[:, 1])
        assert pmf @ inside >= 0.95
    assert least_coverage(n_first=n, first=(a, b), n_second=n, second=(a, b)) >= 0.95


def test_the_interval_is_the_logit_of_the_groups_exact_share_intervals():
    first = estimate(yes=30, n=50, design=CLASSIC)
    second = estimate(yes=110, n=200, design=STRONG)
    shown = log_odds_ratio_interval(first=first, second=second)
    table = log_odds_ratio_interval_table(
        n_first=50, first_rates=rates(CLASSIC), n_second=200, second_rates=rates(STRONG)
    )
    assert (shown.low, shown.high) == (table.low[30, 110], table.high[30, 110])
    # Levels multiply to 0.95: at each group's full 0.95 the interval would be narrower.
    low_1, high_1 = prevalence_interval(yes=30, n=50, design=CLASSIC, method="exact")
    low_2, high_2 = prevalence_interval(yes=110, n=200, design=STRONG, method="exact")
    assert shown.low < logit(low_1) - logit(high_2)
    assert shown.high > logit(high_1) - logit(low_2)
    intercept = log_odds_interval(group=second)
    assert intercept.low == pytest.approx(logit(low_2), abs=1e-12)


def test_an_interval_reaching_a_share_of_zero_or_one_has_an_infinite_end():
    # 20 yes-reports of 100 under coins with b = 0.25: a true share of 0 is plausible.
    none_yes = estimate(yes=20, n=100, design=CLASSIC)
    middle = estimate(yes=50, n=100, design=CLASSIC)
    shown = log_odds_ratio_interval(first=none_yes, second=middle)
    assert shown.low == -np.inf and np.isfinite(shown.high)
    # Below b in both groups: either share may be 0, so the ratio may be anything.
    both_pinned = log_odds_ratio_interval(first=none_yes, second=none_yes)
    assert (both_pinned.low, both_pinned.high) == (-np.inf, np.inf)
    assert log_odds_interval(group=none_yes).low == -np.inf


def test_the_fitted_coefficient_lies_inside_its_shown_interval():
    # Saturated model: the maximum-likelihood coefficient is the clamped shares' logit
    # difference, and each exact share interval holds its own clamped share.
    counts = [(40, 100), (70, 100)]
    X = np.repeat([[0.0], [1.0]], [100, 100], axis=0)
    reports = np.concatenate([np.arange(n) < y for y, n in counts])
    fit = fit_logistic(X, reports, design=CLASSIC)
    groups = [estimate(yes=y, n=n, design=CLASSIC) for y, n in counts]
    ratio = log_odds_ratio_interval(first=groups[1], second=groups[0])
    assert ratio.low < fit.coef[1] < ratio.high
    assert fit.coef[1] == pytest.approx(
        logit(groups[1].clamped) - logit(groups[0].clamped), abs=1e-6
    )
    intercept = log_odds_interval(group=groups[0])
    assert intercept.low < fit.coef[0] < intercept.high
