"""Outward rounding: floats and decimals that never state a privacy loss below the true one.

A privacy loss is usually irrational (``ln 3``) or an exact rational the float cannot hold
(``1.1``). Rounding it to the nearest float or to two decimals rounds it down about half the
time, so the stated guarantee would be slightly weaker than the one claimed. As OpenDP does
for its privacy maps, every ε this package reports is rounded *outward* (up): the float
``f`` stands for a loss at least the true one, whichever way it is read, as the binary
number it is or as the decimal it prints as (the reading the rest of dpengine uses, see
``dpengine._rational``), and every ε shown to people is that float rounded up
(:func:`ceil_decimal`).

Comparing ``ln r`` with a rational bound is exact: ``ln(num) - ln(den)`` is computed with the
``decimal`` module, whose ``ln`` is correctly rounded, and the precision is raised until the
error bound separates the two. It always separates them because ``ln r`` of a rational
``r != 1`` is irrational (indeed transcendental, Lindemann 1882) and so never equals a
rational bound. No floating-point logarithm decides anything here.

References: OpenDP, "Floating-point arithmetic and privacy" (the outward rounding of
privacy maps), docs.opendp.org; Mironov (2012), "On significance of the least significant
bits for differential privacy", CCS.
"""

from __future__ import annotations

import functools
import math
from decimal import ROUND_CEILING, Context, Decimal, localcontext
from fractions import Fraction

__all__ = [
    "ceil_decimal",
    "decimal_float_at_least",
    "float_at_least",
    "log_at_least",
    "log_at_most",
    "log_upper",
]

_FIRST_DIGITS = 40


def _readings(value: float) -> tuple[Fraction, Fraction]:
    """The binary value of a float and the decimal it prints as."""
    return Fraction(value), Fraction(repr(value))


def float_at_least(value: Fraction) -> float:
    """The least float that is ``>= value`` both as a binary number and as its printed decimal."""
    result = float(value)
    while min(_readings(result)) < value:
        result = math.nextafter(result, math.inf)
    while True:
        below = math.nextafter(result, -math.inf)
        if min(_readings(below)) < value:
            return result
        result = below


def decimal_float_at_least(value: Fraction) -> float:
    """The least float whose printed decimal is ``>= value``: for sums and multiples of ε
    floats, which are read as their decimals (``decimal_float_at_least(Fraction("1.1"))``
    is ``1.1``)."""
    result = float(value)
    while Fraction(repr(result)) < value:
        result = math.nextafter(result, math.inf)
    while Fraction(repr(math.nextafter(result, -math.inf))) >= value:
        result = math.nextafter(result, -math.inf)
    return result


def _ulp(number: Decimal, digits: int) -> Fraction:
    return Fraction(10) ** (number.adjusted() - digits + 1)


@functools.lru_cache(maxsize=4096)
def _log_bounds(ratio: Fraction, digits: int) -> tuple[Fraction, Fraction]:
    """``(low, high)`` with ``low <= ln(ratio) <= high``, ``digits`` significant digits each."""
    with localcontext(Context(prec=digits)):
        ln_num = Decimal(ratio.numerator).ln()
        ln_den = Decimal(ratio.denominator).ln()
    # Each logarithm is correctly rounded: within half a unit in its last place.
    error = (_ulp(ln_num, digits) + _ulp(ln_den, digits)) / 2
    middle = Fraction(ln_num) - Fraction(ln_den)
    return middle - error, middle + error


def _compare_log(ratio: Fraction, bound: Fraction) -> int:
    """-1 when ``ln(ratio) < bound``, +1 above, 0 equal (only for ``ratio = 1, bound = 0``)."""
    if ratio <= 0:
        raise ValueError(f"ratio must be positive, got {ratio}")
    if ratio == 1:
        return (bound < 0) - (bound > 0)
    digits = _FIRST_DIGITS
    while True:
        low, high = _log_bounds(ratio, digits)
        if high < bound:
            return -1
        if low > bound:
            return 1
        digits *= 2


def log_at_most(ratio: Fraction, bound: Fraction) -> bool:
    """Whether ``ln(ratio) <= bound``, decided exactly (``ratio > 0`` and ``bound`` rational)."""
    return _compare_log(Fraction(ratio), Fraction(bound)) <= 0


def log_at_least(ratio: Fraction, bound: Fraction) -> bool:
    """Whether ``ln(ratio) >= bound``, decided exactly."""
    return _compare_log(Fraction(ratio), Fraction(bound)) >= 0


def log_upper(ratio: Fraction) -> float:
    """The least float ``f`` with ``f >= ln(ratio)`` as a binary number and as its decimal.

    ``ratio`` is a positive rational (an ``e^epsilon``); the result is the privacy loss to
    charge for it. Raises ``OverflowError`` only for ratios beyond ``e^(1.8e308)``.
    """
    ratio = Fraction(ratio)
    if ratio == 1:
        return 0.0
    low, high = _log_bounds(ratio, _FIRST_DIGITS)

    def covers(candidate: float) -> bool:
        # The bounds decide almost every candidate; the exact comparison settles the rest.
        readings = _readings(candidate)
        if all(reading >= high for reading in readings):
            return True
        if any(reading < low for reading in readings):
            return False
        return all(log_at_most(ratio, reading) for reading in readings)

    result = float((low + high) / 2)
    while not covers(result):
        result = math.nextafter(result, math.inf)
    while covers(below := math.nextafter(result, -math.inf)):
        result = below
    return result


def ceil_decimal(value: float | Fraction | Decimal, digits: int) -> Decimal:
    """``value`` rounded up (toward +infinity) to ``digits`` decimals, for display.

    A float is read as the decimal it prints as, the reading under which dpengine's ε floats
    are upper bounds (``1.1`` stays ``1.10``, not ``1.11``). For a float from
    :func:`log_upper` or :func:`float_at_least` both readings are upper bounds, so the
    digits shown are too.
    """
    if isinstance(value, Fraction):
        exact = Decimal(value.numerator) / Decimal(value.denominator)
        # The division rounds to the context's 28 digits; step up when that went down.
        if Fraction(exact) < value:
            exact = exact.next_plus()
    elif isinstance(value, Decimal):
        exact = value
    else:
        exact = Decimal(repr(float(value)))
    quantum = Decimal(1).scaleb(-int(digits))
    with localcontext(Context(prec=max(28, exact.adjusted() + int(digits) + 2))):
        return exact.quantize(quantum, rounding=ROUND_CEILING)
