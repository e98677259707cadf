"""Exact operating characteristics of the prevalence intervals.

Coverage is computed, not simulated: for each true prevalence ``p`` on a grid the number
of yes-reports is ``Binomial(n, lambda)`` with ``lambda = b + (a - b) p``, so

    coverage(p) = sum_y P(Y = y) 1[low(y) <= p <= high(y)]
    expected width(p) = sum_y P(Y = y) (high(y) - low(y))

with the intervals exactly as :func:`dpengine.estimate` reports them. This is the
method of Brown, Cai & DasGupta (2001), applied after the randomized-response map.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpengine._validation import check_count, check_design, check_method, check_open_unit
from dpengine.designs import YesNoDesign
from dpengine.errors import DPEngineError, Reason
from dpengine.intervals import DEFAULT_METHOD, prevalence_interval

__all__ = ["CoverageProfile", "exact_coverage"]


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
