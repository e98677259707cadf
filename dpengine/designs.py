"""Yes/no randomized-response designs and their privacy loss.

Every design turns a true yes/no answer into a reported yes/no with
``a = P(report yes | truth yes)`` and ``b = P(report yes | truth no)``, ``a > b``; the
estimators, intervals, sample sizes and the regression in this package depend on the
design only through ``(a, b)``, so they accept every design here. Each answer is
``epsilon``-locally differentially private with
``epsilon = ln(max(a / b, (1 - b) / (1 - a)))`` (Dwork & Roth 2014, section 3.2); a design
with ``b = 0`` or ``a = 1`` lets some report reveal the truth (infinite epsilon) and is
refused with reason ``NOT_DIFFERENTIALLY_PRIVATE``, one with ``a = b`` carries no
information and is refused with reason ``NO_INFORMATION``.

- :class:`ForcedResponse` (Boruch 1971; Greenberg et al. 1969): coin 1 says "answer
  truthfully" with ``p_truth``, otherwise coin 2 forces "yes" with ``p_forced_yes``.
- :class:`Warner` (Warner 1965): answer the statement with probability ``p``, its
  negation otherwise.
- :class:`UnrelatedQuestion` (Greenberg et al. 1969, known prevalence): answer the
  sensitive question with probability ``p``, otherwise an innocuous one whose answer is
  "yes" with known probability ``pi``; the device (the browser) draws that answer.
- :class:`Kuk` (Kuk 1990): a respondent whose truth is yes draws a card from a deck with
  red share ``theta1``, one whose truth is no from a deck with red share ``theta2``, and
  reports the colour (red = "yes").
- :class:`Mangat` (Mangat 1994), in a differentially private variant: see its docstring.

References: Warner (1965), "Randomized response: a survey technique for eliminating
evasive answer bias", JASA 60(309); Greenberg, Abul-Ela, Simmons & Horvitz (1969),
"The unrelated question randomized response model", JASA 64(326); Kuk (1990), "Asking
sensitive questions indirectly", Biometrika 77(2); Mangat (1994), "An improved randomized
response strategy", JRSS B 56(1); Blair, Imai & Zhou (2015), "Design and analysis of the
randomized response technique", JASA 110(511); Heck & Moshagen (2018), "RRreg: an R
package for correlation and regression analyses of randomized response data", Journal of
Statistical Software 85(2); Dwork & Roth (2014), "The Algorithmic Foundations of
Differential Privacy", section 3.2.
"""

from __future__ import annotations

import functools
import math
import types
from dataclasses import dataclass, fields
from fractions import Fraction
from typing import NamedTuple

from dpengine._rational import as_fraction, fmt, is_real_number
from dpengine.errors import DPEngineError, Reason
from dpengine.rounding import log_at_most, log_upper

__all__ = [
    "CLASSIC",
    "DEFAULT_PRESET",
    "DESIGNS",
    "PRESETS",
    "R_MODEL_NAMES",
    "ForcedResponse",
    "Kuk",
    "Mangat",
    "Preset",
    "RModel",
    "UnrelatedQuestion",
    "Warner",
    "YesNoDesign",
]


def _open_unit_interval(name: str, value: object) -> float | Fraction:
    checked = _unit_parameter(name, value)
    if not 0 < checked < 1:
        raise DPEngineError(
            f"{name} must be in (0, 1), got {fmt(value)}",
            reason=Reason.OUT_OF_RANGE,
            field=name,
        )
    return checked


def _unit_parameter(name: str, value: object) -> float | Fraction:
    """A probability in [0, 1], kept as the Fraction or float the caller passed."""
    if not is_real_number(value):
        raise DPEngineError(
            f"{name} must be a number in (0, 1), got {fmt(value)}",
            reason=Reason.INVALID_TYPE,
            field=name,
        )
    checked: float | Fraction = value if isinstance(value, Fraction) else float(value)
    # NaN fails both comparisons, so it is rejected here too.
    if not 0 <= checked <= 1:
        raise DPEngineError(
            f"{name} must be in (0, 1), got {fmt(value)}",
            reason=Reason.OUT_OF_RANGE,
            field=name,
        )
    return checked


def _refuse(message: str, *, reason: Reason, field: str) -> DPEngineError:
    return DPEngineError(message, reason=reason, field=field)


def _truth_or_yes(p_truth: float | Fraction, p_yes: float | Fraction) -> tuple[Fraction, Fraction]:
    """``(a, b)`` when the truth is told with ``p_truth``, else "yes" comes with ``p_yes``.

    ``a = p_truth + (1 - p_truth) p_yes`` and ``b = (1 - p_truth) p_yes``, exactly: the
    forced-response design and the unrelated question with known prevalence alike.
    """
    t, q = as_fraction(p_truth), as_fraction(p_yes)
    return t + (1 - t) * q, (1 - t) * q


class RModel(NamedTuple):
    """The R package RRreg's model for a design: ``RRuni(..., model=name, p=p)``.

    ``p`` is RRreg's parameter vector for that model, in RRreg's order (Heck & Moshagen
    2018, Table 1).
    """

    name: str
    p: tuple[float, ...]


class YesNoDesign:
    """What every yes/no design offers; subclasses define ``exact_p_yes_given_yes/no``.

    Subclasses are frozen dataclasses whose fields are the design's parameters.
    """

    #: Short machine name, as the API and CSV exports spell the design.
    kind: str = ""

    @property
    def exact_p_yes_given_yes(self) -> Fraction:  # pragma: no cover - abstract
        raise NotImplementedError

    @property
    def exact_p_yes_given_no(self) -> Fraction:  # pragma: no cover - abstract
        raise NotImplementedError

    @property
    def p_yes_given_yes(self) -> float:
        """``a = P(report yes | truth yes)``."""
        return float(self.exact_p_yes_given_yes)

    @property
    def p_yes_given_no(self) -> float:
        """``b = P(report yes | truth no)``."""
        return float(self.exact_p_yes_given_no)

    @property
    def information(self) -> float:
        """``a - b``: the factor by which debiasing inflates the standard error."""
        return float(self.exact_p_yes_given_yes - self.exact_p_yes_given_no)

    @property
    def variance_factor(self) -> float:
        """``1 / (a - b)^2``: worst-case variance (and sample size) relative to asking directly.

        At the worst case ``lambda = 1/2`` the debiased estimate's variance is
        ``1 / (4 n (a - b)^2)``, against ``1 / (4 n)`` for a direct question at ``p = 1/2``.
        """
        return 1 / self.information**2

    @property
    def likelihood_ratio(self) -> Fraction:
        """``max(a / b, (1 - b) / (1 - a))``, exactly: ``e^epsilon``."""
        a, b = self.exact_p_yes_given_yes, self.exact_p_yes_given_no
        return max(a / b, (1 - b) / (1 - a))

    @functools.cached_property
    def epsilon(self) -> float:
        """Privacy loss of one answer: ``ln(max(a / b, (1 - b) / (1 - a)))``, rounded up.

        The least float at or above the exact loss of the design the samplers use (its
        parameters read as the decimals they print as), whether the float is read as a
        binary number or as its decimal (:func:`dpengine.rounding.log_upper`), so the
        privacy ledger never charges less than the true loss. Cached: the design is frozen.
        """
        return log_upper(self.likelihood_ratio)

    @property
    def parameters(self) -> dict[str, float]:
        """The design's own parameters as floats, named as the constructor names them."""
        return {field.name: float(getattr(self, field.name)) for field in fields(self)}

    @property
    def description(self) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    @property
    def r_model(self) -> RModel:  # pragma: no cover - abstract
        raise NotImplementedError

    def _check_private_and_informative(self, *, field: str) -> None:
        """Refuse ``(a, b)`` with infinite epsilon or without information (``a <= b``)."""
        a, b = self.exact_p_yes_given_yes, self.exact_p_yes_given_no
        if b == 0 or a == 1:
            raise _refuse(
                f"{type(self).__name__} with {self._spelled()} has P(yes | yes) = {a} and "
                f"P(yes | no) = {b}: some report reveals the true answer, so epsilon is "
                "infinite and the design is not differentially private",
                reason=Reason.NOT_DIFFERENTIALLY_PRIVATE,
                field=field,
            )
        if a <= b:
            raise _refuse(
                f"{type(self).__name__} with {self._spelled()} has P(yes | yes) = {a} "
                f"<= P(yes | no) = {b}: the report carries no information about the truth "
                "(or inverts it)",
                reason=Reason.NO_INFORMATION,
                field=field,
            )

    def _store_unit_parameters(self, *names: str) -> tuple[float | Fraction, ...]:
        """Check each named field is a probability in [0, 1], store it and return them all."""
        checked = tuple(_unit_parameter(name, getattr(self, name)) for name in names)
        for name, value in zip(names, checked, strict=True):
            object.__setattr__(self, name, value)
        return checked

    def _forced_response_r_model(self) -> RModel:
        """RRreg's ``"FR"`` with ``p = c(1 - a, b)``: P(forced no), P(forced yes)."""
        a, b = self.exact_p_yes_given_yes, self.exact_p_yes_given_no
        return RModel("FR", (float(1 - a), float(b)))

    def _spelled(self) -> str:
        return ", ".join(f"{f.name}={fmt(getattr(self, f.name))}" for f in fields(self))


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
        q = _open_unit_interval("p_forced_yes", p_forced_yes)
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
        return _truth_or_yes(self.p_truth, self.p_forced_yes)[0]

    @property
    def exact_p_yes_given_no(self) -> Fraction:
        """``b`` as an exact rational (used by the exact samplers)."""
        return _truth_or_yes(self.p_truth, self.p_forced_yes)[1]

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
            raise _refuse(
                "p must be in (1/2, 1): at p = 1/2 the report carries no information, got 0.5",
                reason=Reason.NO_INFORMATION,
                field="p",
            )
        if p < Fraction(1, 2):
            raise _refuse(
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
            raise _refuse(
                "p must be in (0, 1): at p = 0 nobody answers the sensitive question, got 0",
                reason=Reason.NO_INFORMATION,
                field="p",
            )
        self._check_private_and_informative(field="pi" if pi in (0, 1) else "p")

    @property
    def exact_p_yes_given_yes(self) -> Fraction:
        return _truth_or_yes(self.p, self.pi)[0]

    @property
    def exact_p_yes_given_no(self) -> Fraction:
        return _truth_or_yes(self.p, self.pi)[1]

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
            raise _refuse(
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


DESIGNS: types.MappingProxyType[str, type[YesNoDesign]] = types.MappingProxyType(
    {cls.kind: cls for cls in (ForcedResponse, Warner, UnrelatedQuestion, Kuk, Mangat)}
)
"""Every yes/no design class by its ``kind``."""

R_MODEL_NAMES: types.MappingProxyType[str, str] = types.MappingProxyType(
    {
        "forced_response": "FR",
        "warner": "Warner",
        "unrelated_question": "UQTknown",
        "kuk": "Kuk",
        # Mangat's own RRreg model is the non-private original; see Mangat's docstring.
        "mangat": "FR",
    }
)
"""The RRreg model name (``RRuni(model=...)``) for each design ``kind``."""


class Preset(NamedTuple):
    """A named design offered in the survey builder."""

    label: str
    design: YesNoDesign


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
