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
from dpengine.choice import KaryRandomizedResponse
from dpengine.designs import YesNoDesign
from dpengine.errors import DPEngineError, Reason
from dpengine.intervals import DEFAULT_METHOD, prevalence_interval
from dpengine.numeric import BoundedNumeric, report_bounds
from dpengine.sampling import bernoulli, randomize

__all__ = [
    "SimulatedEstimates",
    "simulate_choice_reports",
    "simulate_estimates",
    "simulate_numeric_reports",
]


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


def simulate_choice_reports(truths, mechanism: KaryRandomizedResponse, rng) -> np.ndarray:
    """The reports k-ary randomized response sends for the true options ``truths``.

    Vectorised with a seeded :class:`numpy.random.Generator` for simulations of many
    respondents (floating-point probabilities, unlike the exact
    :func:`dpengine.randomize_choice` a browser runs): each truth is kept with probability
    ``keep_probability``, else replaced by one of the ``k - 1`` other options uniformly.
    Reference: Kairouz, Oh & Viswanath (2014).
    """
    if not isinstance(mechanism, KaryRandomizedResponse):
        raise DPEngineError(
            f"mechanism must be a KaryRandomizedResponse, got {mechanism!r}",
            reason=Reason.INVALID_TYPE,
            field="mechanism",
        )
    truths = np.asarray(truths, dtype=np.int64)
    if truths.size and (truths.min() < 0 or truths.max() >= mechanism.k):
        raise DPEngineError(
            f"truths must be options from 0 to {mechanism.k - 1}",
            reason=Reason.OUT_OF_RANGE,
            field="truths",
        )
    keep = rng.random(truths.shape) < mechanism.keep_probability
    # An offset of 1..k-1 modulo k reaches every other option exactly once.
    others = (truths + rng.integers(1, mechanism.k, size=truths.shape)) % mechanism.k
    return np.where(keep, truths, others)


def simulate_numeric_reports(truths, question: BoundedNumeric, rng) -> np.ndarray:
    """The reports a bounded numeric question sends for the true answers ``truths``.

    Each truth is clamped to ``[lo, hi]`` and gets two-sided geometric noise, drawn as the
    difference of two geometric variables with ratio ``alpha`` (Ghosh, Roughgarden &
    Sundararajan 2009), kept within the accepted reports (:func:`dpengine.report_bounds`) as
    the browser keeps them: vectorised with a seeded :class:`numpy.random.Generator` for
    simulations, unlike the exact :func:`dpengine.randomize_number` a browser runs.
    """
    if not isinstance(question, BoundedNumeric):
        raise DPEngineError(
            f"question must be a BoundedNumeric, got {question!r}",
            reason=Reason.INVALID_TYPE,
            field="question",
        )
    clamped = np.clip(np.asarray(truths, dtype=np.int64), question.lo, question.hi)
    # numpy's geometric counts trials up to the first success (from 1): minus 1 counts failures.
    success = 1 - question.alpha
    noise = rng.geometric(success, size=clamped.shape) - rng.geometric(success, size=clamped.shape)
    bounds = report_bounds(question)
    return np.clip(clamped + noise, bounds.low, bounds.high)
