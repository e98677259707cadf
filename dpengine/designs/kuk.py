"""Kuk's design: two decks of cards (Kuk 1990)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from dpengine._rational import as_fraction, fmt
from dpengine.designs.base import RModel, YesNoDesign


@dataclass(frozen=True)
class Kuk(YesNoDesign):
    """Kuk's (1990) card design: report the colour of a card from your answer's deck.

    A respondent whose true answer is yes draws from a deck whose share of red cards is
    ``theta1``; one whose answer is no from a deck with red share ``theta2``; both report
    the colour ("red" is recorded as yes). Hence ``a = theta1`` and ``b = theta2``. Both
    in (0, 1) (a deck of one colour reveals the truth: ``NOT_DIFFERENTIALLY_PRIVATE``),
    and ``theta1 > theta2`` (equal decks carry no information and ``theta1 < theta2`` is
    the same design with the colours swapped: ``NO_INFORMATION``). Default ``theta1 = 5/8``,
    ``theta2 = 1/4``: ``epsilon = ln(5/2)``. Reference: Kuk (1990), one card per respondent.
    """

    theta1: float | Fraction = 0.625
    theta2: float | Fraction = 0.25

    kind = "kuk"

    def __post_init__(self) -> None:
        theta1, _theta2 = self._store_unit_parameters("theta1", "theta2")
        self._check_private_and_informative(field="theta1" if theta1 in (0, 1) else "theta2")

    @property
    def exact_p_yes_given_yes(self) -> Fraction:
        return as_fraction(self.theta1)

    @property
    def exact_p_yes_given_no(self) -> Fraction:
        return as_fraction(self.theta2)

    @property
    def description(self) -> str:
        return (
            "Your device shuffles two decks of cards and deals you one from the deck that "
            f"matches your answer: red with probability {fmt(self.theta1)} for 'yes', "
            f"{fmt(self.theta2)} for 'no'. Only the card's colour is sent."
        )

    @property
    def r_model(self) -> RModel:
        """RRreg's ``"Kuk"``: ``p = c(theta1, theta2)``, red shares of the two decks."""
        return RModel("Kuk", (float(self.theta1), float(self.theta2)))
