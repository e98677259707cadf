"""Central differential-privacy mechanisms, sampled exactly.

For releases where the server holds the exact value (for example the number of
respondents shown on a public results page). Textbook floating-point Laplace noise
leaks the input through the gaps and rounding of floating-point numbers (Mironov 2012,
"On significance of the least significant bits for differential privacy", CCS), so
every sampler here works on integers and exact rationals, driven by an injectable
source of uniform integers (:class:`dpengine.randomness.RandomSource`, the one protocol
every dpengine sampler uses) that defaults to the operating system's CSPRNG.

Parameters are read exactly: integers and Fractions as they are, floats as the decimal
they print as (``epsilon=0.1`` is exactly 1/10), so the guarantee is exactly the
epsilon passed in. Sensitivities given as floats are read at the larger of that decimal
and their binary value, so rounding can never understate them.

References: Canonne, Kamath & Steinke (2020), "The Discrete Gaussian for Differential
Privacy", NeurIPS, Algorithms 1 and 2; Ghosh, Roughgarden & Sundararajan (2009)
(geometric mechanism); McSherry & Talwar (2007) and Dwork & Roth (2014), section 3.4
(exponential mechanism); Mironov (2012).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import TypeVar

import numpy as np

from dpengine._rational import as_fraction, fmt, is_integer, is_real_number
from dpengine.errors import DPEngineError, Reason
from dpengine.randomness import (
    RandomSource,
    SeededRandomSource,
    SystemRandomSource,
    random_source,
)

__all__ = [
    "RandomSource",
    "SeededRandomSource",
    "SystemRandomSource",
    "bernoulli_exp",
    "discrete_laplace_pmf",
    "exponential_mechanism",
    "geometric_mechanism",
    "laplace_mechanism",
    "sample_discrete_laplace",
]

T = TypeVar("T")


def _bernoulli(probability: Fraction, rng: RandomSource) -> bool:
    return rng.randbelow(probability.denominator) < probability.numerator


def bernoulli_exp(gamma: Fraction | int, rng: RandomSource) -> bool:
    """An exact draw of Bernoulli(``exp(-gamma)``) for a rational ``gamma >= 0``.

    For ``gamma <= 1``: draw Bernoulli(``gamma / k``) for k = 1, 2, ... until the first
    failure at ``K``; ``K`` is odd with probability exactly ``exp(-gamma)``. Larger
    ``gamma`` multiplies ``floor(gamma)`` draws of ``exp(-1)`` with one of the remainder.
    Reference: Canonne, Kamath & Steinke (2020), Algorithm 1.
    """
    gamma = Fraction(gamma)
    if gamma < 0:
        raise DPEngineError(
            f"gamma must be non-negative, got {gamma}", reason=Reason.OUT_OF_RANGE, field="gamma"
        )
    if gamma <= 1:
        k = 1
        while _bernoulli(gamma / k, rng):
            k += 1
        return k % 2 == 1
    whole = math.floor(gamma)
    for _ in range(whole):
        if not bernoulli_exp(1, rng):
            return False
    return bernoulli_exp(gamma - whole, rng)


def _check_positive_rational(name: str, value: object) -> Fraction:
    if not is_real_number(value) or not math.isfinite(float(value)) or value <= 0:
        raise DPEngineError(
            f"{name} must be a positive finite number, got {fmt(value)}",
            reason=Reason.OUT_OF_RANGE if is_real_number(value) else Reason.INVALID_TYPE,
            field=name,
        )
    return as_fraction(value)


def _check_sensitivity(value: object) -> Fraction:
    exact = _check_positive_rational("sensitivity", value)
    if isinstance(value, float):
        # The decimal reading of 0.1 is below the float 0.1; privacy needs the larger.
        return max(exact, Fraction(value))
    return exact


def sample_discrete_laplace(scale: Fraction | float | int, rng: object = None) -> int:
    """An exact draw from the discrete Laplace distribution with the given ``scale > 0``.

    ``P(Z = z) = tanh(1 / (2 scale)) exp(-|z| / scale)`` for every integer ``z`` (the
    two-sided geometric distribution). With ``scale = t / s`` in lowest terms: draw
    ``U`` uniform on ``{0..t-1}``, accept with probability ``exp(-U / t)``, add ``t`` times
    a geometric count of ``exp(-1)`` successes, divide by ``s``, and attach a fair sign
    (rejecting negative zero). Reference: Canonne, Kamath & Steinke (2020), Algorithm 2.
    """
    scale = _check_positive_rational("scale", scale)
    source = random_source(rng)
    t, s = scale.numerator, scale.denominator
    while True:
        u = source.randbelow(t)
        if not bernoulli_exp(Fraction(u, t), source):
            continue
        v = 0
        while bernoulli_exp(1, source):
            v += 1
        magnitude = (u + t * v) // s
        negative = source.randbelow(2) == 1
        if negative and magnitude == 0:
            continue
        return -magnitude if negative else magnitude


def discrete_laplace_pmf(z, *, scale: float):
    """``P(Z = z) = tanh(1 / (2 scale)) exp(-|z| / scale)``; ``z`` an integer or an array."""
    scale = float(_check_positive_rational("scale", scale))
    return math.tanh(1 / (2 * scale)) * np.exp(-np.abs(np.asarray(z, dtype=float)) / scale)


def geometric_mechanism(
    value: int, *, sensitivity: int = 1, epsilon: float | Fraction, rng: object = None
) -> int:
    """``value`` plus exact discrete Laplace noise of scale ``sensitivity / epsilon``.

    ``epsilon``-differentially private for an integer query whose value changes by at
    most ``sensitivity`` (a positive integer; 1 for a count) between neighbouring
    datasets: ``P(output = value + z)`` is proportional to ``exp(-epsilon |z| /
    sensitivity)``. ``epsilon > 0``, finite. ``rng`` is any object with
    ``randbelow(n)`` (default: :class:`SystemRandomSource`) or a ``random.Random``.
    References: Ghosh, Roughgarden & Sundararajan (2009); Canonne, Kamath & Steinke
    (2020), Algorithm 2; Dwork & Roth (2014), section 3.3.
    """
    if not is_integer(value):
        raise DPEngineError(
            f"value must be an integer, got {fmt(value)}", reason=Reason.INVALID_TYPE, field="value"
        )
    if not is_integer(sensitivity) or sensitivity < 1:
        raise DPEngineError(
            f"sensitivity must be a positive integer, got {fmt(sensitivity)}",
            reason=Reason.OUT_OF_RANGE,
            field="sensitivity",
        )
    epsilon = _check_positive_rational("epsilon", epsilon)
    return int(value) + sample_discrete_laplace(Fraction(int(sensitivity)) / epsilon, rng)


def laplace_mechanism(
    value: float,
    *,
    sensitivity: float | Fraction,
    epsilon: float | Fraction,
    granularity: float | Fraction | None = None,
    rng: object = None,
) -> float:
    """A real-valued release, discretized and then perturbed with discrete Laplace noise.

    ``value`` is rounded to the nearest multiple ``k`` of ``granularity`` (default
    ``sensitivity / 1024``); the rounded query ``k`` changes by at most
    ``ceil(sensitivity / granularity)`` between neighbours, so
    ``granularity * (k + Z)`` with ``Z`` discrete Laplace of scale
    ``ceil(sensitivity / granularity) / epsilon`` is ``epsilon``-differentially private,
    with noise close to Laplace(``sensitivity / epsilon``) when the granularity is fine.
    Every output lies on the granularity grid, so the floating-point artefacts that
    break textbook Laplace sampling (Mironov 2012) cannot occur.
    References: Dwork & Roth (2014), section 3.3; Mironov (2012); Canonne, Kamath &
    Steinke (2020).
    """
    if not is_real_number(value) or not math.isfinite(float(value)):
        raise DPEngineError(
            f"value must be a finite number, got {fmt(value)}",
            reason=Reason.INVALID_TYPE,
            field="value",
        )
    sensitivity = _check_sensitivity(sensitivity)
    epsilon = _check_positive_rational("epsilon", epsilon)
    if granularity is None:
        step = sensitivity / 1024
    else:
        step = _check_positive_rational("granularity", granularity)
    # The data value is taken at its exact binary value: a decimal reading could move
    # two neighbouring values further apart than the sensitivity allows.
    exact_value = value if isinstance(value, Fraction) else Fraction(float(value))
    k = math.floor(exact_value / step + Fraction(1, 2))
    grid_sensitivity = math.ceil(sensitivity / step)
    noise = sample_discrete_laplace(Fraction(grid_sensitivity) / epsilon, rng)
    return float((k + noise) * step)


def exponential_mechanism(
    candidates: Sequence[T],
    scores: Sequence[float],
    *,
    sensitivity: float | Fraction,
    epsilon: float | Fraction,
    rng: object = None,
) -> T:
    """One candidate chosen with probability proportional to ``exp(epsilon u / (2 Δ))``.

    ``scores[i]`` is the utility ``u`` of ``candidates[i]`` (finite numbers, used at
    their exact binary value); ``sensitivity`` Δ bounds how much any score changes
    between neighbouring datasets. The draw is exact: propose a candidate uniformly and
    accept it with probability ``exp(-epsilon (max u - u) / (2 Δ))`` using the exact
    Bernoulli-exponential sampler, which yields exactly the exponential mechanism's
    distribution after on average at most ``len(candidates)`` proposals.
    References: McSherry & Talwar (2007); Dwork & Roth (2014), Theorem 3.10;
    Canonne, Kamath & Steinke (2020), Algorithm 1.
    """
    if len(candidates) == 0 or len(candidates) != len(scores):
        raise DPEngineError(
            "candidates and scores must be non-empty and of equal length, got "
            f"{len(candidates)} candidates and {len(scores)} scores",
            reason=Reason.SHAPE_MISMATCH,
            field="scores",
        )
    exact_scores = []
    for index, score in enumerate(scores):
        if not is_real_number(score) or not math.isfinite(float(score)):
            raise DPEngineError(
                f"scores[{index}] must be a finite number, got {fmt(score)}",
                reason=Reason.INVALID_TYPE,
                field="scores",
            )
        exact_scores.append(score if isinstance(score, Fraction) else Fraction(score))
    sensitivity = _check_sensitivity(sensitivity)
    epsilon = _check_positive_rational("epsilon", epsilon)
    source = random_source(rng)
    best = max(exact_scores)
    factor = epsilon / (2 * sensitivity)
    while True:
        index = source.randbelow(len(candidates))
        if bernoulli_exp(factor * (best - exact_scores[index]), source):
            return candidates[index]
