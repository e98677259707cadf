import numpy as np
import pytest
from scipy import special

from dpengine import CLASSIC, FitError, ForcedResponse, estimate, fit_logistic, randomize
from dpengine.errors import DPEngineError

TRUE_BETA = np.array([-0.5, 1.0, -0.7])


def _simulate(n, rng, design=CLASSIC, beta=TRUE_BETA):
    X = rng.normal(size=(n, beta.size - 1))
    truth = rng.random(n) < special.expit(beta[0] + X @ beta[1:])
    return X, randomize(truth, design, rng)


def test_intercept_only_fit_reproduces_the_debiased_estimate_and_its_standard_error():
    # With no covariates the MLE is logistic(beta_0) = p_hat, and the delta method turns
    # the coefficient's SE back into estimate()'s standard error.
    reports = np.r_[np.ones(130, dtype=bool), np.zeros(270, dtype=bool)]
    fit = fit_logistic(np.empty((400, 0)), reports, design=CLASSIC)
    direct = estimate(yes=130, n=400, design=CLASSIC)
    assert fit.coef[0] == pytest.approx(special.logit(0.15), abs=1e-9)
    assert fit.std_error[0] * 0.15 * 0.85 == pytest.approx(direct.std_error, rel=1e-7)
    assert fit.converged


def test_fit_recovers_the_true_coefficients_from_randomized_reports():
    # 20 000 respondents; each coefficient within 4 of its own standard errors.
    X, reports = _simulate(20_000, np.random.default_rng(2015))
    fit = fit_logistic(X, reports, design=CLASSIC)
    assert np.all(np.abs(fit.coef - TRUE_BETA) < 4 * fit.std_error)
    assert np.all(fit.std_error < 0.06)
    assert fit.n_iter < 30
    low, high = fit.ci(0.95)
    assert np.all(low < fit.coef) and np.all(fit.coef < high)


def test_fit_with_an_asymmetric_design_recovers_the_coefficients():
    design = ForcedResponse(p_truth=0.6, p_forced_yes=0.3)
    X, reports = _simulate(20_000, np.random.default_rng(7), design=design)
    fit = fit_logistic(X, reports, design=design)
    assert np.all(np.abs(fit.coef - TRUE_BETA) < 4 * fit.std_error)


@pytest.mark.slow
def test_wald_intervals_cover_the_true_coefficients_at_about_the_nominal_rate():
    # 200 replications of n = 2000: each coefficient's coverage count is Binomial(200,
    # 0.95) if the intervals are right, so 178..199 holds with probability > 0.999.
    rng = np.random.default_rng(1969)
    covered = np.zeros(TRUE_BETA.size, dtype=int)
    for _ in range(200):
        X, reports = _simulate(2000, rng)
        low, high = fit_logistic(X, reports, design=CLASSIC).ci(0.95)
        covered += (low <= TRUE_BETA) & (high >= TRUE_BETA)
    assert np.all((covered >= 178) & (covered <= 199)), covered


def test_predict_returns_true_answer_probabilities():
    X, reports = _simulate(5000, np.random.default_rng(3))
    fit = fit_logistic(X, reports, design=CLASSIC)
    probabilities = fit.predict(np.zeros((1, 2)))
    assert probabilities[0] == pytest.approx(special.expit(fit.coef[0]))


def test_separated_reports_raise_a_fit_error():
    # Every report is "no" left of zero and "yes" right of it: the yes-report rates 0
    # and 1 lie beyond b = 1/4 and a = 3/4, so the likelihood keeps rising as the slope
    # grows without bound.
    X = np.r_[-np.ones(100), np.ones(100)][:, np.newaxis]
    reports = np.r_[np.zeros(100, dtype=bool), np.ones(100, dtype=bool)]
    with pytest.raises(FitError, match="separated"):
        fit_logistic(X, reports, design=CLASSIC)


def test_yes_rate_below_the_forced_yes_rate_has_no_finite_estimate():
    reports = np.r_[np.ones(10, dtype=bool), np.zeros(90, dtype=bool)]
    with pytest.raises(FitError):
        fit_logistic(np.empty((100, 0)), reports, design=CLASSIC)


def test_collinear_covariates_raise_a_fit_error():
    rng = np.random.default_rng(4)
    x = rng.normal(size=500)
    X = np.column_stack([x, 2 * x])
    with pytest.raises(FitError, match="singular"):
        fit_logistic(X, rng.random(500) < 0.5, design=CLASSIC)


def test_fit_error_is_a_value_error():
    assert issubclass(FitError, ValueError)


@pytest.mark.parametrize(
    ("X", "reports", "message"),
    [
        (np.zeros(10), np.zeros(10, dtype=bool), "X must be a 2-D array"),
        (np.zeros((10, 1)), np.zeros(9, dtype=bool), "reports must be a 1-D array of length 10"),
        (np.zeros((10, 1)), np.full(10, 2), "reports must be booleans or 0/1"),
        (np.full((10, 1), np.nan), np.zeros(10, dtype=bool), "X must contain only finite"),
        (np.zeros((2, 1)), np.zeros(2, dtype=bool), "need more rows than coefficients"),
    ],
)
def test_bad_inputs_are_rejected_with_a_reason(X, reports, message):
    with pytest.raises(ValueError, match=message):
        fit_logistic(X, reports, design=CLASSIC)


def test_integer_reports_are_accepted():
    X, reports = _simulate(2000, np.random.default_rng(5))
    as_bool = fit_logistic(X, reports, design=CLASSIC)
    as_int = fit_logistic(X, reports.astype(int), design=CLASSIC)
    assert np.array_equal(as_bool.coef, as_int.coef)


def test_counted_rows_fit_as_the_rows_repeated():
    rng = np.random.default_rng(12)
    X = rng.integers(0, 2, size=(8, 2)).astype(float)
    reports = np.array([True, False] * 4)
    counts = rng.integers(0, 60, size=8)
    repeated = fit_logistic(
        np.repeat(X, counts, axis=0), np.repeat(reports, counts), design=CLASSIC
    )
    counted = fit_logistic(X, reports, counts=counts, design=CLASSIC)
    assert counted.coef == pytest.approx(repeated.coef, rel=1e-9)
    assert counted.std_error == pytest.approx(repeated.std_error, rel=1e-9)
    assert counted.log_likelihood == pytest.approx(repeated.log_likelihood, rel=1e-9)
    assert counted.n == repeated.n == counts.sum()


@pytest.mark.parametrize("counts", [[1, 2, 3], [1, -1, 2, 2], [1.5, 1, 1, 1]])
def test_counts_are_whole_numbers_one_per_row(counts):
    with pytest.raises(DPEngineError) as error:
        fit_logistic(np.zeros((4, 0)), [1, 0, 1, 0], counts=np.array(counts), design=CLASSIC)
    assert error.value.field == "counts"
