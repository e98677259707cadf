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
  ``(1 - alpha + alpha^2) / (1 - alpha)^2`` at ``t + 1`` and 1 above, so the estimate
  depends on the reports only through the four counts of those cases. The variance is
  large when ``alpha`` is near 1 (wide ranges, small epsilon): about
  ``2 P(Y in {t, t+1}) / (1 - alpha)^4``, carried by reports next to the threshold that a
  small sample often lacks. So the sample variance ``s_h^2`` alone can be tiny where the
  truth is huge; the noise alone forces at least
  ``v_min = min over x in [lo, hi] of Var_Z h(x + Z)`` (law of total variance:
  ``Var h(Y) = E[Var(h(Y) | X)] + Var(E[h(Y) | X]) >= v_min``; for fixed answers the mean's
  variance is ``sum_i Var_Z h(x_i + Z) / n^2 >= v_min / n``), computed exactly from the
  discrete Laplace pmf. The interval is ``h_bar +/- t_{n-1} sqrt(max(s_h^2, v_min) / n)``
  with the Student t quantile (the reports of ``h`` are far from normal at small ``n``),
  clipped to [0, 1]; ``informative`` is False when that is all of [0, 1].

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
    "ShareAboveIntervals",
    "estimate_mean",
    "estimate_mean_from_sums",
    "estimate_share_above",
    "randomize_number",
    "report_bounds",
    "required_sample_size_mean",
    "required_sample_size_share",
    "share_above_counts",
    "share_above_filter",
    "share_above_intervals",
    "share_above_probabilities",
    "share_above_values",
    "share_above_variance_floor",
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


def share_above_values(*, alpha: float) -> np.ndarray:
    """The four values of :func:`share_above_filter`, for reports below ``t``, at ``t``, at
    ``t + 1`` and above ``t + 1``: ``0``, ``-alpha / (1 - alpha)^2``,
    ``(1 - alpha + alpha^2) / (1 - alpha)^2`` and ``1``."""
    square = (1 - alpha) ** 2
    return np.array([0.0, -alpha / square, (1 - alpha + alpha * alpha) / square, 1.0])


def share_above_counts(reports, *, threshold: int) -> np.ndarray:
    """How many reports lie below ``t``, at ``t``, at ``t + 1`` and above ``t + 1``: all the
    share-above estimate reads of the reports."""
    y = _check_reports(reports)
    at = int(np.count_nonzero(y == threshold))
    after = int(np.count_nonzero(y == threshold + 1))
    above = int(np.count_nonzero(y > threshold + 1))
    return np.array([y.size - at - after - above, at, after, above], dtype=np.int64)


def _tail(m: np.ndarray, alpha: float) -> np.ndarray:
    """``P(Z > m)`` for the discrete Laplace ``Z``, integer ``m``: summing the pmf
    ``(1 - alpha) / (1 + alpha) alpha^|z|`` gives ``alpha^(m + 1) / (1 + alpha)`` for
    ``m >= 0`` and, by symmetry, ``1 - alpha^(-m) / (1 + alpha)`` below."""
    m = np.asarray(m, dtype=float)
    upper = alpha ** (np.maximum(m, -1.0) + 1) / (1 + alpha)
    lower = 1 - alpha ** np.maximum(-m, 0.0) / (1 + alpha)
    return np.where(m >= 0, upper, lower)


def share_above_probabilities(answers, *, threshold: int, alpha: float) -> np.ndarray:
    """For each integer answer ``x``, the exact probabilities that its report ``x + Z``
    lies below ``t``, at ``t``, at ``t + 1`` and above ``t + 1`` (last axis, summing to 1).

    ``P(Z = z) = (1 - alpha) / (1 + alpha) alpha^|z|``; below ``t`` is ``P(Z > x - t)`` by
    symmetry, above ``t + 1`` is ``P(Z > t + 1 - x)`` (see ``_tail``), each computed
    directly so none is a difference of numbers near 1.
    """
    x = np.asarray(answers, dtype=float)
    peak = (1 - alpha) / (1 + alpha)
    return np.stack(
        [
            _tail(x - threshold, alpha),
            peak * alpha ** np.abs(threshold - x),
            peak * alpha ** np.abs(threshold + 1 - x),
            _tail(threshold + 1 - x, alpha),
        ],
        axis=-1,
    )


def share_above_variance_floor(*, question: BoundedNumeric, threshold: int) -> float:
    """``v_min = min over integers x in [lo, hi] of Var_Z h(x + Z)``: the least variance of
    the filtered report ``h(Y)`` that the noise alone produces, whatever the answers.

    By the law of total variance ``Var h(Y) = E[Var(h(Y) | X)] + Var(E[h(Y) | X]) >= v_min``.
    ``Var_Z h(x + Z) = sum_j q_j(x) (h_j - 1{x > t})^2`` over the four values ``h_j`` of
    :func:`share_above_values` with the exact probabilities ``q_j(x)`` of
    :func:`share_above_probabilities`: a sum of non-negative terms, so no cancellation.
    Reference: Ghosh, Roughgarden & Sundararajan (2009) for the noise.
    """
    question = _check_question(question)
    threshold = _check_threshold(question, threshold)
    alpha = question.alpha
    x = np.arange(question.lo, question.hi + 1)
    probabilities = share_above_probabilities(x, threshold=threshold, alpha=alpha)
    truth = (x > threshold).astype(float)
    values = share_above_values(alpha=alpha)
    variances = (probabilities * (values[np.newaxis, :] - truth[:, np.newaxis]) ** 2).sum(axis=1)
    return float(variances.min())


@dataclass(frozen=True)
class ShareAboveIntervals:
    """Share-above estimates for an array of surveys (one per row of four counts)."""

    n: np.ndarray
    estimate: np.ndarray
    std_error: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray

    @property
    def informative(self) -> np.ndarray:
        """False where the interval is all of [0, 1]."""
        return (self.ci_low > 0.0) | (self.ci_high < 1.0)


def share_above_intervals(
    *, counts, question: BoundedNumeric, threshold: int, confidence: float = 0.95
) -> ShareAboveIntervals:
    """The share above ``threshold`` with its interval, from the counts of reports below
    ``t``, at ``t``, at ``t + 1`` and above ``t + 1`` (:func:`share_above_counts`).

    ``counts`` has shape ``(..., 4)`` (non-negative integers, at least one report per
    survey). Estimate ``h_bar = sum_j c_j h_j / n``, unbiased; ``se = sqrt(max(s_h^2,
    v_min) / n)`` with ``s_h^2`` the sample variance of the ``h(y_i)`` (``ddof = 1``) and
    ``v_min`` :func:`share_above_variance_floor`; interval ``h_bar +/- t_{n-1} se`` (Student
    t quantile; a single report gives all of [0, 1]), clipped to [0, 1]. Vectorised so
    simulations and the single survey of :func:`estimate_share_above` share one formula.
    References: Ghosh, Roughgarden & Sundararajan (2009); Student (1908).
    """
    from scipy import stats  # imported here: see dpengine/__init__.py on lazy SciPy

    question = _check_question(question)
    confidence = check_open_unit("confidence", confidence)
    threshold = _check_threshold(question, threshold)
    array = np.asarray(counts)
    if (
        array.ndim < 1
        or array.shape[-1] != 4
        or array.dtype == bool
        or not np.issubdtype(array.dtype, np.integer)
        or np.any(array < 0)
        or np.any(array.sum(axis=-1) < 1)
    ):
        raise DPEngineError(
            f"counts must be non-negative integers, four per survey with at least one "
            f"report, got {counts!r}",
            reason=Reason.OUT_OF_RANGE,
            field="counts",
        )
    array = array.astype(np.int64)
    values = share_above_values(alpha=question.alpha)
    n = array.sum(axis=-1)
    mean = (array * values).sum(axis=-1) / n
    squares = (array * (values - mean[..., np.newaxis]) ** 2).sum(axis=-1)
    sample_variance = np.where(n > 1, squares / np.maximum(n - 1, 1), 0.0)
    # One quantile per distinct size (simulations hold many surveys of one size).
    sizes, which = np.unique(n, return_inverse=True)
    quantiles = stats.t.ppf((1 + confidence) / 2, np.maximum(sizes - 1, 1))
    critical = np.where(sizes > 1, quantiles, np.inf)[which].reshape(n.shape)
    variance = np.maximum(
        sample_variance, share_above_variance_floor(question=question, threshold=threshold)
    )
    std_error = np.sqrt(variance / n)
    half = critical * std_error
    return ShareAboveIntervals(
        n=n,
        estimate=mean,
        std_error=std_error,
        ci_low=np.clip(mean - half, 0.0, 1.0),
        ci_high=np.clip(mean + half, 0.0, 1.0),
    )


def _check_threshold(question: BoundedNumeric, threshold: object) -> int:
    threshold = _integer("threshold", threshold)
    if not question.lo <= threshold < question.hi:
        raise DPEngineError(
            f"threshold must be from lo = {question.lo} to hi - 1 = {question.hi - 1}, "
            f"got {threshold}",
            reason=Reason.OUT_OF_RANGE,
            field="threshold",
        )
    return threshold


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

    Unbiased (see :func:`share_above_filter`); ``se = sqrt(max(s_h^2, v_min) / n)``, never
    below what the noise alone forces (:func:`share_above_variance_floor`), and a Student t
    interval clipped to [0, 1] (:func:`share_above_intervals`). ``informative`` is False
    when that interval is all of [0, 1]: too few reports for this statistic.
    ``threshold`` is an integer in ``[lo, hi)``.
    """
    question = _check_question(question)
    confidence = check_open_unit("confidence", confidence)
    threshold = _check_threshold(question, threshold)
    y = _check_reports(reports)
    if y.size == 0:
        return _empty(0.0, 1.0, confidence)
    result = share_above_intervals(
        counts=share_above_counts(y, threshold=threshold),
        question=question,
        threshold=threshold,
        confidence=confidence,
    )
    value = float(result.estimate)
    return NumericEstimate(
        n=int(y.size),
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
