"""Forced-response randomized-response designs and their privacy loss.

A respondent flips coin 1: with probability ``p_truth`` they answer truthfully;
otherwise coin 2 forces "yes" with probability ``p_forced_yes`` (else "no").

References: Warner (1965), "Randomized response: a survey technique for eliminating
evasive answer bias", JASA 60(309); Greenberg, Abul-Ela, Simmons & Horvitz (1969),
"The unrelated question randomized response model", JASA 64(326) (forced-response
variant: Boruch 1971); Blair, Imai & Zhou (2015), "Design and analysis of the
randomized response technique", JASA 110(511); Dwork & Roth (2014), "The Algorithmic
Foundations of Differential Privacy", section 3.2.
"""

from __future__ import annotations

import math
import types
from dataclasses import dataclass
from fractions import Fraction
from typing import NamedTuple

from dpengine._rational import as_fraction, fmt, is_real_number

__all__ = ["CLASSIC", "DEFAULT_PRESET", "PRESETS", "ForcedResponse", "Preset"]


def _open_unit_interval(name: str, value: object) -> float | Fraction:
    if not is_real_number(value):
        raise ValueError(f"{name} must be a number in (0, 1), got {fmt(value)}")
    if isinstance(value, Fraction):
        checked: float | Fraction = value
    else:
        checked = float(value)
    # NaN fails both comparisons, so it is rejected here too.
    if not 0 < checked < 1:
        raise ValueError(f"{name} must be in (0, 1), got {fmt(value)}")
    return checked


@dataclass(frozen=True)
class ForcedResponse:
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

    def __post_init__(self) -> None:
        object.__setattr__(self, "p_truth", _open_unit_interval("p_truth", self.p_truth))
        object.__setattr__(
            self, "p_forced_yes", _open_unit_interval("p_forced_yes", self.p_forced_yes)
        )

    @classmethod
    def for_epsilon(cls, epsilon: float, p_forced_yes: float | Fraction = 0.5) -> ForcedResponse:
        """The design with the given forced-yes probability whose epsilon is ``epsilon``.

        With ``q = p_forced_yes`` and ``m = min(q, 1 - q)`` the larger likelihood ratio is
        ``1 + p_truth / ((1 - p_truth) m)``, so ``p_truth = r / (1 + r)`` with
        ``r = (e^epsilon - 1) m``; for ``q = 1/2`` this is ``(e^eps - 1) / (e^eps + 1)``.
        ``epsilon`` must be positive and finite. The result never spends more than
        ``epsilon``: a last-bit rounding excess is removed.
        """
        if not is_real_number(epsilon) or not math.isfinite(float(epsilon)) or epsilon <= 0:
            raise ValueError(f"epsilon must be a positive finite number, got {fmt(epsilon)}")
        q = _open_unit_interval("p_forced_yes", p_forced_yes)
        try:
            r = math.expm1(float(epsilon)) * float(min(q, 1 - q))
            p_truth = r / (1 + r)
        except OverflowError:
            p_truth = 1.0
        if not 0 < p_truth < 1:
            raise ValueError(
                f"epsilon must be small enough for p_truth to stay below 1, got {fmt(epsilon)}"
            )
        design = cls(p_truth=p_truth, p_forced_yes=p_forced_yes)
        # Rounding p_truth to a float can overshoot the budget by an ulp; a privacy
        # parameter should err on the private side.
        while design.epsilon > epsilon:
            design = cls(p_truth=math.nextafter(float(design.p_truth), 0), p_forced_yes=q)
        return design

    @property
    def exact_p_yes_given_yes(self) -> Fraction:
        """``a`` as an exact rational (used by the exact samplers)."""
        t, q = as_fraction(self.p_truth), as_fraction(self.p_forced_yes)
        return t + (1 - t) * q

    @property
    def exact_p_yes_given_no(self) -> Fraction:
        """``b`` as an exact rational (used by the exact samplers)."""
        t, q = as_fraction(self.p_truth), as_fraction(self.p_forced_yes)
        return (1 - t) * q

    @property
    def p_yes_given_yes(self) -> float:
        """``a = p_truth + (1 - p_truth) * p_forced_yes``."""
        return float(self.exact_p_yes_given_yes)

    @property
    def p_yes_given_no(self) -> float:
        """``b = (1 - p_truth) * p_forced_yes``."""
        return float(self.exact_p_yes_given_no)

    @property
    def information(self) -> float:
        """``a - b`` (equal to ``p_truth``): the factor by which debiasing inflates the SE."""
        return float(self.exact_p_yes_given_yes - self.exact_p_yes_given_no)

    @property
    def likelihood_ratio(self) -> Fraction:
        """``max(a / b, (1 - b) / (1 - a))``, exactly: ``e^epsilon``."""
        a, b = self.exact_p_yes_given_yes, self.exact_p_yes_given_no
        return max(a / b, (1 - b) / (1 - a))

    @property
    def epsilon(self) -> float:
        """Privacy loss of one answer: ``ln(max(a / b, (1 - b) / (1 - a)))``."""
        ratio = self.likelihood_ratio
        try:
            return math.log(float(ratio))
        except OverflowError:
            # Designs with extreme probabilities can exceed the float range; math.log
            # takes arbitrarily large integers.
            return math.log(ratio.numerator) - math.log(ratio.denominator)


class Preset(NamedTuple):
    """A named design offered in the survey builder."""

    label: str
    design: ForcedResponse


CLASSIC = ForcedResponse(p_truth=0.5, p_forced_yes=0.5)

PRESETS: types.MappingProxyType[str, Preset] = types.MappingProxyType(
    {
        "strong_privacy": Preset(
            "Stronger privacy: 1/4 truthful, ε = ln(5/3) ≈ 0.51",
            ForcedResponse(p_truth=0.25, p_forced_yes=0.5),
        ),
        "classic": Preset("Classic: 1/2 truthful, ε = ln 3 ≈ 1.10", CLASSIC),
        "high_precision": Preset(
            "More precise: 3/4 truthful, ε = ln 7 ≈ 1.95",
            ForcedResponse(p_truth=0.75, p_forced_yes=0.5),
        ),
    }
)

DEFAULT_PRESET = "classic"
