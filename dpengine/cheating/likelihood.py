"""Maximum likelihood on the parameter space of the cheating-detection designs (the
triangle of shares that sum to at most one), and ``estimate_cheating``, the entry point."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from dpengine._validation import check_count, check_open_unit
from dpengine.cheating.conservative import (
    CONSERVATIVE_METHOD,
    FIELLER_METHOD,
    WALD_METHOD,
    cheating_interval_method,
    conservative_intervals,
)
from dpengine.cheating.designs import T_UNDEFINED, CheatingDesign, check_cheating_design
from dpengine.cheating.estimates import (
    CheatingEstimate,
    ParameterEstimate,
    closed_form,
    fieller_t_interval,
    wald_intervals,
)
from dpengine.errors import DPEngineError, Reason


def _log_likelihood(rates: Sequence[float], counts: Sequence[tuple[int, int]]) -> float:
    """``sum_g y_g log l_g + (n_g - y_g) log(1 - l_g)`` with ``0 log 0 = 0``."""
    total = 0.0
    for rate, (yes, n) in zip(rates, counts, strict=True):
        for k, q in ((yes, rate), (n - yes, 1 - rate)):
            if k:
                if q <= 0:
                    return -math.inf
                total += k * math.log(q)
    return total


def _edge_maximum(
    start: tuple[float, float], end: tuple[float, float], counts: Sequence[tuple[int, int]]
) -> float:
    """The ``s`` in [0, 1] maximising the log-likelihood at ``start + s (end - start)``.

    The log-likelihood of two binomials is concave in the yes-rates and the rates are linear
    in ``s``, so its derivative is decreasing and bisection on its sign finds the maximum to
    the last bit; inside the edge every rate lies strictly in (0, 1).
    """
    slope = (end[0] - start[0], end[1] - start[1])

    def derivative(s: float) -> float:
        total = 0.0
        for g, (yes, n) in enumerate(counts):
            rate = start[g] + s * slope[g]
            total += slope[g] * (yes / rate - (n - yes) / (1 - rate))
        return total

    low, high = 0.0, 1.0
    for _ in range(200):
        middle = (low + high) / 2
        if middle in (low, high):
            break
        if derivative(middle) > 0:
            low = middle
        else:
            high = middle
    return (low + high) / 2


def triangle_ml(
    *, design: CheatingDesign, n1: int, yes1: int, n2: int, yes2: int
) -> tuple[float, float, float]:
    """Maximum-likelihood shares ``(w_yes, w_rand, w_no)`` on the parameter space.

    The yes-rates ``(l1, l2)`` range over the triangle with vertices ``(1, 1)`` (all honest
    "yes"), ``(r1, r2)`` (all honest non-carriers) and ``(0, 0)`` (all "no"). Inside it the
    closed form is the maximum; outside, the concave log-likelihood is maximised on the
    boundary, so on one of the three edges (:func:`_edge_maximum`), and the best edge wins.
    """
    r1, r2 = design._randomized_yes_floats()
    counts = ((yes1, n1), (yes2, n2))
    l1, l2 = yes1 / n1, yes2 / n2
    w_rand = (l2 - l1) / (r2 - r1)
    w_yes = (r2 * l1 - r1 * l2) / (r2 - r1)
    w_no = 1 - w_yes - w_rand
    if min(w_yes, w_rand, w_no) >= 0:
        return w_yes, w_rand, w_no
    vertices = {"yes": (1.0, 1.0), "rand": (r1, r2), "no": (0.0, 0.0)}
    best: tuple[float, dict[str, float]] | None = None
    for a, b in (("yes", "rand"), ("rand", "no"), ("yes", "no")):
        s = _edge_maximum(vertices[a], vertices[b], counts)
        rates = tuple(vertices[a][g] + s * (vertices[b][g] - vertices[a][g]) for g in (0, 1))
        value = _log_likelihood(rates, counts)
        weights = {"yes": 0.0, "rand": 0.0, "no": 0.0}
        weights[a], weights[b] = 1 - s, s
        if best is None or value > best[0]:
            best = (value, weights)
    assert best is not None
    weights = best[1]
    return weights["yes"], weights["rand"], weights["no"]


def _optional(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def estimate_cheating(
    *,
    design: CheatingDesign,
    n1: int,
    yes1: int,
    n2: int,
    yes2: int,
    confidence: float = 0.95,
) -> CheatingEstimate:
    """Estimate a CDM's ``pi``, ``beta``, ``gamma`` or an SLD's ``pi``, ``t`` from group counts.

    ``yes_g`` of ``n_g`` respondents in group ``g`` reported "yes" (``0 <= yes_g <= n_g``).

    - ``estimate``: RRreg's closed form (:func:`closed_form`), the maximum-likelihood estimate
      when it lies in the parameter space; RRreg 0.7.5 ``RRuni`` returns the same values.
    - ``clamped``: the maximum-likelihood estimate on the parameter space
      (:func:`triangle_ml`). Where the closed form leaves it (CDM: ``pi``, ``beta`` or
      ``gamma`` below 0; SLD: ``pi`` or ``t`` outside [0, 1]), RRreg's ``RRuni`` calls
      ``optim`` (L-BFGS-B, bounds [1e-8, 1 - 1e-8], a random start); here the maximum is
      computed exactly. RRreg's CDM branch can return points outside the parameter space
      (its penalty of +1e6 for invalid points is maximised, not minimised), and its
      CDM check omits ``beta < 0``; both are documented in docs/statistics.md.
    - ``std_error``: RRreg's closed-form standard errors (``n_g - 1`` in the variance of each
      yes-rate, which makes the variance estimate of the linear estimators exactly unbiased).
    - Interval: ``estimate +/- z std_error`` (Wald), clipped to [0, 1]; for the SLD's ``t``, a
      ratio, Fieller's interval (:func:`fieller_t_interval`). ``confidence`` in (0, 1).
      Where Wald's is not known to cover at least ``confidence - 0.02`` (a group below
      ``WALD_MIN_GROUP`` respondents; :func:`cheating_interval_method`), every parameter's
      interval is the conservative one instead (:func:`conservative_intervals`, coverage at
      least ``confidence``); ``method``, ``method_reason`` and each parameter's ``method``
      say which. Estimates and standard errors do not depend on it.

    Both groups need at least one respondent for an estimate (else every value is ``None``
    and each interval [0, 1]) and two for a standard error. ``gamma`` (CDM) and ``1 - t``
    (SLD) are lower bounds on non-compliance, since only "no"-cheating is identified.
    References: Clark & Desharnais (1998); Moshagen, Musch & Erdfelder (2012); Heck &
    Moshagen (2018).
    """
    design = check_cheating_design(design)
    n1 = check_count("n1", n1)
    n2 = check_count("n2", n2)
    yes1 = check_count("yes1", yes1)
    yes2 = check_count("yes2", yes2)
    for name, yes, n in (("yes1", yes1, n1), ("yes2", yes2, n2)):
        if yes > n:
            raise DPEngineError(
                f"{name} must be between 0 and n{name[-1]} = {n}, got {yes}",
                reason=Reason.OUT_OF_RANGE,
                field=name,
            )
    confidence = check_open_unit("confidence", confidence)
    names = design.parameter_names
    chosen = cheating_interval_method(n1=n1, n2=n2, confidence=confidence)
    if n1 == 0 or n2 == 0:
        empty = tuple(ParameterEstimate(name, None, None, None, 0.0, 1.0) for name in names)
        return CheatingEstimate(
            design, n1, yes1, n2, yes2, confidence, False, empty, method_reason=chosen.reason.value
        )
    conservative = (
        conservative_intervals(
            design=design, n1=n1, yes1=yes1, n2=n2, yes2=yes2, confidence=confidence
        )
        if chosen.method == CONSERVATIVE_METHOD
        else {}
    )
    forms = closed_form(design=design, n1=n1, yes1=yes1, n2=n2, yes2=yes2)
    w_yes, w_rand, w_no = triangle_ml(design=design, n1=n1, yes1=yes1, n2=n2, yes2=yes2)
    if design.kind == "cdm":
        ml = {"pi": w_yes, "beta": w_rand, "gamma": w_no}
    else:
        carriers = w_yes + w_no
        ml = {"pi": carriers, "t": w_yes / carriers if carriers > T_UNDEFINED else math.nan}
    off_space = _off_space(forms, design)
    parameters = []
    for name in names:
        value, std_error = (float(x) for x in forms[name])
        if name in conservative:
            interval, method = conservative[name], CONSERVATIVE_METHOD
        elif name == "t":
            interval = fieller_t_interval(
                design=design, n1=n1, yes1=yes1, n2=n2, yes2=yes2, confidence=confidence
            )
            method = FIELLER_METHOD
        else:
            interval = wald_intervals(estimate=value, std_error=std_error, confidence=confidence)
            method = WALD_METHOD
        estimate = _optional(value)
        parameters.append(
            ParameterEstimate(
                name=name,
                estimate=estimate,
                # Inside the parameter space the closed form is the maximum itself (kept
                # as is, so it equals RRreg's to the last bit); outside, the exact maximum.
                clamped=_optional(ml[name]) if off_space else estimate,
                std_error=_optional(std_error),
                ci_low=interval.low,
                ci_high=interval.high,
                method=method,
            )
        )
    return CheatingEstimate(
        design,
        n1,
        yes1,
        n2,
        yes2,
        confidence,
        off_space,
        tuple(parameters),
        method=chosen.method,
        method_reason=chosen.reason.value,
    )


def _off_space(forms: dict[str, tuple[np.ndarray, np.ndarray]], design: CheatingDesign) -> bool:
    """True when the closed form lies outside the parameter space (some share below 0)."""
    values = [float(forms[name][0]) for name in design.parameter_names]
    if any(not math.isfinite(v) for v in values):
        return True
    return any(v < 0 or v > 1 for v in values)
