"""Estimates from answers asked directly (not randomized): ordinary binomial shares and a
sample mean, for the questions a survey asks as given.

A direct answer is the answer itself, so the share of "yes" (or of each option) among the
``n`` answers is estimated by the sample share with an ordinary binomial interval
(:func:`dpengine.intervals.binomial_interval`: Wilson, Clopper-Pearson, Jeffreys or Wald;
Brown, Cai & DasGupta 2001). The mean of a direct number is the sample mean with the
normal-approximation interval ``mean +/- z s / sqrt(n)`` (``s`` the sample standard
deviation), clipped to the answer's range.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from dpengine._validation import check_count, check_open_unit
from dpengine.errors import DPEngineError, Reason
from dpengine.intervals import DEFAULT_METHOD, binomial_interval, z_value

__all__ = ["DirectMean", "DirectShare", "direct_mean", "direct_shares"]


@dataclass(frozen=True)
class DirectShare:
    """The share of ``count`` answers among ``n``, with its interval; ``share`` is None
    when ``n`` is 0 (the interval is then [0, 1])."""

    count: int
    n: int
    share: float | None
    ci_low: float
    ci_high: float


@dataclass(frozen=True)
class DirectMean:
    """The sample mean of ``n`` direct numbers with its interval; None values when n < 2
    (one answer has no spread to say how far the mean may be)."""

    n: int
    mean: float | None
    std_dev: float | None
    ci_low: float | None
    ci_high: float | None


def direct_shares(
    *, counts, confidence: float = 0.95, method: str = DEFAULT_METHOD
) -> tuple[DirectShare, ...]:
    """One :class:`DirectShare` per entry of ``counts`` (answers per option; a yes/no
    question's ``[yes, no]``), each among ``n = sum(counts)`` with a two-sided ``confidence``
    interval by ``method``. Each interval holds on its own (not simultaneously)."""
    counts = [check_count(f"counts[{index}]", count) for index, count in enumerate(counts)]
    n = sum(counts)
    shares = []
    for count in counts:
        interval = binomial_interval(yes=count, n=n, confidence=confidence, method=method)
        shares.append(
            DirectShare(
                count=count,
                n=n,
                share=count / n if n else None,
                ci_low=interval.low,
                ci_high=interval.high,
            )
        )
    return tuple(shares)


def direct_mean(
    *, n: int, total: float, total_squares: float, lo: int, hi: int, confidence: float = 0.95
) -> DirectMean:
    """The mean of ``n`` answers in [``lo``, ``hi``] from their sum ``total`` and sum of
    squares ``total_squares``: ``mean = total / n``, ``s^2 = (total_squares - n mean^2) /
    (n - 1)``, and ``mean +/- z s / sqrt(n)`` (normal approximation) clipped to [lo, hi]."""
    n = check_count("n", n)
    confidence = check_open_unit("confidence", confidence)
    if hi <= lo:
        raise DPEngineError(
            f"hi must be greater than lo, got lo={lo}, hi={hi}",
            reason=Reason.OUT_OF_RANGE,
            field="hi",
        )
    if n < 2:
        return DirectMean(
            n=n, mean=total / n if n else None, std_dev=None, ci_low=None, ci_high=None
        )
    mean = total / n
    # Rounding can leave a hair below zero when every answer is the same.
    variance = max(0.0, (total_squares - n * mean * mean) / (n - 1))
    std_dev = math.sqrt(variance)
    half = z_value(confidence) * std_dev / math.sqrt(n)
    return DirectMean(
        n=n,
        mean=mean,
        std_dev=std_dev,
        ci_low=max(float(lo), mean - half),
        ci_high=min(float(hi), mean + half),
    )
