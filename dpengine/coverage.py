"""Exact operating characteristics of the prevalence intervals.

Coverage is computed, not simulated: for each true prevalence ``p`` on a grid the number
of yes-reports is ``Binomial(n, lambda)`` with ``lambda = b + (a - b) p``, so

    coverage(p) = sum_y P(Y = y) 1[low(y) <= p <= high(y)]
    expected width(p) = sum_y P(Y = y) (high(y) - low(y))

with the intervals exactly as :func:`dpengine.estimate` reports them. This is the
method of Brown, Cai & DasGupta (2001), applied after the randomized-response map.

:func:`minimum_coverage` gives the infimum over every prevalence in [0, 1], not only a grid's:
between two consecutive interval ends the set of counts whose interval holds ``p`` is fixed
and contiguous, and ``P(lo <= Y <= hi)`` is unimodal in ``lambda`` (its derivative is
``n [f(lo - 1) - f(hi)]`` with ``f`` the ``Binomial(n - 1, lambda)`` pmf, whose ratio is
monotone), so the infimum over that stretch is at its ends: each interval end, approached
from either side, is a candidate, and nothing else is.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpengine._validation import check_count, check_design, check_method, check_open_unit
from dpengine.designs import YesNoDesign
from dpengine.errors import DPEngineError, Reason
from dpengine.intervals import DEFAULT_METHOD, prevalence_interval

__all__ = ["CoverageProfile", "exact_coverage", "interval_minimum_coverage", "minimum_coverage"]


@dataclass(frozen=True)
class CoverageProfile:
    """Coverage and expected width of one interval method at one ``n``, per grid point."""

    design: YesNoDesign
    n: int
    confidence: float
    method: str
    p: np.ndarray
    coverage: np.ndarray
    expected_width: np.ndarray

    @property
    def min_coverage(self) -> float:
        return float(self.coverage.min())

    @property
    def argmin_p(self) -> float:
        """The grid prevalence at which coverage is lowest."""
        return float(self.p[np.argmin(self.coverage)])

    @property
    def mean_coverage(self) -> float:
        return float(self.coverage.mean())

    @property
    def mean_width(self) -> float:
        return float(self.expected_width.mean())


def exact_coverage(
    *,
    design: YesNoDesign,
    n: int,
    confidence: float = 0.95,
    method: str = DEFAULT_METHOD,
    p: np.ndarray | None = None,
) -> CoverageProfile:
    """Exact coverage probability and expected width of the prevalence interval.

    ``p`` is the grid of true prevalences in [0, 1] (default: 1001 equally spaced points,
    ends included); ``n >= 1``. Means are unweighted averages over the grid.
    Reference: Brown, Cai & DasGupta (2001), Statistical Science 16(2).
    """
    from scipy import stats  # imported here: see dpengine/__init__.py on lazy SciPy

    check_design(design)
    n = check_count("n", n)
    if n == 0:
        raise DPEngineError(
            "n must be at least 1 for a coverage profile, got 0",
            reason=Reason.OUT_OF_RANGE,
            field="n",
        )
    confidence = check_open_unit("confidence", confidence)
    method = check_method(method)
    grid = np.linspace(0.0, 1.0, 1001) if p is None else np.asarray(p, dtype=float)
    if grid.ndim != 1 or grid.size == 0 or np.any((grid < 0) | (grid > 1)):
        raise DPEngineError(
            f"p must be a non-empty 1-D grid inside [0, 1], got {p!r}",
            reason=Reason.OUT_OF_RANGE,
            field="p",
        )
    counts = np.arange(n + 1)
    interval = prevalence_interval(
        yes=counts, n=n, design=design, confidence=confidence, method=method
    )
    a, b = design.p_yes_given_yes, design.p_yes_given_no
    rates = b + (a - b) * grid
    pmf = stats.binom.pmf(counts[np.newaxis, :], n, rates[:, np.newaxis])
    covers = (interval.low[np.newaxis, :] <= grid[:, np.newaxis]) & (
        grid[:, np.newaxis] <= interval.high[np.newaxis, :]
    )
    return CoverageProfile(
        design=design,
        n=n,
        confidence=confidence,
        method=method,
        p=grid,
        coverage=(pmf * covers).sum(axis=1),
        expected_width=pmf @ (interval.high - interval.low),
    )


def interval_minimum_coverage(*, low, high, n: int, a: float, b: float) -> float:
    """The infimum over ``p`` in [0, 1] of ``P(low[Y] <= p <= high[Y])``, ``Y ~ Binomial(n,
    b + (a - b) p)``: the exact least coverage of intervals given for every count 0..n.

    ``low`` and ``high`` are the ``n + 1`` interval ends in prevalence space (clipped to
    [0, 1]), both non-decreasing in the count, as every method's are once clipped (checked:
    the argument in the module docstring needs it). Cost: O(n) binomial distribution values.
    """
    from scipy import stats  # imported here: see dpengine/__init__.py on lazy SciPy

    low, high = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    if low.shape != (n + 1,) or high.shape != (n + 1,):
        raise DPEngineError(
            f"low and high must hold n + 1 = {n + 1} interval ends, got {low.shape}",
            reason=Reason.SHAPE_MISMATCH,
            field="low",
        )
    if np.any(np.diff(low) < 0) or np.any(np.diff(high) < 0):
        raise DPEngineError(
            "interval ends must not decrease with the count",
            reason=Reason.OUT_OF_RANGE,
            field="low",
        )
    ends = np.unique(np.concatenate([low, high, [0.0, 1.0]]))
    rates = b + (a - b) * ends

    def cdf(counts):
        # P(Y <= count) at each end's rate: the costly part, so each is computed once.
        return stats.binom.cdf(counts, n, rates)

    # Counts whose interval holds p: low[y] <= p (y up to a searchsorted in low) and
    # high[y] >= p (y from a searchsorted in high). At p = e, just below e and just above e
    # the first and last counts come from four searches; each distribution value is computed
    # once and shared by the two sides that need it.
    first_at, first_above = (np.searchsorted(high, ends, side) for side in ("left", "right"))
    last_below, last_at = (np.searchsorted(low, ends, side) - 1 for side in ("left", "right"))
    before_first_at, before_first_above = cdf(first_at - 1), cdf(first_above - 1)
    up_to_last_at = cdf(last_at)

    def covered(first, last, up_to_last, before_first):
        # P(first <= Y <= last); an empty range covers nothing.
        return np.where(first <= last, up_to_last - before_first, 0.0)

    at = covered(first_at, last_at, up_to_last_at, before_first_at)
    below = covered(first_at, last_below, cdf(last_below), before_first_at)
    above = covered(first_above, last_at, up_to_last_at, before_first_above)
    below = np.where(ends > 0.0, below, np.inf)  # no prevalence below 0
    above = np.where(ends < 1.0, above, np.inf)  # nor above 1
    return float(min(at.min(), below.min(), above.min()))


def minimum_coverage(
    *, design: YesNoDesign, n: int, confidence: float = 0.95, method: str = DEFAULT_METHOD
) -> float:
    """The exact least coverage of :func:`dpengine.estimate`'s interval over every true
    prevalence in [0, 1] (not only a grid's points; see the module docstring).

    ``n >= 1``. At most :func:`exact_coverage`'s minimum over any grid, and equal to it up to
    the grid's spacing. Reference: Brown, Cai & DasGupta (2001); Wang (2007), "Exact
    confidence coefficients of confidence intervals for a binomial proportion", Statistica
    Sinica 17, which uses the same reduction to interval ends.
    """
    check_design(design)
    n = check_count("n", n)
    if n == 0:
        raise DPEngineError(
            "n must be at least 1 for a coverage, got 0", reason=Reason.OUT_OF_RANGE, field="n"
        )
    interval = prevalence_interval(
        yes=np.arange(n + 1), n=n, design=design, confidence=confidence, method=method
    )
    return interval_minimum_coverage(
        low=interval.low,
        high=interval.high,
        n=n,
        a=design.p_yes_given_yes,
        b=design.p_yes_given_no,
    )
