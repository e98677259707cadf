"""One random-source protocol for every sampler: what random_source accepts and how."""

import random
import secrets

import numpy as np
import pytest

from dpengine import (
    CLASSIC,
    DPEngineError,
    RandomSource,
    Reason,
    SeededRandomSource,
    SystemRandomSource,
    random_source,
    randomize,
    sample_discrete_laplace,
)
from dpengine.randomness import GeneratorSource, uniform_below


class Counter:
    """randbelow(n) = 0, 1, 2, ... modulo n."""

    def __init__(self):
        self.calls = 0

    def randbelow(self, n):
        self.calls += 1
        return (self.calls - 1) % n


def test_every_accepted_rng_becomes_a_random_source():
    assert isinstance(random_source(None), SystemRandomSource)
    assert isinstance(random_source(np.random.default_rng(1)), GeneratorSource)
    for rng in (SeededRandomSource(1), random.Random(1), secrets.SystemRandom(), Counter()):
        source = random_source(rng)
        assert isinstance(source, RandomSource)
        assert 0 <= source.randbelow(10) < 10


def test_anything_else_is_refused_with_a_reason():
    with pytest.raises(DPEngineError) as refused:
        random_source(42)
    assert (refused.value.reason, refused.value.field) == (Reason.INVALID_TYPE, "rng")


def test_the_same_protocol_drives_randomized_response_and_the_mechanisms():
    counter = Counter()
    reports = randomize(np.array([True, True, True, True]), CLASSIC, counter)
    # Draws 0, 1, 2, 3 below D = 4 against a = 3/4: yes, yes, yes, no.
    assert reports.tolist() == [True, True, True, False]
    assert counter.calls == 4
    sample_discrete_laplace(2, counter)
    assert counter.calls > 4


def test_generator_source_is_uniform_beyond_64_bits():
    # A bound of 2^70 + 1 needs two 64-bit digits and rejection; 4000 draws of the top bit
    # (P = 2^69 / (2^70 + 1), about 1/2) within 4.5 standard errors.
    source = GeneratorSource(np.random.default_rng(5))
    bound = 2**70 + 1
    draws = [source.randbelow(bound) for _ in range(4000)]
    assert all(0 <= value < bound for value in draws)
    share = sum(value >= 2**69 for value in draws) / 4000
    assert abs(share - 0.5) < 4.5 * (0.25 / 4000) ** 0.5


def test_uniform_below_falls_back_to_one_call_per_element():
    counter = Counter()
    values = uniform_below(counter, 3, (2, 3))
    assert values.tolist() == [[0, 1, 2], [0, 1, 2]]
    assert values.dtype == np.uint64
