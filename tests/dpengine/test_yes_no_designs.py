"""Warner, unrelated-question, Kuk and (DP-safe) Mangat designs next to forced response.

Reference values are worked by hand from each design's definition (see each test's
comment); coverage and unbiasedness are computed exactly by enumerating the binomial.
"""

import math
import pickle
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from dpengine import (
    CLASSIC,
    DESIGNS,
    METHODS,
    R_MODEL_NAMES,
    DPEngineError,
    FitError,
    ForcedResponse,
    Kuk,
    Mangat,
    Reason,
    UnrelatedQuestion,
    Warner,
    estimate,
    exact_coverage,
    fit_logistic,
    randomize,
    required_sample_size,
)

# Defaults, by hand:
#   Warner(p=3/4):            a = 3/4,                 b = 1/4,           eps = ln 3
#   UnrelatedQuestion(1/2, 1/4): a = 1/2 + 1/2 * 1/4 = 5/8, b = 1/8,      eps = ln 5
#       (a / b = 5, (1 - b) / (1 - a) = (7/8) / (3/8) = 7/3)
#   Kuk(5/8, 1/4):            a = 5/8,                 b = 1/4,           eps = ln(5/2)
#       (a / b = 5/2, (1 - b) / (1 - a) = (3/4) / (3/8) = 2)
#   Mangat(p=3/4, t=3/4):     a = 1/4 + 3/4 * 3/4 = 13/16, b = 1/4,       eps = ln 4
#       (a / b = 13/4, (1 - b) / (1 - a) = (3/4) / (3/16) = 4)
DEFAULTS = {
    "forced_response": (Fraction(3, 4), Fraction(1, 4), Fraction(3)),
    "warner": (Fraction(3, 4), Fraction(1, 4), Fraction(3)),
    "unrelated_question": (Fraction(5, 8), Fraction(1, 8), Fraction(5)),
    "kuk": (Fraction(5, 8), Fraction(1, 4), Fraction(5, 2)),
    "mangat": (Fraction(13, 16), Fraction(1, 4), Fraction(4)),
}
ALL_DEFAULT_DESIGNS = {kind: cls() for kind, cls in DESIGNS.items()}
SIZES = [20, 50, 100, 200, 500, 1000]
FLOAT_SLACK = 1e-12


def test_every_design_kind_is_registered():
    # A design module added to dpengine/designs/ registers itself too (the design table,
    # surveys/designs.py, decides which of them a question may name).
    assert {"forced_response", "warner", "unrelated_question", "kuk", "mangat"} <= set(DESIGNS)
    assert DESIGNS["forced_response"] is ForcedResponse


@pytest.mark.parametrize("kind", DEFAULTS)
def test_default_design_has_the_hand_computed_a_b_and_epsilon(kind):
    design = ALL_DEFAULT_DESIGNS[kind]
    a, b, ratio = DEFAULTS[kind]
    assert design.exact_p_yes_given_yes == a
    assert design.exact_p_yes_given_no == b
    assert design.p_yes_given_yes == float(a)
    assert design.p_yes_given_no == float(b)
    assert design.likelihood_ratio == ratio
    assert design.epsilon == pytest.approx(math.log(ratio), rel=1e-15)
    assert design.information == float(a - b)
    assert design.variance_factor == pytest.approx(float(1 / (a - b) ** 2), rel=1e-15)
    assert design.kind == kind
    assert isinstance(design.description, str) and len(design.description) > 40


def test_non_default_parameters_follow_the_formulas():
    # Warner p = 0.7: a = 0.7, b = 0.3, eps = ln(7/3).
    assert Warner(p=0.7).likelihood_ratio == Fraction(7, 3)
    # UQT p = 0.6, pi = 0.3: a = 0.6 + 0.4 * 0.3 = 0.72, b = 0.12.
    uqt = UnrelatedQuestion(p=0.6, pi=0.3)
    assert (uqt.exact_p_yes_given_yes, uqt.exact_p_yes_given_no) == (
        Fraction(18, 25),
        Fraction(3, 25),
    )
    # The same (a, b) as ForcedResponse(0.6, 0.3): both are "truth with 0.6, else yes w.p. 0.3".
    assert uqt.epsilon == ForcedResponse(p_truth=0.6, p_forced_yes=0.3).epsilon
    # Mangat t = 1 is Warner's design.
    assert Mangat(p=0.8, t=1).exact_p_yes_given_yes == Warner(p=0.8).exact_p_yes_given_yes
    assert Mangat(p=0.8, t=1).epsilon == Warner(p=0.8).epsilon


def test_designs_with_equal_probabilities_are_still_different_designs():
    assert Warner() != CLASSIC
    assert Warner(p=Fraction(3, 4)) == Warner(p=0.75)


@pytest.mark.parametrize(
    ("make", "reason", "field", "words"),
    [
        (lambda: Warner(p=0.5), Reason.NO_INFORMATION, "p", "no information"),
        (lambda: Warner(p=0.3), Reason.OUT_OF_RANGE, "p", "negated"),
        (lambda: Warner(p=1), Reason.NOT_DIFFERENTIALLY_PRIVATE, "p", "infinite"),
        (lambda: Warner(p=1.5), Reason.OUT_OF_RANGE, "p", "got 1.5"),
        (lambda: Warner(p="0.7"), Reason.INVALID_TYPE, "p", "got '0.7'"),
        (lambda: UnrelatedQuestion(p=0, pi=0.5), Reason.NO_INFORMATION, "p", "got 0"),
        (lambda: UnrelatedQuestion(p=1, pi=0.5), Reason.NOT_DIFFERENTIALLY_PRIVATE, "p", ""),
        (lambda: UnrelatedQuestion(p=0.5, pi=0), Reason.NOT_DIFFERENTIALLY_PRIVATE, "pi", ""),
        (lambda: UnrelatedQuestion(p=0.5, pi=1), Reason.NOT_DIFFERENTIALLY_PRIVATE, "pi", ""),
        (lambda: UnrelatedQuestion(p=0.5, pi=float("nan")), Reason.OUT_OF_RANGE, "pi", "nan"),
        (lambda: Kuk(theta1=0.5, theta2=0.5), Reason.NO_INFORMATION, "theta2", ""),
        (lambda: Kuk(theta1=0.2, theta2=0.6), Reason.NO_INFORMATION, "theta2", "inverts"),
        (lambda: Kuk(theta1=1, theta2=0.3), Reason.NOT_DIFFERENTIALLY_PRIVATE, "theta1", ""),
        (lambda: Kuk(theta1=0.7, theta2=0), Reason.NOT_DIFFERENTIALLY_PRIVATE, "theta2", ""),
        (lambda: Mangat(p=0.75, t=0), Reason.NOT_DIFFERENTIALLY_PRIVATE, "t", "Mangat's original"),
        (lambda: Mangat(p=1, t=0.5), Reason.NOT_DIFFERENTIALLY_PRIVATE, "p", "infinite"),
        (lambda: Mangat(p=0.2, t=1), Reason.NO_INFORMATION, "p", "no information"),
        (lambda: Mangat(p=0.75, t=-0.1), Reason.OUT_OF_RANGE, "t", "got -0.1"),
    ],
)
def test_invalid_designs_are_refused_with_a_reason_and_the_field(make, reason, field, words):
    with pytest.raises(DPEngineError) as refused:
        make()
    assert refused.value.reason is reason
    assert refused.value.field == field
    assert isinstance(refused.value, ValueError)
    assert words in str(refused.value)


def test_mangats_original_design_is_refused_as_not_differentially_private():
    with pytest.raises(ValueError, match="not differentially private"):
        Mangat(p=0.75, t=0)


def test_typed_errors_survive_pickling_with_their_class_reason_and_field():
    with pytest.raises(DPEngineError) as refused:
        Warner(p=0.5)
    copy = pickle.loads(pickle.dumps(refused.value))
    assert (type(copy), copy.reason, copy.field, str(copy)) == (
        DPEngineError,
        Reason.NO_INFORMATION,
        "p",
        str(refused.value),
    )
    fit_error = FitError("x", reason=Reason.SINGULAR, field="X")
    assert type(pickle.loads(pickle.dumps(fit_error))) is FitError


@pytest.mark.parametrize(
    ("design", "name", "p"),
    [
        (CLASSIC, "FR", (0.25, 0.25)),
        (ForcedResponse(p_truth=0.6, p_forced_yes=0.3), "FR", (0.28, 0.12)),
        (Warner(p=0.7), "Warner", (0.7,)),
        (UnrelatedQuestion(p=0.6, pi=0.3), "UQTknown", (0.6, 0.3)),
        (Kuk(theta1=0.7, theta2=0.3), "Kuk", (0.7, 0.3)),
        (Mangat(p=0.75, t=0.75), "FR", (0.1875, 0.25)),
    ],
)
def test_each_design_names_its_rrreg_model(design, name, p):
    assert design.r_model.name == name == R_MODEL_NAMES[design.kind]
    assert design.r_model.p == pytest.approx(p, abs=1e-15)


@pytest.mark.parametrize("design", [CLASSIC, Mangat()])
def test_the_fr_parameters_reproduce_a_and_b(design):
    # RRreg's FR: P(yes | yes) = 1 - p0, P(yes | no) = p1.
    p0, p1 = design.r_model.p
    assert 1 - p0 == pytest.approx(design.p_yes_given_yes)
    assert p1 == pytest.approx(design.p_yes_given_no)


@pytest.mark.parametrize("kind", DEFAULTS)
@pytest.mark.parametrize("method", METHODS)
def test_estimate_accepts_every_design_and_maps_through_its_a_and_b(kind, method):
    design = ALL_DEFAULT_DESIGNS[kind]
    a, b, _ = DEFAULTS[kind]
    result = estimate(yes=130, n=400, design=design, method=method)
    assert result.estimate == pytest.approx(float((Fraction(130, 400) - b) / (a - b)), rel=1e-15)
    reference = stats.binomtest(130, 400).proportion_ci(0.95, method="exact")
    if method == "exact":
        assert result.ci_low == pytest.approx(
            max(0.0, (reference.low - float(b)) / float(a - b)), rel=1e-9, abs=1e-12
        )
    assert 0 <= result.ci_low <= result.clamped <= result.ci_high <= 1
    assert result.as_dict()["design"] == kind
    assert result.as_dict()["epsilon"] == design.epsilon


@pytest.mark.parametrize("kind", DEFAULTS)
def test_required_sample_size_scales_with_the_variance_factor(kind):
    design = ALL_DEFAULT_DESIGNS[kind]
    # n = z^2 / 4 / (m^2 (a - b)^2); a direct question needs 385 at margin 0.05.
    z = stats.norm.ppf(0.975)
    expected = math.ceil(z * z * 0.25 / (0.05**2) * design.variance_factor)
    assert required_sample_size(design=design, margin=0.05) == expected


@pytest.mark.parametrize("kind", DEFAULTS)
def test_estimator_is_exactly_unbiased_under_every_design(kind):
    design = ALL_DEFAULT_DESIGNS[kind]
    n = 60
    counts = np.arange(n + 1)
    estimates = np.array([estimate(yes=int(y), n=n, design=design).estimate for y in counts])
    for p in (0.0, 0.1, 0.37, 0.8, 1.0):
        rate = design.p_yes_given_no + design.information * p
        mean = stats.binom.pmf(counts, n, rate) @ estimates
        assert mean == pytest.approx(p, abs=1e-12)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("kind", DEFAULTS)
def test_wilson_coverage_is_near_95_percent_for_every_design(kind, n):
    profile = exact_coverage(design=ALL_DEFAULT_DESIGNS[kind], n=n)
    floor = 0.93 if n >= 100 else 0.925
    assert profile.min_coverage >= floor, (profile.min_coverage, profile.argmin_p)
    assert abs(profile.mean_coverage - 0.95) < 0.005


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("kind", DEFAULTS)
def test_exact_interval_never_under_covers_for_every_design(kind, n):
    profile = exact_coverage(design=ALL_DEFAULT_DESIGNS[kind], n=n, method="exact")
    assert profile.min_coverage >= 0.95 - FLOAT_SLACK, profile.argmin_p


@pytest.mark.parametrize("kind", DEFAULTS)
def test_jeffreys_and_wald_coverage_for_every_design_at_n_500(kind):
    # Documented behaviour at n = 500: Jeffreys stays near nominal on average; Wald is
    # close on average too but dips lower at the edges of the grid.
    design = ALL_DEFAULT_DESIGNS[kind]
    jeffreys = exact_coverage(design=design, n=500, method="jeffreys")
    wald = exact_coverage(design=design, n=500, method="wald")
    assert abs(jeffreys.mean_coverage - 0.95) < 0.005
    assert jeffreys.min_coverage >= 0.92
    assert abs(wald.mean_coverage - 0.95) < 0.01


class EveryValueOnce:
    """randbelow(n) returns 0, 1, 2, ... modulo n: D draws enumerate every value once."""

    def __init__(self):
        self.counter = 0
        self.bounds = set()

    def randbelow(self, n):
        self.bounds.add(n)
        value = self.counter % n
        self.counter += 1
        return value


@pytest.mark.parametrize("kind", DEFAULTS)
def test_randomize_reports_yes_with_exactly_a_and_b_under_every_design(kind):
    design = ALL_DEFAULT_DESIGNS[kind]
    source = EveryValueOnce()
    randomize(np.array([True]), design, source)
    (denominator,) = source.bounds
    for truth, expected in (
        (True, design.exact_p_yes_given_yes),
        (False, design.exact_p_yes_given_no),
    ):
        reports = randomize(np.full(denominator, truth), design, source)
        assert Fraction(int(reports.sum()), denominator) == expected


@pytest.mark.parametrize("kind", DEFAULTS)
def test_logistic_regression_recovers_the_true_coefficients_under_every_design(kind):
    # 20 000 simulated respondents, true model logit P(yes) = -0.5 + 1.0 x; the fitted
    # coefficients must lie within 4 of their own standard errors of the truth.
    design = ALL_DEFAULT_DESIGNS[kind]
    rng = np.random.default_rng(17)
    x = rng.normal(size=20_000)
    truth = rng.random(20_000) < 1 / (1 + np.exp(-(-0.5 + 1.0 * x)))
    reports = randomize(truth, design, rng)
    fit = fit_logistic(x[:, np.newaxis], reports, design=design)
    assert np.all(np.abs(fit.coef - [-0.5, 1.0]) < 4 * fit.std_error), (fit.coef, fit.std_error)
    assert fit.design is design


def test_regression_failures_carry_a_reason():
    with pytest.raises(FitError) as refused:
        fit_logistic(np.ones((3, 2)), [1, 0, 1], design=Warner())
    assert refused.value.reason is Reason.TOO_FEW_ROWS
    with pytest.raises(FitError) as refused:
        fit_logistic(np.ones((50, 1)), [1, 0] * 25, design=Kuk())
    assert refused.value.reason is Reason.SINGULAR


def test_estimate_refuses_a_design_of_the_wrong_type_with_a_reason():
    with pytest.raises(DPEngineError) as refused:
        estimate(yes=1, n=2, design=(0.75, 0.25))
    assert (refused.value.reason, refused.value.field) == (Reason.INVALID_TYPE, "design")
