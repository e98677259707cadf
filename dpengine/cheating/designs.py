"""The two cheating-detection designs (CDM and SLD): their parameters, response
probabilities and privacy; the registry by ``kind``. The model: ``dpengine.cheating``."""

from __future__ import annotations

import math
import types
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from dpengine._rational import as_fraction, fmt, is_real_number
from dpengine._validation import check_closed_unit
from dpengine.designs import RModel
from dpengine.errors import DPEngineError, Reason

MAX_EXACT_DENOMINATOR = 1 << 64
_GROUPS = (1, 2)
# Below this |pi (p2 - p1)| the SLD's t is reported as undefined (None).
T_UNDEFINED = 1e-12


def _probability(name: str, value: object) -> float | Fraction:
    """A probability strictly inside (0, 1), kept as the Fraction or float the caller passed."""
    if not is_real_number(value):
        raise DPEngineError(
            f"{name} must be a number in (0, 1), got {fmt(value)}",
            reason=Reason.INVALID_TYPE,
            field=name.split("[")[0],
        )
    checked: float | Fraction = value if isinstance(value, Fraction) else float(value)
    # NaN fails the comparison, so it is refused here too.
    if not 0 < checked < 1:
        raise DPEngineError(
            f"{name} must be in (0, 1), got {fmt(value)}",
            reason=Reason.OUT_OF_RANGE,
            field=name.split("[")[0],
        )
    return checked


def check_group(group: object) -> np.ndarray:
    arr = np.asarray(group)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        raise DPEngineError(
            f"group must be 1 or 2 (or an array of them), got {fmt(group)}",
            reason=Reason.INVALID_TYPE,
            field="group",
        )
    if not np.isin(arr, _GROUPS).all():
        raise DPEngineError(
            f"group must be 1 or 2 (or an array of them), got {fmt(group)}",
            reason=Reason.OUT_OF_RANGE,
            field="group",
        )
    return arr


class CheatingDesign:
    """What both two-group cheating-detection designs offer; see the module docstring.

    Subclasses are frozen dataclasses with fields ``p`` (a pair of probabilities, RRreg's
    ``p = c(p1, p2)``) and ``share`` (the probability that a respondent is assigned to group
    1; RRreg's ``groupRatio``), and define :meth:`exact_randomized_yes`.
    """

    #: Short machine name, as the API and CSV exports spell the design.
    kind: str = ""
    #: The model's parameters in the order :func:`estimate_cheating` reports them.
    parameter_names: tuple[str, ...] = ()
    p: tuple[float | Fraction, float | Fraction]
    share: float | Fraction

    def _validate(self) -> None:
        p = self.p
        if isinstance(p, str | bytes) or not isinstance(p, Sequence) or len(p) != 2:
            raise DPEngineError(
                f"p must be a pair [p1, p2] of probabilities, got {p!r}",
                reason=Reason.INVALID_TYPE,
                field="p",
            )
        checked = (_probability("p[0]", p[0]), _probability("p[1]", p[1]))
        if as_fraction(checked[0]) == as_fraction(checked[1]):
            raise DPEngineError(
                f"p must hold two different probabilities: with p1 = p2 = {fmt(p[0])} the two "
                "groups cannot tell honest answers from cheating",
                reason=Reason.NO_INFORMATION,
                field="p",
            )
        object.__setattr__(self, "p", checked)
        object.__setattr__(self, "share", _probability("share", self.share))

    def exact_randomized_yes(self, group: int) -> Fraction:  # pragma: no cover - abstract
        """``r_g``: P(report yes) of an honest non-carrier in ``group`` (1 or 2)."""
        raise NotImplementedError

    def exact_p_yes(self, *, group: int, truth: bool) -> Fraction:
        """P(report yes | truth, group) for a respondent who follows the instructions."""
        if group not in _GROUPS:
            raise DPEngineError(
                f"group must be 1 or 2, got {fmt(group)}", reason=Reason.OUT_OF_RANGE, field="group"
            )
        return Fraction(1) if truth else self.exact_randomized_yes(group)

    @property
    def report_probabilities(self) -> tuple[tuple[float, float], tuple[float, float]]:
        """Per group (1, then 2): ``(P(yes | truth yes), P(yes | truth no))`` when honest."""
        return tuple(  # type: ignore[return-value]
            (
                float(self.exact_p_yes(group=g, truth=True)),
                float(self.exact_p_yes(group=g, truth=False)),
            )
            for g in _GROUPS
        )

    @property
    def yes_likelihood_ratio(self) -> Fraction:
        """``max_g P(yes | carrier) / P(yes | non-carrier) = max_g 1 / r_g``, exactly."""
        return max(1 / self.exact_randomized_yes(g) for g in _GROUPS)

    @property
    def epsilon_yes(self) -> float:
        """One-sided privacy loss of a "yes": ``ln max_g 1 / r_g`` (finite).

        A "yes" is at most ``e^epsilon_yes`` times as likely from an honest carrier as from
        an honest non-carrier in either group. A "no" has no such bound (see
        :attr:`epsilon`); non-compliers' reports ("no" whatever the truth) have ratio 1.
        """
        ratio = self.yes_likelihood_ratio
        return math.log(ratio.numerator) - math.log(ratio.denominator)

    @property
    def epsilon(self) -> float:
        """Privacy loss of one answer, the worst log ratio over reports and groups: ``inf``.

        ``max`` over groups ``g`` and reports ``x`` of ``|ln(P(x | yes, g) / P(x | no, g))|``.
        An honest carrier never reports "no" (P(no | carrier) = 0) while an honest
        non-carrier does with ``1 - r_g > 0``, so a "no" proves the respondent is not a
        carrier and the ratio is infinite: neither design is differentially private for any
        finite epsilon, whatever ``p``. The bound that holds is the one for the
        incriminating answer, :attr:`epsilon_yes`. Non-compliance (gamma) changes neither: a
        cheater's "no" is independent of the truth (ratio 1).
        """
        worst = 0.0
        for group in _GROUPS:
            yes_if_yes = self.exact_p_yes(group=group, truth=True)
            yes_if_no = self.exact_p_yes(group=group, truth=False)
            for first, second in ((yes_if_yes, yes_if_no), (1 - yes_if_yes, 1 - yes_if_no)):
                if first == second:
                    continue
                if min(first, second) == 0:
                    return math.inf
                ratio = max(first, second) / min(first, second)
                worst = max(worst, math.log(ratio.numerator) - math.log(ratio.denominator))
        return worst

    @property
    def is_differentially_private(self) -> bool:
        """Whether :attr:`epsilon` is finite: False, a "no" reveals a non-carrier."""
        return math.isfinite(self.epsilon)

    @property
    def parameters(self) -> dict[str, object]:
        """The design's own parameters as floats, named as the constructor names them."""
        return {"p": [float(q) for q in self.p], "share": float(self.share)}

    @property
    def r_model(self) -> RModel:
        """RRreg's model: ``RRuni(model=name, p=c(p1, p2), group=group)``."""
        return RModel(R_MODEL_NAMES_CHEATING[self.kind], tuple(float(q) for q in self.p))

    def _randomized_yes_floats(self) -> tuple[float, float]:
        return (float(self.exact_randomized_yes(1)), float(self.exact_randomized_yes(2)))


@dataclass(frozen=True)
class CheatingDetection(CheatingDesign):
    """Clark & Desharnais's (1998) cheating detection model (CDM), as RRreg's ``"CDM"``.

    A respondent is in group 1 with probability ``share`` (else group 2). A carrier of the
    sensitive attribute says "yes"; a non-carrier is prompted by the device to say "yes" with
    probability ``p_g`` of their group and says "no" otherwise. Cheaters say "no" whatever
    the truth. With ``pi`` the honest "yes" share, ``gamma`` the cheaters and
    ``beta = 1 - pi - gamma`` the compliant non-carriers, group ``g``'s yes-rate is
    ``lambda_g = pi + beta p_g``.

    ``gamma`` is a lower bound on non-compliance (only "no"-cheating is identified: see the
    module docstring), so the prevalence lies between ``pi`` and ``pi + gamma``.

    ``p = (p1, p2)``, both in (0, 1) and different (equal ones cannot separate honest
    answers from cheating: reason ``NO_INFORMATION``); ``share`` in (0, 1), default 1/2.
    Privacy: a "yes" is at most ``1 / min(p)`` times as likely from a carrier
    (:attr:`epsilon_yes`); a "no" reveals a non-carrier, so :attr:`epsilon` is infinite.
    Default ``p = (1/4, 3/4)``. Reference: Clark & Desharnais (1998); RRreg's ``RRuni.CDM``.
    """

    p: tuple[float | Fraction, float | Fraction] = (0.25, 0.75)
    share: float | Fraction = 0.5

    kind = "cdm"
    parameter_names = ("pi", "beta", "gamma")

    def __post_init__(self) -> None:
        self._validate()

    def exact_randomized_yes(self, group: int) -> Fraction:
        return as_fraction(self.p[group - 1])

    def expected_yes_rates(self, *, pi: float, gamma: float) -> tuple[float, float]:
        """``lambda_g = pi + (1 - pi - gamma) p_g`` for groups 1 and 2."""
        return tuple(pi + (1 - pi - gamma) * r for r in self._randomized_yes_floats())  # type: ignore[return-value]

    @property
    def description(self) -> str:
        return (
            "If your answer is yes, you say 'yes'. If it is no, your device asks you to say "
            f"'yes' with probability {fmt(self.p[0])} (group 1) or {fmt(self.p[1])} (group 2), "
            "else 'no'. You are in group 1 with probability "
            f"{fmt(self.share)}."
        )


@dataclass(frozen=True)
class StochasticLieDetector(CheatingDesign):
    """Moshagen, Musch & Erdfelder's (2012) stochastic lie detector (SLD), as RRreg's ``"SLD"``.

    A respondent is in group 1 with probability ``share`` (else group 2). A carrier of the
    sensitive attribute is asked to say "yes"; a non-carrier answers truthfully "no" with
    probability ``p_g`` of their group and says "yes" otherwise. Only a share ``t`` of the
    carriers answers honestly; the rest say "no". With ``pi`` the prevalence, group ``g``'s
    yes-rate is ``lambda_g = pi t + (1 - pi)(1 - p_g)``.

    ``1 - t`` is a lower bound on the carriers' lying: non-carriers are assumed to comply,
    and only "no"-lies are identified (module docstring).

    ``p = (p1, p2)``, both in (0, 1) and different (reason ``NO_INFORMATION`` when equal);
    ``share`` in (0, 1), default 1/2. Privacy: a "yes" is at most ``1 / min(1 - p)`` times as
    likely from a carrier (:attr:`epsilon_yes`); a "no" reveals a non-carrier, so
    :attr:`epsilon` is infinite. Default ``p = (1/4, 3/4)``. Reference: Moshagen, Musch &
    Erdfelder (2012); RRreg's ``RRuni.SLD``.
    """

    p: tuple[float | Fraction, float | Fraction] = (0.25, 0.75)
    share: float | Fraction = 0.5

    kind = "sld"
    parameter_names = ("pi", "t")

    def __post_init__(self) -> None:
        self._validate()

    def exact_randomized_yes(self, group: int) -> Fraction:
        return 1 - as_fraction(self.p[group - 1])

    def expected_yes_rates(self, *, pi: float, t: float) -> tuple[float, float]:
        """``lambda_g = pi t + (1 - pi)(1 - p_g)`` for groups 1 and 2."""
        return tuple(pi * t + (1 - pi) * r for r in self._randomized_yes_floats())  # type: ignore[return-value]

    @property
    def description(self) -> str:
        return (
            "If your answer is yes, you say 'yes'. If it is no, your device asks you to say "
            f"'no' with probability {fmt(self.p[0])} (group 1) or {fmt(self.p[1])} (group 2), "
            "else 'yes'. You are in group 1 with probability "
            f"{fmt(self.share)}."
        )


CHEATING_DESIGNS: types.MappingProxyType[str, type[CheatingDesign]] = types.MappingProxyType(
    {cls.kind: cls for cls in (CheatingDetection, StochasticLieDetector)}
)
"""Every cheating-detection design class by its ``kind``."""

R_MODEL_NAMES_CHEATING: types.MappingProxyType[str, str] = types.MappingProxyType(
    {"cdm": "CDM", "sld": "SLD"}
)
"""The RRreg model name (``RRuni(model=...)``) for each cheating design ``kind``."""


def check_cheating_design(design: object) -> CheatingDesign:
    if not isinstance(design, CheatingDesign):
        raise DPEngineError(
            f"design must be a CheatingDetection or StochasticLieDetector, got {design!r}",
            reason=Reason.INVALID_TYPE,
            field="design",
        )
    return design


def check_population_shares(design: CheatingDesign, shares: dict, *, needs: str) -> None:
    """Check the population ``shares`` a simulation or a plan of ``design`` assumes: CDM's
    ``pi`` and ``gamma`` (at most 1 together), SLD's ``pi`` and ``t``, each in [0, 1].
    ``needs`` opens the refusal's message ("CDM simulation needs ...")."""
    expected = set(design.parameter_names) - {"beta"}
    if set(shares) != expected:
        raise DPEngineError(
            f"{type(design).__name__} {needs} {sorted(expected)}, got {sorted(shares)}",
            reason=Reason.INVALID_CHOICE,
            field="shares",
        )
    for name, value in shares.items():
        check_closed_unit(name, value)
    if design.kind == "cdm" and shares["pi"] + shares["gamma"] > 1:
        raise DPEngineError(
            f"pi + gamma must be at most 1, got {fmt(shares['pi'])} + {fmt(shares['gamma'])}",
            reason=Reason.OUT_OF_RANGE,
            field="gamma",
        )
