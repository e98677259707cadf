"""Numeric questions: bounded integers with discrete Laplace noise, and their estimators.

A respondent's integer answer is clamped to ``[lo, hi]`` and sent as ``Y = X + Z`` with
``Z`` two-sided geometric (discrete Laplace): ``P(Z = z) = (1 - alpha) / (1 + alpha)
alpha^|z|`` with ``alpha = exp(-epsilon / (hi - lo))``, i.e. scale ``(hi - lo) / epsilon``.
Two clamped answers differ by at most the sensitivity ``hi - lo``, so each report is
``epsilon``-locally differentially private (Ghosh, Roughgarden & Sundararajan 2009;
Dwork & Roth 2014, section 3.3). The draw is exact: :func:`dpengine.geometric_mechanism`
(Canonne, Kamath & Steinke 2020, Algorithm 2), with ``epsilon`` an exact rational
(floats read as the decimal they print as, so ``math.log(3)`` means the rational
1.0986122886681098, which the ledger charges; the browser reads the same decimal).

Estimators (``n`` reports ``y_i``):

- Mean of the clamped answers: ``y_bar``, unbiased since ``E[Z] = 0``. ``Var(Y) =
  Var(X) + sigma^2`` with the known noise variance ``sigma^2 = 2 alpha / (1 - alpha)^2``.
  Interval: normal, ``y_bar +/- z se`` with ``se = sqrt(max(s^2, sigma^2) / n)`` (``s^2``
  the sample variance of the reports; it cannot truly be below ``sigma^2``, so the known
  noise variance is its floor), clipped to ``[lo, hi]``.
- Share above a threshold ``t`` (``P(X > t)``): the generating function of ``Z`` is
  ``(1 - alpha)^2 / ((1 - alpha s)(1 - alpha / s))``, whose inverse is the three-term filter
  ``((1 + alpha^2) - alpha s - alpha / s) / (1 - alpha)^2``. Hence with ``g = 1{. > t}``,
  ``h(y) = ((1 + alpha^2) g(y) - alpha g(y - 1) - alpha g(y + 1)) / (1 - alpha)^2``
  satisfies ``E[h(X + Z)] = g(X)`` exactly, and the mean of ``h(y_i)`` is unbiased.
  ``h`` takes four values: 0 below ``t``, ``-alpha / (1 - alpha)^2`` at ``t``,
  ``(1 - alpha + alpha^2) / (1 - alpha)^2`` at ``t + 1`` and 1 above; its variance is
  estimated by the sample variance of the ``h(y_i)``, and the interval is normal,
  clipped to [0, 1]. The variance is large when ``alpha`` is near 1 (wide ranges, small
  epsilon): about ``2 P(Y in {t, t+1}) / (1 - alpha)^4``.

Accepted reports (:func:`report_bounds`): the noise is unbounded, so the server accepts
``[lo - t, hi + t]`` with ``t = ceil(REPORT_SCALES * (hi - lo) / epsilon)`` and
``REPORT_SCALES >= ln(1 / REPORT_TAIL)``. Since ``P(|Z| > t) = 2 alpha^(t + 1) / (1 + alpha)
< alpha^t <= REPORT_TAIL``, an honest report of any answer in range falls outside with
probability below ``REPORT_TAIL = 1e-9``. The sender clamps its report to these bounds
(:func:`randomize_number`, as the browser does): a function of the ε-private report, so
still ε-private (post-processing), and a report moved by it is one the server would refuse.
The estimators ignore the clamp: a survey of ``n`` reports differs from the unclamped one
with probability below ``n * REPORT_TAIL``, and the mean moves by less than
``REPORT_TAIL * scale``.

References: Ghosh, Roughgarden & Sundararajan (2009), "Universally utility-maximizing
privacy mechanisms", STOC; Canonne, Kamath & Steinke (2020); Dwork & Roth (2014).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from dpengine._rational import as_fraction, fmt, is_integer
from dpengine._validation import check_instance, check_open_unit, check_positive
from dpengine.errors import DPEngineError, Reason
from dpengine.intervals import ConfidenceInterval, z_value
from dpengine.mechanisms import geometric_mechanism

__all__ = [
    "REPORT_SCALES",
    "REPORT_TAIL",
    "BoundedNumeric",
    "NumericEstimate",
    "ReportBounds",
    "estimate_mean",
    "estimate_mean_from_sums",
    "estimate_share_above",
    "randomize_number",
    "report_bounds",
    "required_sample_size_mean",
    "required_sample_size_share",
    "share_above_filter",
]


def _integer(name: str, value: object) -> int:
    if not is_integer(value):
        raise DPEngineError(
            f"{name} must be an integer, got {fmt(value)}", reason=Reason.INVALID_TYPE, field=name
        )
    return int(value)


@dataclass(frozen=True)
class BoundedNumeric:
    """A numeric question on ``[lo, hi]`` (integers, ``lo < hi``) with privacy loss ``epsilon``.

    ``sensitivity = hi - lo``, ``scale = sensitivity / epsilon``,
    ``alpha = exp(-epsilon / sensitivity)``, ``noise_variance = 2 alpha / (1 - alpha)^2``.
    ``epsilon`` is a positive finite rational (floats read as their decimal).
    """

    lo: int
    hi: int
    epsilon: float | Fraction

    kind = "numeric"

    def __post_init__(self) -> None:
        lo, hi = _integer("lo", self.lo), _integer("hi", self.hi)
        if hi <= lo:
            raise DPEngineError(
                f"hi must be greater than lo = {lo}, got {hi}",
                reason=Reason.OUT_OF_RANGE,
                field="hi",
            )
        check_positive("epsilon", self.epsilon)
        object.__setattr__(self, "lo", lo)
        object.__setattr__(self, "hi", hi)
        if not isinstance(self.epsilon, Fraction):
            object.__setattr__(self, "epsilon", float(self.epsilon))

    @property
    def exact_epsilon(self) -> Fraction:
        return as_fraction(self.epsilon)

    @property
    def sensitivity(self) -> int:
        return self.hi - self.lo

    @property
    def exact_scale(self) -> Fraction:
        """``(hi - lo) / epsilon``, exactly: the discrete Laplace scale the sampler uses."""
        return Fraction(self.sensitivity) / self.exact_epsilon

    @property
    def alpha(self) -> float:
        """``exp(-epsilon / (hi - lo))``: the noise's geometric ratio."""
        return math.exp(-float(self.exact_epsilon / self.sensitivity))

    @property
    def noise_variance(self) -> float:
        """``2 alpha / (1 - alpha)^2``, the variance of the discrete Laplace noise."""
        alpha = self.alpha
        return 2 * alpha / (1 - alpha) ** 2

    @property
    def parameters(self) -> dict[str, float]:
        return {"lo": self.lo, "hi": self.hi, "epsilon": float(self.epsilon)}

    def clamp(self, value: int) -> int:
        return min(max(_integer("value", value), self.lo), self.hi)


def _check_question(question: object) -> BoundedNumeric:
    return check_instance("question", question, BoundedNumeric)


# The chance that an honest report falls outside the accepted reports, at most.
REPORT_TAIL = 1e-9
# ln(1 / REPORT_TAIL) = 20.7232658..., rounded up in the fifth digit so that the rounding of
# the floating-point product in report_bounds never narrows the bound below the tail's.
REPORT_SCALES = 20.7233


@dataclass(frozen=True)
class ReportBounds:
    """The reports accepted for a numeric question: ``low`` to ``high``, the range widened by
    ``slack`` on each side."""

    low: int
    high: int
    slack: int


def report_bounds(question: BoundedNumeric) -> ReportBounds:
    """The reports an honest respondent sends except with probability below ``REPORT_TAIL``.

    ``slack = ceil(REPORT_SCALES * (hi - lo) / epsilon)``, in binary floating point in that
    order (``hi - lo`` and ``epsilon`` as doubles), so that SQL computing
    ``ceil(20.7233::float8 * ((hi - lo)::float8 / epsilon))`` gets the same integer. For
    every true answer ``x`` in ``[lo, hi]``, ``P(x + Z outside [lo - slack, hi + slack]) <=
    P(|Z| > slack) = 2 alpha^(slack + 1) / (1 + alpha) < alpha^slack <= REPORT_TAIL``, as
    ``slack >= scale * ln(1 / REPORT_TAIL)`` and ``alpha = exp(-1 / scale)``.
    See docs/statistics.md, "Accepted numeric reports".
    """
    question = _check_question(question)
    scale = float(question.sensitivity) / float(question.epsilon)
    slack = math.ceil(REPORT_SCALES * scale)
    return ReportBounds(low=question.lo - slack, high=question.hi + slack, slack=slack)


def randomize_number(value: int, question: BoundedNumeric, rng: object = None) -> int:
    """``clamp(value) + Z``, ``Z`` exact discrete Laplace of scale ``(hi - lo) / epsilon``,
    kept within :func:`report_bounds` (moved there with probability below ``REPORT_TAIL``).

    Reference: Ghosh et al. (2009); Canonne, Kamath & Steinke (2020), Algorithm 2.
    """
    question = _check_question(question)
    report = geometric_mechanism(
        question.clamp(value),
        sensitivity=question.sensitivity,
        epsilon=question.exact_epsilon,
        rng=rng,
    )
    # Within the accepted reports, as the browser sends (post-processing: still ε-private).
    bounds = report_bounds(question)
    return min(max(report, bounds.low), bounds.high)


def _check_reports(reports: object) -> np.ndarray:
    array = np.asarray(reports)
    if array.ndim != 1 or (array.size and not np.issubdtype(array.dtype, np.integer)):
        raise DPEngineError(
            f"reports must be a 1-D sequence of integers, got {reports!r}",
            reason=Reason.INVALID_TYPE,
            field="reports",
        )
    return array.astype(np.int64)


def share_above_filter(reports, *, threshold: int, alpha: float) -> np.ndarray:
    """``h(y) = ((1 + a^2) g(y) - a g(y - 1) - a g(y + 1)) / (1 - a)^2``, ``g = 1{y > t}``.

    The inverse of the discrete Laplace's generating function applied to ``g``, so
    ``E[h(x + Z)] = g(x)`` for every integer ``x`` (see the module docstring).
    """
    y = np.asarray(reports, dtype=np.int64)
    g = (y > threshold).astype(float)
    g_before = (y - 1 > threshold).astype(float)
    g_after = (y + 1 > threshold).astype(float)
    return ((1 + alpha * alpha) * g - alpha * g_before - alpha * g_after) / (1 - alpha) ** 2


@dataclass(frozen=True)
class NumericEstimate:
    """An unbiased estimate with a normal confidence interval (None/None without data)."""

    n: int
    estimate: float | None
    clamped: float | None
    std_error: float | None
    ci_low: float
    ci_high: float
    confidence: float

    @property
    def ci(self) -> ConfidenceInterval:
        return ConfidenceInterval(self.ci_low, self.ci_high)


def _normal_estimate(
    *, n: int, value: float, variance: float, confidence: float, low: float, high: float
) -> NumericEstimate:
    std_error = math.sqrt(variance / n)
    half = z_value(confidence) * std_error
    return NumericEstimate(
        n=n,
        estimate=value,
        clamped=min(max(value, low), high),
        std_error=std_error,
        ci_low=min(max(value - half, low), high),
        ci_high=max(min(value + half, high), low),
        confidence=confidence,
    )


def _empty(low: float, high: float, confidence: float) -> NumericEstimate:
    return NumericEstimate(0, None, None, None, low, high, confidence)


def estimate_mean(
    *, reports, question: BoundedNumeric, confidence: float = 0.95
) -> NumericEstimate:
    """The mean of the clamped true answers: ``y_bar``, with a normal interval.

    ``se = sqrt(max(s^2, sigma^2) / n)`` with ``s^2`` the sample variance of the reports
    (``ddof = 1``) and ``sigma^2 = 2 alpha / (1 - alpha)^2`` the known noise variance; the
    interval ``y_bar +/- z se`` is clipped to ``[lo, hi]``. Reference: Dwork & Roth (2014).
    """
    question = _check_question(question)
    confidence = check_open_unit("confidence", confidence)
    y = _check_reports(reports)
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
    question = _check_question(question)
    confidence = check_open_unit("confidence", confidence)
    n = _integer("n", n)
    total, total_squares = _integer("total", total), _integer("total_squares", total_squares)
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

    Unbiased (see :func:`share_above_filter`); ``se = s_h / sqrt(n)`` with ``s_h`` the
    sample standard deviation of the ``h(y_i)`` (``ddof = 1``); normal interval clipped
    to [0, 1]. ``threshold`` is an integer in ``[lo, hi)``.
    """
    question = _check_question(question)
    confidence = check_open_unit("confidence", confidence)
    threshold = _integer("threshold", threshold)
    if not question.lo <= threshold < question.hi:
        raise DPEngineError(
            f"threshold must be from lo = {question.lo} to hi - 1 = {question.hi - 1}, "
            f"got {threshold}",
            reason=Reason.OUT_OF_RANGE,
            field="threshold",
        )
    y = _check_reports(reports)
    if y.size == 0:
        return _empty(0.0, 1.0, confidence)
    h = share_above_filter(y, threshold=threshold, alpha=question.alpha)
    return _normal_estimate(
        n=int(y.size),
        value=float(h.mean()),
        variance=float(h.var(ddof=1)) if y.size > 1 else 0.0,
        confidence=confidence,
        low=0.0,
        high=1.0,
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
    question = _check_question(question)
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
    question = _check_question(question)
    margin = check_open_unit("margin", margin)
    alpha = question.alpha
    c0 = alpha / (1 - alpha) ** 2
    c1 = (1 - alpha + alpha * alpha) / (1 - alpha) ** 2
    peak = (1 - alpha) / (1 + alpha)
    variance = 1 + peak * (c0 * c0 + c1 * c1)
    z = z_value(confidence)
    return max(1, math.ceil(z * z * variance / margin**2))
