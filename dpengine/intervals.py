"""Confidence intervals for a binomial proportion, and their image under debiasing.

The reported-yes rate ``lambda = b + (a - b) p`` is a binomial proportion, so an
interval for ``lambda`` maps through ``p = (lambda - b) / (a - b)`` to an interval for
the true prevalence ``p``. All functions accept NumPy arrays of counts, which is what
the exact coverage enumeration in :mod:`dpengine.coverage` relies on.

Reference for the methods and their behaviour: Brown, Cai & DasGupta (2001),
"Interval estimation for a binomial proportion", Statistical Science 16(2), 101-133.
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from dpengine._validation import (
    METHODS,
    check_count_arrays,
    check_design,
    check_method,
    check_open_unit,
)
from dpengine.designs import YesNoDesign

__all__ = [
    "DEFAULT_METHOD",
    "METHODS",
    "ConfidenceInterval",
    "binomial_interval",
    "prevalence_interval",
    "z_value",
]

DEFAULT_METHOD = "wilson"
_STANDARD_NORMAL = NormalDist()


@dataclass(frozen=True)
class ConfidenceInterval:
    """A closed interval ``[low, high]``; floats for scalar input, arrays otherwise.

    Unpacks like a pair: ``low, high = interval``.
    """

    low: float | np.ndarray
    high: float | np.ndarray

    def __iter__(self):
        return iter((self.low, self.high))


def z_value(confidence: float) -> float:
    """The two-sided standard-normal critical value ``z = Phi^-1((1 + confidence) / 2)``."""
    confidence = check_open_unit("confidence", confidence)
    # The standard library's quantile (Wichura's AS241, about 1e-16 relative error), so the
    # default Wilson and Wald intervals need no SciPy. Taking the lower tail keeps full
    # precision for confidence levels close to 1.
    return -_STANDARD_NORMAL.inv_cdf((1 - confidence) / 2)


def _wald(y: np.ndarray, n: np.ndarray, z: float) -> tuple[np.ndarray, np.ndarray]:
    rate = y / n
    half = z * np.sqrt(rate * (1 - rate) / n)
    return rate - half, rate + half


def _wilson(y: np.ndarray, n: np.ndarray, z: float) -> tuple[np.ndarray, np.ndarray]:
    z2 = z * z
    center = (y + z2 / 2) / (n + z2)
    half = z / (n + z2) * np.sqrt(y * (n - y) / n + z2 / 4)
    return center - half, center + half


def _beta_quantiles(
    alpha: float, low_shape: tuple, high_shape: tuple
) -> tuple[np.ndarray, np.ndarray]:
    from scipy import stats  # imported here: see dpengine/__init__.py on lazy SciPy

    return (
        stats.beta.ppf(alpha / 2, *low_shape),
        stats.beta.isf(alpha / 2, *high_shape),
    )


def _exact(y: np.ndarray, n: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    # Beta shape parameters must be positive; the y = 0 and y = n rows are replaced by
    # the conventional 0 and 1 afterwards, so any positive stand-in will do.
    low_a = np.where(y > 0, y, 1)
    high_b = np.where(y < n, n - y, 1)
    return _beta_quantiles(alpha, (low_a, n - y + 1), (y + 1, high_b))


def _jeffreys(y: np.ndarray, n: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    shape = (y + 0.5, n - y + 0.5)
    return _beta_quantiles(alpha, shape, shape)


def binomial_interval(
    *, yes, n, confidence: float = 0.95, method: str = DEFAULT_METHOD
) -> ConfidenceInterval:
    """Two-sided confidence interval for a binomial proportion from ``yes`` of ``n``.

    Methods (Brown, Cai & DasGupta 2001), with ``lambda_hat = yes / n`` and ``z`` the
    two-sided normal critical value:

    - ``wald``: ``lambda_hat +/- z sqrt(lambda_hat (1 - lambda_hat) / n)``; badly
      under-covers for small ``n`` and zero width at 0 or ``n``. For comparison only.
    - ``wilson`` (default): the score interval ``(yes + z^2/2) / (n + z^2) +/-
      z / (n + z^2) sqrt(yes (n - yes) / n + z^2 / 4)`` (Wilson 1927).
    - ``exact``: Clopper-Pearson (1934), beta quantiles ``Beta(alpha/2; y, n-y+1)`` and
      ``Beta(1-alpha/2; y+1, n-y)``; coverage never below ``confidence``.
    - ``jeffreys``: equal-tailed ``Beta(y + 1/2, n - y + 1/2)`` quantiles, with the lower
      end 0 when ``yes = 0`` and the upper end 1 when ``yes = n``.

    Every interval is clipped to [0, 1]; ``n = 0`` gives ``[0, 1]``. ``yes`` and ``n``
    are integers or broadcastable integer arrays with ``0 <= yes <= n``; ``confidence``
    in (0, 1). Returns floats for scalar input and arrays otherwise.
    """
    y, n_arr = check_count_arrays(yes=yes, n=n)
    confidence = check_open_unit("confidence", confidence)
    method = check_method(method)
    y, n_arr = np.broadcast_arrays(y, n_arr)
    has_data = n_arr > 0
    safe_n = np.where(has_data, n_arr, 1)
    y_f, n_f = y.astype(float), safe_n.astype(float)
    alpha = 1 - confidence
    if method == "wald":
        low, high = _wald(y_f, n_f, z_value(confidence))
    elif method == "wilson":
        low, high = _wilson(y_f, n_f, z_value(confidence))
    elif method == "exact":
        low, high = _exact(y_f, n_f, alpha)
    else:
        low, high = _jeffreys(y_f, n_f, alpha)
    low = np.where(has_data & (y > 0), np.clip(low, 0.0, 1.0), 0.0)
    high = np.where(has_data & (y < safe_n), np.clip(high, 0.0, 1.0), 1.0)
    if low.ndim == 0:
        return ConfidenceInterval(float(low), float(high))
    return ConfidenceInterval(low, high)


def prevalence_interval(
    *,
    yes,
    n,
    design: YesNoDesign,
    confidence: float = 0.95,
    method: str = DEFAULT_METHOD,
) -> ConfidenceInterval:
    """Confidence interval for the true prevalence ``p`` under a randomized-response design.

    The interval ``[L, U]`` for ``lambda = P(report yes)`` from :func:`binomial_interval`
    is mapped through ``p = (lambda - b) / (a - b)`` and clipped to [0, 1] (Warner 1965;
    Blair, Imai & Zhou 2015). Clipping is what the parameter space demands: every
    ``p`` in [0, 1] whose ``lambda`` lies in ``[L, U]`` is in the result, so coverage is
    the binomial coverage of ``[L, U]``. When ``[L, U]`` lies wholly below ``b`` (or
    above ``a``) the data are more extreme than any prevalence explains and the interval
    collapses to the point 0 (or 1), the same point the clamped estimate reports.
    """
    check_design(design)
    interval = binomial_interval(yes=yes, n=n, confidence=confidence, method=method)
    a, b = design.p_yes_given_yes, design.p_yes_given_no
    low = np.clip((np.asarray(interval.low) - b) / (a - b), 0.0, 1.0)
    high = np.clip((np.asarray(interval.high) - b) / (a - b), 0.0, 1.0)
    if low.ndim == 0:
        return ConfidenceInterval(float(low), float(high))
    return ConfidenceInterval(low, high)
