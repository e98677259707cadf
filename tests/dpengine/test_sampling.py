from fractions import Fraction

import numpy as np
import pytest

from dpengine import CLASSIC, ForcedResponse, bernoulli, randomize, secure_rng, simulate_reports


class EveryValueOnce:
    """A fake integer source that returns 0, 1, ..., high - 1, 0, 1, ... in turn.

    Feeding it exactly ``high`` draws per respondent group enumerates every bit pattern
    once, so report frequencies must equal the design probabilities exactly.
    """

    def __init__(self):
        self.highs = []

        self.next = 0

    def randbelow(self, n):
        if not self.highs or self.highs[-1] != n:
            self.highs.append(n)
        value = self.next % n
        self.next += 1
        return value


def _yes_share_over_all_patterns(design, truth):
    source = EveryValueOnce()
    # One call discovers the denominator the sampler uses; the next enumerates it.
    randomize(np.array([truth]), design, source)
    denominator = source.highs[0]
    reports = randomize(np.full(denominator, truth), design, source)
    return denominator, Fraction(int(reports.sum()), denominator)


def test_classic_coins_use_two_random_bits_and_give_exactly_three_quarters_and_one_quarter():
    assert _yes_share_over_all_patterns(CLASSIC, True) == (4, Fraction(3, 4))
    assert _yes_share_over_all_patterns(CLASSIC, False) == (4, Fraction(1, 4))


def test_dyadic_design_with_ten_bit_probabilities_is_exact():
    design = ForcedResponse(p_truth=Fraction(5, 8), p_forced_yes=Fraction(301, 1024))
    denominator, share_yes = _yes_share_over_all_patterns(design, True)
    assert denominator == 2**13  # a = 5/8 + 3/8 * 301/1024 needs 13 bits
    assert share_yes == design.exact_p_yes_given_yes
    assert _yes_share_over_all_patterns(design, False)[1] == design.exact_p_yes_given_no


def test_decimal_design_is_exact_too_because_draws_are_uniform_below_the_denominator():
    design = ForcedResponse(p_truth=0.6, p_forced_yes=0.3)
    assert _yes_share_over_all_patterns(design, True) == (25, Fraction(18, 25))
    assert _yes_share_over_all_patterns(design, False) == (25, Fraction(3, 25))


def test_non_dyadic_design_matches_its_probabilities_statistically():
    # 200 000 draws per truth: standard error at most 0.0012, tolerance 4.5 of them.
    design = ForcedResponse.for_epsilon(1.0)
    rng = np.random.default_rng(7)
    for truth, expected in ((True, design.p_yes_given_yes), (False, design.p_yes_given_no)):
        share = randomize(np.full(200_000, truth), design, rng).mean()
        assert abs(share - expected) < 4.5 * np.sqrt(expected * (1 - expected) / 200_000)


def test_design_beyond_64_bit_denominators_still_samples_its_probabilities():
    design = ForcedResponse(p_truth=Fraction(1, 2) + Fraction(1, 3**42), p_forced_yes=0.5)
    assert design.exact_p_yes_given_yes.denominator > 2**64
    rng = np.random.default_rng(8)
    share = randomize(np.full(200_000, True), design, rng).mean()
    assert abs(share - 0.75) < 4.5 * np.sqrt(0.75 * 0.25 / 200_000)


def test_randomize_keeps_the_shape_and_returns_a_bool_for_a_bool():
    rng = np.random.default_rng(1)
    assert isinstance(randomize(True, CLASSIC, rng), bool)
    assert randomize(np.zeros((3, 5), dtype=bool), CLASSIC, rng).shape == (3, 5)


def test_randomize_is_reproducible_with_a_seeded_generator():
    truths = np.arange(100) % 3 == 0
    first = randomize(truths, CLASSIC, np.random.default_rng(42))
    second = randomize(truths, CLASSIC, np.random.default_rng(42))
    assert np.array_equal(first, second)


def test_randomize_rejects_answers_that_are_not_booleans():
    with pytest.raises(ValueError, match="truth must be a bool"):
        randomize(np.array([0, 1]), CLASSIC, np.random.default_rng(1))


def test_bernoulli_extremes_are_deterministic():
    rng = np.random.default_rng(3)
    assert not bernoulli(0, size=1000, rng=rng).any()
    assert bernoulli(1, size=1000, rng=rng).all()


def test_bernoulli_rejects_probabilities_outside_the_unit_interval():
    with pytest.raises(ValueError, match=r"probability must be in \[0, 1\], got 1\.2"):
        bernoulli(1.2, size=3, rng=np.random.default_rng(1))


def test_simulated_reports_have_the_design_yes_rate():
    # lambda = 1/4 + 1/2 * 0.3 = 0.4; 100 000 reports, standard error 0.0015.
    reports = simulate_reports(p=0.3, n=100_000, design=CLASSIC, rng=np.random.default_rng(5))
    assert reports.dtype == bool
    assert abs(reports.mean() - 0.4) < 4.5 * np.sqrt(0.4 * 0.6 / 100_000)


def test_simulate_reports_accepts_positional_arguments_as_the_app_calls_it():
    first = simulate_reports(0.3, 50, CLASSIC, np.random.default_rng(6))
    second = simulate_reports(p=0.3, n=50, design=CLASSIC, rng=np.random.default_rng(6))
    assert np.array_equal(first, second)


def test_simulating_no_respondents_gives_no_reports():
    reports = simulate_reports(p=0.3, n=0, design=CLASSIC, rng=np.random.default_rng(5))
    assert reports.shape == (0,)


def test_secure_rng_is_seeded_unpredictably():
    assert isinstance(secure_rng(), np.random.Generator)
    assert secure_rng().integers(0, 2**62) != secure_rng().integers(0, 2**62)
