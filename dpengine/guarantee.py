"""Which interval to show: the requested method when it keeps its stated level, else the
exact (Clopper-Pearson) one, which never covers less.

The textbook intervals for a binomial proportion (Wald, Wilson, Jeffreys) cover less than
their level at some prevalences when ``n`` is small: at 95 % and n = 10 Wilson's least
coverage is 0.919 under the classic design, Jeffreys' 0.899, Wald's 0.790
(:func:`dpengine.minimum_coverage`; Brown, Cai & DasGupta 2001). Clopper-Pearson's is never
below the level (Clopper & Pearson 1934). The rule here:

- The **floor** is ``confidence - COVERAGE_TOLERANCE`` (0.93 at 95 %): the least coverage a
  "95 %" interval may have at any true prevalence.
- A yes/no question keeps the requested method when its exact least coverage over every
  prevalence in [0, 1], at this ``n``, design and level, is at least the floor; otherwise the
  exact method is used. Deterministic, so each answer is cached.
- A multiple-choice question's ``k`` Bonferroni intervals (each option's count is exactly
  ``Binomial(n, q + (p - q) pi_j)``, each interval at level ``1 - (1 - confidence) / k``) hold
  together with probability at least ``1 - sum_j miss_j`` (Bonferroni's inequality), so if
  every option's exact least coverage is at least ``1 - (1 - floor) / k``, the joint coverage
  is at least the floor. That is checked exactly, as for yes/no; otherwise every option uses
  the exact method (joint coverage at least ``confidence``, by the same inequality). The check
  is sufficient, not necessary: it may replace an interval whose joint coverage was in fact
  enough, never the other way round.
- **Large samples**: enumerating costs O(n). Where every report category is expected at
  least ``LARGE_SAMPLE_REPORTS`` times at every true value (``n min(b, 1 - a) >= 300``, with
  ``a``, ``b`` the yes/no design's yes-report probabilities, or the k-ary design's keep and
  other probabilities ``p``, ``q``), the check is skipped: the exact sweep behind
  ``tests/dpengine/test_large_sample_rule.py`` (yes/no presets, custom coins, multiple choice
  with 2 to 20 options; levels 80 % to 99 %) finds the last shortfall of Wilson and Jeffreys
  at 226 expected reports (Bonferroni over 20 options at 80 %) and of yes/no Wald at 128
  (80 %), and coverage then tends to the level (the normal approximation's error shrinks as
  ``1 / sqrt(n min(b, 1 - a))``). Wald's Bonferroni intervals (per-option levels up to
  99.95 %, where its symmetric normal tail is worst) still fall short at 300 for 8 or more
  options, so for multiple choice Wald is always enumerated. Below the rule and beyond
  ``CHECK_LIMIT`` reports (designs whose rarest report is very rare, levels outside
  ``LARGE_SAMPLE_LEVELS``, Wald for multiple choice), nothing is enumerated and the exact
  method is used: never an interval that has not been checked.

References: Clopper & Pearson (1934), Biometrika 26(4); Brown, Cai & DasGupta (2001),
Statistical Science 16(2); Bonferroni's inequality (e.g. Casella & Berger 2002, section 1.2).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from enum import StrEnum

import numpy as np

from dpengine._validation import (
    check_count,
    check_design,
    check_instance,
    check_method,
    check_open_unit,
)
from dpengine.choice import ChoiceEstimate, KaryRandomizedResponse, estimate_choice
from dpengine.coverage import interval_minimum_coverage
from dpengine.designs import YesNoDesign
from dpengine.estimation import Estimate, estimate
from dpengine.intervals import DEFAULT_METHOD, binomial_interval

__all__ = [
    "CHECK_LIMIT",
    "COVERAGE_TOLERANCE",
    "GUARANTEED_METHOD",
    "LARGE_SAMPLE_LEVELS",
    "LARGE_SAMPLE_REPORTS",
    "IntervalMethod",
    "MethodReason",
    "choice_interval_method",
    "estimate_choice_with_coverage",
    "estimate_with_coverage",
    "interval_method",
]

COVERAGE_TOLERANCE = 0.02
GUARANTEED_METHOD = "exact"
# Enumerating n = 5000 takes about 50 ms, once per (design, n, method, level): cached.
CHECK_LIMIT = 5000
# See the module docstring: the exact sweep's last shortfall is at 226 expected reports.
LARGE_SAMPLE_REPORTS = 300
# The per-interval levels the sweep covered (80 % yes/no to 99 % over 20 options' Bonferroni).
LARGE_SAMPLE_LEVELS = (0.80, 1 - 0.01 / 20)


class MethodReason(StrEnum):
    """Why the method shown is the one it is."""

    GUARANTEED = "guaranteed"  # the exact method was asked for, or there is no data
    CHECKED = "checked"  # the requested method's exact least coverage is at least the floor
    LARGE_SAMPLE = "large_sample"  # beyond the sweep's last shortfall: nothing to check
    BELOW_FLOOR = "below_floor"  # replaced: its least coverage is below the floor
    UNCHECKED = "unchecked"  # replaced: too many reports to enumerate, too few to skip


@dataclass(frozen=True)
class IntervalMethod:
    """The interval method to show for one question at ``n`` reports.

    ``method`` is the one to compute; ``requested`` the one asked for. ``coverage_bound`` is
    a lower bound on the requested method's coverage at every true value when it was
    computed (yes/no: the exact least coverage; multiple choice: Bonferroni's bound from each
    option's), else None. ``floor = confidence - COVERAGE_TOLERANCE``.
    """

    requested: str
    method: str
    n: int
    confidence: float
    floor: float
    reason: MethodReason
    coverage_bound: float | None = None

    @property
    def replaced(self) -> bool:
        return self.method != self.requested


def _expected_rarest(n: int, *, a: float, b: float) -> float:
    return n * min(b, 1 - a)


@functools.lru_cache(maxsize=4096)
def _least_coverage(*, a: float, b: float, n: int, level: float, method: str) -> float:
    """Exact least coverage of one binomial interval mapped through (lambda - b) / (a - b)."""
    interval = binomial_interval(yes=np.arange(n + 1), n=n, confidence=level, method=method)
    low = np.clip((interval.low - b) / (a - b), 0.0, 1.0)
    high = np.clip((interval.high - b) / (a - b), 0.0, 1.0)
    return interval_minimum_coverage(low=low, high=high, n=n, a=a, b=b)


def clear_coverage_cache() -> None:
    """Forget every least coverage computed so far (benchmarks time the first decision)."""
    _least_coverage.cache_clear()


def _decide(*, a, b, n, confidence, method, k) -> IntervalMethod:
    # Rounded so that 0.95 - 0.02 reads 0.93, not 0.9299999999999999.
    floor = round(confidence - COVERAGE_TOLERANCE, 12)
    # Each interval's level, exactly as estimate / estimate_choice compute it (Bonferroni).
    level = confidence if k == 1 else 1 - (1 - confidence) / k
    chosen = functools.partial(
        IntervalMethod, requested=method, n=n, confidence=confidence, floor=floor
    )
    if method == GUARANTEED_METHOD or n == 0:
        return chosen(method=method, reason=MethodReason.GUARANTEED)
    swept = LARGE_SAMPLE_LEVELS[0] <= level <= LARGE_SAMPLE_LEVELS[1]
    skippable = swept and not (k > 1 and method == "wald")
    if skippable and _expected_rarest(n, a=a, b=b) >= LARGE_SAMPLE_REPORTS:
        return chosen(method=method, reason=MethodReason.LARGE_SAMPLE)
    if n > CHECK_LIMIT:
        return chosen(method=GUARANTEED_METHOD, reason=MethodReason.UNCHECKED)
    least = _least_coverage(a=a, b=b, n=n, level=level, method=method)
    # Bonferroni: k intervals each missing at most 1 - least miss together at most k times it.
    bound = 1 - k * (1 - least)
    if bound >= floor:
        return chosen(method=method, reason=MethodReason.CHECKED, coverage_bound=bound)
    return chosen(method=GUARANTEED_METHOD, reason=MethodReason.BELOW_FLOOR, coverage_bound=bound)


def interval_method(
    *, design: YesNoDesign, n: int, confidence: float = 0.95, method: str = DEFAULT_METHOD
) -> IntervalMethod:
    """The method :func:`dpengine.estimate` should use so its interval covers the true
    prevalence with probability at least ``confidence - COVERAGE_TOLERANCE`` at every
    prevalence: ``method`` if its exact least coverage (:func:`dpengine.minimum_coverage`) at
    this ``n`` is at least that, else ``"exact"`` (Clopper & Pearson 1934). See the module
    docstring for the large-sample rule. ``n >= 0``; ``confidence`` in (0, 1).
    """
    check_design(design)
    return _decide(
        a=design.p_yes_given_yes,
        b=design.p_yes_given_no,
        n=check_count("n", n),
        confidence=check_open_unit("confidence", confidence),
        method=check_method(method),
        k=1,
    )


def choice_interval_method(
    *,
    mechanism: KaryRandomizedResponse,
    n: int,
    confidence: float = 0.95,
    method: str = DEFAULT_METHOD,
) -> IntervalMethod:
    """The method :func:`dpengine.estimate_choice` should use so its ``k`` Bonferroni
    intervals hold together with probability at least ``confidence - COVERAGE_TOLERANCE``
    for every true share vector: ``method`` when Bonferroni's inequality over each option's
    exact least coverage proves it, else ``"exact"``. See the module docstring.
    """
    check_instance("mechanism", mechanism, KaryRandomizedResponse)
    return _decide(
        a=mechanism.keep_probability,
        b=mechanism.other_probability,
        n=check_count("n", n),
        confidence=check_open_unit("confidence", confidence),
        method=check_method(method),
        k=mechanism.k,
    )


def estimate_with_coverage(
    *, yes: int, n: int, design: YesNoDesign, confidence: float = 0.95, method: str = DEFAULT_METHOD
) -> Estimate:
    """:func:`dpengine.estimate` with the method :func:`interval_method` chooses: ``method``
    is the one used, ``requested_method`` the one asked for. Every other number is the same
    whatever the method (only the interval depends on it)."""
    n_checked = check_count("n", n)
    chosen = interval_method(design=design, n=n_checked, confidence=confidence, method=method)
    result = estimate(yes=yes, n=n, design=design, confidence=confidence, method=chosen.method)
    return replace(result, requested_method=chosen.requested)


def estimate_choice_with_coverage(
    *,
    counts,
    mechanism: KaryRandomizedResponse,
    confidence: float = 0.95,
    method: str = DEFAULT_METHOD,
) -> ChoiceEstimate:
    """:func:`dpengine.estimate_choice` with the method :func:`choice_interval_method`
    chooses for its number of reports; ``requested_method`` is the one asked for."""
    result = estimate_choice(
        counts=counts, mechanism=mechanism, confidence=confidence, method=method
    )
    chosen = choice_interval_method(
        mechanism=mechanism, n=result.n, confidence=confidence, method=method
    )
    if not chosen.replaced:
        return result
    used = estimate_choice(
        counts=counts, mechanism=mechanism, confidence=confidence, method=chosen.method
    )
    return replace(used, requested_method=chosen.requested)
