"""Planning a survey: sample size, precision and power under a randomized-response design.

All formulas are the normal approximation on the reported-yes rate
``lambda = b + (a - b) p``, whose variance ``lambda (1 - lambda) / n`` is inflated by
``1 / (a - b)^2`` on the prevalence scale. Without an anticipated prevalence the worst
case ``lambda = 1/2`` is used. References: Warner (1965); Blair, Imai & Zhou (2015),
section 2; Chow, Shao & Wang (2008), "Sample Size Calculations in Clinical Research",
section 4.2 (two proportions, unpooled variance).
"""

from __future__ import annotations

import math

from dpengine._rational import fmt, is_real_number
from dpengine._validation import (
    check_closed_unit,
    check_count,
    check_design,
    check_open_unit,
)
from dpengine.designs import ForcedResponse, YesNoDesign
from dpengine.errors import DPEngineError, Reason
from dpengine.estimation import required_sample_size
from dpengine.intervals import z_value

__all__ = [
    "margin_for_epsilon",
    "margin_for_sample_size",
    "power_difference",
    "required_sample_size",
    "required_sample_size_difference",
]


def _rate_variance(design: YesNoDesign, p: float | None) -> float:
    if p is None:
        return 0.25
    rate = design.p_yes_given_no + design.information * p
    return rate * (1 - rate)


def margin_for_sample_size(
    *, design: YesNoDesign, n: int, confidence: float = 0.95, p: float | None = None
) -> float:
    """Half-width ``z sqrt(lambda (1 - lambda) / n) / (a - b)`` expected with ``n`` reports.

    The inverse of :func:`required_sample_size`; ``n >= 1``, ``p`` in [0, 1] or None
    for the worst case. Reference: Warner (1965).
    """
    check_design(design)
    n = check_count("n", n)
    if n == 0:
        raise DPEngineError(
            "n must be at least 1, got 0",
            reason=Reason.OUT_OF_RANGE,
            field="n",
        )
    z = z_value(confidence)
    variance = _rate_variance(design, None if p is None else check_closed_unit("p", p))
    return z * math.sqrt(variance / n) / design.information


def margin_for_epsilon(
    *,
    epsilon: float,
    n: int,
    confidence: float = 0.95,
    p: float | None = None,
    p_forced_yes: float = 0.5,
) -> float:
    """Half-width with ``n`` reports under the design of privacy loss ``epsilon``.

    Uses :meth:`ForcedResponse.for_epsilon` (forced-yes probability ``p_forced_yes``),
    so the builder can show how precision trades against privacy; decreasing in
    ``epsilon``. Reference: Dwork & Roth (2014), section 3.2; Warner (1965).
    """
    design = ForcedResponse.for_epsilon(epsilon, p_forced_yes=p_forced_yes)
    return margin_for_sample_size(design=design, n=n, confidence=confidence, p=p)


def _check_difference(
    difference: object, p: float | None
) -> tuple[float, float | None, float | None]:
    if not is_real_number(difference) or not 0 < abs(float(difference)) < 1:
        raise DPEngineError(
            f"difference must be non-zero and in (-1, 1), got {fmt(difference)}",
            reason=Reason.OUT_OF_RANGE,
            field="difference",
        )
    difference = float(difference)
    if p is None:
        return difference, None, None
    p = check_closed_unit("p", p)
    if not 0 <= p + difference <= 1:
        raise DPEngineError(
            f"p + difference must be in [0, 1], got p = {fmt(p)} and "
            f"difference = {fmt(difference)}",
            reason=Reason.OUT_OF_RANGE,
            field="difference",
        )
    return difference, p, p + difference


def required_sample_size_difference(
    *,
    design: YesNoDesign,
    difference: float,
    power: float = 0.8,
    confidence: float = 0.95,
    p: float | None = None,
) -> int:
    """Reports needed in EACH of two groups to detect a prevalence ``difference``.

    ``n = ceil((z_{1 - alpha/2} + z_power)^2 (lambda_1 (1 - lambda_1) + lambda_2
    (1 - lambda_2)) / ((a - b)^2 difference^2))`` for the two-sided z-test of
    :func:`dpengine.compare` at level ``alpha = 1 - confidence``. ``p`` is the
    anticipated prevalence of the first group (the second has ``p + difference``);
    without it both variances take the worst case 1/4. ``difference`` non-zero in
    (-1, 1); ``power`` and ``confidence`` in (0, 1).
    Reference: Chow, Shao & Wang (2008), section 4.2; Blair, Imai & Zhou (2015).
    """
    check_design(design)
    difference, p_first, p_second = _check_difference(difference, p)
    power = check_open_unit("power", power)
    from scipy import stats  # imported here: see dpengine/__init__.py on lazy SciPy

    z_total = z_value(confidence) + float(stats.norm.ppf(power))
    variance = _rate_variance(design, p_first) + _rate_variance(design, p_second)
    n = z_total**2 * variance / (design.information * difference) ** 2
    return max(1, math.ceil(n))


def power_difference(
    *,
    design: YesNoDesign,
    n: int,
    difference: float,
    confidence: float = 0.95,
    p: float | None = None,
) -> float:
    """Power of the two-sided z-test of :func:`dpengine.compare` with ``n`` per group.

    ``Phi(d / se - z) + Phi(-d / se - z)`` with ``se = sqrt((v_1 + v_2) / n) / (a - b)``,
    the rate variances as in :func:`required_sample_size_difference`. ``n >= 1``.
    """
    check_design(design)
    n = check_count("n", n)
    if n == 0:
        raise DPEngineError(
            "n must be at least 1, got 0",
            reason=Reason.OUT_OF_RANGE,
            field="n",
        )
    difference, p_first, p_second = _check_difference(difference, p)
    z = z_value(confidence)
    variance = _rate_variance(design, p_first) + _rate_variance(design, p_second)
    shift = abs(difference) * design.information / math.sqrt(variance / n)
    from scipy import stats  # imported here: see dpengine/__init__.py on lazy SciPy

    return float(stats.norm.cdf(shift - z) + stats.norm.cdf(-shift - z))
