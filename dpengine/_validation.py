"""Checks shared by the public functions; every message repeats the bad value."""

from __future__ import annotations

import math
from typing import TypeVar

import numpy as np

from dpengine._rational import fmt, is_integer, is_real_number
from dpengine.designs import DESIGNS, YesNoDesign
from dpengine.errors import DPEngineError, Reason

METHODS: tuple[str, ...] = ("wald", "wilson", "exact", "jeffreys")

_T = TypeVar("_T")


def check_count(name: str, value: object) -> int:
    if not is_integer(value):
        raise DPEngineError(
            f"{name} must be an integer, got {fmt(value)}", reason=Reason.INVALID_TYPE, field=name
        )
    if value < 0:
        raise DPEngineError(
            f"{name} must be a non-negative integer, got {fmt(value)}",
            reason=Reason.OUT_OF_RANGE,
            field=name,
        )
    return int(value)


def check_counts(*, yes: object, n: object) -> tuple[int, int]:
    n = check_count("n", n)
    yes = check_count("yes", yes)
    if yes > n:
        raise DPEngineError(
            f"yes must be between 0 and n = {n}, got {yes}", reason=Reason.OUT_OF_RANGE, field="yes"
        )
    return yes, n


def check_count_arrays(*, yes: object, n: object) -> tuple[np.ndarray, np.ndarray]:
    yes_arr, n_arr = np.asarray(yes), np.asarray(n)
    for name, arr, raw in (("yes", yes_arr, yes), ("n", n_arr, n)):
        if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
            raise DPEngineError(
                f"{name} must be an integer or an array of integers, got {fmt(raw)}",
                reason=Reason.INVALID_TYPE,
                field=name,
            )
    if np.any(n_arr < 0):
        raise DPEngineError(
            f"n must be non-negative, got {n_arr.min()}", reason=Reason.OUT_OF_RANGE, field="n"
        )
    if np.any(yes_arr < 0) or np.any(yes_arr > n_arr):
        raise DPEngineError(
            f"yes must be between 0 and n, got {fmt(yes)} with n = {fmt(n)}",
            reason=Reason.OUT_OF_RANGE,
            field="yes",
        )
    return yes_arr.astype(np.int64), n_arr.astype(np.int64)


def _reason_for_number(value: object) -> Reason:
    return Reason.OUT_OF_RANGE if is_real_number(value) else Reason.INVALID_TYPE


def check_open_unit(name: str, value: object) -> float:
    if not is_real_number(value) or not 0 < float(value) < 1:
        raise DPEngineError(
            f"{name} must be in (0, 1), got {fmt(value)}",
            reason=_reason_for_number(value),
            field=name,
        )
    return float(value)


def check_closed_unit(name: str, value: object) -> float:
    if not is_real_number(value) or not 0 <= float(value) <= 1:
        raise DPEngineError(
            f"{name} must be in [0, 1], got {fmt(value)}",
            reason=_reason_for_number(value),
            field=name,
        )
    return float(value)


def check_positive(name: str, value: object) -> float:
    if not is_real_number(value) or not math.isfinite(float(value)) or float(value) <= 0:
        raise DPEngineError(
            f"{name} must be a positive finite number, got {fmt(value)}",
            reason=_reason_for_number(value),
            field=name,
        )
    return float(value)


def check_positive_int(name: str, value: object) -> int:
    if not is_integer(value) or value < 1:
        raise DPEngineError(
            f"{name} must be a positive integer, got {fmt(value)}",
            reason=Reason.OUT_OF_RANGE if is_integer(value) else Reason.INVALID_TYPE,
            field=name,
        )
    return int(value)


def check_method(method: object) -> str:
    if not isinstance(method, str) or method not in METHODS:
        valid = ", ".join(repr(m) for m in METHODS)
        raise DPEngineError(
            f"method must be one of {valid}, got {method!r}",
            reason=Reason.INVALID_CHOICE,
            field="method",
        )
    return str(method)


def check_instance(name: str, value: object, expected: type[_T]) -> _T:
    """``value`` itself if it is an instance of ``expected``, else an ``INVALID_TYPE`` error."""
    if not isinstance(value, expected):
        raise DPEngineError(
            f"{name} must be a {expected.__name__}, got {value!r}",
            reason=Reason.INVALID_TYPE,
            field=name,
        )
    return value


def check_design(design: object) -> None:
    if not isinstance(design, YesNoDesign):
        others = ", ".join(
            cls.__name__ for cls in DESIGNS.values() if cls.__name__ != "ForcedResponse"
        )
        raise DPEngineError(
            f"design must be a ForcedResponse or another yes/no design ({others}), got {design!r}",
            reason=Reason.INVALID_TYPE,
            field="design",
        )
