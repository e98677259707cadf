"""Planning a cheating-detection question (CDM, SLD): respondents needed for ``pi`` at a given
precision.

Both designs estimate ``pi`` as a linear combination of the two groups' yes-rates
(:func:`dpengine.cheating.closed_form`): ``pi = w_1 l_1 + w_2 l_2 + const`` with
CDM ``w = (p2, -p1) / (p2 - p1)`` and SLD ``w = (-1, 1) / (p2 - p1)``. With ``n``
respondents, ``n_1 = n s`` in group 1 and ``n_2 = n (1 - s)`` in group 2 on average, so

    se(pi)^2 = w_1^2 lambda_1 (1 - lambda_1) / (n s) + w_2^2 lambda_2 (1 - lambda_2) / (n (1 - s)),

with ``lambda_g`` the groups' yes-rates under the anticipated shares (CDM ``pi`` and
``gamma``; SLD ``pi`` and ``t``); without them each ``lambda_g (1 - lambda_g)`` takes its
worst case 1/4. The half-width of the Wald interval is ``z se``. RRreg's standard errors
divide by ``n_g - 1``, a difference of order ``1 / n`` that the check on simulated data
(``tests/dpengine/test_cheating_planning.py``) bounds. References: Clark & Desharnais
(1998); Moshagen, Musch & Erdfelder (2012); Heck & Moshagen (2018).
"""

from __future__ import annotations

import math

from dpengine._rational import fmt, is_real_number
from dpengine._validation import check_count
from dpengine.cheating.designs import (
    CheatingDesign,
    check_cheating_design,
    check_population_shares,
)
from dpengine.errors import DPEngineError, Reason
from dpengine.intervals import z_value

__all__ = ["cheating_pi_margin", "required_sample_size_cheating"]


def _pi_weights(design: CheatingDesign) -> tuple[float, float]:
    p1, p2 = (float(q) for q in design.p)
    if design.kind == "cdm":
        return p2 / (p2 - p1), -p1 / (p2 - p1)
    return -1 / (p2 - p1), 1 / (p2 - p1)


def _rate_variances(design: CheatingDesign, shares: dict) -> tuple[float, float]:
    """``lambda_g (1 - lambda_g)`` of both groups, worst case 1/4 each without shares."""
    if not shares:
        return 0.25, 0.25
    check_population_shares(design, shares, needs="planning needs nothing (the worst case) or")
    rates = design.expected_yes_rates(**shares)
    return tuple(rate * (1 - rate) for rate in rates)  # type: ignore[return-value]


def _unit_variance(design: CheatingDesign, shares: dict) -> float:
    """``n se(pi)^2``: the variance of ``pi``'s estimate times the respondents."""
    w1, w2 = _pi_weights(design)
    v1, v2 = _rate_variances(design, shares)
    s = float(design.share)
    return w1**2 * v1 / s + w2**2 * v2 / (1 - s)


def cheating_pi_margin(
    *, design: CheatingDesign, n: int, confidence: float = 0.95, **shares: float
) -> float:
    """The half-width ``z se(pi)`` of ``pi``'s Wald interval expected with ``n`` respondents.

    ``shares``: CDM ``pi`` and ``gamma``, SLD ``pi`` and ``t`` (the anticipated values), or
    none for the worst case. ``n >= 1``. The inverse of :func:`required_sample_size_cheating`.
    """
    design = check_cheating_design(design)
    n = check_count("n", n)
    if n == 0:
        raise DPEngineError("n must be at least 1, got 0", reason=Reason.OUT_OF_RANGE, field="n")
    return z_value(confidence) * math.sqrt(_unit_variance(design, shares) / n)


def required_sample_size_cheating(
    *, design: CheatingDesign, margin: float, confidence: float = 0.95, **shares: float
) -> int:
    """Respondents (both groups) for ``pi``'s interval to have half-width ``margin``.

    ``n = ceil(z^2 (w_1^2 v_1 / s + w_2^2 v_2 / (1 - s)) / margin^2)`` (module docstring);
    ``margin`` in (0, 1), ``shares`` as :func:`cheating_pi_margin`. At least 2 (one per
    group).
    """
    design = check_cheating_design(design)
    if not is_real_number(margin) or not 0 < float(margin) < 1:
        raise DPEngineError(
            f"margin must be in (0, 1), got {fmt(margin)}",
            reason=Reason.OUT_OF_RANGE,
            field="margin",
        )
    z = z_value(confidence)
    n = z**2 * _unit_variance(design, shares) / float(margin) ** 2
    return max(2, math.ceil(n))
