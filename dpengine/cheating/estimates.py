"""Estimates of the cheating-detection designs' parameters: the closed form, Wald
intervals and Fieller's interval for the SLD's t; the result types."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpengine.cheating.designs import T_UNDEFINED, CheatingDesign
from dpengine.intervals import ConfidenceInterval, z_value

# --- estimation -------------------------------------------------------------------------


@dataclass(frozen=True)
class ParameterEstimate:
    """One model parameter: estimate, maximum-likelihood value, standard error, interval.

    ``estimate`` is RRreg's closed form and may leave [0, 1] (it is unbiased for the CDM's
    three shares and the SLD's ``pi``, which are linear in the yes-rates); ``clamped`` is the
    maximum-likelihood estimate on the parameter space, equal to ``estimate`` whenever that
    lies inside. ``std_error`` is RRreg's closed-form standard error of ``estimate``; the
    interval (``method``) is ``estimate +/- z std_error`` clipped to [0, 1], Fieller's for
    the SLD's ``t`` (:func:`fieller_t_interval`), or, for small groups, the conservative one
    of :mod:`dpengine.cheating.conservative`. ``None`` where undefined (no data, a group with
    fewer than two respondents, or ``t`` when ``pi`` is 0).
    """

    name: str
    estimate: float | None
    clamped: float | None
    std_error: float | None
    ci_low: float
    ci_high: float
    # "wald", "fieller" (the SLD's t) or "exact_conservative" (dpengine.cheating.conservative)
    method: str = "wald"

    @property
    def ci(self) -> ConfidenceInterval:
        return ConfidenceInterval(self.ci_low, self.ci_high)

    @property
    def was_clamped(self) -> bool:
        return self.estimate is not None and self.estimate != self.clamped

    def as_dict(self) -> dict[str, float | None]:
        return {
            "estimate": self.estimate,
            "clamped": self.clamped,
            "std_error": self.std_error,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "method": self.method,
        }


@dataclass(frozen=True)
class CheatingEstimate:
    """The estimates of a cheating-detection design from its two groups' counts.

    ``parameters`` holds one :class:`ParameterEstimate` per name in
    ``design.parameter_names`` (CDM: ``pi``, ``beta``, ``gamma``; SLD: ``pi``, ``t``), also
    reachable as ``result["gamma"]``. ``boundary`` is True when the closed form left the
    parameter space and ``clamped`` values come from the constrained maximum likelihood.
    ``estimate``, ``clamped``, ``std_error``, ``ci_low``, ``ci_high``, ``n`` and ``yes``
    describe ``pi`` and the pooled counts, so code written for
    :class:`dpengine.Estimate` can show the honest-"yes" share the same way.
    """

    design: CheatingDesign
    n1: int
    yes1: int
    n2: int
    yes2: int
    confidence: float
    boundary: bool
    parameters: tuple[ParameterEstimate, ...]
    # The intervals' family: "wald" (Wald, Fieller for t) or "exact_conservative", which
    # dpengine.cheating.conservative's rule chose and why (method_reason); requested: "wald".
    method: str = "wald"
    method_reason: str = "large_groups"
    requested_method: str = "wald"

    @property
    def method_replaced(self) -> bool:
        return self.method != self.requested_method

    def __getitem__(self, name: str) -> ParameterEstimate:
        for parameter in self.parameters:
            if parameter.name == name:
                return parameter
        raise KeyError(name)

    @property
    def n(self) -> int:
        return self.n1 + self.n2

    @property
    def yes(self) -> int:
        return self.yes1 + self.yes2

    @property
    def has_data(self) -> bool:
        return self.n1 > 0 and self.n2 > 0

    @property
    def yes_rates(self) -> tuple[float | None, float | None]:
        return (
            self.yes1 / self.n1 if self.n1 else None,
            self.yes2 / self.n2 if self.n2 else None,
        )

    @property
    def estimate(self) -> float | None:
        return self["pi"].estimate

    @property
    def clamped(self) -> float | None:
        return self["pi"].clamped

    @property
    def std_error(self) -> float | None:
        return self["pi"].std_error

    @property
    def ci_low(self) -> float:
        return self["pi"].ci_low

    @property
    def ci_high(self) -> float:
        return self["pi"].ci_high

    @property
    def ci(self) -> ConfidenceInterval:
        return self["pi"].ci

    def as_dict(self) -> dict[str, object]:
        """Plain JSON-ready values: counts, each parameter, the design and its privacy.

        ``epsilon`` is ``None`` (JSON ``null``: no finite bound, see
        :attr:`CheatingDesign.epsilon`) and ``epsilon_yes`` the finite bound on a "yes".
        """
        return {
            "n1": self.n1,
            "yes1": self.yes1,
            "n2": self.n2,
            "yes2": self.yes2,
            "has_data": self.has_data,
            "boundary": self.boundary,
            "method": self.method,
            "requested_method": self.requested_method,
            "method_reason": self.method_reason,
            "confidence": self.confidence,
            **{parameter.name: parameter.as_dict() for parameter in self.parameters},
            "design": self.design.kind,
            **self.design.parameters,
            "epsilon": None if math.isinf(self.design.epsilon) else self.design.epsilon,
            "epsilon_yes": self.design.epsilon_yes,
        }


def closed_form(
    *, design: CheatingDesign, n1, yes1, n2, yes2
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """RRreg's closed-form estimates and standard errors, vectorised over count arrays.

    Returns ``{name: (estimate, std_error)}`` for ``design.parameter_names``; entries are NaN
    where undefined (a group with ``n_g < 2`` for the standard error; ``t`` when its
    denominator is 0). With ``lambda_g = yes_g / n_g`` and ``v_g = lambda_g (1 - lambda_g) /
    (n_g - 1)`` (RRreg 0.7.5, ``RRuni_models.R``):

    CDM: ``pi = (p2 l1 - p1 l2) / (p2 - p1)``, ``se^2 = (p2^2 v1 + p1^2 v2) / (p1 - p2)^2``;
    ``beta = (l2 - l1) / (p2 - p1)``, ``se^2 = (v1 + v2) / (p1 - p2)^2``;
    ``gamma = 1 + ((p2 - 1) l1 + (1 - p1) l2) / (p1 - p2)``,
    ``se^2 = ((1 - p2)^2 v1 + (1 - p1)^2 v2) / (p1 - p2)^2``.

    SLD: ``pi = ((l2 - l1) + (p2 - p1)) / (p2 - p1)``, ``se^2 = (v1 + v2) / (p1 - p2)^2``;
    ``t = (l2 (1 - p1) - l1 (1 - p2)) / ((l2 - l1) + (p2 - p1))`` with the delta-method
    ``se^2 = v1 (d (p2 + l2 - 1))^2 / D^4 + v2 (d (p1 + l1 - 1))^2 / D^4``, ``d = p1 - p2``,
    ``D = p1 - p2 + l1 - l2``.
    """
    p1, p2 = (float(q) for q in design.p)
    n1 = np.asarray(n1, dtype=np.float64)
    n2 = np.asarray(n2, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        l1 = np.asarray(yes1, dtype=np.float64) / n1
        l2 = np.asarray(yes2, dtype=np.float64) / n2
        v1 = np.where(n1 >= 2, l1 * (1 - l1) / (n1 - 1), np.nan)
        v2 = np.where(n2 >= 2, l2 * (1 - l2) / (n2 - 1), np.nan)
        d2 = (p1 - p2) ** 2
        if design.kind == "cdm":
            return {
                "pi": ((p2 * l1 - p1 * l2) / (p2 - p1), np.sqrt((p1**2 * v2 + p2**2 * v1) / d2)),
                "beta": ((l2 - l1) / (p2 - p1), np.sqrt((v2 + v1) / d2)),
                "gamma": (
                    1 + ((p2 - 1) * l1 + (1 - p1) * l2) / (p1 - p2),
                    np.sqrt(((p2 - 1) ** 2 * v1 + (1 - p1) ** 2 * v2) / d2),
                ),
            }
        denominator = (l2 - l1) + (p2 - p1)
        # The denominator is pi times (p2 - p1); at pi = 0 rounding leaves ~1e-17 of it,
        # and 0 / 1e-17 is no estimate of t.
        defined = np.abs(denominator) > T_UNDEFINED
        t = np.where(defined, (l2 * (1 - p1) - l1 * (1 - p2)) / denominator, np.nan)
        big_d = (p1 - p2 + l1 - l2) ** 2
        t_se = np.sqrt(
            v1 * ((p1 - p2) * (p2 + l2 - 1) / big_d) ** 2
            + v2 * ((p1 - p2) * (p1 + l1 - 1) / big_d) ** 2
        )
        return {
            "pi": ((l2 - l1 + (p2 - p1)) / (p2 - p1), np.sqrt((v1 + v2) / d2)),
            "t": (t, np.where(defined, t_se, np.nan)),
        }


def wald_intervals(
    *, estimate: np.ndarray, std_error: np.ndarray, confidence: float
) -> ConfidenceInterval:
    """``estimate +/- z std_error`` clipped to [0, 1]; ``[0, 1]`` where either is NaN.

    Vectorised (the exact coverage tests enumerate both groups' counts through it).
    """
    z = z_value(confidence)
    estimate, std_error = np.asarray(estimate, float), np.asarray(std_error, float)
    known = np.isfinite(estimate) & np.isfinite(std_error)
    safe_est = np.where(known, estimate, 0.0)
    safe_se = np.where(known, std_error, 0.0)
    low = np.where(known, np.clip(safe_est - z * safe_se, 0.0, 1.0), 0.0)
    high = np.where(known, np.clip(safe_est + z * safe_se, 0.0, 1.0), 1.0)
    if low.ndim == 0:
        return ConfidenceInterval(float(low), float(high))
    return ConfidenceInterval(low, high)


def fieller_t_interval(
    *, design: CheatingDesign, n1, yes1, n2, yes2, confidence: float
) -> ConfidenceInterval:
    """The SLD's interval for ``t`` by inverting Fieller's test, vectorised over counts.

    ``t`` is a ratio (honest "yes" over carriers), and the delta-method Wald interval
    around RRreg's ``t`` under-covers badly when few respondents are carriers (0.71 at
    ``pi = 0.05``, ``t = 1``, n = 300 for ``p = (0.3, 0.7)``). At the true ``t`` the
    statistic ``D(t) = (l1 - t)(r2 - t) - (l2 - t)(r1 - t)`` (``r_g = 1 - p_g``) has mean 0
    and variance ``(r2 - t)^2 v1 + (r1 - t)^2 v2`` whatever ``pi`` is, so the interval is
    ``{t in [0, 1]: D(t)^2 <= z^2 ((r2 - t)^2 v1 + (r1 - t)^2 v2)}``, a quadratic inequality
    (Fieller 1954). Its hull is returned; when it misses [0, 1] altogether the interval
    collapses to the end nearest the estimate, and it is [0, 1] without a standard error.
    Reference: Fieller (1954), "Some problems in interval estimation", JRSS B 16(2).
    """
    r1, r2 = design._randomized_yes_floats()
    z2 = z_value(confidence) ** 2
    n1 = np.asarray(n1, dtype=np.float64)
    n2 = np.asarray(n2, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        l1 = np.asarray(yes1, dtype=np.float64) / n1
        l2 = np.asarray(yes2, dtype=np.float64) / n2
        v1 = np.where(n1 >= 2, l1 * (1 - l1) / (n1 - 1), np.nan)
        v2 = np.where(n2 >= 2, l2 * (1 - l2) / (n2 - 1), np.nan)
        alpha = l1 * r2 - l2 * r1
        slope = (l1 - l2) + (r2 - r1)
        qa = slope**2 - z2 * (v1 + v2)
        qb = -2 * alpha * slope + 2 * z2 * (r2 * v1 + r1 * v2)
        qc = alpha**2 - z2 * (r2**2 * v1 + r1**2 * v2)

        def q(t: float) -> np.ndarray:
            return (qa * t + qb) * t + qc

        disc = qb**2 - 4 * qa * qc
        root = np.sqrt(np.where(disc >= 0, disc, np.nan))
        quadratic = qa != 0
        first = np.where(quadratic, (-qb - root) / (2 * qa), -qc / qb)
        second = np.where(quadratic, (-qb + root) / (2 * qa), -qc / qb)
        smaller, larger = np.fmin(first, second), np.fmax(first, second)
        inside_small = (smaller > 0) & (smaller < 1)
        inside_large = (larger > 0) & (larger < 1)
        low = np.where(
            q(0.0) <= 0,
            0.0,
            np.where(inside_small, smaller, np.where(inside_large, larger, np.nan)),
        )
        high = np.where(
            q(1.0) <= 0,
            1.0,
            np.where(inside_large, larger, np.where(inside_small, smaller, np.nan)),
        )
        estimate = np.where(slope != 0, alpha / slope, np.nan)
    empty = np.isnan(low) | np.isnan(high)
    # The set misses [0, 1]: the estimate lies beyond one end, and the interval is that end.
    nearest = np.where(np.nan_to_num(estimate, nan=0.5) > 1, 1.0, 0.0)
    low = np.where(empty, nearest, low)
    high = np.where(empty, nearest, high)
    unknown = ~(np.isfinite(v1) & np.isfinite(v2)) | (empty & np.isnan(estimate))
    low = np.where(unknown, 0.0, low)
    high = np.where(unknown, 1.0, high)
    if low.ndim == 0:
        return ConfidenceInterval(float(low), float(high))
    return ConfidenceInterval(low, high)
