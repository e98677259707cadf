"""Exact intervals of a difference, and of log-odds, for two independent groups.

The Wald interval of :func:`dpengine.compare` collapses at small ``n`` (two groups of 7 and
13 whose reports are all "yes" have standard error 0) and covers far less than its level.
What the product shows is the **exact product interval** (:func:`difference_interval`):
each group's exact (Clopper-Pearson) interval for its share, at levels ``c_1``, ``c_2``
with ``c_1 c_2 = confidence``, combined as ``[low_1 - high_2, high_1 - low_2]``. Its
coverage is at least ``confidence`` at every pair of true shares, by a two-line proof: the
groups are independent, so both group intervals hold together with probability at least
``c_1 c_2``, and when both hold the difference of the true shares lies between those ends.
The split of the level between the groups depends only on the group sizes and designs
(never on the reports), so the proof holds given the group sizes, and so also for random
ones. The same construction, through logit, gives the exact intervals of a one-question
logistic regression (:func:`log_odds_interval`, :func:`log_odds_ratio_interval`).
References: Clopper & Pearson (1934); Sidak (1967), JASA 62(318) (the product inequality
for independent intervals).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpengine._validation import check_count, check_open_unit
from dpengine.errors import DPEngineError, Reason
from dpengine.estimation import Estimate
from dpengine.intervals import ConfidenceInterval, binomial_interval, z_value

__all__ = [
    "DIFFERENCE_METHOD",
    "DifferenceInterval",
    "difference_coverage",
    "difference_interval",
    "difference_interval_table",
    "log_odds_interval",
    "log_odds_ratio_interval",
    "log_odds_ratio_interval_table",
]

DIFFERENCE_METHOD = "exact-product"
# Points per round of the search for the p-value that inverts the shown interval.
_P_VALUE_POINTS = 64
# The per-group share of the miss probability is searched in [1 %, 99 %]: a group given
# none would need an interval of level 1, i.e. all of [0, 1].
_SPLIT_BOUNDS = (0.01, 0.99)


@dataclass(frozen=True)
class DifferenceInterval:
    """The shown interval of ``first - second`` with its estimate and the test it inverts.

    ``estimate`` is the difference of the two clamped shares (each in [0, 1]), so it always
    lies in ``[low, high]``. ``p_value`` is the two-sided p-value of the test that rejects
    "no difference" exactly when 0 lies outside this interval at level ``1 - p``.
    ``first_level`` and ``second_level`` are the groups' own levels (their product is
    ``confidence``).
    """

    estimate: float
    low: float
    high: float
    p_value: float
    confidence: float
    first_level: float
    second_level: float
    method: str = DIFFERENCE_METHOD


@dataclass(frozen=True)
class _Group:
    yes: int
    n: int
    a: float  # P(report yes | truth yes): 1 for a question asked directly
    b: float  # P(report yes | truth no): 0 for a question asked directly

    @property
    def scale(self) -> float:
        # Half-width of the share's interval is about z / (2 (a - b) sqrt(n)) at worst.
        return 1.0 / ((self.a - self.b) * math.sqrt(self.n))

    def share(self) -> float:
        return min(max((self.yes / self.n - self.b) / (self.a - self.b), 0.0), 1.0)

    def limits(self, level):
        """Exact (Clopper-Pearson) interval of the share at ``level`` (a float or an array
        of counts' intervals when ``yes`` is an array), mapped through the design, clipped."""
        interval = binomial_interval(yes=self.yes, n=self.n, confidence=level, method="exact")
        return self._mapped(interval.low, interval.high)

    def limits_at(self, levels: np.ndarray):
        """The same for one count at many levels (Clopper-Pearson's beta quantiles)."""
        from scipy import stats  # imported here: see dpengine/__init__.py on lazy SciPy

        half_miss = (1.0 - levels) / 2
        y, n = self.yes, self.n
        low = stats.beta.ppf(half_miss, y, n - y + 1) if y > 0 else np.zeros_like(levels)
        high = stats.beta.isf(half_miss, y + 1, n - y) if y < n else np.ones_like(levels)
        return self._mapped(low, high)

    def _mapped(self, low, high):
        return (
            np.clip((low - self.b) / (self.a - self.b), 0.0, 1.0),
            np.clip((high - self.b) / (self.a - self.b), 0.0, 1.0),
        )


def _split(first: _Group, second: _Group, confidence: float) -> float:
    """The exponent ``t`` with ``c_1 = confidence^t``, ``c_2 = confidence^(1 - t)`` that
    minimises the worst-case width ``z(c_1) w_1 + z(c_2) w_2`` (``w`` the groups' scales).
    Depends on sizes and designs only, never on the reports."""
    from scipy import optimize  # imported here: see dpengine/__init__.py on lazy SciPy

    def width(t: float) -> float:
        return z_value(confidence**t) * first.scale + z_value(confidence ** (1 - t)) * (
            second.scale
        )

    found = optimize.minimize_scalar(width, bounds=_SPLIT_BOUNDS, method="bounded")
    return float(found.x)


def _product(first: _Group, second: _Group, *, confidence: float, t: float):
    low_1, high_1 = first.limits(confidence**t)
    low_2, high_2 = second.limits(confidence ** (1 - t))
    return low_1, high_1, low_2, high_2


def _holds_zero(first: _Group, second: _Group, *, t: float, misses: np.ndarray) -> np.ndarray:
    """Whether the interval at level ``1 - miss`` holds 0, for each miss probability."""
    levels = 1.0 - misses
    # One scalar count per group, many levels: binomial_interval broadcasts counts only.
    low_1, high_1 = first.limits_at(levels**t)
    low_2, high_2 = second.limits_at(levels ** (1 - t))
    return (low_1 - high_2 <= 0) & (high_1 - low_2 >= 0)


def _inverted_p_value(first: _Group, second: _Group, *, t: float) -> float:
    """``1 - c*`` with ``c*`` the least level whose interval holds 0. Both groups' levels
    grow with the overall level (exponents fixed), and exact intervals are nested in their
    level, so "0 inside" is monotone in the level; two rounds of 64 miss probabilities
    (log-spaced from 1e-12 to 1, then within the bracket found) fix the p-value to within
    1 % of itself."""
    misses = np.logspace(-12, 0, _P_VALUE_POINTS)
    inside = _holds_zero(first, second, t=t, misses=misses)
    if not inside.any():
        return float(misses[0])  # below 1e-12: shown as "< 0.001" anyway
    if inside.all():
        return 1.0
    # Small misses (high levels) hold 0; the p-value is the largest miss that still does.
    last = int(np.flatnonzero(inside).max())
    finer = np.logspace(np.log10(misses[last]), np.log10(misses[last + 1]), _P_VALUE_POINTS)
    inside = _holds_zero(first, second, t=t, misses=finer)
    return float(finer[int(np.flatnonzero(inside).max())])


def _difference(first: _Group, second: _Group, confidence: float) -> DifferenceInterval:
    t = _split(first, second, confidence)
    low_1, high_1, low_2, high_2 = _product(first, second, confidence=confidence, t=t)
    return DifferenceInterval(
        estimate=first.share() - second.share(),
        low=float(low_1 - high_2),
        high=float(high_1 - low_2),
        p_value=_inverted_p_value(first, second, t=t),
        confidence=confidence,
        first_level=confidence**t,
        second_level=confidence ** (1 - t),
    )


def _check_group(name: str, value: object) -> Estimate:
    if not isinstance(value, Estimate):
        raise DPEngineError(
            f"{name} must be an Estimate, got {value!r}", reason=Reason.INVALID_TYPE, field=name
        )
    if not value.has_data:
        raise DPEngineError(
            f"{name} has no data (n = 0); there is nothing to compare",
            reason=Reason.NO_DATA,
            field=name,
        )
    return value


def _group_of(estimate: Estimate) -> _Group:
    design = estimate.design
    return _Group(yes=estimate.yes, n=estimate.n, a=design.p_yes_given_yes, b=design.p_yes_given_no)


def difference_interval(
    *, first: Estimate, second: Estimate, confidence: float = 0.95
) -> DifferenceInterval:
    """Interval for ``p_first - p_second`` (two independent groups' true shares) with
    coverage at least ``confidence`` at every pair of shares and every group size.

    With ``c_1 = confidence^t`` and ``c_2 = confidence^(1 - t)``, each group's exact
    Clopper-Pearson interval for its report rate ``lambda`` at its level is mapped through
    its design, ``p = (lambda - b) / (a - b)``, and clipped to [0, 1], giving
    ``[l_i, u_i]``; the interval is ``[l_1 - u_2, u_1 - l_2]``. Independence gives
    ``P(both hold) >= c_1 c_2 = confidence``, and when both hold the true difference is
    inside. ``t`` in [0.01, 0.99] minimises ``z(c_1) w_1 + z(c_2) w_2`` with
    ``w_i = 1 / ((a_i - b_i) sqrt(n_i))``: the worst-case width, from sizes and designs only.
    The estimate is ``clamp(p_hat_1) - clamp(p_hat_2)``, inside the interval because each
    exact interval holds its own ``yes / n``. The p-value inverts the interval (bisection
    on the level). Both groups need data (``n > 0``); ``confidence`` in (0, 1).
    References: Clopper & Pearson (1934); Sidak (1967).
    """
    first = _check_group("first", first)
    second = _check_group("second", second)
    confidence = check_open_unit("confidence", confidence)
    return _difference(_group_of(first), _group_of(second), confidence)


def difference_interval_table(
    *,
    n_first: int,
    first_rates: tuple[float, float],
    n_second: int,
    second_rates: tuple[float, float],
    confidence: float = 0.95,
) -> ConfidenceInterval:
    """The interval :func:`difference_interval` shows for every pair of yes-counts: arrays
    of shape ``(n_first + 1, n_second + 1)``. ``*_rates`` are each group's ``(a, b)``, its
    yes-report probabilities given a true yes and a true no (``(1, 0)`` for a question asked
    directly). For exact coverage (:func:`difference_coverage`)."""
    n_first = check_count("n_first", n_first)
    n_second = check_count("n_second", n_second)
    first = _Group(yes=np.arange(n_first + 1), n=n_first, a=first_rates[0], b=first_rates[1])
    second = _Group(yes=np.arange(n_second + 1), n=n_second, a=second_rates[0], b=second_rates[1])
    t = _split(first, second, check_open_unit("confidence", confidence))
    low_1, high_1, low_2, high_2 = _product(first, second, confidence=confidence, t=t)
    return ConfidenceInterval(low_1[:, None] - high_2[None, :], high_1[:, None] - low_2[None, :])


def difference_coverage(
    *,
    low,
    high,
    n_first: int,
    n_second: int,
    first_rates,
    second_rates,
    first_shares,
    second_shares,
) -> np.ndarray:
    """Exact coverage of an interval of a difference at given pairs of true shares.

    ``low`` and ``high`` are ``(n_first + 1, n_second + 1)`` arrays, the interval shown for
    every pair of yes-counts ``(y_1, y_2)``. For each pair ``k`` of true shares
    ``(first_shares[k], second_shares[k])`` with report rates ``first_rates[k]``,
    ``second_rates[k]`` (``lambda = b + (a - b) p``), the coverage is
    ``sum_{y_1, y_2} P(y_1) P(y_2) 1[low <= p_1 - p_2 <= high]``, the two counts being
    independent binomials: an enumeration, not a simulation.
    """
    from scipy import stats  # imported here: see dpengine/__init__.py on lazy SciPy

    pmf_1 = stats.binom.pmf(
        np.arange(n_first + 1)[None, :], n_first, np.asarray(first_rates)[:, None]
    )
    pmf_2 = stats.binom.pmf(
        np.arange(n_second + 1)[None, :], n_second, np.asarray(second_rates)[:, None]
    )
    truth = np.asarray(first_shares, dtype=float) - np.asarray(second_shares, dtype=float)
    result = np.empty(truth.shape)
    for k, value in enumerate(truth):
        inside = (low <= value) & (value <= high)
        result[k] = pmf_1[k] @ inside @ pmf_2[k]
    return result


# --- exact intervals for a one-question logistic regression --------------------------------
#
# With a single grouping question the logistic model is saturated: the intercept is the
# reference group's log-odds, logit(p_ref), and each coefficient is logit(p_j) - logit(p_ref).
# logit is increasing, so the exact product construction above carries over unchanged: when
# both groups' exact intervals hold (probability >= c_1 c_2 = confidence, by independence),
# logit(p_j) - logit(p_ref) lies in [logit(l_j) - logit(u_ref), logit(u_j) - logit(l_ref)].
# An end is infinite when a share's interval reaches 0 or 1 (logit(0) = -inf): the data
# cannot rule out a share of exactly 0 or 1, so no finite odds ratio can be promised.


def _logit(value) -> np.ndarray:
    value = np.asarray(value, dtype=float)
    with np.errstate(divide="ignore"):
        return np.log(value) - np.log1p(-value)


def log_odds_interval(*, group: Estimate, confidence: float = 0.95) -> ConfidenceInterval:
    """Interval for ``logit(p)``, a group's true log-odds, with coverage at least
    ``confidence`` at every share and size: its exact Clopper-Pearson interval mapped
    through the design, clipped to [0, 1], then through logit (ends may be infinite)."""
    group = _check_group("group", group)
    confidence = check_open_unit("confidence", confidence)
    low, high = _group_of(group).limits(confidence)
    return ConfidenceInterval(float(_logit(low)), float(_logit(high)))


def log_odds_ratio_interval(
    *, first: Estimate, second: Estimate, confidence: float = 0.95
) -> ConfidenceInterval:
    """Interval for ``logit(p_first) - logit(p_second)``, a log odds ratio of two independent
    groups, with coverage at least ``confidence`` at every pair of shares and sizes: the
    groups' levels and exact intervals of :func:`difference_interval` (same split of the
    level), combined as ``[logit(l_1) - logit(u_2), logit(u_1) - logit(l_2)]``. Ends are
    infinite when a share's interval reaches 0 or 1. Per coefficient, not simultaneous.
    Four beta quantiles and the split's search: its cost does not grow with the counts."""
    first = _check_group("first", first)
    second = _check_group("second", second)
    confidence = check_open_unit("confidence", confidence)
    low, high = _log_odds_ratio(_group_of(first), _group_of(second), confidence)
    return ConfidenceInterval(float(low), float(high))


def log_odds_ratio_interval_table(
    *,
    n_first: int,
    first_rates: tuple[float, float],
    n_second: int,
    second_rates: tuple[float, float],
    confidence: float = 0.95,
) -> ConfidenceInterval:
    """:func:`log_odds_ratio_interval` for every pair of yes-counts, arrays of shape
    ``(n_first + 1, n_second + 1)`` (for exact coverage by enumeration)."""
    n_first = check_count("n_first", n_first)
    n_second = check_count("n_second", n_second)
    first = _Group(yes=np.arange(n_first + 1), n=n_first, a=first_rates[0], b=first_rates[1])
    second = _Group(yes=np.arange(n_second + 1), n=n_second, a=second_rates[0], b=second_rates[1])
    low, high = _log_odds_ratio(first, second, check_open_unit("confidence", confidence))
    return ConfidenceInterval(low, high)


def _log_odds_ratio(first: _Group, second: _Group, confidence: float):
    """The ends for the groups' counts: scalars for one count each, else the outer table of
    every pair (rows the first group's counts)."""
    t = _split(first, second, confidence)
    low_1, high_1, low_2, high_2 = _product(first, second, confidence=confidence, t=t)
    with np.errstate(invalid="ignore"):
        low = np.subtract.outer(_logit(low_1), _logit(high_2))
        high = np.subtract.outer(_logit(high_1), _logit(low_2))
    # inf - inf (both shares' intervals pinned at the same end, e.g. all-yes reports beyond
    # what the coins allow in both groups): nothing is known, so the whole line.
    return np.where(np.isnan(low), -np.inf, low), np.where(np.isnan(high), np.inf, high)
