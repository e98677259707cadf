"""Drawing randomized responses exactly.

A report is "yes" with probability ``a`` when the truth is yes and ``b`` otherwise
(Warner 1965; Greenberg et al. 1969). One uniform integer ``u`` in ``[0, D)`` per
respondent, where ``D`` is the common denominator of ``a`` and ``b``, decides the
report: ``u < a D`` (truth yes) or ``u < b D`` (truth no). Integer comparison makes the
probabilities exact for every design whose ``D`` is at most 2^64: all dyadic designs
(``D = 2^m``, ``u`` an m-bit integer) and all decimal designs with at most 19 decimal
places in the two coins together, e.g. 0.6 and 0.3 (``D = 25``). Only larger
denominators fall back to 64-bit thresholds, with bias below 2^-64 per coin.

This is the same distribution as flipping the two coins in turn; the browser does that,
and the server side uses this module for simulation and tests.
"""

from __future__ import annotations

import math
import secrets
from fractions import Fraction

import numpy as np

from dpengine._rational import as_fraction
from dpengine._validation import check_closed_unit, check_count, check_design
from dpengine.designs import YesNoDesign
from dpengine.errors import DPEngineError, Reason
from dpengine.randomness import random_source, uniform_below

__all__ = ["bernoulli", "randomize", "secure_rng", "simulate_reports"]

_MAX_EXACT_DENOMINATOR = 1 << 64


def secure_rng() -> np.random.Generator:
    """A generator seeded with 128 bits from the operating system's CSPRNG.

    The seed is unpredictable, but PCG64 itself is not a cryptographic generator: use it
    for server-side simulation, never to randomize a real respondent's answer (the
    respondent's browser does that with ``crypto.getRandomValues``).
    """
    return np.random.Generator(np.random.PCG64(secrets.randbits(128)))


def _uniform_below(denominator: int, shape: tuple[int, ...], rng: object) -> np.ndarray:
    # Uniform below the denominator, then an integer comparison: no float ever enters.
    return uniform_below(random_source(rng), denominator, shape)


def _thresholds(*probabilities: Fraction) -> tuple[int, tuple[int, ...]]:
    """A denominator ``D <= 2^64`` and integer thresholds ``k`` with ``P = k / D``."""
    common = math.lcm(*(q.denominator for q in probabilities))
    if common <= _MAX_EXACT_DENOMINATOR:
        return common, tuple(int(q * common) for q in probabilities)
    # Rounding to a multiple of 2^-64 keeps the bias under 2^-64; the upper clamp only
    # matters for a probability within 2^-65 of 1 and keeps the threshold a uint64.
    return _MAX_EXACT_DENOMINATOR, tuple(
        min(round(q * _MAX_EXACT_DENOMINATOR), _MAX_EXACT_DENOMINATOR - 1) for q in probabilities
    )


def bernoulli(probability: float | Fraction, *, size: int | tuple[int, ...], rng) -> np.ndarray:
    """Boolean array of independent draws that are True with ``probability`` in [0, 1].

    Exact for rationals with denominator up to 2^64 (floats are read as the decimal they
    print as); otherwise bias below 2^-64.
    """
    check_closed_unit("probability", probability)
    shape = (size,) if isinstance(size, int) else tuple(size)
    denominator, (threshold,) = _thresholds(as_fraction(probability))
    return _uniform_below(denominator, shape, rng) < np.uint64(threshold)


def randomize(truth, design: YesNoDesign, rng):
    """The randomized report for each true answer under ``design``.

    ``truth`` is a bool or an array of bools; the result has the same shape (a bool for
    a bool). ``P(report yes) = a`` for a true yes and ``b`` for a true no, exactly for
    dyadic designs such as the classic one (see the module docstring). ``rng`` is a
    :class:`numpy.random.Generator` (seed it in tests; :func:`secure_rng` otherwise) or
    any :class:`dpengine.randomness.RandomSource` (see :func:`random_source`).
    Reference: Warner (1965).
    """
    check_design(design)
    truth_arr = np.asarray(truth)
    if truth_arr.dtype != bool:
        raise DPEngineError(
            f"truth must be a bool or an array of bools, got {truth!r}",
            reason=Reason.INVALID_TYPE,
            field="truth",
        )
    denominator, (yes_threshold, no_threshold) = _thresholds(
        design.exact_p_yes_given_yes, design.exact_p_yes_given_no
    )
    draws = _uniform_below(denominator, truth_arr.shape, rng)
    thresholds = np.where(truth_arr, np.uint64(yes_threshold), np.uint64(no_threshold))
    reports = draws < thresholds
    if truth_arr.ndim == 0:
        return bool(reports)
    return reports


def simulate_reports(p: float, n: int, design: YesNoDesign, rng) -> np.ndarray:
    """``n`` randomized reports from respondents whose true answers are yes with prob. ``p``.

    Each respondent's truth is an independent exact Bernoulli(``p``) draw (a
    super-population model, so the yes-report count is exactly Binomial(n, b + (a - b) p)),
    then randomized with :func:`randomize`. ``p`` in [0, 1], ``n >= 0``.
    """
    check_design(design)
    n = check_count("n", n)
    truths = bernoulli(p, size=n, rng=rng)
    return randomize(truths, design, rng)
