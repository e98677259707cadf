"""A conservative interval for the cheating-detection designs' parameters, with coverage at
least the level at every sample size and every truth, and the rule that picks it over the
Wald (Fieller for the SLD's ``t``) interval.

The two groups' "yes" counts are independent binomials with yes-rates ``(l1, l2)``. Each
group's exact (Clopper-Pearson) interval at level ``sqrt(confidence)`` holds its rate with
probability at least ``sqrt(confidence)``, so the rectangle of both holds ``(l1, l2)`` with
probability at least ``confidence`` (independence). Every parameter is a function of the
yes-rates (:func:`dpengine.cheating.closed_form`, which inverts the model exactly), so its
range over the rectangle holds the true value at least as often. The range:

- CDM's ``pi``, ``beta``, ``gamma`` and the SLD's ``pi`` are linear in ``(l1, l2)``: the
  extremes lie at the rectangle's corners.
- The SLD's ``t = (l2 r1 - l1 r2) / ((l2 - l1) + (r1 - r2))`` (``r_g = 1 - p_g``) is a ratio
  of linear functions. Where the denominator keeps one sign over the rectangle, ``t`` is
  monotone along every line in it (a linear-fractional function is both quasi-convex and
  quasi-concave there), so again the extremes lie at the corners. Where the denominator can
  reach 0 (carriers could be absent) ``t`` is unbounded near it and the interval is [0, 1].

The range is intersected with [0, 1], the parameter space; when it misses [0, 1] the
interval is the nearer end (the true value, in [0, 1], was not in the range anyway).

The rule (:func:`cheating_interval_method`): Wald's intervals are shown where the smaller
group has at least ``WALD_MIN_GROUP`` respondents, at levels in ``WALD_LEVELS``; else the
conservative one. ``tests/dpengine/test_cheating_conservative.py`` holds the exact sweep
behind the number (docs/statistics.md gives its table).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from dpengine.cheating.designs import CheatingDesign
from dpengine.cheating.estimates import closed_form
from dpengine.intervals import ConfidenceInterval, binomial_interval

WALD_METHOD = "wald"
FIELLER_METHOD = "fieller"
CONSERVATIVE_METHOD = "exact_conservative"
# The exact sweep (tests/dpengine/test_cheating_conservative.py: seven designs, the test
# grid of truths, equal groups and one twice the other, every smaller group from 40 to 160,
# then to 400) finds Wald's (Fieller's) last shortfall below the floor at a smaller group of
# 68 (90 %), 71 (95 %) and 62 (99 %) respondents, and none from there on. Rounded up.
WALD_MIN_GROUP = 100
# The levels the sweep covered. At 80 % Wald falls short up to smaller groups of 143: below
# 90 % (and above 99 %) the conservative interval is always shown.
WALD_LEVELS = (0.90, 0.99)
COVERAGE_TOLERANCE = 0.02


class CheatingMethodReason(StrEnum):
    """Why a cheating-detection question's intervals are the ones shown."""

    NO_DATA = "no_data"  # a group without respondents: every interval is [0, 1]
    LARGE_GROUPS = "large_groups"  # both groups at least WALD_MIN_GROUP: Wald keeps the floor
    SMALL_GROUPS = "small_groups"  # replaced: Wald can cover less than the floor here
    UNSWEPT_LEVEL = "unswept_level"  # replaced: a level the sweep did not cover


@dataclass(frozen=True)
class CheatingIntervalMethod:
    """The interval family to show: ``method`` is ``"wald"`` (Wald, Fieller for ``t``) or
    ``"exact_conservative"``; ``requested`` is ``"wald"``; ``floor = confidence - 0.02``."""

    method: str
    reason: CheatingMethodReason
    confidence: float
    floor: float
    requested: str = WALD_METHOD

    @property
    def replaced(self) -> bool:
        return self.method != self.requested


def cheating_interval_method(*, n1: int, n2: int, confidence: float) -> CheatingIntervalMethod:
    """Which intervals :func:`dpengine.estimate_cheating` reports for groups of ``n1`` and
    ``n2`` respondents (see the module docstring)."""
    floor = round(confidence - COVERAGE_TOLERANCE, 12)

    def chosen(method, reason):
        return CheatingIntervalMethod(method, reason, confidence, floor)

    if min(n1, n2) == 0:
        return chosen(WALD_METHOD, CheatingMethodReason.NO_DATA)
    if not WALD_LEVELS[0] <= confidence <= WALD_LEVELS[1]:
        return chosen(CONSERVATIVE_METHOD, CheatingMethodReason.UNSWEPT_LEVEL)
    if min(n1, n2) < WALD_MIN_GROUP:
        return chosen(CONSERVATIVE_METHOD, CheatingMethodReason.SMALL_GROUPS)
    return chosen(WALD_METHOD, CheatingMethodReason.LARGE_GROUPS)


def yes_rate_rectangle(*, n1, yes1, n2, yes2, confidence: float):
    """Each group's Clopper-Pearson interval at ``sqrt(confidence)``: ``(low1, high1, low2,
    high2)``, together holding both yes-rates with probability at least ``confidence``."""
    level = math.sqrt(confidence)
    first = binomial_interval(yes=yes1, n=n1, confidence=level, method="exact")
    second = binomial_interval(yes=yes2, n=n2, confidence=level, method="exact")
    return first.low, first.high, second.low, second.high


def parameter_of_rates(design: CheatingDesign, l1, l2) -> dict[str, np.ndarray]:
    """Each parameter as the closed form computes it from yes-rates ``(l1, l2)`` (NaN for
    ``t`` where its denominator is 0): the closed form at one respondent a group."""
    forms = closed_form(design=design, n1=1, yes1=l1, n2=1, yes2=l2)
    return {name: value for name, (value, _) in forms.items()}


def conservative_intervals(
    *, design: CheatingDesign, n1, yes1, n2, yes2, confidence: float
) -> dict[str, ConfidenceInterval]:
    """Each parameter's range over :func:`yes_rate_rectangle`, intersected with [0, 1];
    vectorised over count arrays (both groups need respondents). See the module docstring."""
    low1, high1, low2, high2 = yes_rate_rectangle(
        n1=n1, yes1=yes1, n2=n2, yes2=yes2, confidence=confidence
    )
    corners = [parameter_of_rates(design, l1, l2) for l1 in (low1, high1) for l2 in (low2, high2)]
    intervals = {}
    for name in design.parameter_names:
        values = np.stack([np.asarray(corner[name], dtype=float) for corner in corners])
        low, high = values.min(axis=0), values.max(axis=0)
        # Beyond [0, 1] on one side: the nearer end (clipping both ends does exactly that).
        low, high = np.clip(low, 0.0, 1.0), np.clip(high, 0.0, 1.0)
        if name == "t":
            # t's denominator (l2 - l1) + (p2 - p1) is linear: its extremes are corners too.
            p1, p2 = (float(q) for q in design.p)
            denominators = np.stack(
                [(l2 - l1) + (p2 - p1) for l1 in (low1, high1) for l2 in (low2, high2)]
            )
            one_sign = (denominators.min(axis=0) > 0) | (denominators.max(axis=0) < 0)
            unbounded = ~one_sign | np.isnan(values).any(axis=0)
            low = np.where(unbounded, 0.0, low)
            high = np.where(unbounded, 1.0, high)
        if np.ndim(low) == 0:
            intervals[name] = ConfidenceInterval(float(low), float(high))
        else:
            intervals[name] = ConfidenceInterval(low, high)
    return intervals
