"""The share of true answers above a threshold, from noisy reports: the unbiased filter,
its noise-only variance floor and the intervals (see ``dpengine.numeric``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpengine._validation import check_open_unit
from dpengine.errors import DPEngineError, Reason
from dpengine.numeric.question import BoundedNumeric, check_integer, check_question


def check_reports(reports: object) -> np.ndarray:
    array = np.asarray(reports)
    if array.ndim != 1 or (array.size and not np.issubdtype(array.dtype, np.integer)):
        raise DPEngineError(
            f"reports must be a 1-D sequence of integers, got {reports!r}",
            reason=Reason.INVALID_TYPE,
            field="reports",
        )
    return array.astype(np.int64)


def check_histogram(values: object, counts: object) -> tuple[np.ndarray, np.ndarray]:
    """``values`` (integers) and ``counts`` (how many reports were each value, non-negative
    integers): two 1-D sequences of the same length."""
    value_array, count_array = np.asarray(values), np.asarray(counts)
    if (
        value_array.ndim != 1
        or count_array.shape != value_array.shape
        or (value_array.size and not np.issubdtype(value_array.dtype, np.integer))
        or (count_array.size and not np.issubdtype(count_array.dtype, np.integer))
        or value_array.dtype == bool
        or count_array.dtype == bool
        or np.any(count_array < 0)
    ):
        raise DPEngineError(
            f"values and counts must be 1-D sequences of integers of the same length, counts "
            f"non-negative, got values={values!r}, counts={counts!r}",
            reason=Reason.INVALID_TYPE,
            field="counts",
        )
    return value_array.astype(np.int64), count_array.astype(np.int64)


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
    y = check_reports(reports)
    at = int(np.count_nonzero(y == threshold))
    after = int(np.count_nonzero(y == threshold + 1))
    above = int(np.count_nonzero(y > threshold + 1))
    return np.array([y.size - at - after - above, at, after, above], dtype=np.int64)


def histogram_share_above_counts(*, values, counts, threshold: int) -> np.ndarray:
    """:func:`share_above_counts` of the reports a histogram describes: ``counts[i]`` reports
    of the value ``values[i]``. The same four integers, so every estimate made from them is
    the same, to the last bit, as from the reports themselves."""
    y, weights = check_histogram(values, counts)
    at = int(weights[y == threshold].sum())
    after = int(weights[y == threshold + 1].sum())
    above = int(weights[y > threshold + 1].sum())
    return np.array([int(weights.sum()) - at - after - above, at, after, above], dtype=np.int64)


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
    question = check_question(question)
    threshold = check_threshold(question, threshold)
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

    question = check_question(question)
    confidence = check_open_unit("confidence", confidence)
    threshold = check_threshold(question, threshold)
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


def check_threshold(question: BoundedNumeric, threshold: object) -> int:
    threshold = check_integer("threshold", threshold)
    if not question.lo <= threshold < question.hi:
        raise DPEngineError(
            f"threshold must be from lo = {question.lo} to hi - 1 = {question.hi - 1}, "
            f"got {threshold}",
            reason=Reason.OUT_OF_RANGE,
            field="threshold",
        )
    return threshold
