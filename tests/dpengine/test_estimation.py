import math
from fractions import Fraction

import pytest
from scipy import special, stats

from dpengine import (
    CLASSIC,
    METHODS,
    ForcedResponse,
    binomial_interval,
    estimate,
    required_sample_size,
)

ASYMMETRIC = ForcedResponse(p_truth=0.6, p_forced_yes=0.3)
Z95 = 1.959963984540054  # scipy.stats.norm.ppf(0.975)


def test_classic_estimate_of_130_yes_in_400_is_exactly_0_15():
    # p_hat = 2 * 130/400 - 1/2 = 0.65 - 0.5 = 0.15
    result = estimate(yes=130, n=400, design=CLASSIC)
    assert result.yes_rate == 0.325
    assert result.estimate == 0.15
    assert result.clamped == 0.15
    assert result.has_data
    assert result.method == "wilson"
    assert result.confidence == 0.95
    assert result.design == CLASSIC


def test_classic_estimate_is_twice_the_yes_rate_minus_one_half_for_every_count():
    for yes in range(41):
        expected = float(2 * Fraction(yes, 40) - Fraction(1, 2))
        assert estimate(yes=yes, n=40, design=CLASSIC).estimate == expected


def test_asymmetric_estimate_matches_the_rational_debiasing_formula():
    # (lambda - b) / (a - b) with a = 18/25, b = 3/25, lambda = 51/100, exactly 13/20.
    result = estimate(yes=51, n=100, design=ASYMMETRIC)
    assert result.estimate == 0.65


def test_standard_error_inflates_the_binomial_error_by_one_over_a_minus_b():
    # sqrt(0.325 * 0.675 / 400) / 0.5, evaluated by hand.
    result = estimate(yes=130, n=400, design=CLASSIC)
    assert result.std_error == pytest.approx(math.sqrt(0.325 * 0.675 / 400) / 0.5, rel=1e-15)


def test_estimate_below_zero_is_reported_and_clamped_without_hiding_it():
    result = estimate(yes=2, n=20, design=CLASSIC)
    assert result.estimate == pytest.approx(-0.3)
    assert result.clamped == 0.0
    assert result.was_clamped
    assert result.ci_low == 0.0


def test_estimate_above_one_is_clamped_to_one():
    result = estimate(yes=20, n=20, design=CLASSIC)
    assert result.estimate == 1.5
    assert result.clamped == 1.0
    assert result.ci_high == 1.0


def test_no_responses_yet_is_a_defined_know_nothing_result():
    result = estimate(yes=0, n=0, design=CLASSIC)
    assert not result.has_data
    assert result.yes_rate is None
    assert result.estimate is None
    assert result.clamped is None
    assert result.std_error is None
    assert (result.ci_low, result.ci_high) == (0.0, 1.0)
    assert not result.was_clamped
    assert result.as_dict()["estimate"] is None


def test_as_dict_carries_design_and_epsilon_for_provenance():
    row = estimate(yes=130, n=400, design=CLASSIC, method="exact").as_dict()
    assert row["method"] == "exact"
    assert row["p_truth"] == 0.5
    assert row["epsilon"] == math.log(3)
    assert row["has_data"] is True


def test_wilson_interval_matches_scipys_wilson_interval_mapped_to_prevalence():
    reference = stats.binomtest(130, 400).proportion_ci(0.95, method="wilson")
    result = estimate(yes=130, n=400, design=CLASSIC, method="wilson")
    assert result.ci_low == pytest.approx((reference.low - 0.25) / 0.5, rel=1e-12)
    assert result.ci_high == pytest.approx((reference.high - 0.25) / 0.5, rel=1e-12)


def test_exact_interval_matches_scipys_clopper_pearson_interval():
    for yes, n in [(130, 400), (1, 10), (9, 10), (37, 50)]:
        reference = stats.binomtest(yes, n).proportion_ci(0.9, method="exact")
        ours = binomial_interval(yes=yes, n=n, confidence=0.9, method="exact")
        assert ours.low == pytest.approx(reference.low, rel=1e-10)
        assert ours.high == pytest.approx(reference.high, rel=1e-10)


def test_wald_interval_is_the_textbook_formula():
    half = Z95 * math.sqrt(0.325 * 0.675 / 400)
    result = estimate(yes=130, n=400, design=CLASSIC, method="wald")
    assert result.ci_low == pytest.approx((0.325 - half - 0.25) / 0.5, rel=1e-12)
    assert result.ci_high == pytest.approx((0.325 + half - 0.25) / 0.5, rel=1e-12)


def test_jeffreys_interval_leaves_half_alpha_posterior_mass_in_each_tail():
    # betainc is the regularized incomplete beta, i.e. the Beta(y + 1/2, n - y + 1/2) cdf.
    interval = binomial_interval(yes=13, n=40, confidence=0.9, method="jeffreys")
    assert special.betainc(13.5, 27.5, interval.low) == pytest.approx(0.05, rel=1e-9)
    assert special.betainc(13.5, 27.5, interval.high) == pytest.approx(0.95, rel=1e-9)


def test_jeffreys_interval_uses_the_usual_conventions_at_zero_and_n():
    assert binomial_interval(yes=0, n=30, method="jeffreys").low == 0.0
    assert binomial_interval(yes=30, n=30, method="jeffreys").high == 1.0


@pytest.mark.parametrize("method", METHODS)
def test_every_interval_contains_the_clamped_estimate(method):
    for yes in range(0, 61, 3):
        result = estimate(yes=yes, n=60, design=ASYMMETRIC, method=method)
        assert result.ci_low <= result.clamped <= result.ci_high


@pytest.mark.parametrize("method", METHODS)
def test_higher_confidence_gives_a_wider_interval(method):
    narrow = estimate(yes=130, n=400, design=CLASSIC, confidence=0.8, method=method)
    wide = estimate(yes=130, n=400, design=CLASSIC, confidence=0.99, method=method)
    assert wide.ci_low < narrow.ci_low < narrow.ci_high < wide.ci_high


def test_yes_above_n_is_rejected_naming_the_field_and_value():
    with pytest.raises(ValueError, match=r"^yes must be between 0 and n = 10, got 11$"):
        estimate(yes=11, n=10, design=CLASSIC)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"yes": -1, "n": 10}, r"^yes must be a non-negative integer, got -1$"),
        ({"yes": 1, "n": -5}, r"^n must be a non-negative integer, got -5$"),
        ({"yes": 3.5, "n": 10}, r"^yes must be an integer, got 3\.5$"),
        ({"yes": 3, "n": 10.0}, r"^n must be an integer, got 10\.0$"),
        ({"yes": True, "n": 10}, r"^yes must be an integer, got True$"),
        ({"yes": "3", "n": 10}, r"^yes must be an integer, got '3'$"),
    ],
)
def test_counts_must_be_integers_in_range(kwargs, message):
    with pytest.raises(ValueError, match=message):
        estimate(design=CLASSIC, **kwargs)


@pytest.mark.parametrize("confidence", [0, 1, 1.5, -0.1, math.nan, "0.95"])
def test_confidence_outside_the_open_unit_interval_is_rejected(confidence):
    with pytest.raises(ValueError, match=r"^confidence must be in \(0, 1\), got "):
        estimate(yes=1, n=2, design=CLASSIC, confidence=confidence)


def test_unknown_method_lists_the_valid_methods():
    message = r"method must be one of 'wald', 'wilson', 'exact', 'jeffreys', got 'agresti'"
    with pytest.raises(ValueError, match=message):
        estimate(yes=1, n=2, design=CLASSIC, method="agresti")


def test_design_must_be_a_forced_response_design():
    with pytest.raises(ValueError, match="design must be a ForcedResponse"):
        estimate(yes=1, n=2, design=(0.5, 0.5))


def test_classic_design_needs_1537_reports_for_five_points_at_95_percent():
    # ceil(1.959964^2 * 0.25 / (0.05^2 * 0.5^2)) = ceil(1536.58) = 1537.
    assert required_sample_size(design=CLASSIC, margin=0.05, confidence=0.95) == 1537


def test_sample_size_with_a_prior_guess_uses_that_yes_rate():
    # p = 0 gives lambda = b = 1/4: ceil(z^2 * 3/16 / (0.0025 * 0.25)) = ceil(1152.44).
    assert required_sample_size(design=CLASSIC, margin=0.05, p=0.0) == 1153
    assert required_sample_size(design=CLASSIC, margin=0.05, p=0.5) == 1537


def test_sample_size_shrinks_as_the_margin_grows():
    margins = [0.01, 0.02, 0.03, 0.05, 0.1, 0.2, 0.5]
    sizes = [required_sample_size(design=CLASSIC, margin=m) for m in margins]
    assert sizes == sorted(sizes, reverse=True)
    assert len(set(sizes)) == len(sizes)


def test_stronger_privacy_needs_more_reports():
    weak = required_sample_size(design=ForcedResponse(p_truth=0.75), margin=0.05)
    strong = required_sample_size(design=ForcedResponse(p_truth=0.25), margin=0.05)
    assert strong > 1537 > weak


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"margin": 0}, r"^margin must be in \(0, 1\), got 0$"),
        ({"margin": 1.0}, r"^margin must be in \(0, 1\), got 1\.0$"),
        ({"margin": 0.05, "p": 1.5}, r"^p must be in \[0, 1\], got 1\.5$"),
        ({"margin": 0.05, "confidence": 1}, r"^confidence must be in \(0, 1\), got 1$"),
    ],
)
def test_sample_size_rejects_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        required_sample_size(design=CLASSIC, **kwargs)
