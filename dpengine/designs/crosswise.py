"""The crosswise model: whether two statements are both true or both false (Yu, Tian & Tang
2008)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from dpengine._rational import as_fraction, fmt
from dpengine.designs.base import RModel, YesNoDesign, refuse
from dpengine.errors import Reason


@dataclass(frozen=True)
class Crosswise(YesNoDesign):
    """The crosswise model (Yu, Tian & Tang 2008): the respondent is shown the sensitive
    statement and an innocuous one that holds with a known probability ``p`` (here the
    respondent's device draws it), and reports only whether the two agree ("yes": both true
    or both false), never either answer.

    ``a = p`` and ``b = 1 - p``, so ``epsilon = ln(p / (1 - p))`` and the estimator is
    Warner's. ``p`` must lie in (1/2, 1): ``p = 1/2`` carries no information (reason
    ``NO_INFORMATION``), ``p = 1`` is direct questioning (``NOT_DIFFERENTIALLY_PRIVATE``), and
    ``p < 1/2`` is the same design with the innocuous statement negated (``OUT_OF_RANGE``:
    use ``1 - p``). Default ``p = 3/4``: ``a = 3/4``, ``b = 1/4``, ``epsilon = ln 3``. RRreg
    fits it as its ``"Crosswise"`` model with the same ``p``.
    """

    p: float | Fraction = 0.75

    kind = "crosswise"

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
                f"p must be in (1/2, 1); p < 1/2 is the same design with the innocuous "
                f"statement negated (use 1 - p), got {fmt(self.p)}",
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
            f"Your device draws a hidden statement that is true with probability "
            f"{fmt(self.p)}; you say only whether your answer and it agree (both true or both "
            "false). Nobody can tell your answer from that."
        )

    @property
    def r_model(self) -> RModel:
        """RRreg's ``"Crosswise"``: ``p`` = probability that the innocuous statement holds."""
        return RModel("Crosswise", (float(self.p),))
