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
from dpengine.choice import KaryRandomizedResponse, estimate_choice
from dpengine.designs import YesNoDesign
from dpengine.errors import DPEngineError, Reason
from dpengine.intervals import DEFAULT_METHOD, prevalence_interval
from dpengine.numeric import (
    BoundedNumeric,
    estimate_mean_from_sums,
    report_bounds,
    share_above_intervals,
    share_above_probabilities,
)
from dpengine.sampling import bernoulli, randomize

__all__ = [
    "SimulatedCoverage",
    "SimulatedEstimates",
    "simulate_choice_coverage",
    "simulate_choice_reports",
    "simulate_estimates",
    "simulate_mean_coverage",
    "simulate_numeric_reports",
    "simulate_share_above_coverage",
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


# --- simulated coverage of the choice and numeric intervals -------------------------------------


@dataclass(frozen=True)
class SimulatedCoverage:
    """How often ``replications`` simulated surveys' intervals held the truth.

    ``whole``: how many intervals were everything the statistic can be (uninformative).
    """

    truth: float | tuple[float, ...]
    replications: int
    covered: int
    whole: int = 0

    @property
    def coverage(self) -> float:
        return self.covered / self.replications

    @property
    def standard_error(self) -> float:
        """The binomial standard error of :attr:`coverage`, ``sqrt(c (1 - c) / R)``."""
        c = self.coverage
        return float(np.sqrt(c * (1 - c) / self.replications))


def _check_replications(replications: object) -> int:
    replications = check_count("replications", replications)
    if replications == 0:
        raise DPEngineError(
            "replications must be at least 1, got 0",
            reason=Reason.OUT_OF_RANGE,
            field="replications",
        )
    return replications


def _check_answers(answers: object, question: object) -> np.ndarray:
    if not isinstance(question, BoundedNumeric):
        raise DPEngineError(
            f"question must be a BoundedNumeric, got {question!r}",
            reason=Reason.INVALID_TYPE,
            field="question",
        )
    array = np.asarray(answers)
    if array.ndim != 1 or array.size == 0 or not np.issubdtype(array.dtype, np.integer):
        raise DPEngineError(
            f"answers must be a non-empty 1-D sequence of integers, got {answers!r}",
            reason=Reason.INVALID_TYPE,
            field="answers",
        )
    return np.clip(array.astype(np.int64), question.lo, question.hi)


def simulate_share_above_coverage(
    *,
    answers,
    question: BoundedNumeric,
    threshold: int,
    replications: int,
    rng,
    confidence: float = 0.95,
) -> SimulatedCoverage:
    """Coverage of :func:`dpengine.estimate_share_above`'s interval for the share of
    ``answers`` (one true answer per respondent, clamped) above ``threshold``.

    Each survey draws only what the estimate reads: for each distinct answer ``x`` held by
    ``m`` respondents, the counts of reports below ``t``, at ``t``, at ``t + 1`` and above
    ``t + 1`` are ``Multinomial(m, q(x))`` with the exact probabilities
    :func:`dpengine.share_above_probabilities`; the surveys' sums of those counts go through
    :func:`dpengine.share_above_intervals`, the estimator itself. Exact in distribution and
    independent of ``n``'s size in cost. ``rng`` is a seeded :class:`numpy.random.Generator`.
    """
    clamped = _check_answers(answers, question)
    replications = _check_replications(replications)
    confidence = check_open_unit("confidence", confidence)
    values, holders = np.unique(clamped, return_counts=True)
    probabilities = share_above_probabilities(values, threshold=threshold, alpha=question.alpha)
    counts = np.zeros((replications, 4), dtype=np.int64)
    for m, q in zip(holders, probabilities, strict=True):
        counts += rng.multinomial(int(m), q / q.sum(), size=replications)
    result = share_above_intervals(
        counts=counts, question=question, threshold=threshold, confidence=confidence
    )
    truth = float(np.mean(clamped > threshold))
    return SimulatedCoverage(
        truth=truth,
        replications=replications,
        covered=int(np.sum((result.ci_low <= truth) & (truth <= result.ci_high))),
        whole=int(np.sum(~result.informative)),
    )


def simulate_mean_coverage(
    *, answers, question: BoundedNumeric, replications: int, rng, confidence: float = 0.95
) -> SimulatedCoverage:
    """Coverage of :func:`dpengine.estimate_mean`'s interval for the mean of ``answers``
    (one true answer per respondent, clamped).

    Each survey's reports are drawn with :func:`simulate_numeric_reports` (vectorised, all
    surveys at once); each survey's count, sum and sum of squares then go through
    :func:`dpengine.estimate_mean_from_sums`, as the results page computes them.
    """
    clamped = _check_answers(answers, question)
    replications = _check_replications(replications)
    confidence = check_open_unit("confidence", confidence)
    reports = simulate_numeric_reports(
        np.broadcast_to(clamped, (replications, clamped.size)), question, rng
    )
    totals, squares = reports.sum(axis=1), (reports * reports).sum(axis=1)
    truth = float(clamped.mean())
    covered = whole = 0
    for total, total_squares in zip(totals.tolist(), squares.tolist(), strict=True):
        mean = estimate_mean_from_sums(
            n=clamped.size,
            total=total,
            total_squares=total_squares,
            question=question,
            confidence=confidence,
        )
        covered += mean.ci_low <= truth <= mean.ci_high
        whole += not mean.informative
    return SimulatedCoverage(truth=truth, replications=replications, covered=covered, whole=whole)


def simulate_choice_coverage(
    *,
    shares,
    n: int,
    mechanism: KaryRandomizedResponse,
    replications: int,
    rng,
    confidence: float = 0.95,
    method: str = DEFAULT_METHOD,
) -> SimulatedCoverage:
    """Joint coverage of :func:`dpengine.estimate_choice`'s simultaneous intervals: the share
    of surveys of ``n`` respondents whose intervals hold every true share at once.

    The report counts are ``Multinomial(n, lambda)`` with ``lambda_j = q + (p - q) pi_j``
    (``pi`` = ``shares``, summing to 1). Each option's interval depends on its own count
    only (Bonferroni), so each count seen is read from :func:`dpengine.estimate_choice` once.
    """
    if not isinstance(mechanism, KaryRandomizedResponse):
        raise DPEngineError(
            f"mechanism must be a KaryRandomizedResponse, got {mechanism!r}",
            reason=Reason.INVALID_TYPE,
            field="mechanism",
        )
    pi = np.asarray(shares, dtype=float)
    if pi.shape != (mechanism.k,) or np.any(pi < 0) or abs(pi.sum() - 1) > 1e-9:
        raise DPEngineError(
            f"shares must be {mechanism.k} non-negative numbers summing to 1, got {shares!r}",
            reason=Reason.OUT_OF_RANGE,
            field="shares",
        )
    n = check_count("n", n)
    if n == 0:
        raise DPEngineError("n must be at least 1, got 0", reason=Reason.OUT_OF_RANGE, field="n")
    replications = _check_replications(replications)
    confidence = check_open_unit("confidence", confidence)
    method = check_method(method)
    p, q = mechanism.keep_probability, mechanism.other_probability
    rates = q + (p - q) * pi
    counts = rng.multinomial(n, rates / rates.sum(), size=replications)
    low, high = {}, {}
    for count in np.unique(counts).tolist():
        rest = [0] * (mechanism.k - 2)
        interval = estimate_choice(
            counts=[count, n - count, *rest],
            mechanism=mechanism,
            confidence=confidence,
            method=method,
        )
        low[count], high[count] = float(interval.ci_low[0]), float(interval.ci_high[0])
    lows = np.vectorize(low.__getitem__, otypes=[float])(counts)
    highs = np.vectorize(high.__getitem__, otypes=[float])(counts)
    held = np.all((lows <= pi) & (pi <= highs), axis=1)
    return SimulatedCoverage(
        truth=tuple(pi.tolist()), replications=replications, covered=int(held.sum())
    )
