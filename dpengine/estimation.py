"""Debiased prevalence estimates from randomized reports, and the sample size they need.

References: Warner (1965), JASA 60(309); Greenberg et al. (1969), JASA 64(326);
Blair, Imai & Zhou (2015), JASA 110(511), section 2.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from dpengine._validation import (
    check_closed_unit,
    check_counts,
    check_design,
    check_method,
    check_open_unit,
)
from dpengine.designs import YesNoDesign
from dpengine.intervals import DEFAULT_METHOD, ConfidenceInterval, prevalence_interval, z_value

__all__ = ["Estimate", "estimate", "required_sample_size"]


@dataclass(frozen=True)
class Estimate:
    """The prevalence estimate for one question.

    ``estimate`` is the unbiased ``(yes_rate - b) / (a - b)`` and may fall outside
    [0, 1]; ``clamped`` is the same value clipped to [0, 1]. Without data (``n = 0``)
    ``yes_rate``, ``estimate``, ``clamped`` and ``std_error`` are ``None`` (not NaN, so
    the result serialises to JSON ``null``) and the interval is the uninformative
    ``[0, 1]``.
    """

    n: int
    yes: int
    yes_rate: float | None
    estimate: float | None
    clamped: float | None
    std_error: float | None
    ci_low: float
    ci_high: float
    method: str
    confidence: float
    design: YesNoDesign
    # The method asked for when another was used (dpengine.estimate_with_coverage); else None.
    requested_method: str | None = None

    def __post_init__(self) -> None:
        if self.requested_method is None:
            object.__setattr__(self, "requested_method", self.method)

    @property
    def method_replaced(self) -> bool:
        """True when the interval is not the requested method's (see dpengine.guarantee)."""
        return self.requested_method != self.method

    @property
    def has_data(self) -> bool:
        return self.n > 0

    @property
    def ci(self) -> ConfidenceInterval:
        return ConfidenceInterval(self.ci_low, self.ci_high)

    @property
    def was_clamped(self) -> bool:
        """True when the unbiased estimate fell outside [0, 1] and ``clamped`` differs."""
        return self.estimate is not None and self.estimate != self.clamped

    def as_dict(self) -> dict[str, object]:
        """Plain JSON-ready values with the design (``kind``, parameters) and epsilon."""
        return {
            "n": self.n,
            "yes": self.yes,
            "yes_rate": self.yes_rate,
            "estimate": self.estimate,
            "clamped": self.clamped,
            "std_error": self.std_error,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "method": self.method,
            "requested_method": self.requested_method,
            "confidence": self.confidence,
            "has_data": self.has_data,
            "design": self.design.kind,
            **self.design.parameters,
            "epsilon": self.design.epsilon,
        }


def estimate(
    *,
    yes: int,
    n: int,
    design: YesNoDesign,
    confidence: float = 0.95,
    method: str = DEFAULT_METHOD,
) -> Estimate:
    """Estimate the true share of "yes" from ``yes`` randomized yes-reports out of ``n``.

    With ``lambda_hat = yes / n``, ``a = P(report yes | yes)`` and
    ``b = P(report yes | no)``:

    - unbiased estimate ``p_hat = (lambda_hat - b) / (a - b)`` (classic design:
      ``2 lambda_hat - 1/2``), and ``clamped = min(max(p_hat, 0), 1)``;
    - ``std_error = sqrt(lambda_hat (1 - lambda_hat) / n) / (a - b)`` (zero when all
      reports agree, like the Wald interval);
    - the interval of :func:`dpengine.intervals.prevalence_interval`: a binomial interval
      for ``lambda`` (``method`` one of ``wald``, ``wilson``, ``exact``, ``jeffreys``)
      mapped through the same linear map and clipped to [0, 1].

    ``yes`` and ``n`` are integers with ``0 <= yes <= n``; ``n = 0`` is the valid
    "no responses yet" state. ``confidence`` is in (0, 1). References: Warner (1965);
    Greenberg et al. (1969); Blair, Imai & Zhou (2015); Brown, Cai & DasGupta (2001).
    """
    yes, n = check_counts(yes=yes, n=n)
    check_design(design)
    confidence = check_open_unit("confidence", confidence)
    method = check_method(method)
    interval = prevalence_interval(
        yes=yes, n=n, design=design, confidence=confidence, method=method
    )
    if n == 0:
        return Estimate(
            n=0,
            yes=0,
            yes_rate=None,
            estimate=None,
            clamped=None,
            std_error=None,
            ci_low=interval.low,
            ci_high=interval.high,
            method=method,
            confidence=confidence,
            design=design,
        )
    a, b = design.exact_p_yes_given_yes, design.exact_p_yes_given_no
    yes_rate = yes / n
    # Rational arithmetic, rounded once: 130 of 400 under the classic design is 0.15,
    # not the 0.15000000000000002 that float subtraction leaves.
    unbiased = float((Fraction(yes, n) - b) / (a - b))
    return Estimate(
        n=n,
        yes=yes,
        yes_rate=yes_rate,
        estimate=unbiased,
        clamped=min(max(unbiased, 0.0), 1.0),
        std_error=math.sqrt(yes_rate * (1 - yes_rate) / n) / design.information,
        ci_low=interval.low,
        ci_high=interval.high,
        method=method,
        confidence=confidence,
        design=design,
    )


def required_sample_size(
    *,
    design: YesNoDesign,
    margin: float,
    confidence: float = 0.95,
    p: float | None = None,
) -> int:
    """Reports needed so the normal-approximation half-width is at most ``margin``.

    ``n = ceil(z^2 lambda (1 - lambda) / (margin^2 (a - b)^2))`` with
    ``lambda = b + (a - b) p`` for an anticipated prevalence ``p`` in [0, 1], or the
    worst case ``lambda = 1/2`` when ``p`` is None. ``margin`` and ``confidence`` are in
    (0, 1). Classic design, margin 0.05, 95 %: 1537 (a direct survey needs 385).
    Reference: Warner (1965); Blair, Imai & Zhou (2015), section 2.
    """
    check_design(design)
    margin = check_open_unit("margin", margin)
    z = z_value(confidence)
    a, b = design.p_yes_given_yes, design.p_yes_given_no
    rate = 0.5 if p is None else b + (a - b) * check_closed_unit("p", p)
    n = z * z * rate * (1 - rate) / (margin * margin * (a - b) ** 2)
    return max(1, math.ceil(n))
