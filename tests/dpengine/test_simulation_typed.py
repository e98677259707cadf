"""The numeric mean from running sums, and the vectorised simulations of typed questions."""

import math

import numpy as np
import pytest

import dpengine
from dpengine import (
    BoundedNumeric,
    KaryRandomizedResponse,
    SimulatedCoverage,
    simulate_choice_coverage,
    simulate_mean_coverage,
    simulate_share_above_coverage,
)
from dpengine.errors import DPEngineError


@pytest.mark.parametrize(
    "reports",
    [[3], [0, 10], [-4, 2, 7, 7, 13, 5, 5, 1], list(range(-30, 70, 3))],
)
def test_mean_from_sums_equals_the_mean_of_the_reports(reports):
    question = BoundedNumeric(lo=0, hi=10, epsilon=1.0)
    direct = dpengine.estimate_mean(reports=reports, question=question, confidence=0.9)
    from_sums = dpengine.estimate_mean_from_sums(
        n=len(reports),
        total=sum(reports),
        total_squares=sum(r * r for r in reports),
        question=question,
        confidence=0.9,
    )
    for name in ("estimate", "clamped", "std_error", "ci_low", "ci_high"):
        assert math.isclose(getattr(from_sums, name), getattr(direct, name), rel_tol=1e-12)
    assert from_sums.n == direct.n


def test_mean_from_sums_uses_the_sample_variance_above_the_noise_floor():
    # Reports 0 and 1000 on [0, 10] with ε = 10: s² = 500000 > σ² (hand computed).
    question = BoundedNumeric(lo=0, hi=10, epsilon=10.0)
    est = dpengine.estimate_mean_from_sums(
        n=2, total=1000, total_squares=1_000_000, question=question
    )
    assert est.estimate == 500.0 and est.clamped == 10.0
    assert math.isclose(est.std_error, math.sqrt(500_000 / 2))


def test_mean_from_sums_without_reports_is_the_whole_range():
    question = BoundedNumeric(lo=-5, hi=5, epsilon=1.0)
    est = dpengine.estimate_mean_from_sums(n=0, total=0, total_squares=0, question=question)
    assert est.estimate is None and (est.ci_low, est.ci_high) == (-5.0, 5.0)


def test_mean_from_sums_refuses_sums_no_integers_have():
    question = BoundedNumeric(lo=0, hi=10, epsilon=1.0)
    with pytest.raises(DPEngineError) as caught:
        dpengine.estimate_mean_from_sums(n=2, total=10, total_squares=1, question=question)
    assert caught.value.field == "total_squares"


def test_simulated_choice_reports_follow_k_ary_randomized_response():
    mechanism = KaryRandomizedResponse(k=4, epsilon=math.log(3))
    rng = np.random.default_rng(7)
    reports = dpengine.simulate_choice_reports(np.full(200_000, 2), mechanism, rng)
    shares = np.bincount(reports, minlength=4) / reports.size
    # keep 3/6 = 0.5, each other 1/6; 200,000 draws: sd below 0.0012, tolerance 5 sd.
    assert shares == pytest.approx([1 / 6, 1 / 6, 1 / 2, 1 / 6], abs=0.006)


def test_simulated_numeric_reports_are_clamped_truths_plus_discrete_laplace_noise():
    question = BoundedNumeric(lo=0, hi=10, epsilon=2.0)
    rng = np.random.default_rng(11)
    reports = dpengine.simulate_numeric_reports(np.full(200_000, 40), question, rng)
    noise = reports - 10  # the truth 40 is clamped to 10
    assert abs(noise.mean()) < 0.08  # sd of the noise is about 7.1: 5 sd of the mean is 0.08
    assert noise.var() == pytest.approx(question.noise_variance, rel=0.03)
    # P(Z = 0) = (1 - α) / (1 + α) exactly; 200,000 draws: sd about 0.0007.
    alpha = question.alpha
    assert np.mean(noise == 0) == pytest.approx((1 - alpha) / (1 + alpha), abs=0.004)


# --- simulated coverage (tests/dpengine/test_small_sample_coverage.py sweeps with these) ---------


def test_simulated_coverage_targets_the_clamped_answers():
    question = BoundedNumeric(lo=0, hi=10, epsilon=2)
    rng = np.random.default_rng(5)
    answers = [-7, 3, 12, 12]  # clamped: 0, 3, 10, 10
    mean = simulate_mean_coverage(answers=answers, question=question, replications=50, rng=rng)
    share = simulate_share_above_coverage(
        answers=answers, question=question, threshold=5, replications=50, rng=rng
    )
    assert mean.truth == 23 / 4 and share.truth == 0.5
    assert mean.replications == share.replications == 50
    assert 0 <= mean.covered <= 50 and 0 <= share.whole <= 50


def test_simulated_coverage_reports_its_binomial_standard_error():
    result = SimulatedCoverage(truth=0.5, replications=2000, covered=1900)
    assert result.coverage == 0.95
    assert result.standard_error == pytest.approx(math.sqrt(0.95 * 0.05 / 2000))


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (
            lambda q, rng: simulate_mean_coverage(answers=[], question=q, replications=5, rng=rng),
            "answers",
        ),
        (
            lambda q, rng: simulate_mean_coverage(
                answers=[1.5], question=q, replications=5, rng=rng
            ),
            "answers",
        ),
        (
            lambda q, rng: simulate_mean_coverage(answers=[1], question=q, replications=0, rng=rng),
            "replications",
        ),
        (
            lambda q, rng: simulate_share_above_coverage(
                answers=[1], question="0-10", threshold=5, replications=5, rng=rng
            ),
            "question",
        ),
        (
            lambda q, rng: simulate_choice_coverage(
                shares=[0.5, 0.6],
                n=10,
                mechanism=KaryRandomizedResponse(k=2, epsilon=1),
                replications=5,
                rng=rng,
            ),
            "shares",
        ),
        (
            lambda q, rng: simulate_choice_coverage(
                shares=[0.5, 0.5],
                n=0,
                mechanism=KaryRandomizedResponse(k=2, epsilon=1),
                replications=5,
                rng=rng,
            ),
            "n",
        ),
    ],
)
def test_coverage_simulators_refuse_bad_input_naming_the_field(call, field):
    with pytest.raises(DPEngineError) as error:
        call(BoundedNumeric(lo=0, hi=10, epsilon=2), np.random.default_rng(1))
    assert error.value.field == field
