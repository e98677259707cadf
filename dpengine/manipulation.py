"""A manipulation check for numeric questions: more extreme reports than the noise can make.

A numeric report is ``Y = X + Z`` with ``X`` in ``[lo, hi]`` and ``Z`` discrete Laplace of
scale ``s = (hi - lo) / epsilon`` (:mod:`dpengine.numeric`). Local differential privacy
cannot stop a respondent from sending any report the server accepts, and one far beyond
the range moves the mean by ``(report - mean) / n`` (Cheu, Smith & Ullman 2021,
"Manipulation attacks in local differential privacy"). What the server can see is how many
reports lie beyond the range by more than ``k`` noise scales: with ``m = floor(k s)``, an
honest report of the answer ``x`` does so with probability

    p(x) = P(Z > hi + m - x) + P(Z < lo - m - x)
         = (alpha^(hi + m - x + 1) + alpha^(x - lo + m + 1)) / (1 + alpha),

using ``P(Z > j) = alpha^(j + 1) / (1 + alpha)`` for ``j >= 0``. ``p`` is convex in ``x``,
so its largest value over the range is at an end: ``p_max = (alpha^(m + 1) +
alpha^(m + 1 + hi - lo)) / (1 + alpha)``, below ``e^-k``. Honest reports are independent,
each beyond with probability at most ``p_max`` whatever the true answers, so their count
is stochastically below Binomial(n, p_max) and the one-sided p-value ``P(Binomial(n, p_max)
>= count)`` is valid (conservative) for every honest survey: flagging when it is at most
``level`` gives false alarms with probability at most ``level``.

``k = DETECTION_SCALES = 10``: honest reports go that far with probability below ``e^-10``
(4.5e-5), so a handful of reports near the accepted maximum (``REPORT_SCALES`` = 20.7 scales
out, :func:`dpengine.report_bounds`) stands out at any sample size up to about 10^5, while a
sender who stays within ``k`` scales to avoid the flag keeps at most about half of the
leverage on the mean that the accepted maximum gives.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from dpengine._validation import check_instance, check_open_unit, check_positive
from dpengine.errors import DPEngineError, Reason
from dpengine.numeric import BoundedNumeric
from dpengine.numeric.share_above import check_histogram

__all__ = [
    "DETECTION_LEVEL",
    "DETECTION_SCALES",
    "ManipulationCheck",
    "extreme_report_probability",
    "manipulation_check",
    "manipulation_check_from_histogram",
]

# Reports beyond the range by more than this many noise scales count as extreme.
DETECTION_SCALES = 10
# The flag's false-alarm probability on honest data, at most, per question and look: 0.1 %,
# so a survey with ten numeric questions stays below 1 % (union bound).
DETECTION_LEVEL = 0.001


@dataclass(frozen=True)
class ManipulationCheck:
    """How many of ``n`` reports lie below ``low`` or above ``high`` (``beyond``), against the
    most that honest reports make on average (``expected_at_most = n p_max``); ``p_value`` is
    ``P(Binomial(n, p_max) >= beyond)``, and ``flagged`` is ``p_value <= level``."""

    n: int
    beyond: int
    low: int
    high: int
    scales: float
    expected_at_most: float
    p_value: float
    level: float
    flagged: bool

    @property
    def excess(self) -> float:
        """Extreme reports beyond what honest reports make on average (never negative)."""
        return max(0.0, self.beyond - self.expected_at_most)


def _margin(question: BoundedNumeric, scales: float) -> int:
    # Exactly floor(k (hi - lo) / epsilon), epsilon read as the rational the sampler uses.
    return math.floor(Fraction(scales) * question.exact_scale)


def extreme_report_probability(
    question: BoundedNumeric, *, scales: float = DETECTION_SCALES
) -> float:
    """``p_max``: the largest probability, over true answers in ``[lo, hi]``, that an honest
    report lies more than ``m = floor(scales (hi - lo) / epsilon)`` beyond the range:
    ``(alpha^(m + 1) + alpha^(m + 1 + hi - lo)) / (1 + alpha)`` (module docstring).
    """
    question = check_instance("question", question, BoundedNumeric)
    scales = check_positive("scales", scales)
    margin = _margin(question, scales)
    rate = float(question.exact_epsilon / question.sensitivity)  # -ln(alpha)
    near = math.exp(-(margin + 1) * rate)
    far = math.exp(-(margin + 1 + question.sensitivity) * rate)
    return (near + far) / (1 + question.alpha)


def manipulation_check(
    *,
    reports,
    question: BoundedNumeric,
    scales: float = DETECTION_SCALES,
    level: float = DETECTION_LEVEL,
) -> ManipulationCheck:
    """Count the reports more than ``scales`` noise scales beyond ``[lo, hi]`` and test the
    count against the most honest reports make: one-sided binomial test at ``level``.

    ``reports`` are the integers the respondents sent. The p-value ``P(Binomial(n, p_max) >=
    beyond)`` (``p_max`` from :func:`extreme_report_probability`) is conservative for every
    mix of true answers, so an honest survey is flagged with probability at most ``level``.
    Reference: Cheu, Smith & Ullman (2021), "Manipulation attacks in local differential
    privacy", IEEE S&P.
    """
    question = check_instance("question", question, BoundedNumeric)
    level = check_open_unit("level", level)
    array = np.asarray(reports)
    if array.ndim != 1 or (array.size and not np.issubdtype(array.dtype, np.integer)):
        raise DPEngineError(
            f"reports must be a 1-D sequence of integers, got {reports!r}",
            reason=Reason.INVALID_TYPE,
            field="reports",
        )
    return _check(
        values=array.astype(np.int64),
        counts=np.ones(array.size, dtype=np.int64),
        question=question,
        scales=scales,
        level=level,
    )


def manipulation_check_from_histogram(
    *,
    values,
    counts,
    question: BoundedNumeric,
    scales: float = DETECTION_SCALES,
    level: float = DETECTION_LEVEL,
) -> ManipulationCheck:
    """:func:`manipulation_check` of the reports a histogram describes (``counts[i]`` reports
    of the value ``values[i]``) instead of the reports: the test reads only how many reports
    there are and how many lie beyond, so the result is the same, and its cost is the number
    of distinct values, not of reports. Reference as :func:`manipulation_check`.
    """
    question = check_instance("question", question, BoundedNumeric)
    level = check_open_unit("level", level)
    values, counts = check_histogram(values, counts)
    return _check(values=values, counts=counts, question=question, scales=scales, level=level)


def _check(*, values, counts, question, scales, level) -> ManipulationCheck:
    from scipy import stats  # imported here: see dpengine/__init__.py on lazy SciPy

    margin = _margin(question, check_positive("scales", scales))
    low, high = question.lo - margin, question.hi + margin
    n = int(counts.sum())
    beyond = int(counts[(values < low) | (values > high)].sum())
    p_max = extreme_report_probability(question, scales=scales)
    p_value = float(stats.binom.sf(beyond - 1, n, p_max)) if beyond else 1.0
    return ManipulationCheck(
        n=n,
        beyond=beyond,
        low=low,
        high=high,
        scales=float(scales),
        expected_at_most=n * p_max,
        p_value=p_value,
        level=level,
        flagged=p_value <= level,
    )
