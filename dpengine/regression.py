"""Logistic regression of the TRUE answer on covariates, from randomized reports.

The model is ``P(true yes | x) = logistic(beta_0 + x beta)``; the forced-response coins
turn it into ``P(report yes | x) = b + (a - b) logistic(beta_0 + x beta)``, and the
coefficients are fitted by maximum likelihood on the reports. This is the
"design-based" regression of Blair, Imai & Zhou (2015), section 4 (implemented in the
R package ``rr``, function ``rrreg``), and of van den Hout & van der Heijden (2002),
"Randomized response, statistical disclosure control and misclassification: a
review", International Statistical Review 70(2).

Fitting is Fisher scoring with step-halving. With ``mu = b + c s``, ``c = a - b``,
``s = logistic(eta)`` and ``mu' = c s (1 - s)``, the score is
``Z^T ((y - mu) mu' / (mu (1 - mu)))`` and the expected information is
``Z^T diag(mu'^2 / (mu (1 - mu))) Z``, where ``Z`` is ``X`` with a leading column of
ones. Standard errors come from the inverse expected information at the estimate.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpengine._rational import fmt, is_integer, is_real_number
from dpengine._validation import check_design
from dpengine.designs import YesNoDesign
from dpengine.errors import DPEngineError, Reason
from dpengine.intervals import ConfidenceInterval, z_value

__all__ = ["FitError", "LogisticFit", "fit_logistic"]

# Beyond this linear predictor the logistic curve is flat to double precision
# (s (1 - s) < 1e-13); only used to explain a failure, never to cause one.
_SATURATED_ETA = 30.0
_MAX_HALVINGS = 40
_MAX_CONDITION = 1e12


class FitError(DPEngineError):
    """The maximum-likelihood fit does not exist or could not be found.

    ``reason`` is one of ``TOO_FEW_ROWS``, ``SEPARATION``, ``SINGULAR`` and
    ``NOT_CONVERGED``.
    """


@dataclass(frozen=True)
class LogisticFit:
    """A fitted randomized-response logistic regression; arrays are intercept first."""

    coef: np.ndarray
    std_error: np.ndarray
    covariance: np.ndarray
    log_likelihood: float
    n_iter: int
    converged: bool
    n: int
    design: YesNoDesign

    def ci(self, confidence: float = 0.95) -> ConfidenceInterval:
        """Wald intervals ``coef +/- z std_error``; unpacks as ``low, high``."""
        half = z_value(confidence) * self.std_error
        return ConfidenceInterval(self.coef - half, self.coef + half)

    @property
    def z(self) -> np.ndarray:
        return self.coef / self.std_error

    @property
    def p_values(self) -> np.ndarray:
        """Two-sided Wald test of each coefficient being zero."""
        from scipy import stats  # imported here: see dpengine/__init__.py on lazy SciPy

        return 2 * stats.norm.sf(np.abs(self.z))

    def predict(self, X) -> np.ndarray:
        """Fitted probability of a TRUE yes for each row of ``X`` (no intercept column)."""
        from scipy import special  # imported here: see dpengine/__init__.py on lazy SciPy

        X = _check_covariates(X, columns=self.coef.size - 1)
        return special.expit(self.coef[0] + X @ self.coef[1:])


def _check_covariates(X, *, columns: int | None = None) -> np.ndarray:
    try:
        array = np.asarray(X, dtype=float)
    except (TypeError, ValueError) as error:
        raise DPEngineError(
            f"X must be a numeric 2-D array, got {X!r}", reason=Reason.INVALID_TYPE, field="X"
        ) from error
    if array.ndim != 2:
        raise DPEngineError(
            f"X must be a 2-D array (n rows, k columns), got shape {array.shape}",
            reason=Reason.SHAPE_MISMATCH,
            field="X",
        )
    if not np.all(np.isfinite(array)):
        raise DPEngineError(
            "X must contain only finite numbers, got NaN or infinity",
            reason=Reason.OUT_OF_RANGE,
            field="X",
        )
    if columns is not None and array.shape[1] != columns:
        raise DPEngineError(
            f"X must have {columns} columns, got {array.shape[1]}",
            reason=Reason.SHAPE_MISMATCH,
            field="X",
        )
    return array


def _check_reports(reports, n: int) -> np.ndarray:
    array = np.asarray(reports)
    if array.ndim != 1 or array.shape[0] != n:
        raise DPEngineError(
            f"reports must be a 1-D array of length {n} (rows of X), got shape {array.shape}",
            reason=Reason.SHAPE_MISMATCH,
            field="reports",
        )
    if array.dtype != bool and (
        not np.issubdtype(array.dtype, np.integer) or not np.isin(array, (0, 1)).all()
    ):
        raise DPEngineError(
            "reports must be booleans or 0/1 integers",
            reason=Reason.INVALID_TYPE,
            field="reports",
        )
    return array.astype(float)


def _check_counts(counts, n: int) -> np.ndarray:
    array = np.asarray(counts)
    if array.ndim != 1 or array.shape[0] != n:
        raise DPEngineError(
            f"counts must be a 1-D array of length {n} (rows of X), got shape {array.shape}",
            reason=Reason.SHAPE_MISMATCH,
            field="counts",
        )
    if not np.issubdtype(array.dtype, np.integer) or (array < 0).any():
        raise DPEngineError(
            "counts must be whole numbers >= 0", reason=Reason.INVALID_TYPE, field="counts"
        )
    return array.astype(float)


def _log_likelihood(y: np.ndarray, mu: np.ndarray, weights: np.ndarray) -> float:
    return float(np.sum(weights * (y * np.log(mu) + (1 - y) * np.log1p(-mu))))


def _information(Z: np.ndarray, weights: np.ndarray) -> np.ndarray:
    return (Z * weights[:, np.newaxis]).T @ Z


def _check_conditioning(information: np.ndarray, eta: np.ndarray) -> None:
    diagonal = np.diag(information)
    if np.all(np.isfinite(information)) and np.all(diagonal > 0):
        # Scaling to unit diagonal makes the test independent of the covariates' units.
        scale = 1 / np.sqrt(diagonal)
        condition = np.linalg.cond(information * np.outer(scale, scale))
        if condition < _MAX_CONDITION:
            return
    if np.max(np.abs(eta)) > _SATURATED_ETA:
        raise FitError(
            "the estimate runs off to infinity (fitted true prevalences of 0 or 1): the "
            "reports are separated by the covariates, or in some covariate region the "
            "yes-report rate lies outside the design's range [b, a]",
            reason=Reason.SEPARATION,
            field="X",
        )
    raise FitError(
        "the information matrix is singular: covariates are collinear or constant",
        reason=Reason.SINGULAR,
        field="X",
    )


def fit_logistic(
    X,
    reports,
    *,
    design: YesNoDesign,
    counts=None,
    max_iter: int = 100,
    tol: float = 1e-8,
) -> LogisticFit:
    """Maximum-likelihood logistic regression of the true answer on covariates.

    Model: ``P(report yes | x) = b + (a - b) logistic(beta_0 + x beta)``
    (Blair, Imai & Zhou 2015, section 4). ``X`` is an ``n x k`` array WITHOUT an
    intercept column (``k`` may be 0); ``reports`` holds the ``n`` randomized reports
    (bools or 0/1). ``counts``, if given, says how many times each row occurs (whole numbers
    >= 0): the fit is the fit of the rows repeated that many times, at the cost of the
    distinct rows (a survey's cells of covariates x report, not its respondents). Fisher
    scoring with step-halving (so the log-likelihood never
    decreases) stops when every coefficient moves less than ``tol (1 + |beta|_max)``;
    ``max_iter`` is a positive integer and ``tol`` a positive number.

    Returns a :class:`LogisticFit` (``coef`` and ``std_error`` intercept first, ``ci()``,
    ``log_likelihood``, ``n_iter``; ``converged`` is always True because a fit that does
    not converge raises). Raises :class:`FitError` when the information matrix is
    singular (collinear covariates, too few rows), when the estimate runs off to
    infinity (separation: in some covariate region the yes-report rate lies beyond
    ``b`` or ``a``, so the best fit has a true prevalence of exactly 0 or 1), or when
    ``max_iter`` iterations do not suffice.
    """
    check_design(design)
    X = _check_covariates(X)
    n, k = X.shape
    y = _check_reports(reports, n)
    weights = np.ones(n) if counts is None else _check_counts(counts, n)
    if not is_integer(max_iter) or max_iter < 1:
        raise DPEngineError(
            f"max_iter must be a positive integer, got {fmt(max_iter)}",
            reason=Reason.OUT_OF_RANGE,
            field="max_iter",
        )
    if not is_real_number(tol) or not 0 < float(tol) < 1:
        raise DPEngineError(
            f"tol must be in (0, 1), got {fmt(tol)}", reason=Reason.OUT_OF_RANGE, field="tol"
        )
    rows = int(weights.sum())
    if rows <= k + 1:
        raise FitError(
            f"need more rows than coefficients: {rows} rows for {k + 1} coefficients",
            reason=Reason.TOO_FEW_ROWS,
            field="X",
        )
    from scipy import special  # imported here: see dpengine/__init__.py on lazy SciPy

    a, b = design.p_yes_given_yes, design.p_yes_given_no
    c = a - b
    Z = np.column_stack([np.ones(n), X])

    def state(beta: np.ndarray):
        s = special.expit(Z @ beta)
        mu = b + c * s
        return s, mu, _log_likelihood(y, mu, weights)

    beta = np.zeros(k + 1)
    # Start at the intercept-only moment estimate, kept away from 0 and 1.
    start = min(max((np.sum(weights * y) / rows - b) / c, 0.05), 0.95)
    beta[0] = special.logit(start)
    s, mu, log_lik = state(beta)
    iterations = 0
    for _ in range(int(max_iter)):
        iterations += 1
        slope = c * s * (1 - s)
        variance = mu * (1 - mu)
        score = Z.T @ (weights * (y - mu) * slope / variance)
        information = _information(Z, weights * slope**2 / variance)
        _check_conditioning(information, Z @ beta)
        step = np.linalg.solve(information, score)
        for _ in range(_MAX_HALVINGS):
            candidate = beta + step
            s_new, mu_new, log_lik_new = state(candidate)
            if log_lik_new >= log_lik - 1e-12 * abs(log_lik):
                break
            step = step / 2
        else:
            raise FitError(
                "step-halving could not increase the log-likelihood",
                reason=Reason.NOT_CONVERGED,
                field=None,
            )
        beta, s, mu, log_lik = candidate, s_new, mu_new, log_lik_new
        if np.max(np.abs(step)) < tol * (1 + np.max(np.abs(beta))):
            break
    else:
        hint = ""
        if np.max(np.abs(Z @ beta)) > _SATURATED_ETA:
            hint = "; fitted true prevalences approach 0 or 1, as when the data are separated"
        raise FitError(
            f"did not converge in {max_iter} iterations{hint}",
            reason=Reason.NOT_CONVERGED,
            field=None,
        )
    slope = c * s * (1 - s)
    information = _information(Z, weights * slope**2 / (mu * (1 - mu)))
    _check_conditioning(information, Z @ beta)
    covariance = np.linalg.inv(information)
    return LogisticFit(
        coef=beta,
        std_error=np.sqrt(np.diag(covariance)),
        covariance=covariance,
        log_likelihood=log_lik,
        n_iter=iterations,
        converged=True,
        n=rows,
        design=design,
    )
