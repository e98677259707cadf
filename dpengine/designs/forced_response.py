"""The forced response design: two coins (Greenberg et al. 1969; Blair, Imai & Zhou 2015)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from dpengine._rational import as_fraction, fmt, is_real_number
from dpengine.designs.base import RModel, YesNoDesign, open_unit_interval, truth_or_yes
from dpengine.errors import DPEngineError, Reason
from dpengine.rounding import log_at_most


@dataclass(frozen=True)
class ForcedResponse(YesNoDesign):
    """A forced-response design (Greenberg et al. 1969; Blair, Imai & Zhou 2015).

    ``a = P(report yes | truth yes) = p_truth + (1 - p_truth) * p_forced_yes`` and
    ``b = P(report yes | truth no) = (1 - p_truth) * p_forced_yes``. Each answer is
    ``epsilon``-locally differentially private with
    ``epsilon = ln(max(a / b, (1 - b) / (1 - a)))`` (Dwork & Roth 2014, section 3.2).

    Both parameters must lie strictly inside (0, 1): at 0 or 1 either some report reveals
    the truth (infinite epsilon) or the report carries no information. Floats are read
    as the decimal they print as (``0.1`` means exactly 1/10); pass a
    :class:`fractions.Fraction` for other rationals such as 1/3.

    The classic design ``ForcedResponse(0.5, 0.5)`` has ``a = 3/4``, ``b = 1/4`` and
    ``epsilon = ln 3``.
    """

    p_truth: float | Fraction = 0.5
    p_forced_yes: float | Fraction = 0.5

    kind = "forced_response"

    def __post_init__(self) -> None:
        object.__setattr__(self, "p_truth", open_unit_interval("p_truth", self.p_truth))
        object.__setattr__(
            self, "p_forced_yes", open_unit_interval("p_forced_yes", self.p_forced_yes)
        )

    @classmethod
    def for_epsilon(cls, epsilon: float, p_forced_yes: float | Fraction = 0.5) -> ForcedResponse:
        """The design with the given forced-yes probability whose epsilon is ``epsilon``.

        With ``q = p_forced_yes`` and ``m = min(q, 1 - q)`` the larger likelihood ratio is
        ``1 + p_truth / ((1 - p_truth) m)``, so ``p_truth = r / (1 + r)`` with
        ``r = (e^epsilon - 1) m``; for ``q = 1/2`` this is ``(e^eps - 1) / (e^eps + 1)``.
        ``epsilon`` must be positive and finite. The result never spends more than
        ``epsilon``: its exact loss ``ln(max(a / b, (1 - b) / (1 - a)))`` (``a``, ``b`` exact
        rationals of the stored parameters) is compared exactly
        (:func:`dpengine.rounding.log_at_most`) with ``epsilon`` read both as the binary
        number it is and as the decimal it prints as, and ``p_truth`` is lowered a float
        at a time until it is at most the smaller of the two; so ``design.epsilon`` (rounded
        up) is at most ``epsilon`` too.
        """
        if not is_real_number(epsilon) or not math.isfinite(float(epsilon)) or epsilon <= 0:
            raise DPEngineError(
                f"epsilon must be a positive finite number, got {fmt(epsilon)}",
                reason=Reason.OUT_OF_RANGE,
                field="epsilon",
            )
        q = open_unit_interval("p_forced_yes", p_forced_yes)
        try:
            r = math.expm1(float(epsilon)) * float(min(q, 1 - q))
            p_truth = r / (1 + r)
        except OverflowError:
            p_truth = 1.0
        if not 0 < p_truth < 1:
            raise DPEngineError(
                f"epsilon must be small enough for p_truth to stay below 1, got {fmt(epsilon)}",
                reason=Reason.OUT_OF_RANGE,
                field="epsilon",
            )
        design = cls(p_truth=p_truth, p_forced_yes=p_forced_yes)
        # Rounding p_truth to a float can overshoot the budget by an ulp; a privacy
        # parameter should err on the private side. Whichever way the caller's float is
        # read, the design must not spend more.
        budget = as_fraction(epsilon)
        if isinstance(epsilon, float):
            budget = min(budget, Fraction(epsilon))
        while not log_at_most(design.likelihood_ratio, budget):
            design = cls(p_truth=math.nextafter(float(design.p_truth), 0), p_forced_yes=q)
        # ...and no more private than needed: the largest float p_truth within the budget.
        while (up := math.nextafter(float(design.p_truth), 1)) < 1:
            above = cls(p_truth=up, p_forced_yes=q)
            if not log_at_most(above.likelihood_ratio, budget):
                break
            design = above
        return design

    @property
    def exact_p_yes_given_yes(self) -> Fraction:
        """``a`` as an exact rational (used by the exact samplers)."""
        return truth_or_yes(self.p_truth, self.p_forced_yes)[0]

    @property
    def exact_p_yes_given_no(self) -> Fraction:
        """``b`` as an exact rational (used by the exact samplers)."""
        return truth_or_yes(self.p_truth, self.p_forced_yes)[1]

    @property
    def description(self) -> str:
        return (
            f"Coin 1 says 'answer truthfully' with probability {fmt(self.p_truth)}; "
            f"otherwise coin 2 forces 'yes' with probability {fmt(self.p_forced_yes)}, "
            "else 'no'."
        )

    @property
    def r_model(self) -> RModel:
        """RRreg's ``"FR"``: ``p = c(P(forced no), P(forced yes)) = c(1 - a, b)``."""
        return self._forced_response_r_model()
