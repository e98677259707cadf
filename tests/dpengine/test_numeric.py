"""Bounded numeric questions: discrete Laplace noise, the mean and the share above a threshold."""

import math

import numpy as np
import pytest
from scipy import stats

from dpengine import (
    CLASSIC,
    BoundedNumeric,
    DPEngineError,
    KaryRandomizedResponse,
    Reason,
    SeededRandomSource,
    discrete_laplace_pmf,
    estimate_mean,
    estimate_share_above,
    privacy_ledger,
    question_epsilon,
    randomize_number,
    required_sample_size_mean,
    required_sample_size_share,
    share_above_counts,
    share_above_filter,
    share_above_intervals,
    share_above_variance_floor,
    simulate_numeric_reports,
    z_value,
)

DRINKS = BoundedNumeric(lo=0, hi=30, epsilon=1)  # alpha = e^(-1/30)
SMALL = BoundedNumeric(lo=1, hi=5, epsilon=2)  # alpha = e^(-1/2)
LN3 = BoundedNumeric(lo=0, hi=10, epsilon=math.log(3))


def _noise_support(question, tail=1e-18):
    # |z| beyond K has total probability below ~tail: alpha^K < tail (1 - alpha) / 2.
    reach = math.ceil(math.log(tail * (1 - question.alpha) / 2) / math.log(question.alpha))
    z = np.arange(-reach, reach + 1)
    return z, discrete_laplace_pmf(z, scale=float(question.exact_scale))


@pytest.mark.parametrize("question", [DRINKS, SMALL, LN3])
def test_alpha_and_noise_variance_match_the_discrete_laplace_pmf(question):
    assert question.alpha == pytest.approx(
        math.exp(-question.epsilon / (question.hi - question.lo))
    )
    z, pmf = _noise_support(question)
    assert pmf.sum() == pytest.approx(1.0, abs=1e-12)
    assert (pmf * z * z).sum() == pytest.approx(question.noise_variance, rel=1e-9)


def test_float_epsilon_is_read_as_the_decimal_it_prints_as():
    # math.log(3) prints as 1.0986122886681098; that rational is what is sampled and charged.
    assert LN3.exact_epsilon.limit_denominator(10**16) == LN3.exact_epsilon
    assert str(float(LN3.exact_epsilon)) == "1.0986122886681098"
    assert question_epsilon(LN3) == math.log(3)


@pytest.mark.parametrize("question", [DRINKS, SMALL, LN3])
def test_share_filter_is_exactly_unbiased_for_every_answer_and_threshold(question):
    # Exact expectation over the noise (tails beyond 1e-18 dropped): E[h(x + Z)] = 1{x > t}.
    z, pmf = _noise_support(question)
    for threshold in range(question.lo, question.hi):
        for x in range(question.lo, question.hi + 1):
            h = share_above_filter(x + z, threshold=threshold, alpha=question.alpha)
            assert pmf @ h == pytest.approx(float(x > threshold), abs=1e-9), (threshold, x)


def test_share_filter_takes_four_values():
    alpha = SMALL.alpha
    values = share_above_filter([0, 2, 3, 4, 9], threshold=3, alpha=alpha)
    c0 = -alpha / (1 - alpha) ** 2
    c1 = (1 - alpha + alpha**2) / (1 - alpha) ** 2
    assert values == pytest.approx([0, 0, c0, c1, 1])


def test_clamping_and_noise_distribution_match_the_exact_pmf():
    # 4000 seeded draws at a true answer of 100 (clamped to 5); chi-square of the noise
    # against the exact pmf over |z| <= 6 plus the two tails; fails below p = 0.001.
    source = SeededRandomSource(3)
    noise = np.array([randomize_number(100, SMALL, source) - 5 for _ in range(4000)])
    edges = np.arange(-6, 7)
    z, pmf = _noise_support(SMALL)
    expected = [pmf[z < -6].sum()] + [pmf[z == e].sum() for e in edges] + [pmf[z > 6].sum()]
    observed = [(noise < -6).sum()] + [(noise == e).sum() for e in edges] + [(noise > 6).sum()]
    assert stats.chisquare(observed, np.array(expected) * 4000).pvalue > 0.001


@pytest.mark.parametrize(
    ("kwargs", "reason", "field"),
    [
        ({"lo": 0, "hi": 0, "epsilon": 1}, Reason.OUT_OF_RANGE, "hi"),
        ({"lo": 0.5, "hi": 3, "epsilon": 1}, Reason.INVALID_TYPE, "lo"),
        ({"lo": 0, "hi": 3, "epsilon": 0}, Reason.OUT_OF_RANGE, "epsilon"),
        ({"lo": 0, "hi": 3, "epsilon": "1"}, Reason.INVALID_TYPE, "epsilon"),
    ],
)
def test_invalid_questions_are_refused_with_a_reason(kwargs, reason, field):
    with pytest.raises(DPEngineError) as refused:
        BoundedNumeric(**kwargs)
    assert (refused.value.reason, refused.value.field) == (reason, field)


def test_threshold_must_lie_inside_the_range():
    with pytest.raises(DPEngineError) as refused:
        estimate_share_above(reports=[1, 2], question=SMALL, threshold=5)
    assert (refused.value.reason, refused.value.field) == (Reason.OUT_OF_RANGE, "threshold")


def _simulated_reports(question, answers, rng):
    # Discrete Laplace noise as the difference of two geometric counts (seeded simulation).
    alpha = question.alpha
    size = answers.shape
    noise = rng.geometric(1 - alpha, size=size) - rng.geometric(1 - alpha, size=size)
    return answers + noise


def test_mean_estimate_uses_the_known_noise_variance_as_a_floor():
    result = estimate_mean(reports=[3, 3, 3, 3], question=SMALL)
    assert result.estimate == 3
    assert result.std_error == pytest.approx(math.sqrt(SMALL.noise_variance / 4))
    assert estimate_mean(reports=[], question=SMALL).estimate is None


@pytest.mark.parametrize("question", [SMALL, BoundedNumeric(lo=0, hi=10, epsilon=2)])
@pytest.mark.slow
def test_mean_and_share_intervals_cover_at_about_95_percent(question):
    # 1000 seeded surveys of 1000 respondents each; coverage SE ~0.007, tolerance 0.025.
    rng = np.random.default_rng(99)
    support = np.arange(question.lo, question.hi + 1)
    weights = np.linspace(1, 2, support.size) / np.linspace(1, 2, support.size).sum()
    true_mean = support @ weights
    threshold = question.lo + (question.hi - question.lo) // 2
    true_share = weights[support > threshold].sum()
    mean_hits = share_hits = 0
    share_estimates = []
    for _ in range(1000):
        answers = rng.choice(support, size=1000, p=weights)
        reports = _simulated_reports(question, answers, rng)
        mean = estimate_mean(reports=reports, question=question)
        share = estimate_share_above(reports=reports, question=question, threshold=threshold)
        mean_hits += mean.ci_low <= true_mean <= mean.ci_high
        share_hits += share.ci_low <= true_share <= share.ci_high
        share_estimates.append(share.estimate)
    assert abs(mean_hits / 1000 - 0.95) < 0.025
    assert abs(share_hits / 1000 - 0.95) < 0.025
    # Unbiased: the average of 1000 estimates is within 4 of its standard errors.
    spread = np.std(share_estimates) / math.sqrt(1000)
    assert abs(np.mean(share_estimates) - true_share) < 4 * spread


def test_sample_size_for_the_mean_uses_the_worst_case_spread_plus_the_noise():
    z = z_value(0.95)
    expected = math.ceil(z * z * (30**2 / 4 + DRINKS.noise_variance) / 1**2)
    assert required_sample_size_mean(question=DRINKS, margin=1) == expected
    assert required_sample_size_mean(question=DRINKS, margin=1, sd=5) < expected


def test_sample_size_for_the_share_bounds_the_filters_variance():
    n = required_sample_size_share(question=SMALL, margin=0.05)
    # The bound must be at least the exact variance of h(Y) for any true distribution;
    # check it against every point mass x in the range and every threshold.
    z, pmf = _noise_support(SMALL)
    bound = n * 0.05**2 / z_value(0.95) ** 2
    worst = 0.0
    for threshold in range(SMALL.lo, SMALL.hi):
        for x in range(SMALL.lo, SMALL.hi + 1):
            h = share_above_filter(x + z, threshold=threshold, alpha=SMALL.alpha)
            worst = max(worst, pmf @ h**2 - (pmf @ h) ** 2)
    assert worst <= bound
    # Wide ranges at small epsilon are expensive: say so rather than hide it.
    assert required_sample_size_share(question=DRINKS, margin=0.05) > 10**7


def test_ledger_sums_epsilon_over_questions_of_every_type():
    ledger = privacy_ledger([CLASSIC, KaryRandomizedResponse(k=4, odds=3), DRINKS, 0.25])
    assert ledger.per_question == (math.log(3), math.log(3), 1.0, 0.25)
    assert ledger.total_epsilon == pytest.approx(2 * math.log(3) + 1.25, rel=1e-15)
    assert ledger.questions == 4
    assert privacy_ledger([]).total_epsilon == 0


def test_ledger_refuses_a_question_without_epsilon():
    with pytest.raises(DPEngineError) as refused:
        privacy_ledger([CLASSIC, "yes"])
    assert (refused.value.reason, refused.value.field) == (Reason.INVALID_TYPE, "questions")


# --- acceptance: exact expectations with an explicit bound on the dropped tails --------------


def _truncated_noise(question, reach):
    """The noise pmf on |z| <= reach, and the exact mass beyond: 2 alpha^(reach+1) / (1 + alpha)."""
    z = np.arange(-reach, reach + 1)
    tail = 2 * question.alpha ** (reach + 1) / (1 + question.alpha)
    return z, discrete_laplace_pmf(z, scale=float(question.exact_scale)), tail


WIDE = BoundedNumeric(lo=0, hi=1000, epsilon=math.log(3))  # the widest range the site allows


@pytest.mark.parametrize("question", [SMALL, DRINKS, WIDE], ids=["1-5", "0-30", "0-1000"])
def test_share_filter_identity_holds_within_a_proven_tail_bound(question):
    # E[h(x + Z)] = 1{x > t}: the sum over |z| <= K misses at most max|h| * P(|Z| > K), with
    # max|h| = (1 - alpha + alpha^2) / (1 - alpha)^2 (h takes the values 0, 1, c0 < 0, c1).
    alpha = question.alpha
    bound_h = (1 - alpha + alpha * alpha) / (1 - alpha) ** 2
    reach = math.ceil(math.log(1e-13 / bound_h) / math.log(alpha))
    z, pmf, tail = _truncated_noise(question, reach)
    assert pmf.sum() + tail == pytest.approx(1.0, abs=1e-12)
    missed = bound_h * tail
    assert missed <= 1e-12
    span = question.hi - question.lo
    thresholds = sorted({question.lo, question.lo + span // 3, question.hi - 1})
    answers = sorted(
        {question.lo, question.lo + span // 3, question.lo + span // 3 + 1, question.hi}
    )
    for threshold in thresholds:
        for x in answers:
            h = share_above_filter(x + z, threshold=threshold, alpha=alpha)
            # Rounding of the sum grows with the number of terms and |h|: 1e-9 is far above it.
            assert abs(pmf @ h - float(x > threshold)) <= missed + 1e-9, (threshold, x)


@pytest.mark.parametrize("question", [SMALL, DRINKS, WIDE], ids=["1-5", "0-30", "0-1000"])
def test_reports_have_the_clamped_answer_as_mean_and_the_stated_noise_variance(question):
    # E[clamp(x) + Z] = clamp(x) for answers inside and outside the range (Z is symmetric), and
    # Var(Z) = 2 alpha / (1 - alpha)^2, each within the bound on the dropped tails.
    alpha = question.alpha
    reach = math.ceil(math.log(1e-16) / math.log(alpha)) * 2
    z, pmf, tail = _truncated_noise(question, reach)
    # sum_{|z| > K} z^2 P(z) <= tail * (K + 1 + 2 / (1 - alpha))^2 (geometric moments), tiny.
    second_moment_tail = tail * (reach + 1 + 2 / (1 - alpha)) ** 2
    assert second_moment_tail < 1e-6 * question.noise_variance
    assert pmf @ (z * z) == pytest.approx(question.noise_variance, rel=1e-6)
    for answer in (
        question.lo - 50,
        question.lo,
        (question.lo + question.hi) // 2,
        question.hi + 7,
    ):
        reports = question.clamp(answer) + z
        assert pmf @ reports / pmf.sum() == pytest.approx(question.clamp(answer), abs=1e-9)


def test_mean_and_share_intervals_cover_when_answers_leave_the_range():
    # 600 seeded surveys (seed 2026) of 400 respondents whose true answers run from -5 to 40
    # on a 0-30 question at eps = 2: the mean estimates the mean of the CLAMPED answers, the
    # share the share of clamped answers above 25. Coverage SE ~0.009; tolerance 0.03.
    question = BoundedNumeric(lo=0, hi=30, epsilon=2)
    support = np.arange(-5, 41)
    weights = np.ones(support.size) / support.size
    clamped = np.clip(support, question.lo, question.hi)
    true_mean = clamped @ weights
    true_share = weights[clamped > 25].sum()
    rng = np.random.default_rng(2026)
    mean_hits = share_hits = 0
    for _ in range(600):
        answers = np.clip(rng.choice(support, size=400, p=weights), question.lo, question.hi)
        reports = _simulated_reports(question, answers, rng)
        mean = estimate_mean(reports=reports, question=question)
        share = estimate_share_above(reports=reports, question=question, threshold=25)
        mean_hits += mean.ci_low <= true_mean <= mean.ci_high
        share_hits += share.ci_low <= true_share <= share.ci_high
    assert abs(mean_hits / 600 - 0.95) < 0.03
    assert abs(share_hits / 600 - 0.95) < 0.03


# --- the share's spread is never below what the noise alone forces ----------------------------


@pytest.mark.parametrize("question", [SMALL, DRINKS, WIDE], ids=["1-5", "0-30", "0-1000"])
@pytest.mark.slow
def test_share_variance_floor_is_the_least_noise_variance_of_the_filter(question):
    # Var_Z h(x + Z) summed over the truncated pmf for every answer x in the range (the filter
    # applied to x + z, so independent of the closed-form tails the floor uses); the dropped
    # tail adds at most max h^2 * P(|Z| > K), below 1e-9 of the variance here.
    alpha = question.alpha
    bound_h = (1 - alpha + alpha * alpha) / (1 - alpha) ** 2
    reach = math.ceil(math.log(1e-13 / bound_h**2) / math.log(alpha))
    z, pmf, tail = _truncated_noise(question, reach)
    assert bound_h**2 * tail < 1e-12
    span = question.hi - question.lo
    answers = np.arange(question.lo, question.hi + 1, max(1, span // 6))
    for threshold in sorted({question.lo, question.lo + span // 2, question.hi - 1}):
        floor = share_above_variance_floor(question=question, threshold=threshold)
        variances = [
            pmf
            @ (share_above_filter(x + z, threshold=threshold, alpha=alpha) - (x > threshold)) ** 2
            for x in [*answers, question.hi, threshold, threshold + 1]
        ]
        # The floor is a minimum over every integer answer, so below each sampled one ...
        assert floor <= min(variances) * (1 + 1e-9), threshold
        # ... and attained: the smallest lies at an end of the range, which is sampled.
        assert floor == pytest.approx(min(variances), rel=1e-9), threshold


def test_share_standard_error_is_never_below_the_noise_floor():
    # Every report far below the threshold: the sample spread of h is 0, yet the noise alone
    # puts rare reports next to the threshold whose h values are huge.
    reports = [DRINKS.lo - 40] * 22
    share = estimate_share_above(reports=reports, question=DRINKS, threshold=15)
    floor = share_above_variance_floor(question=DRINKS, threshold=15)
    assert share.estimate == 0.0
    assert share.std_error == pytest.approx(math.sqrt(floor / 22))
    assert (share.ci_low, share.ci_high) == (0.0, 1.0)
    assert share.informative is False


def test_share_interval_uses_the_student_t_quantile_and_the_larger_variance():
    reports = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12] * 3
    share = estimate_share_above(reports=reports, question=LN3, threshold=5)
    h = share_above_filter(np.array(reports), threshold=5, alpha=LN3.alpha)
    variance = max(h.var(ddof=1), share_above_variance_floor(question=LN3, threshold=5))
    half = stats.t.ppf(0.975, len(reports) - 1) * math.sqrt(variance / len(reports))
    assert share.estimate == pytest.approx(h.mean())
    assert share.ci_low == pytest.approx(max(0.0, h.mean() - half))
    assert share.ci_high == pytest.approx(min(1.0, h.mean() + half))


def test_share_counts_are_the_four_cases_of_the_filter():
    counts = share_above_counts([-3, 4, 5, 5, 6, 7, 40], threshold=5)
    assert counts.tolist() == [2, 2, 1, 2]
    batch = share_above_intervals(
        counts=np.array([counts, [0, 0, 0, 7]]), question=LN3, threshold=5
    )
    single = estimate_share_above(reports=[-3, 4, 5, 5, 6, 7, 40], question=LN3, threshold=5)
    assert batch.estimate[0] == pytest.approx(single.estimate)
    assert (batch.ci_low[0], batch.ci_high[0]) == pytest.approx((single.ci_low, single.ci_high))
    assert batch.estimate[1] == 1.0


def test_a_single_report_gives_the_whole_unit_interval():
    share = estimate_share_above(reports=[7], question=LN3, threshold=5)
    assert (share.ci_low, share.ci_high, share.informative) == (0.0, 1.0, False)


@pytest.mark.parametrize(
    "counts",
    [np.array([1, 2, 3]), np.array([0, 0, 0, 0]), np.array([1, -1, 0, 2]), [[0.5, 1, 1, 1]]],
)
def test_share_counts_must_be_four_non_negative_integers_per_survey(counts):
    with pytest.raises(DPEngineError) as error:
        share_above_intervals(counts=counts, question=LN3, threshold=5)
    assert error.value.field == "counts"


def test_mean_and_share_say_when_their_interval_is_everything():
    assert estimate_mean(reports=[], question=LN3).informative is False
    assert estimate_share_above(reports=[], question=LN3, threshold=5).informative is False
    assert estimate_mean(reports=[5] * 400, question=LN3).informative is True
    few = estimate_mean(reports=[0, 10], question=LN3)
    assert (few.ci_low, few.ci_high, few.informative) == (0.0, 10.0, False)


def test_issue_23_case_no_longer_claims_a_narrow_interval():
    # Issue 23: 0-30 at eps = ln 3, threshold 15, 22 respondents of whom one answers above
    # (true share 1/22). Before the floor, 2000 seeded surveys covered 0.46 (the issue's own
    # sampler: 0.53); now the interval is all of [0, 1] in every survey, honestly.
    question = BoundedNumeric(lo=0, hi=30, epsilon=math.log(3))
    truths = np.array([0] * 21 + [20])
    rng = np.random.default_rng(23)
    shares = [
        estimate_share_above(
            reports=simulate_numeric_reports(truths, question, rng), question=question, threshold=15
        )
        for _ in range(300)
    ]
    assert all((s.ci_low, s.ci_high, s.informative) == (0.0, 1.0, False) for s in shares)
