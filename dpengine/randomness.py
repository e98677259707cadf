"""The one source of randomness every dpengine sampler draws from.

A :class:`RandomSource` hands out uniform integers: ``randbelow(n)`` is uniform on
``{0, ..., n - 1}``. Every sampler (randomized response, k-ary randomized response, the
discrete Laplace and exponential mechanisms) reduces its draws to such integers and
compares them with exact rational thresholds, so no floating-point rounding ever enters a
probability. Functions take an ``rng`` argument and accept, through
:func:`random_source`:

- ``None``: :class:`SystemRandomSource`, the operating system's CSPRNG (production);
- any object with ``randbelow(n)`` (tests pass scripted fakes);
- a :class:`random.Random` (including :class:`secrets.SystemRandom`);
- a :class:`numpy.random.Generator` (seeded simulations; vectorised draws).

The browser mirrors this with ``getRandomValues`` and the exact helpers of
``static/js/coins.js``.
"""

from __future__ import annotations

import random
import secrets
from typing import Protocol, runtime_checkable

import numpy as np

from dpengine.errors import DPEngineError, Reason

__all__ = [
    "GeneratorSource",
    "RandomSource",
    "SeededRandomSource",
    "SystemRandomSource",
    "random_source",
    "uniform_below",
]

_UINT64_LIMIT = 1 << 64


@runtime_checkable
class RandomSource(Protocol):
    """Uniform integers: ``randbelow(n)`` is uniform on ``{0, ..., n - 1}`` for ``n >= 1``."""

    def randbelow(self, n: int) -> int: ...


class SystemRandomSource:
    """The operating system's CSPRNG through :func:`secrets.randbelow` (the default)."""

    def randbelow(self, n: int) -> int:
        return secrets.randbelow(n)


class SeededRandomSource:
    """A reproducible, NOT secure source for tests and simulations."""

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)

    def randbelow(self, n: int) -> int:
        return self._random.randrange(n)


class _RandomAdapter:
    def __init__(self, generator: random.Random) -> None:
        self._generator = generator

    def randbelow(self, n: int) -> int:
        return self._generator.randrange(n)


class GeneratorSource:
    """A :class:`numpy.random.Generator` seen as a :class:`RandomSource`.

    ``Generator.integers`` bounds its raw bits by rejection (Lemire's method), so every
    value below ``n`` is exactly equally likely. Bounds above 2^64 are built from 64-bit
    digits with rejection, so they stay exact.
    """

    def __init__(self, generator: np.random.Generator) -> None:
        self.generator = generator

    def randbelow(self, n: int) -> int:
        if n <= _UINT64_LIMIT:
            return int(self.generator.integers(0, n, dtype=np.uint64, endpoint=False))
        digits = (n - 1).bit_length() // 64 + 1
        span = _UINT64_LIMIT**digits
        limit = span - span % n
        while True:
            value = 0
            for _ in range(digits):
                value = (value << 64) | int(
                    self.generator.integers(0, _UINT64_LIMIT, dtype=np.uint64)
                )
            if value < limit:
                return value % n

    def randbelow_array(self, n: int, shape: tuple[int, ...]) -> np.ndarray:
        """An array of independent ``randbelow(n)`` draws, ``n <= 2^64``."""
        return np.asarray(self.generator.integers(0, n, size=shape, dtype=np.uint64))


def random_source(rng: object) -> RandomSource:
    """The :class:`RandomSource` behind an ``rng`` argument (see the module docstring)."""
    if rng is None:
        return SystemRandomSource()
    if isinstance(rng, np.random.Generator):
        return GeneratorSource(rng)
    if isinstance(rng, random.Random):
        # Covers secrets.SystemRandom(), whose bounded draws are exact (rejection).
        return _RandomAdapter(rng)
    if callable(getattr(rng, "randbelow", None)):
        return rng  # type: ignore[return-value]
    raise DPEngineError(
        "rng must have a randbelow(n) method or be a random.Random or a "
        f"numpy.random.Generator, got {rng!r}",
        reason=Reason.INVALID_TYPE,
        field="rng",
    )


def uniform_below(source: RandomSource, n: int, shape: tuple[int, ...]) -> np.ndarray:
    """A uint64 array of independent uniform draws below ``n`` (``1 <= n <= 2^64``).

    Vectorised when the source offers ``randbelow_array`` (NumPy generators), one
    ``randbelow`` call per element otherwise.
    """
    bulk = getattr(source, "randbelow_array", None)
    if bulk is not None:
        return bulk(n, shape)
    count = int(np.prod(shape, dtype=np.int64))
    values = np.fromiter((source.randbelow(n) for _ in range(count)), np.uint64, count=count)
    return values.reshape(shape)
