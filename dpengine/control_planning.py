"""Planning a direct-questioning control group (split ballot): respondents needed to detect
that asking directly under-reports by a given difference.

A share ``control_share`` of the respondents is asked directly, the rest under the
randomized design; :func:`dpengine.compare_direct` tests "randomized > direct" one-sided
(the "more is better" criterion, Lensvelt-Mulders et al. 2005). With ``n`` respondents the
arms hold ``n_r = n (1 - c)`` and ``n_d = n c`` on average, and the difference's standard
error is ``se = sqrt(v_r / n_r + v_d / n_d)`` with ``v_r = lambda (1 - lambda) / (a - b)^2``
(``lambda = b + (a - b) (p + difference)``, the randomized arm's yes-rate) and
``v_d = p (1 - p)`` (the direct arm's share ``p``). Without an anticipated ``p`` both
variances take their worst case (``lambda (1 - lambda) = p (1 - p) = 1/4``). Normal theory,
as the test itself; its power on simulated data is checked in
``tests/dpengine/test_control_planning.py``.
References: Lensvelt-Mulders, Hox, van der Heijden & Maas (2005); Chow, Shao & Wang (2008),
section 4.2 (two proportions, one-sided).
"""

from __future__ import annotations

import math
from statistics import NormalDist

from dpengine._rational import fmt, is_real_number
from dpengine._validation import check_closed_unit, check_count, check_design, check_open_unit
from dpengine.designs import YesNoDesign
from dpengine.errors import DPEngineError, Reason

__all__ = ["power_control_group", "required_sample_size_control_group"]

_STANDARD_NORMAL = NormalDist()


def _one_sided_z(confidence: float) -> float:
    """``Phi^-1(confidence)``: the one-sided test's critical value at level ``1 - confidence``."""
    confidence = check_open_unit("confidence", confidence)
    if confidence <= 0.5:
        raise DPEngineError(
            f"confidence must be above 0.5 for a one-sided test, got {fmt(confidence)}",
            reason=Reason.OUT_OF_RANGE,
            field="confidence",
        )
    return _STANDARD_NORMAL.inv_cdf(confidence)


def _arm_variances(
    design: YesNoDesign, *, difference: object, p: float | None
) -> tuple[float, float, float]:
    """``(difference, v_r, v_d)``: the per-respondent variances of the two arms' estimates."""
    if not is_real_number(difference) or not 0 < float(difference) < 1:
        raise DPEngineError(
            f"difference must be in (0, 1): how much more the randomized arm reveals, got "
            f"{fmt(difference)}",
            reason=Reason.OUT_OF_RANGE,
            field="difference",
        )
    difference = float(difference)
    information = design.information
    if p is None:
        return difference, 0.25 / information**2, 0.25
    p = check_closed_unit("p", p)
    if p + difference > 1:
        raise DPEngineError(
            f"p + difference must be at most 1, got p = {fmt(p)} and difference = "
            f"{fmt(difference)}",
            reason=Reason.OUT_OF_RANGE,
            field="difference",
        )
    rate = design.p_yes_given_no + information * (p + difference)
    return difference, rate * (1 - rate) / information**2, p * (1 - p)


def _check_share(control_share: object) -> float:
    if not is_real_number(control_share) or not 0 < float(control_share) < 1:
        raise DPEngineError(
            f"control_share must be in (0, 1), got {fmt(control_share)}",
            reason=Reason.OUT_OF_RANGE,
            field="control_share",
        )
    return float(control_share)


def power_control_group(
    *,
    design: YesNoDesign,
    n: int,
    difference: float,
    control_share: float,
    confidence: float = 0.95,
    p: float | None = None,
) -> float:
    """Power of the one-sided test "randomized > direct" with ``n`` respondents in all.

    ``Phi(difference / se - z_1)``, ``se`` as in the module docstring with the arms' expected
    sizes, ``z_1 = Phi^-1(confidence)`` (level ``alpha = 1 - confidence``). ``p`` is the share
    anticipated when asking directly (the randomized arm's truth is ``p + difference``), None
    for the worst case; ``difference`` in (0, 1); ``control_share`` in (0, 1); ``n >= 2``.
    """
    check_design(design)
    n = check_count("n", n)
    if n < 2:
        raise DPEngineError(
            f"n must be at least 2 (one respondent per arm), got {n}",
            reason=Reason.OUT_OF_RANGE,
            field="n",
        )
    share = _check_share(control_share)
    difference, v_r, v_d = _arm_variances(design, difference=difference, p=p)
    z = _one_sided_z(confidence)
    se = math.sqrt(v_r / (n * (1 - share)) + v_d / (n * share))
    return _STANDARD_NORMAL.cdf(difference / se - z)


def required_sample_size_control_group(
    *,
    design: YesNoDesign,
    difference: float,
    control_share: float,
    power: float = 0.8,
    confidence: float = 0.95,
    p: float | None = None,
) -> int:
    """Respondents in all (both arms) for the one-sided test to detect ``difference``.

    ``n = ceil((z_1 + z_power)^2 (v_r / (1 - c) + v_d / c) / difference^2)`` with ``c`` the
    control share and the variances of the module docstring: the inverse of
    :func:`power_control_group`. ``power`` and ``confidence`` in (0, 1), ``confidence`` above
    1/2. Reference: Chow, Shao & Wang (2008), section 4.2.
    """
    check_design(design)
    share = _check_share(control_share)
    difference, v_r, v_d = _arm_variances(design, difference=difference, p=p)
    power = check_open_unit("power", power)
    z_total = _one_sided_z(confidence) + _STANDARD_NORMAL.inv_cdf(power)
    n = z_total**2 * (v_r / (1 - share) + v_d / share) / difference**2
    return max(2, math.ceil(n))
