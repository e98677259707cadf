"""Monte Carlo replications of whole surveys, for checks that cannot be enumerated.

Interval coverage for one question is computed exactly in :mod:`dpengine.coverage`;
this module simulates the full pipeline (true answers, coins, estimate) to check
what has no closed form and to give notebooks a quick way to see the noise.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpengine._validation import (
    check_closed_unit,
    check_count,
    check_design,
    check_method,
    check_open_unit,
)
from dpengine.designs import YesNoDesign
from dpengine.errors import DPEngineError, Reason
from dpengine.intervals import DEFAULT_METHOD, prevalence_interval
from dpengine.sampling import bernoulli, randomize

__all__ = ["SimulatedEstimates", "simulate_estimates"]


@dataclass(frozen=True)
class SimulatedEstimates:
    """Per-replication yes counts, unbiased estimates and intervals."""

    p: float
    n: int
    design: YesNoDesign
    confidence: float
    method: str
    yes: np.ndarray
    estimate: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray

    @property
    def coverage(self) -> float:
        """Share of replications whose interval contains the true ``p``."""
        return float(np.mean((self.ci_low <= self.p) & (self.p <= self.ci_high)))

    @property
    def bias(self) -> float:
        return float(np.mean(self.estimate) - self.p)

    @property
    def rmse(self) -> float:
        return float(np.sqrt(np.mean((self.estimate - self.p) ** 2)))


def simulate_estimates(
    *,
    p: float,
    n: int,
    design: YesNoDesign,
    replications: int,
    rng,
    confidence: float = 0.95,
    method: str = DEFAULT_METHOD,
) -> SimulatedEstimates:
    """Run ``replications`` independent surveys of ``n >= 1`` respondents with prevalence ``p``.

    Each respondent's truth is Bernoulli(``p``) and is randomized exactly with
    :func:`dpengine.randomize`; each survey is then estimated as
    :func:`dpengine.estimate` would (unbiased estimate and the ``method`` interval).
    ``rng`` is a seeded :class:`numpy.random.Generator`.
    """
    p = check_closed_unit("p", p)
    check_design(design)
    n = check_count("n", n)
    replications = check_count("replications", replications)
    if n == 0 or replications == 0:
        raise DPEngineError(
            f"n and replications must be at least 1, got {n} and {replications}",
            reason=Reason.OUT_OF_RANGE,
            field="n" if n == 0 else "replications",
        )
    confidence = check_open_unit("confidence", confidence)
    method = check_method(method)
    truths = bernoulli(p, size=(replications, n), rng=rng)
    yes = randomize(truths, design, rng).sum(axis=1)
    a, b = design.p_yes_given_yes, design.p_yes_given_no
    interval = prevalence_interval(
        yes=yes, n=n, design=design, confidence=confidence, method=method
    )
    return SimulatedEstimates(
        p=p,
        n=n,
        design=design,
        confidence=confidence,
        method=method,
        yes=yes,
        estimate=(yes / n - b) / (a - b),
        ci_low=interval.low,
        ci_high=interval.high,
    )
