import math
import random
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from dpengine import (
    CLASSIC,
    ForcedResponse,
    SeededRandomSource,
    bernoulli_exp,
    discrete_laplace_pmf,
    exponential_mechanism,
    geometric_mechanism,
    laplace_mechanism,
    sample_discrete_laplace,
)

# --- randomized response: the local guarantee, checked with exact rationals --------


@pytest.mark.parametrize(
    ("p_truth", "p_forced_yes"),
    [(Fraction(1, 2), Fraction(1, 2)), (Fraction(1, 4), Fraction(1, 2)), (0.6, 0.3)],
)
def test_randomized_response_likelihood_ratios_are_bounded_by_e_to_the_epsilon(
    p_truth, p_forced_yes
):
    design = ForcedResponse(p_truth=p_truth, p_forced_yes=p_forced_yes)
    a, b = design.exact_p_yes_given_yes, design.exact_p_yes_given_no
    ratios = [a / b, b / a, (1 - a) / (1 - b), (1 - b) / (1 - a)]
    bound = design.likelihood_ratio
    assert all(ratio <= bound for ratio in ratios)
    assert max(ratios) == bound
    assert math.exp(design.epsilon) == pytest.approx(float(bound), rel=1e-15)


def test_classic_randomized_response_is_exactly_ln_3_private():
    a, b = CLASSIC.exact_p_yes_given_yes, CLASSIC.exact_p_yes_given_no
    assert a / b == 3
    assert (1 - b) / (1 - a) == 3


# --- exact samplers --------------------------------------------------------------


@pytest.mark.parametrize("gamma", [Fraction(0), Fraction(1, 3), Fraction(1), Fraction(5, 2)])
@pytest.mark.slow
def test_bernoulli_exp_is_true_with_probability_exp_minus_gamma(gamma):
    # 40 000 draws: standard error below 0.0025; tolerance 4.5 standard errors.
    source = SeededRandomSource(11)
    draws = 40_000
    share = sum(bernoulli_exp(gamma, source) for _ in range(draws)) / draws
    expected = math.exp(-gamma)
    assert abs(share - expected) <= 4.5 * math.sqrt(expected * (1 - expected) / draws)


def test_bernoulli_exp_rejects_negative_gamma():
    with pytest.raises(ValueError, match="gamma must be non-negative"):
        bernoulli_exp(Fraction(-1, 2), SeededRandomSource(1))


def test_discrete_laplace_pmf_sums_to_one_and_decays_geometrically():
    z = np.arange(-200, 201)
    pmf = discrete_laplace_pmf(z, scale=1.5)
    assert pmf.sum() == pytest.approx(1.0, abs=1e-12)
    assert pmf[201] / pmf[200] == pytest.approx(math.exp(-1 / 1.5))


@pytest.mark.slow  # 100 000 exact draws: ~3 s
def test_discrete_laplace_sampler_matches_its_pmf():
    # 100 000 seeded draws at scale 3/2; buckets |z| <= 8 plus two tails.
    # A correct sampler gives a chi-square p-value that is uniform, so the threshold
    # 1e-4 fails a correct sampler 1 time in 10 000 seeds; total variation below 0.01.
    source = SeededRandomSource(2020)
    scale = Fraction(3, 2)
    draws = 100_000
    counts = Counter(sample_discrete_laplace(scale, source) for _ in range(draws))
    inner = np.arange(-8, 9)
    observed = np.array(
        [sum(c for z, c in counts.items() if z < -8)]
        + [counts[int(z)] for z in inner]
        + [sum(c for z, c in counts.items() if z > 8)]
    )
    inner_pmf = discrete_laplace_pmf(inner, scale=1.5)
    tail = (1 - inner_pmf.sum()) / 2
    expected = np.concatenate([[tail], inner_pmf, [tail]]) * draws
    assert stats.chisquare(observed, expected).pvalue > 1e-4
    assert 0.5 * np.abs(observed / draws - expected / draws).sum() < 0.01


@pytest.mark.slow
def test_geometric_mechanism_frequency_ratios_stay_within_e_to_the_epsilon():
    # The epsilon-DP inequality P(out | value 0) <= e^eps P(out | value 1), measured.
    # For the discrete Laplace the bound is attained at every output, so every
    # well-populated bucket (>= 2000 of 200 000 draws, relative error < 3 % per bucket)
    # must show a ratio within 10 % of e^eps or e^-eps: too little noise fails the
    # upper bound, too much fails the lower one.
    epsilon = Fraction(1, 2)
    bound = math.exp(epsilon)
    draws = 200_000
    source = SeededRandomSource(1965)
    at_zero = Counter(geometric_mechanism(0, epsilon=epsilon, rng=source) for _ in range(draws))
    at_one = Counter(geometric_mechanism(1, epsilon=epsilon, rng=source) for _ in range(draws))
    buckets = [z for z in at_zero if at_zero[z] >= 2000 and at_one[z] >= 2000]
    assert len(buckets) >= 8
    for z in buckets:
        ratio = at_zero[z] / at_one[z]
        assert 1 / (bound * 1.1) <= ratio <= bound * 1.1
        expected = bound if z <= 0 else 1 / bound
        assert ratio == pytest.approx(expected, rel=0.1)


@pytest.mark.slow
def test_geometric_mechanism_noise_scale_follows_sensitivity_over_epsilon():
    # Variance of the discrete Laplace with q = e^(-eps / sensitivity) is 2q / (1 - q)^2.
    source = SeededRandomSource(5)
    samples = np.array(
        [geometric_mechanism(100, sensitivity=3, epsilon=1, rng=source) for _ in range(30_000)]
    )
    q = math.exp(-1 / 3)
    variance = 2 * q / (1 - q) ** 2
    assert abs(samples.mean() - 100) < 4.5 * math.sqrt(variance / 30_000)
    assert samples.var() == pytest.approx(variance, rel=0.05)


def test_geometric_mechanism_defaults_to_the_system_csprng():
    assert isinstance(geometric_mechanism(10, epsilon=1), int)
    assert isinstance(geometric_mechanism(10, epsilon=1, rng=random.SystemRandom()), int)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"value": 1.5, "epsilon": 1}, r"^value must be an integer, got 1\.5$"),
        ({"value": 1, "epsilon": 0}, r"^epsilon must be a positive finite number, got 0$"),
        ({"value": 1, "epsilon": math.inf}, r"^epsilon must be a positive finite number"),
        ({"value": 1, "epsilon": 1, "sensitivity": 0}, r"^sensitivity must be a positive"),
        ({"value": 1, "epsilon": 1, "sensitivity": 0.5}, r"^sensitivity must be a positive"),
        ({"value": 1, "epsilon": 1, "rng": object()}, r"^rng must have a randbelow"),
    ],
)
def test_geometric_mechanism_rejects_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        geometric_mechanism(**kwargs)


def test_laplace_mechanism_outputs_lie_on_the_granularity_grid():
    source = SeededRandomSource(9)
    for _ in range(200):
        output = laplace_mechanism(3.14159, sensitivity=1, epsilon=1, granularity=0.25, rng=source)
        assert (Fraction(output) / Fraction(1, 4)).denominator == 1


def test_laplace_mechanism_default_grid_is_a_1024th_of_the_sensitivity():
    output = laplace_mechanism(0.1, sensitivity=2, epsilon=1, rng=SeededRandomSource(3))
    assert (Fraction(output) / Fraction(2, 1024)).denominator == 1


@pytest.mark.slow
def test_laplace_mechanism_is_centred_with_laplace_like_spread():
    # Laplace(b = 2) has variance 2 b^2 = 8; the fine grid changes that by < 1 %.
    source = SeededRandomSource(12)
    samples = np.array(
        [laplace_mechanism(10.3, sensitivity=1, epsilon=0.5, rng=source) for _ in range(20_000)]
    )
    assert abs(samples.mean() - 10.3) < 4.5 * math.sqrt(8 / 20_000)
    assert samples.var() == pytest.approx(8, rel=0.06)


@pytest.mark.slow  # 60 000 exact draws: ~2.5 s
def test_laplace_mechanism_charges_grid_rounding_to_the_sensitivity():
    # At granularity 0.3, the neighbouring values 0.14 and 1.14 round to 0 and 4 grid
    # steps, one more than sensitivity / granularity = 3.33 suggests. The mechanism must
    # use ceil(1 / 0.3) = 4 steps of sensitivity, so that for every output at or below 0
    # the likelihood ratio is exactly e^eps; charging only 3 steps would make it e^(4/3).
    # About 17 000 and 6 000 of the 30 000 draws land there: relative error under 2 %.
    epsilon = Fraction(1)
    source = SeededRandomSource(77)
    draws = 30_000
    kwargs = {"sensitivity": 1, "epsilon": epsilon, "granularity": Fraction(3, 10)}
    low_at_lower = sum(laplace_mechanism(0.14, rng=source, **kwargs) <= 0 for _ in range(draws))
    low_at_upper = sum(laplace_mechanism(1.14, rng=source, **kwargs) <= 0 for _ in range(draws))
    assert low_at_lower / low_at_upper == pytest.approx(math.exp(epsilon), rel=0.06)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"value": math.nan}, r"^value must be a finite number, got nan$"),
        ({"value": 1.0, "sensitivity": -1}, r"^sensitivity must be a positive finite"),
        ({"value": 1.0, "granularity": 0}, r"^granularity must be a positive finite"),
    ],
)
def test_laplace_mechanism_rejects_bad_arguments(kwargs, message):
    arguments = {"sensitivity": 1, "epsilon": 1, **kwargs}
    with pytest.raises(ValueError, match=message):
        laplace_mechanism(**arguments)


@pytest.mark.slow  # 30 000 exact draws: ~1.5 s
def test_exponential_mechanism_chooses_with_probability_proportional_to_exp_eps_u_over_2():
    # scores 0, 1, 3 with epsilon 2 and sensitivity 1: weights e^0, e^1, e^3.
    source = SeededRandomSource(1007)
    draws = 30_000
    counts = Counter(
        exponential_mechanism(["a", "b", "c"], [0, 1, 3], sensitivity=1, epsilon=2, rng=source)
        for _ in range(draws)
    )
    weights = np.exp([0.0, 1.0, 3.0])
    expected = weights / weights.sum() * draws
    observed = [counts["a"], counts["b"], counts["c"]]
    assert stats.chisquare(observed, expected).pvalue > 1e-4


def test_exponential_mechanism_with_one_candidate_returns_it():
    assert exponential_mechanism(["only"], [5.0], sensitivity=1, epsilon=1) == "only"


def test_exponential_mechanism_rejects_mismatched_or_invalid_scores():
    with pytest.raises(ValueError, match="equal length"):
        exponential_mechanism(["a", "b"], [1.0], sensitivity=1, epsilon=1)
    with pytest.raises(ValueError, match=r"scores\[1\] must be a finite number, got nan"):
        exponential_mechanism(["a", "b"], [1.0, math.nan], sensitivity=1, epsilon=1)
