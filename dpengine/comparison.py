"""Comparing the prevalence of two independent groups, and randomized against direct asking.

Each group's unbiased estimate has the randomized-response standard error of
:func:`dpengine.estimate`; the groups are independent, so the difference has standard
error ``sqrt(se_a^2 + se_b^2)`` and is tested with a two-sided normal (Wald) z-test.
The groups may use different designs. References: Warner (1965); Blair, Imai & Zhou
(2015), section 3; Agresti (2013), "Categorical Data Analysis", section 3.1.

That Wald interval is kept for comparison with other software, but it is not what the
product shows: at small ``n`` it collapses and covers far less than its level. What is
shown (each result's ``shown``) is the exact product interval of
:mod:`dpengine.exact_differences`, whose coverage is at least its level at every sample size.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from dpengine._rational import fmt, is_real_number
from dpengine._validation import check_count, check_open_unit
from dpengine.errors import DPEngineError, Reason
from dpengine.estimation import Estimate
from dpengine.exact_differences import (
    DifferenceInterval,
    _check_group,
    _difference,
    _Group,
    _group_of,
)
from dpengine.intervals import ConfidenceInterval, z_value

__all__ = [
    "Comparison",
    "DirectComparison",
    "compare",
    "compare_direct",
]


@dataclass(frozen=True)
class Comparison:
    """Difference ``group - rest`` of two independent groups' true prevalences.

    ``difference`` is unbiased and may leave [-1, 1] (each group's estimate may leave
    [0, 1]); ``clamped`` is it clipped to [-1, 1]: it always lies in the Wald interval
    ``[ci_low, ci_high]``, which is clipped the same way. ``z``, ``p_value`` and the Wald
    interval are kept for comparison with other software; what a page shows is ``shown``
    (:func:`difference_interval`: its estimate, interval and p-value), whose coverage is
    guaranteed at every sample size. ``method`` names it.
    """

    difference: float
    clamped: float
    std_error: float
    ci_low: float
    ci_high: float
    z: float
    p_value: float
    confidence: float
    shown: DifferenceInterval

    @property
    def method(self) -> str:
        return self.shown.method

    @property
    def ci(self) -> ConfidenceInterval:
        return ConfidenceInterval(self.ci_low, self.ci_high)


def _clip(value: float) -> float:
    return min(max(value, -1.0), 1.0)


def compare(*, group: Estimate, rest: Estimate, confidence: float = 0.95) -> Comparison:
    """Two-sided z-test and confidence interval for the difference of two prevalences.

    ``difference = p_hat_group - p_hat_rest`` (the unbiased, unclamped estimates of two
    independent groups, e.g. one group and everybody else),
    ``std_error = sqrt(se_group^2 + se_rest^2)``, ``z = difference / std_error``,
    ``p_value = 2 (1 - Phi(|z|))``, and the interval ``difference +/- z_c std_error``
    with both ends clipped to [-1, 1], with ``z_c`` the two-sided critical value for
    ``confidence`` in (0, 1). ``clamped`` is ``difference`` clipped to [-1, 1]: clipping is
    monotone, so it lies in the clipped interval, even when the unbiased difference (e.g.
    +1.25 from two small groups) lies beyond it. The test is approximate (normal theory);
    plan sample sizes with :func:`dpengine.planning.required_sample_size_difference`.
    ``shown`` is :func:`difference_interval` of the same groups: the interval to show.

    Raises :class:`~dpengine.errors.DPEngineError` (a ``ValueError``) with reason
    ``NO_DATA`` and the field (``"group"`` or ``"rest"``) when either has no data, and with
    reason ``ZERO_VARIANCE`` when both standard errors are zero (every report within each
    group identical), because the normal test is then undefined rather than infinitely
    confident.
    References: Blair, Imai & Zhou (2015); Agresti (2013), section 3.1.
    """
    group = _check_group("group", group)
    rest = _check_group("rest", rest)
    confidence = check_open_unit("confidence", confidence)
    difference = group.estimate - rest.estimate
    std_error = math.hypot(group.std_error, rest.std_error)
    if std_error == 0:
        raise DPEngineError(
            "both groups have zero estimated variance (all reports in each group are the "
            f"same: {group.yes} of {group.n} and {rest.yes} of {rest.n}); the z-test "
            "is undefined",
            reason=Reason.ZERO_VARIANCE,
            field=None,
        )
    from scipy import stats  # imported here: see dpengine/__init__.py on lazy SciPy

    z = difference / std_error
    half = z_value(confidence) * std_error
    return Comparison(
        difference=difference,
        clamped=_clip(difference),
        std_error=std_error,
        ci_low=_clip(difference - half),
        ci_high=_clip(difference + half),
        z=z,
        p_value=float(2 * stats.norm.sf(abs(z))),
        confidence=confidence,
        shown=_difference(_group_of(group), _group_of(rest), confidence),
    )


@dataclass(frozen=True)
class DirectComparison:
    """Randomized-response estimate minus the direct-questioning estimate ("more is better").

    ``p_value`` is one-sided, for the alternative that the randomized estimate is larger
    (respondents under-report when asked directly); ``ci_low``/``ci_high`` is the two-sided
    interval of the difference and ``lower_bound`` the one-sided bound at ``confidence``
    (normal theory, Wald). ``shown`` is the interval to show, with coverage guaranteed at
    every sample size (:func:`difference_interval`, the direct group's share a plain
    binomial), when the randomized half's reports were given; None otherwise (an estimate
    and a standard error alone cannot back one).
    """

    randomized: float
    randomized_std_error: float
    direct: float
    direct_std_error: float
    direct_yes: int
    direct_n: int
    difference: float
    std_error: float
    ci_low: float
    ci_high: float
    lower_bound: float
    z: float
    p_value: float
    confidence: float
    shown: DifferenceInterval | None = None

    @property
    def ci(self) -> ConfidenceInterval:
        return ConfidenceInterval(self.ci_low, self.ci_high)

    def as_dict(self) -> dict[str, object]:
        values = {field: getattr(self, field) for field in self.__dataclass_fields__}
        values["shown"] = None if self.shown is None else asdict(self.shown)
        return values


def _finite(name: str, value: object, *, minimum: float | None = None) -> float:
    if not is_real_number(value) or not math.isfinite(float(value)):
        raise DPEngineError(
            f"{name} must be a finite number, got {fmt(value)}",
            reason=Reason.INVALID_TYPE if not is_real_number(value) else Reason.OUT_OF_RANGE,
            field=name,
        )
    if minimum is not None and float(value) < minimum:
        raise DPEngineError(
            f"{name} must be at least {minimum}, got {fmt(value)}",
            reason=Reason.OUT_OF_RANGE,
            field=name,
        )
    return float(value)


def compare_direct(
    *,
    estimate: float,
    std_error: float,
    direct_yes: int,
    direct_n: int,
    confidence: float = 0.95,
    randomized: Estimate | None = None,
) -> DirectComparison:
    """Split-ballot test: did randomized response reveal more than asking directly?

    ``estimate`` and ``std_error`` are the randomized half's prevalence estimate and its
    standard error from any design (e.g. ``dpengine.estimate(...).estimate`` and
    ``.std_error``, the unclamped value, or a cheating design's ``pi``); ``direct_yes`` of
    ``direct_n`` respondents of the control group said "yes" when asked directly. The two
    halves are independent (each respondent is assigned to one), so with
    ``p_d = direct_yes / direct_n`` and ``se_d = sqrt(p_d (1 - p_d) / direct_n)``:

    ``difference = estimate - p_d``, ``std_error = sqrt(se^2 + se_d^2)``,
    ``z = difference / std_error``, one-sided ``p_value = 1 - Phi(z)`` for the alternative
    "randomized > direct" (the "more is better" criterion: a sensitive behaviour is
    under-reported when asked directly), the two-sided interval ``difference +/- z_c
    std_error`` clipped to [-1, 1] and the one-sided lower bound ``difference - z_1
    std_error`` (``z_1 = Phi^-1(confidence)``). Normal theory (Wald); its level on
    simulated data is checked in ``tests/dpengine/test_cheating.py``.

    ``randomized``, the randomized half's :class:`~dpengine.Estimate` (its reports and
    design), is optional; given, ``shown`` is :func:`difference_interval` of it against the
    direct group (``a = 1``, ``b = 0``): the interval to show, coverage guaranteed, with the
    p-value that inverts it. ``estimate`` and ``std_error`` must then be its own.

    Raises :class:`~dpengine.errors.DPEngineError` naming the field: ``NO_DATA`` when
    ``direct_n`` is 0 or ``randomized`` has no data, ``ZERO_VARIANCE`` when both standard
    errors are 0, ``OUT_OF_RANGE`` (field ``randomized``) when ``randomized`` disagrees with
    ``estimate`` or ``std_error``.
    References: Lensvelt-Mulders, Hox, van der Heijden & Maas (2005), "Meta-analysis of
    randomized response research", Sociological Methods & Research 33(3) (the "more is
    better" criterion); Agresti (2013), section 3.1.
    """
    estimate = _finite("estimate", estimate)
    std_error = _finite("std_error", std_error, minimum=0.0)
    direct_n = check_count("direct_n", direct_n)
    direct_yes = check_count("direct_yes", direct_yes)
    if direct_yes > direct_n:
        raise DPEngineError(
            f"direct_yes must be between 0 and direct_n = {direct_n}, got {direct_yes}",
            reason=Reason.OUT_OF_RANGE,
            field="direct_yes",
        )
    if direct_n == 0:
        raise DPEngineError(
            "direct_n is 0: the direct-questioning group has no answers to compare",
            reason=Reason.NO_DATA,
            field="direct_n",
        )
    confidence = check_open_unit("confidence", confidence)
    shown = None
    if randomized is not None:
        randomized = _check_group("randomized", randomized)
        if not (
            math.isclose(randomized.estimate, estimate, rel_tol=1e-12, abs_tol=1e-12)
            and math.isclose(randomized.std_error, std_error, rel_tol=1e-12, abs_tol=1e-12)
        ):
            raise DPEngineError(
                f"randomized (estimate {randomized.estimate}, standard error "
                f"{randomized.std_error}) disagrees with estimate = {estimate} and "
                f"std_error = {std_error}",
                reason=Reason.OUT_OF_RANGE,
                field="randomized",
            )
        direct_group = _Group(yes=direct_yes, n=direct_n, a=1.0, b=0.0)
        shown = _difference(_group_of(randomized), direct_group, confidence)
    direct = direct_yes / direct_n
    direct_std_error = math.sqrt(direct * (1 - direct) / direct_n)
    total = math.hypot(std_error, direct_std_error)
    if total == 0:
        raise DPEngineError(
            "both standard errors are zero (the randomized estimate's and the direct "
            f"group's, {direct_yes} of {direct_n}); the z-test is undefined",
            reason=Reason.ZERO_VARIANCE,
            field=None,
        )
    difference = estimate - direct
    z = difference / total
    half = z_value(confidence) * total
    one_sided = z_value(2 * confidence - 1) * total if confidence > 0.5 else 0.0
    return DirectComparison(
        randomized=estimate,
        randomized_std_error=std_error,
        direct=direct,
        direct_std_error=direct_std_error,
        direct_yes=direct_yes,
        direct_n=direct_n,
        difference=difference,
        std_error=total,
        ci_low=max(difference - half, -1.0),
        ci_high=min(difference + half, 1.0),
        lower_bound=max(difference - one_sided, -1.0),
        z=z,
        # erfc keeps the upper tail accurate far out (1 - Phi(z) would round to 0).
        p_value=0.5 * math.erfc(z / math.sqrt(2)),
        confidence=confidence,
        shown=shown,
    )
