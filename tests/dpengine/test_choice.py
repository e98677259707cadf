"""k-ary randomized response: probabilities, exact sampling, unbiased shares, joint coverage."""

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from dpengine import (
    DPEngineError,
    KaryRandomizedResponse,
    Reason,
    SeededRandomSource,
    estimate_choice,
    project_to_simplex,
    randomize_choice,
    required_sample_size_choice,
    z_value,
)
from dpengine.simulation import simulate_choice_reports

LN3_FOUR = KaryRandomizedResponse(k=4, odds=3)  # p = 3 / (3 + 3) = 1/2, q = 1/6
EPS1_THREE = KaryRandomizedResponse(k=3, epsilon=1)  # p = e / (e + 2), q = 1 / (e + 2)


def test_keep_and_other_probabilities_follow_e_eps_over_e_eps_plus_k_minus_1():
    assert LN3_FOUR.keep_probability == 0.5
    assert LN3_FOUR.other_probability == pytest.approx(1 / 6, rel=1e-15)
    assert LN3_FOUR.epsilon == math.log(3)
    assert EPS1_THREE.keep_probability == pytest.approx(math.e / (math.e + 2), rel=1e-15)
    ratio = EPS1_THREE.keep_probability / EPS1_THREE.other_probability
    assert ratio == pytest.approx(math.e, rel=1e-14)
    assert EPS1_THREE.keep_probability + 2 * EPS1_THREE.other_probability == pytest.approx(1)
    assert LN3_FOUR.information == pytest.approx(1 / 3, rel=1e-15)


@pytest.mark.parametrize(
    ("kwargs", "reason", "field"),
    [
        ({"k": 1, "epsilon": 1}, Reason.OUT_OF_RANGE, "k"),
        ({"k": 2.0, "epsilon": 1}, Reason.INVALID_TYPE, "k"),
        ({"k": 3}, Reason.INVALID_TYPE, "epsilon"),
        ({"k": 3, "epsilon": 1, "odds": 3}, Reason.INVALID_TYPE, "epsilon"),
        ({"k": 3, "epsilon": 0}, Reason.OUT_OF_RANGE, "epsilon"),
        ({"k": 3, "epsilon": math.inf}, Reason.OUT_OF_RANGE, "epsilon"),
        ({"k": 3, "odds": 1}, Reason.OUT_OF_RANGE, "odds"),
    ],
)
def test_invalid_mechanisms_are_refused_with_a_reason(kwargs, reason, field):
    with pytest.raises(DPEngineError) as refused:
        KaryRandomizedResponse(**kwargs)
    assert (refused.value.reason, refused.value.field) == (reason, field)


def test_true_option_outside_the_range_is_refused():
    with pytest.raises(DPEngineError) as refused:
        randomize_choice(4, LN3_FOUR, SeededRandomSource(1))
    assert (refused.value.reason, refused.value.field) == (Reason.OUT_OF_RANGE, "truth")


class _NeedMore(Exception):
    pass


class _Scripted:
    """Answers ``randbelow`` from a scripted prefix; asks for one more draw when it runs out."""

    def __init__(self, prefix):
        self.prefix, self.used, self.asked = prefix, 0, None

    def randbelow(self, n):
        if self.used == len(self.prefix):
            self.asked = n
            raise _NeedMore
        value = self.prefix[self.used][0]
        self.used += 1
        return value


def _exact_distribution(experiment, *, max_depth):
    """Outcome probabilities of ``experiment(source)`` over every sequence of draws.

    Every ``randbelow(n)`` answer is branched on with probability 1/n; sequences longer
    than ``max_depth`` draws are abandoned and their total mass returned as ``unresolved``.
    """
    outcomes, unresolved = {}, Fraction(0)
    stack = [()]
    while stack:
        prefix = stack.pop()
        source = _Scripted(prefix)
        weight = math.prod((Fraction(1, n) for _, n in prefix), start=Fraction(1))
        try:
            outcome = experiment(source)
        except _NeedMore:
            if len(prefix) >= max_depth:
                unresolved += weight
            else:
                stack.extend((*prefix, (value, source.asked)) for value in range(source.asked))
            continue
        outcomes[outcome] = outcomes.get(outcome, Fraction(0)) + weight
    return outcomes, unresolved


def test_rational_odds_sampler_has_exactly_the_k_ary_distribution():
    # odds = 3, k = 4: every round draws randbelow(4) and, for another option,
    # randbelow(3); a round ends with probability exactly 1/2, so after 6 draws (3 rounds)
    # exactly 2^-3 of the mass is unresolved, and every completed round is symmetric.
    for truth in range(4):
        outcomes, unresolved = _exact_distribution(
            lambda source, truth=truth: randomize_choice(truth, LN3_FOUR, source), max_depth=6
        )
        assert unresolved == Fraction(1, 2**3)
        total = sum(outcomes.values())
        assert total + unresolved == 1
        # The resolved mass is split exactly in the ratio 3 : 1 : 1 : 1.
        for option in range(4):
            expected = Fraction(3 if option == truth else 1, 6) * total
            assert outcomes[option] == expected


@pytest.mark.parametrize("mechanism", [LN3_FOUR, EPS1_THREE])
@pytest.mark.slow
def test_sampled_reports_pass_a_chi_square_test_against_p_and_q(mechanism):
    # 6000 seeded draws per truth; the test fails if the chi-square p-value is below 0.001.
    source = SeededRandomSource(20261124)
    for truth in range(mechanism.k):
        draws = [randomize_choice(truth, mechanism, source) for _ in range(6000)]
        observed = np.bincount(draws, minlength=mechanism.k)
        expected = np.full(mechanism.k, mechanism.other_probability * 6000)
        expected[truth] = mechanism.keep_probability * 6000
        assert stats.chisquare(observed, expected).pvalue > 0.001


def test_shares_are_exactly_unbiased_and_the_covariance_formula_is_exact():
    # Enumerate the multinomial distribution of reports for k = 3, n = 12.
    mechanism, n = EPS1_THREE, 12
    truth = np.array([0.6, 0.3, 0.1])
    p, q = mechanism.keep_probability, mechanism.other_probability
    rates = q + (p - q) * truth
    mean = np.zeros(3)
    second = np.zeros((3, 3))
    for first in range(n + 1):
        for second_count in range(n + 1 - first):
            counts = (first, second_count, n - first - second_count)
            weight = stats.multinomial.pmf(counts, n, rates)
            shares = estimate_choice(counts=counts, mechanism=mechanism).shares
            mean += weight * shares
            second += weight * np.outer(shares, shares)
    covariance = second - np.outer(mean, mean)
    assert mean == pytest.approx(truth, abs=1e-12)
    expected = (np.diag(rates) - np.outer(rates, rates)) / (n * (p - q) ** 2)
    assert covariance == pytest.approx(expected, abs=1e-12)


def test_estimate_reports_shares_summing_to_one_and_plug_in_covariance():
    result = estimate_choice(counts=[250, 100, 80, 70], mechanism=LN3_FOUR, method="exact")
    # By hand: (0.5 - 1/6) / (1/3) = 1, (0.2 - 1/6) * 3 = 0.1, 0.16 -> -0.02, 0.14 -> -0.08.
    assert result.shares == pytest.approx([1.0, 0.1, -0.02, -0.08], abs=1e-12)
    assert result.clamped == pytest.approx([1.0, 0.1, 0.0, 0.0])
    assert result.shares.sum() == pytest.approx(1.0)
    assert result.std_errors[1] == pytest.approx(math.sqrt(0.2 * 0.8 / 500) * 3, rel=1e-12)
    assert result.per_option_confidence == pytest.approx(1 - 0.05 / 4)
    assert np.all(result.ci_low <= result.clamped) and np.all(result.clamped <= result.ci_high)


def test_no_reports_is_a_valid_state_with_uninformative_intervals():
    result = estimate_choice(counts=[0, 0, 0], mechanism=EPS1_THREE)
    assert not result.has_data and result.shares is None
    assert list(result.ci_low) == [0, 0, 0] and list(result.ci_high) == [1, 1, 1]


def test_counts_must_match_the_options():
    with pytest.raises(DPEngineError) as refused:
        estimate_choice(counts=[1, 2], mechanism=EPS1_THREE)
    assert (refused.value.reason, refused.value.field) == (Reason.SHAPE_MISMATCH, "counts")


@pytest.mark.parametrize(("method", "floor"), [("wilson", 0.935), ("exact", 0.945)])
@pytest.mark.slow
def test_bonferroni_intervals_cover_all_shares_simultaneously(method, floor):
    # 2000 seeded survey replications of n = 400 reports (counts drawn from the exact
    # multinomial of the reports). Joint coverage has simulation SE ~0.005; Wilson may
    # dip slightly below 95 % (floor 3 SE below), exact must not (floor 1 SE below).
    mechanism, n, replications = LN3_FOUR, 400, 2000
    truth = np.array([0.5, 0.3, 0.15, 0.05])
    rates = mechanism.other_probability + mechanism.information * truth
    rng = np.random.default_rng(41)
    covered = 0
    for counts in rng.multinomial(n, rates, size=replications):
        result = estimate_choice(counts=counts.tolist(), mechanism=mechanism, method=method)
        covered += bool(np.all((result.ci_low <= truth) & (truth <= result.ci_high)))
    assert covered / replications >= floor


def test_end_to_end_exact_draws_recover_the_true_shares():
    # 3000 respondents through the exact sampler; each share within 4 of its SE.
    truth = [0] * 1500 + [1] * 900 + [2] * 450 + [3] * 150
    source = SeededRandomSource(7)
    reports = [randomize_choice(option, LN3_FOUR, source) for option in truth]
    result = estimate_choice(counts=np.bincount(reports, minlength=4).tolist(), mechanism=LN3_FOUR)
    assert np.all(np.abs(result.shares - [0.5, 0.3, 0.15, 0.05]) < 4 * result.std_errors)


def test_sample_size_gives_the_margin_for_every_option_at_the_worst_case():
    n = required_sample_size_choice(mechanism=LN3_FOUR, margin=0.05)
    z = z_value(1 - 0.05 / 4)
    # lambda ranges over [1/6, 1/2]: the worst case is lambda = 1/2.
    assert n == math.ceil(z * z * 0.25 / (0.05**2 * (1 / 3) ** 2))
    half_width = z * math.sqrt(0.25 / n) / LN3_FOUR.information
    assert half_width <= 0.05
    half_width_one_fewer = z * math.sqrt(0.25 / (n - 1)) / LN3_FOUR.information
    assert half_width_one_fewer > 0.05


def test_more_options_cost_more_respondents_at_the_same_epsilon():
    sizes = [
        required_sample_size_choice(mechanism=KaryRandomizedResponse(k=k, odds=3), margin=0.05)
        for k in (2, 4, 8)
    ]
    assert sizes == sorted(sizes) and len(set(sizes)) == 3


# --- acceptance: exact enumeration of the multinomial ------------------------------------------


def _compositions(n, k):
    """Every vector of k non-negative counts summing to n (stars and bars)."""
    rows = []
    for cuts in itertools.combinations(range(n + k - 1), k - 1):
        edges = (-1, *cuts, n + k - 1)
        rows.append([right - left - 1 for left, right in itertools.pairwise(edges)])
    return np.array(rows)


def test_compositions_enumerate_the_multinomial_support():
    rows = _compositions(5, 3)
    assert len(rows) == math.comb(7, 2) and np.all(rows.sum(axis=1) == 5)
    assert len({tuple(row) for row in rows}) == len(rows)


@pytest.mark.parametrize(
    ("mechanism", "n", "truth"),
    [
        (KaryRandomizedResponse(k=2, odds=3), 30, [0.2, 0.8]),
        (LN3_FOUR, 10, [0.5, 0.3, 0.15, 0.05]),
        (KaryRandomizedResponse(k=5, epsilon=0.5), 7, [0.0, 0.1, 0.2, 0.3, 0.4]),
        (KaryRandomizedResponse(k=3, epsilon=2), 15, [1.0, 0.0, 0.0]),
    ],
    ids=["k2", "k4", "k5", "k3-point-mass"],
)
def test_shares_are_exactly_unbiased_with_the_covariance_formula_for_several_k(mechanism, n, truth):
    counts = _compositions(n, mechanism.k)
    truth = np.array(truth)
    p, q = mechanism.keep_probability, mechanism.other_probability
    rates = q + (p - q) * truth
    pmf = stats.multinomial.pmf(counts, n, rates)
    assert pmf.sum() == pytest.approx(1.0, abs=1e-12)
    shares = np.array(
        [estimate_choice(counts=row.tolist(), mechanism=mechanism).shares for row in counts]
    )
    mean = pmf @ shares
    centred = shares - truth
    covariance = (centred * pmf[:, np.newaxis]).T @ centred
    assert mean == pytest.approx(truth, abs=1e-12)
    expected = (np.diag(rates) - np.outer(rates, rates)) / (n * (p - q) ** 2)
    assert covariance == pytest.approx(expected, abs=1e-12)


def _joint_coverage(mechanism, n, truths, method):
    """P(every option's Bonferroni interval covers its true share), summed exactly over the
    multinomial, with the intervals exactly as estimate_choice reports them."""
    counts = _compositions(n, mechanism.k)
    results = [
        estimate_choice(counts=row.tolist(), mechanism=mechanism, method=method) for row in counts
    ]
    low = np.array([result.ci_low for result in results])
    high = np.array([result.ci_high for result in results])
    p, q = mechanism.keep_probability, mechanism.other_probability
    coverage = []
    for truth in truths:
        pmf = stats.multinomial.pmf(counts, n, q + (p - q) * truth)
        coverage.append(pmf @ np.all((low <= truth) & (truth <= high), axis=1))
    return np.array(coverage)


@pytest.mark.parametrize(
    ("mechanism", "n"), [(EPS1_THREE, 60), (LN3_FOUR, 24)], ids=["k3-n60", "k4-n24"]
)
@pytest.mark.parametrize(
    ("method", "floor"), [("exact", 0.95), ("wilson", 0.93), ("jeffreys", 0.93)]
)
@pytest.mark.slow
def test_bonferroni_joint_coverage_computed_exactly(mechanism, n, method, floor):
    # Joint coverage over the exact multinomial of the counts, at the uniform share, a point
    # mass and 25 shares drawn from a flat Dirichlet (seed 17). Acceptance: Clopper–Pearson
    # never below 95 % (the union bound guarantees it); Wilson and Jeffreys at least 0.93.
    # Reference run (minimum / mean over the 27 shares): k = 3, n = 60: exact 0.963 / 0.969,
    # Wilson 0.949 / 0.957, Jeffreys 0.949 / 0.956, Wald 0.917 / 0.936; k = 4, n = 24: exact
    # 0.968 / 0.977, Wilson 0.941 / 0.955, Jeffreys 0.938 / 0.952, Wald 0.817 / 0.856.
    truths = [np.full(mechanism.k, 1 / mechanism.k), np.eye(mechanism.k)[0]]
    truths += list(np.random.default_rng(17).dirichlet(np.ones(mechanism.k), size=25))
    coverage = _joint_coverage(mechanism, n, truths, method)
    assert coverage.min() >= floor - 1e-12, coverage.min()


@pytest.mark.parametrize(
    ("method", "floor"), [("wilson", 0.935), ("jeffreys", 0.935), ("exact", 0.945)]
)
@pytest.mark.slow
def test_bonferroni_intervals_cover_eight_shares_simultaneously(method, floor):
    # k = 8 at odds 3 (eps = ln 3), n = 1000, one option with true share 0: 2000 seeded
    # replications (seed 1724, counts from the exact multinomial of the reports), simulation
    # SE ~0.005. Floors as for k = 4 above. Reference run: 0.954 / 0.952 / 0.959.
    mechanism, n, replications = KaryRandomizedResponse(k=8, odds=3), 1000, 2000
    truth = np.array([0.3, 0.2, 0.15, 0.1, 0.1, 0.1, 0.05, 0.0])
    rates = mechanism.other_probability + mechanism.information * truth
    rng = np.random.default_rng(1724)
    covered = 0
    for counts in rng.multinomial(n, rates, size=replications):
        result = estimate_choice(counts=counts.tolist(), mechanism=mechanism, method=method)
        covered += bool(np.all((result.ci_low <= truth) & (truth <= result.ci_high)))
    assert covered / replications >= floor


# --- Consistent shares: the unbiased shares projected onto the probability simplex ---------


def projection_by_bisection(values):
    """An independent oracle: the ``tau`` with ``sum(max(v - tau, 0)) = 1`` found by bisection
    (the projection is ``max(v - tau, 0)``; Duchi et al. 2008, Lemma 1), to 1e-15."""
    low, high = min(values) - 1.0, max(values)
    for _ in range(200):
        middle = (low + high) / 2
        if np.maximum(values - middle, 0).sum() > 1:
            low = middle
        else:
            high = middle
    return np.maximum(values - (low + high) / 2, 0)


@pytest.mark.slow
def test_projection_matches_the_bisection_oracle_and_lies_on_the_simplex():
    rng = np.random.default_rng(23)
    for _ in range(2000):
        k = int(rng.integers(2, 10))
        values = rng.normal(1 / k, rng.choice([0.05, 0.3, 1.0]), size=k)
        values += (1 - values.sum()) / k  # unbiased shares sum to 1, as estimate_choice's do
        projected = project_to_simplex(values)
        assert projected.min() >= 0
        assert abs(projected.sum() - 1) <= 1e-12
        assert projected == pytest.approx(projection_by_bisection(values), abs=1e-12)


def test_projection_is_never_farther_from_any_true_shares_than_the_unbiased_ones():
    # A projection onto a convex set moves every point closer to each point of the set.
    rng = np.random.default_rng(4)
    for _ in range(2000):
        k = int(rng.integers(2, 9))
        truth = rng.dirichlet(np.full(k, 0.5))
        values = truth + rng.normal(0, 0.3, size=k)
        values += (1 - values.sum()) / k
        projected = project_to_simplex(values)
        assert np.sum((projected - truth) ** 2) <= np.sum((values - truth) ** 2) + 1e-15


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ([0.2, 0.3, 0.5], [0.2, 0.3, 0.5]),  # already shares: unchanged
        ([-0.36, 0.32, 0.59, 0.45], [0.0, 0.20, 0.47, 0.33]),  # issue 23's -36/32/59/45 %
        ([1.5, -0.5], [1.0, 0.0]),
        ([0.0, 0.0, 1.0], [0.0, 0.0, 1.0]),
    ],
)
def test_projection_worked_examples(values, expected):
    # [-0.36, 0.32, 0.59, 0.45]: tau = (0.32 + 0.59 + 0.45 - 1) / 3 = 0.12.
    assert project_to_simplex(values) == pytest.approx(expected, abs=1e-12)


def test_projection_refuses_what_is_not_a_finite_vector():
    for bad in ([], [[0.5, 0.5]], [0.5, float("nan")]):
        with pytest.raises(DPEngineError) as error:
            project_to_simplex(bad)
        assert error.value.reason is Reason.SHAPE_MISMATCH


def test_consistent_shares_are_shares_and_lie_inside_the_interval_shown_with_them():
    rng = np.random.default_rng(11)
    for _ in range(500):
        mechanism = KaryRandomizedResponse(k=int(rng.integers(2, 9)), epsilon=rng.uniform(0.3, 3))
        counts = rng.multinomial(int(rng.integers(1, 60)), np.full(mechanism.k, 1 / mechanism.k))
        counts = np.where(rng.random(mechanism.k) < 0.3, 0, counts)  # some options never sent
        if counts.sum() == 0:
            continue
        method = str(rng.choice(["wilson", "exact", "wald", "jeffreys"]))
        est = estimate_choice(counts=counts.tolist(), mechanism=mechanism, method=method)
        assert est.consistent.min() >= 0 and abs(est.consistent.sum() - 1) <= 1e-12
        assert np.all(est.consistent_ci_low <= est.consistent)
        assert np.all(est.consistent <= est.consistent_ci_high)
        # The shown interval is the simultaneous one, widened only where needed.
        assert np.all(est.consistent_ci_low <= est.ci_low)
        assert np.all(est.consistent_ci_high >= est.ci_high)
        unchanged = ~est.widened
        assert np.array_equal(est.consistent_ci_low[unchanged], est.ci_low[unchanged])


def test_no_reports_have_no_consistent_shares_and_uninformative_intervals():
    est = estimate_choice(counts=[0, 0, 0], mechanism=EPS1_THREE)
    assert est.consistent is None
    assert list(est.consistent_ci_low) == [0, 0, 0] and list(est.consistent_ci_high) == [1, 1, 1]


TRUE_SHARES = {
    "uniform": lambda k: np.full(k, 1 / k),
    "skewed": lambda k: np.arange(k, 0, -1) / np.arange(k, 0, -1).sum(),
    "one option": lambda k: np.eye(k)[0],
    "half absent": lambda k: np.r_[np.ones(k - k // 2), np.zeros(k // 2)] / (k - k // 2),
}


@pytest.mark.parametrize("k", [3, 8])
@pytest.mark.parametrize("epsilon", [0.5, 2.2])
@pytest.mark.parametrize("n", [10, 50, 1000])
def test_consistent_shares_have_no_larger_squared_error_than_clamped_ones(k, epsilon, n):
    # Seeded simulated surveys, 200 per true share vector. Projection and clamping agree when
    # no share is clipped; otherwise the projection also pulls the other shares back to a sum
    # of 1. Over the full grid (k 2-8, eps 0.5-2.2, n 10-1000, 300 surveys each) the ratio
    # of the two mean squared errors was at most 1 + 2e-15 (equal) and as low as 0.3.
    mechanism = KaryRandomizedResponse(k=k, epsilon=epsilon)
    rng = np.random.default_rng([k, int(epsilon * 10), n])
    for name, shares in TRUE_SHARES.items():
        truth = shares(k)
        reports = simulate_choice_reports(rng.choice(k, size=(200, n), p=truth), mechanism, rng)
        clamped = consistent = 0.0
        for row in reports:
            est = estimate_choice(
                counts=np.bincount(row, minlength=k).tolist(), mechanism=mechanism
            )
            clamped += np.sum((est.clamped - truth) ** 2)
            consistent += np.sum((est.consistent - truth) ** 2)
            assert est.consistent.min() >= 0 and abs(est.consistent.sum() - 1) <= 1e-12
        assert consistent <= clamped * (1 + 1e-9), name
