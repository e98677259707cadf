"""What every yes/no design shares: the checks of its parameters, its probabilities of a
"yes" report, its privacy (ε) and its model in the R package RRreg (``RModel``)."""

from __future__ import annotations

import functools
import types
from dataclasses import fields
from fractions import Fraction
from typing import NamedTuple

from dpengine._rational import as_fraction, fmt, is_real_number
from dpengine.errors import DPEngineError, Reason
from dpengine.rounding import log_upper


def open_unit_interval(name: str, value: object) -> float | Fraction:
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


def refuse(message: str, *, reason: Reason, field: str) -> DPEngineError:
    return DPEngineError(message, reason=reason, field=field)


def truth_or_yes(p_truth: float | Fraction, p_yes: float | Fraction) -> tuple[Fraction, Fraction]:
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


_REGISTERED: dict[str, type[YesNoDesign]] = {}
REGISTERED: types.MappingProxyType[str, type[YesNoDesign]] = types.MappingProxyType(_REGISTERED)
"""Every yes/no design class by its ``kind``, in the order they were defined: a design is
registered by being written (``YesNoDesign.__init_subclass__``), so no list elsewhere names it."""


class YesNoDesign:
    """What every yes/no design offers; subclasses define ``exact_p_yes_given_yes/no``.

    Subclasses are frozen dataclasses whose fields are the design's parameters. A subclass
    with a ``kind`` is registered under it (``REGISTERED``, which ``dpengine.DESIGNS`` shows).
    """

    #: Short machine name, as the API and CSV exports spell the design.
    kind: str = ""

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if not cls.kind:
            return
        known = _REGISTERED.get(cls.kind)
        # The same class again (its module reloaded) replaces itself; another is a clash.
        if known is not None and (known.__module__, known.__qualname__) != (
            cls.__module__,
            cls.__qualname__,
        ):
            raise TypeError(f"design kind {cls.kind!r} is already {known.__qualname__}")
        _REGISTERED[cls.kind] = cls

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
            raise refuse(
                f"{type(self).__name__} with {self._spelled()} has P(yes | yes) = {a} and "
                f"P(yes | no) = {b}: some report reveals the true answer, so epsilon is "
                "infinite and the design is not differentially private",
                reason=Reason.NOT_DIFFERENTIALLY_PRIVATE,
                field=field,
            )
        if a <= b:
            raise refuse(
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
