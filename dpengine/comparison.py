"""Comparing the prevalence of two independent groups.

Each group's unbiased estimate has the randomized-response standard error of
:func:`dpengine.estimate`; the groups are independent, so the difference has standard
error ``sqrt(se_a^2 + se_b^2)`` and is tested with a two-sided normal (Wald) z-test.
The groups may use different designs. References: Warner (1965); Blair, Imai & Zhou
(2015), section 3; Agresti (2013), "Categorical Data Analysis", section 3.1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from dpengine._validation import check_open_unit
from dpengine.errors import DPEngineError, Reason
from dpengine.estimation import Estimate
from dpengine.intervals import ConfidenceInterval, z_value

__all__ = ["Comparison", "compare"]


@dataclass(frozen=True)
class Comparison:
    """Difference ``group - rest`` of two independent groups' true prevalences.

    ``difference`` is unbiased and may leave [-1, 1] (each group's estimate may leave
    [0, 1]); ``clamped`` is it clipped to [-1, 1], the value to show: it always lies in
    ``[ci_low, ci_high]``, which are clipped the same way.
    """

    difference: float
    clamped: float
    std_error: float
    ci_low: float
    ci_high: float
    z: float
    p_value: float
    confidence: float

    @property
    def ci(self) -> ConfidenceInterval:
        return ConfidenceInterval(self.ci_low, self.ci_high)


def _clip(value: float) -> float:
    return min(max(value, -1.0), 1.0)


def _check_group(name: str, value: object) -> Estimate:
    if not isinstance(value, Estimate):
        raise DPEngineError(
            f"{name} must be an Estimate, got {value!r}", reason=Reason.INVALID_TYPE, field=name
        )
    if not value.has_data:
        raise DPEngineError(
            f"{name} has no data (n = 0); there is nothing to compare",
            reason=Reason.NO_DATA,
            field=name,
        )
    return value


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
    )
