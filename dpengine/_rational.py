"""Exact rational views of the numbers callers pass in.

Probabilities and privacy parameters are typed by people as decimals (``0.3``,
``0.1``); the float nearest to ``0.1`` is not one tenth. Reading a float through its
shortest round-tripping ``repr`` recovers the decimal that was written, so a design
with ``p_truth=0.1`` really randomizes with probability 1/10 and its epsilon is the
epsilon of that design.
"""

from __future__ import annotations

import math
import numbers
from decimal import Decimal
from fractions import Fraction

from dpengine.errors import DPEngineError, Reason


def is_real_number(value: object) -> bool:
    """True for ints, floats, Fractions, Decimals and NumPy scalars; not bools or strings."""
    return isinstance(value, numbers.Real | Decimal) and not isinstance(value, bool)


def is_integer(value: object) -> bool:
    """True for Python and NumPy integers, but not for bools or integral floats."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def as_fraction(value: numbers.Real) -> Fraction:
    """The exact rational a caller meant: Fractions and ints as they are, floats by repr."""
    if isinstance(value, Fraction):
        return value
    if is_integer(value):
        return Fraction(int(value))
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise DPEngineError(
                f"expected a finite number, got {value!r}", reason=Reason.INVALID_TYPE
            )
        return Fraction(value)
    as_float = float(value)
    if not math.isfinite(as_float):
        raise DPEngineError(f"expected a finite number, got {value!r}", reason=Reason.INVALID_TYPE)
    return Fraction(repr(as_float))


def fmt(value: object) -> str:
    """Render a bad value for an error message the way the caller would have typed it."""
    if isinstance(value, Fraction):
        return str(value)
    if is_real_number(value) and not is_integer(value):
        return repr(float(value))
    return repr(value)
