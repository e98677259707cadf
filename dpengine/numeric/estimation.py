"""Estimates of a numeric question: the mean of the true answers, the share above a
threshold, and the respondents either needs."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from dpengine._validation import check_open_unit, check_positive
from dpengine.errors import DPEngineError, Reason
from dpengine.intervals import ConfidenceInterval, z_value
from dpengine.numeric.question import BoundedNumeric, check_integer, check_question
from dpengine.numeric.share_above import (
    check_reports,
    check_threshold,
    histogram_share_above_counts,
    share_above_counts,
    share_above_intervals,
)


@dataclass(frozen=True)
class NumericEstimate:
    """An unbiased estimate with its confidence interval (None/None without data).

    ``informative`` is False when the interval is everything the statistic can be (the
    whole range for a mean, all of [0, 1] for a share): no data, or too few reports for
    this statistic, so the numbers say nothing yet.
    """

    n: int
    estimate: float | None
    clamped: float | None
    std_error: float | None
    ci_low: float
    ci_high: float
    confidence: float
    informative: bool

    @property
    def ci(self) -> ConfidenceInterval:
        return ConfidenceInterval(self.ci_low, self.ci_high)


def _normal_estimate(
    *, n: int, value: float, variance: float, confidence: float, low: float, high: float
) -> NumericEstimate:
    std_error = math.sqrt(variance / n)
    half = z_value(confidence) * std_error
    ci_low, ci_high = min(max(value - half, low), high), max(min(value + half, high), low)
    return NumericEstimate(
        n=n,
        estimate=value,
        clamped=min(max(value, low), high),
        std_error=std_error,
        ci_low=ci_low,
        ci_high=ci_high,
        confidence=confidence,
        informative=ci_low > low or ci_high < high,
    )


def _empty(low: float, high: float, confidence: float) -> NumericEstimate:
    return NumericEstimate(0, None, None, None, low, high, confidence, informative=False)


def estimate_mean(
    *, reports, question: BoundedNumeric, confidence: float = 0.95
) -> NumericEstimate:
    """The mean of the clamped true answers: ``y_bar``, with a normal interval.

    ``se = sqrt(max(s^2, sigma^2) / n)`` with ``s^2`` the sample variance of the reports
    (``ddof = 1``) and ``sigma^2 = 2 alpha / (1 - alpha)^2`` the known noise variance; the
    interval ``y_bar +/- z se`` is clipped to ``[lo, hi]``. Reference: Dwork & Roth (2014).
    """
    question = check_question(question)
    confidence = check_open_unit("confidence", confidence)
    y = check_reports(reports)
    low, high = float(question.lo), float(question.hi)
    if y.size == 0:
        return _empty(low, high, confidence)
    sample_variance = float(y.var(ddof=1)) if y.size > 1 else 0.0
    return _normal_estimate(
        n=int(y.size),
        value=float(y.mean()),
        variance=max(sample_variance, question.noise_variance),
        confidence=confidence,
        low=low,
        high=high,
    )


def estimate_mean_from_sums(
    *, n: int, total: int, total_squares: int, question: BoundedNumeric, confidence: float = 0.95
) -> NumericEstimate:
    """:func:`estimate_mean` from the reports' summary statistics instead of the reports.

    ``n`` reports with sum ``total`` and sum of squares ``total_squares`` (integers, so the
    running tallies keep them exactly): ``y_bar = total / n`` and the sample variance
    ``s^2 = (total_squares - total^2 / n) / (n - 1)``, computed in exact integer arithmetic
    (``n total_squares - total^2`` over ``n (n - 1)``) so no cancellation creeps in; then as
    :func:`estimate_mean`. Reference: Dwork & Roth (2014).
    """
    question = check_question(question)
    confidence = check_open_unit("confidence", confidence)
    n = check_integer("n", n)
    total, total_squares = (
        check_integer("total", total),
        check_integer("total_squares", total_squares),
    )
    if n < 0 or total_squares < 0 or (n > 0 and n * total_squares < total * total):
        raise DPEngineError(
            f"n, total and total_squares must be the count, sum and sum of squares of some "
            f"integers, got n={n}, total={total}, total_squares={total_squares}",
            reason=Reason.OUT_OF_RANGE,
            field="n" if n < 0 else "total_squares",
        )
    low, high = float(question.lo), float(question.hi)
    if n == 0:
        return _empty(low, high, confidence)
    sample_variance = (
        float(Fraction(n * total_squares - total * total, n * (n - 1))) if n > 1 else 0.0
    )
    return _normal_estimate(
        n=n,
        value=float(Fraction(total, n)),
        variance=max(sample_variance, question.noise_variance),
        confidence=confidence,
        low=low,
        high=high,
    )


def estimate_share_above(
    *, reports, question: BoundedNumeric, threshold: int, confidence: float = 0.95
) -> NumericEstimate:
    """The share of clamped true answers above ``threshold``: the mean of ``h(y_i)``.

    Unbiased (see :func:`share_above_filter`); ``se = sqrt(max(s_h^2, v_min) / n)``, never
    below what the noise alone forces (:func:`share_above_variance_floor`), and a Student t
    interval clipped to [0, 1] (:func:`share_above_intervals`). ``informative`` is False
    when that interval is all of [0, 1]: too few reports for this statistic.
    ``threshold`` is an integer in ``[lo, hi)``.
    """
    question = check_question(question)
    confidence = check_open_unit("confidence", confidence)
    threshold = check_threshold(question, threshold)
    y = check_reports(reports)
    return _share_above_from_counts(
        share_above_counts(y, threshold=threshold),
        question=question,
        threshold=threshold,
        confidence=confidence,
    )


def estimate_share_above_from_histogram(
    *, values, counts, question: BoundedNumeric, threshold: int, confidence: float = 0.95
) -> NumericEstimate:
    """:func:`estimate_share_above` of the reports a histogram describes (``counts[i]``
    reports of the value ``values[i]``) instead of the reports: the estimate reads only how
    many reports lie below ``t``, at ``t``, at ``t + 1`` and above ``t + 1``
    (:func:`histogram_share_above_counts`), so the result is the same number for number, and
    its cost is the number of distinct values, not of reports. References as
    :func:`estimate_share_above`.
    """
    question = check_question(question)
    confidence = check_open_unit("confidence", confidence)
    threshold = check_threshold(question, threshold)
    return _share_above_from_counts(
        histogram_share_above_counts(values=values, counts=counts, threshold=threshold),
        question=question,
        threshold=threshold,
        confidence=confidence,
    )


def _share_above_from_counts(counts, *, question, threshold, confidence) -> NumericEstimate:
    n = int(counts.sum())
    if n == 0:
        return _empty(0.0, 1.0, confidence)
    result = share_above_intervals(
        counts=counts, question=question, threshold=threshold, confidence=confidence
    )
    value = float(result.estimate)
    return NumericEstimate(
        n=n,
        estimate=value,
        clamped=min(max(value, 0.0), 1.0),
        std_error=float(result.std_error),
        ci_low=float(result.ci_low),
        ci_high=float(result.ci_high),
        confidence=confidence,
        informative=bool(result.informative),
    )


def required_sample_size_mean(
    *,
    question: BoundedNumeric,
    margin: float,
    confidence: float = 0.95,
    sd: float | None = None,
) -> int:
    """Reports needed for a mean's half-width of ``margin`` (in the answer's units).

    ``n = ceil(z^2 (v + sigma^2) / margin^2)`` with ``v = sd^2`` for an anticipated
    standard deviation of the true answers, or the worst case ``v = (hi - lo)^2 / 4``
    (Popoviciu's inequality) when ``sd`` is None.
    """
    question = check_question(question)
    margin = check_positive("margin", margin)
    spread = question.sensitivity**2 / 4 if sd is None else check_positive("sd", sd) ** 2
    z = z_value(confidence)
    return max(1, math.ceil(z * z * (spread + question.noise_variance) / margin**2))


def required_sample_size_share(
    *, question: BoundedNumeric, margin: float, confidence: float = 0.95
) -> int:
    """Reports needed for the share-above-threshold estimate's half-width ``margin``.

    A worst-case bound on ``Var h(Y)``: ``h`` is 1 above ``t + 1``, so ``E[h^2] <= 1 +
    P(Y = t) c_0^2 + P(Y = t + 1) c_1^2`` with ``c_0 = alpha / (1 - alpha)^2`` and
    ``c_1 = (1 - alpha + alpha^2) / (1 - alpha)^2``, and any single value of ``Y = X + Z``
    has probability at most ``P(Z = 0) = (1 - alpha) / (1 + alpha)``. Then
    ``n = ceil(z^2 V / margin^2)``. ``margin`` in (0, 1).
    """
    question = check_question(question)
    margin = check_open_unit("margin", margin)
    alpha = question.alpha
    c0 = alpha / (1 - alpha) ** 2
    c1 = (1 - alpha + alpha * alpha) / (1 - alpha) ** 2
    peak = (1 - alpha) / (1 + alpha)
    variance = 1 + peak * (c0 * c0 + c1 * c1)
    z = z_value(confidence)
    return max(1, math.ceil(z * z * variance / margin**2))
