"""Warner's design: answer the statement or its opposite (Warner 1965)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from dpengine._rational import as_fraction, fmt
from dpengine.designs.base import RModel, YesNoDesign, refuse
from dpengine.errors import Reason


@dataclass(frozen=True)
class Warner(YesNoDesign):
    """Warner's (1965) design: answer the statement with probability ``p``, else its negation.

    ``a = p`` and ``b = 1 - p``, so ``epsilon = ln(p / (1 - p))`` and ``a - b = 2p - 1``.
    ``p`` must lie in (1/2, 1): ``p = 1/2`` carries no information (reason
    ``NO_INFORMATION``), ``p = 1`` is direct questioning (infinite epsilon, reason
    ``NOT_DIFFERENTIALLY_PRIVATE``), and ``p < 1/2`` is the same design with the statement
    negated, so it is refused (reason ``OUT_OF_RANGE``): use ``1 - p``. Default ``p = 3/4``:
    ``a = 3/4``, ``b = 1/4``, ``epsilon = ln 3``. Reference: Warner (1965).
    """

    p: float | Fraction = 0.75

    kind = "warner"

    def __post_init__(self) -> None:
        (p,) = self._store_unit_parameters("p")
        if p == Fraction(1, 2):
            raise refuse(
                "p must be in (1/2, 1): at p = 1/2 the report carries no information, got 0.5",
                reason=Reason.NO_INFORMATION,
                field="p",
            )
        if p < Fraction(1, 2):
            raise refuse(
                f"p must be in (1/2, 1); p < 1/2 is the same design with the statement "
                f"negated (use 1 - p), got {fmt(self.p)}",
                reason=Reason.OUT_OF_RANGE,
                field="p",
            )
        self._check_private_and_informative(field="p")

    @property
    def exact_p_yes_given_yes(self) -> Fraction:
        return as_fraction(self.p)

    @property
    def exact_p_yes_given_no(self) -> Fraction:
        return 1 - as_fraction(self.p)

    @property
    def description(self) -> str:
        return (
            f"With probability {fmt(self.p)} you answer the statement; otherwise you answer "
            "its opposite ('I have NOT ...'). Nobody can tell which one you answered."
        )

    @property
    def r_model(self) -> RModel:
        """RRreg's ``"Warner"``: ``p`` = probability of the sensitive statement."""
        return RModel("Warner", (float(self.p),))
