"""The unrelated question design, with a known share of "yes" to the unrelated question
(Greenberg et al. 1969)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from dpengine._rational import fmt
from dpengine.designs.base import RModel, YesNoDesign, refuse, truth_or_yes
from dpengine.errors import Reason


@dataclass(frozen=True)
class UnrelatedQuestion(YesNoDesign):
    """The unrelated-question design with known prevalence (Greenberg et al. 1969).

    With probability ``p`` the respondent answers the sensitive question; otherwise the
    device answers an innocuous question whose answer is "yes" with the known probability
    ``pi`` (the browser draws that answer, so no innocuous truth is needed). Hence
    ``a = p + (1 - p) pi``, ``b = (1 - p) pi`` and ``a - b = p``. Both parameters must lie
    in (0, 1): ``p = 0`` carries no information, ``p = 1`` is direct questioning, and
    ``pi`` at 0 or 1 lets one report reveal the truth (both refused with reason
    ``NOT_DIFFERENTIALLY_PRIVATE`` or ``NO_INFORMATION``). Default ``p = 1/2``,
    ``pi = 1/4``: ``a = 5/8``, ``b = 1/8``, ``epsilon = ln 5``.
    Reference: Greenberg, Abul-Ela, Simmons & Horvitz (1969).
    """

    p: float | Fraction = 0.5
    pi: float | Fraction = 0.25

    kind = "unrelated_question"

    def __post_init__(self) -> None:
        p, pi = self._store_unit_parameters("p", "pi")
        if p == 0:
            raise refuse(
                "p must be in (0, 1): at p = 0 nobody answers the sensitive question, got 0",
                reason=Reason.NO_INFORMATION,
                field="p",
            )
        self._check_private_and_informative(field="pi" if pi in (0, 1) else "p")

    @property
    def exact_p_yes_given_yes(self) -> Fraction:
        return truth_or_yes(self.p, self.pi)[0]

    @property
    def exact_p_yes_given_no(self) -> Fraction:
        return truth_or_yes(self.p, self.pi)[1]

    @property
    def description(self) -> str:
        return (
            f"With probability {fmt(self.p)} you answer the question; otherwise your device "
            f"answers an unrelated question for you, 'yes' with probability {fmt(self.pi)}. "
            "Nobody can tell which question a 'yes' answers."
        )

    @property
    def r_model(self) -> RModel:
        """RRreg's ``"UQTknown"``: ``p = c(p, pi)``."""
        return RModel("UQTknown", (float(self.p), float(self.pi)))
