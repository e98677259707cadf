"""Checks shared by the public functions; every message repeats the bad value."""

from __future__ import annotations

import math

import numpy as np

from dpengine._rational import fmt, is_integer, is_real_number
from dpengine.designs import ForcedResponse

METHODS: tuple[str, ...] = ("wald", "wilson", "exact", "jeffreys")


def check_count(name: str, value: object) -> int:
    if not is_integer(value):
        raise ValueError(f"{name} must be an integer, got {fmt(value)}")
    if value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {fmt(value)}")
    return int(value)


def check_counts(*, yes: object, n: object) -> tuple[int, int]:
    n = check_count("n", n)
    yes = check_count("yes", yes)
    if yes > n:
        raise ValueError(f"yes must be between 0 and n = {n}, got {yes}")
    return yes, n


def check_count_arrays(*, yes: object, n: object) -> tuple[np.ndarray, np.ndarray]:
    yes_arr, n_arr = np.asarray(yes), np.asarray(n)
    for name, arr, raw in (("yes", yes_arr, yes), ("n", n_arr, n)):
        if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
            raise ValueError(f"{name} must be an integer or an array of integers, got {fmt(raw)}")
    if np.any(n_arr < 0):
        raise ValueError(f"n must be non-negative, got {n_arr.min()}")
    if np.any(yes_arr < 0) or np.any(yes_arr > n_arr):
        raise ValueError(f"yes must be between 0 and n, got {fmt(yes)} with n = {fmt(n)}")
    return yes_arr.astype(np.int64), n_arr.astype(np.int64)


def check_open_unit(name: str, value: object) -> float:
    if not is_real_number(value) or not 0 < float(value) < 1:
        raise ValueError(f"{name} must be in (0, 1), got {fmt(value)}")
    return float(value)


def check_closed_unit(name: str, value: object) -> float:
    if not is_real_number(value) or not 0 <= float(value) <= 1:
        raise ValueError(f"{name} must be in [0, 1], got {fmt(value)}")
    return float(value)


def check_positive(name: str, value: object) -> float:
    if not is_real_number(value) or not math.isfinite(float(value)) or float(value) <= 0:
        raise ValueError(f"{name} must be a positive finite number, got {fmt(value)}")
    return float(value)


def check_method(method: object) -> str:
    if not isinstance(method, str) or method not in METHODS:
        valid = ", ".join(repr(m) for m in METHODS)
        raise ValueError(f"method must be one of {valid}, got {method!r}")
    return str(method)


def check_design(design: object) -> None:
    if not isinstance(design, ForcedResponse):
        raise ValueError(f"design must be a ForcedResponse, got {design!r}")
