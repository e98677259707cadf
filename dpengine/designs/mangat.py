"""Mangat's design, in its private variant (Mangat 1994)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from dpengine._rational import as_fraction, fmt
from dpengine.designs.base import RModel, YesNoDesign, refuse
from dpengine.errors import Reason


@dataclass(frozen=True)
class Mangat(YesNoDesign):
    """Mangat's (1994) strategy in a differentially private variant.

    Mangat's original: a member of the sensitive group says "yes"; everybody else uses
    Warner's device with probability ``p`` (answer "I belong" with ``p``, "I don't" with
    ``1 - p``), so ``a = 1`` and ``b = 1 - p``. Since a member never says "no", a "no"
    proves non-membership: its epsilon is infinite and it is **not** differentially
    private. dpengine therefore refuses it (``t = 0``, reason
    ``NOT_DIFFERENTIALLY_PRIVATE``) and offers the variant in which a member, too, uses the
    Warner device with probability ``t`` (else says "yes"):

    ``a = (1 - t) + t p``, ``b = 1 - p``, ``epsilon = ln(max(a / b, p / (t (1 - p))))``.

    ``p`` in (0, 1), ``t`` in (0, 1]; ``t = 1`` is Warner's design. Default ``p = 3/4``,
    ``t = 3/4``: ``a = 13/16``, ``b = 1/4``, ``epsilon = ln 4``.

    R export: RRreg's ``"Mangat"`` model is the original ``t = 0``; the variant has the
    same likelihood as RRreg's forced-response model ``"FR"`` with
    ``p = c(1 - a, b)``, which :attr:`r_model` returns. Reference: Mangat (1994).
    """

    p: float | Fraction = 0.75
    t: float | Fraction = 0.75

    kind = "mangat"

    def __post_init__(self) -> None:
        _p, t = self._store_unit_parameters("p", "t")
        if t == 0:
            raise refuse(
                "t must be in (0, 1]: Mangat's original design (t = 0) has P(yes | yes) = 1, "
                "so a 'no' proves the respondent is not in the sensitive group; epsilon is "
                "infinite and the design is not differentially private, got 0",
                reason=Reason.NOT_DIFFERENTIALLY_PRIVATE,
                field="t",
            )
        self._check_private_and_informative(field="p")

    @property
    def exact_p_yes_given_yes(self) -> Fraction:
        p, t = as_fraction(self.p), as_fraction(self.t)
        return (1 - t) + t * p

    @property
    def exact_p_yes_given_no(self) -> Fraction:
        return 1 - as_fraction(self.p)

    @property
    def description(self) -> str:
        return (
            "If your answer is yes, you say 'yes' with probability "
            f"{fmt(float(1 - as_fraction(self.t)))} and otherwise use the device; if it is "
            "no, you always use it. The device gives you the statement with probability "
            f"{fmt(self.p)}, else its opposite, and you answer what it gives you."
        )

    @property
    def r_model(self) -> RModel:
        """RRreg's ``"FR"`` with ``p = c(1 - a, b)`` (same likelihood; see the class doc)."""
        return self._forced_response_r_model()
