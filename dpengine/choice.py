"""Multiple-choice questions: k-ary randomized response and its frequency estimates.

A respondent's true option ``x`` in ``{0, ..., k - 1}`` is kept with probability
``p = e^eps / (e^eps + k - 1)``; otherwise one of the ``k - 1`` OTHER options is reported,
uniformly, so each other option has probability ``q = 1 / (e^eps + k - 1)`` and every
report is ``eps``-locally differentially private (``p / q = e^eps``). This is the
exponential mechanism over the ``k`` options with utility ``u(x, y) = 1{y = x}``: weights
``exp(eps u)``, i.e. :func:`dpengine.mechanisms.exponential_mechanism` with sensitivity 1
and parameter ``2 eps``. Its generic guarantee would be ``2 eps``; here the normaliser
``e^eps + k - 1`` does not depend on the truth, so the exact loss is ``eps``, and ``eps``
is what the privacy ledger charges.

How eps is represented (the browser's ``randomizeChoice``, ``static/js/designs.js``, does the
same): either as an exact rational ``epsilon`` (floats read as the decimal they print as),
sampled exactly by the Bernoulli-exponential sampler, or as exact rational ``odds = e^eps``,
for which all probabilities are rational; ``eps = ln 3`` is ``odds=3``.

Estimation: with ``c_j`` reports of option ``j`` among ``n``, ``lambda_hat_j = c_j / n``
has mean ``q + (p - q) pi_j``, so ``pi_hat_j = (lambda_hat_j - q) / (p - q)`` is unbiased;
its covariance is ``(diag(lambda) - lambda lambda^T) / (n (p - q)^2)``. Simultaneous
intervals: Bonferroni, a binomial interval for each ``lambda_j`` (each ``c_j`` is exactly
``Binomial(n, lambda_j)``) at level ``1 - (1 - confidence) / k``, mapped through the same
linear map and clipped to [0, 1]; with the ``exact`` method the joint coverage is at least
``confidence`` by the union bound.

Shares that add up: the unbiased shares sum to 1 but may be negative, and clipping them to
[0, 1] breaks the sum (the clamped shares of k = 8 options at eps = 0.5 sum to 1.14 on
average). The *consistent* shares are the Euclidean projection of the unbiased shares onto
the probability simplex, ``argmin_x ||x - shares||_2`` subject to ``x >= 0``,
``sum x = 1``: ``x_j = max(shares_j - tau, 0)`` with the one ``tau`` that makes them sum to
1 (Duchi, Shalev-Shwartz, Singer & Chandra 2008, the sort-based algorithm; it is the
"Norm-Sub" post-processing of Wang, Lopuhaä-Zwakenberg, Li, Škorić & Li 2020, who find it
among the most accurate). It is post-processing, so it costs no privacy, and being a
projection onto a convex set that contains the true shares it is never farther from them
than the unbiased shares in Euclidean distance. The interval shown with a consistent share
is its option's simultaneous interval, widened just enough to contain the share when the
projection moved it outside (a superset of an interval covers at least as often).

References: Warner (1965) (the k-ary generalisation, Section 5); Kairouz, Oh & Viswanath
(2014), "Extremal mechanisms for local differential privacy", NeurIPS; Wang, Blocki, Li &
Jha (2017), "Locally differentially private protocols for frequency estimation", USENIX
Security (direct encoding); McSherry & Talwar (2007); Dwork & Roth (2014), Theorem 3.10;
Duchi, Shalev-Shwartz, Singer & Chandra (2008), "Efficient projections onto the l1-ball for
learning in high dimensions", ICML; Wang, Lopuhaä-Zwakenberg, Li, Škorić & Li (2020),
"Locally differentially private frequency estimation with consistency", NDSS.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from dpengine._rational import as_fraction, fmt, is_integer, is_real_number
from dpengine._validation import check_instance, check_method, check_open_unit
from dpengine.errors import DPEngineError, Reason
from dpengine.intervals import DEFAULT_METHOD, binomial_interval, z_value
from dpengine.mechanisms import exponential_mechanism
from dpengine.randomness import random_source
from dpengine.rounding import log_upper

__all__ = [
    "ChoiceEstimate",
    "KaryRandomizedResponse",
    "estimate_choice",
    "project_to_simplex",
    "randomize_choice",
    "required_sample_size_choice",
]


def _positive_exact(name: str, value: object, *, above: int) -> float | Fraction:
    if not is_real_number(value) or not math.isfinite(float(value)) or not value > above:
        raise DPEngineError(
            f"{name} must be a finite number above {above}, got {fmt(value)}",
            reason=Reason.OUT_OF_RANGE if is_real_number(value) else Reason.INVALID_TYPE,
            field=name,
        )
    return value if isinstance(value, Fraction) else float(value)


@dataclass(frozen=True)
class KaryRandomizedResponse:
    """k-ary randomized response over ``k >= 2`` options with privacy loss ``epsilon``.

    Give exactly one of ``epsilon`` (a positive rational, floats read as their decimal)
    or ``odds = e^epsilon`` (a rational above 1; then ``epsilon`` is set to ``ln odds``
    rounded up, :func:`dpengine.rounding.log_upper`).
    ``keep_probability = e^eps / (e^eps + k - 1)``, ``other_probability =
    1 / (e^eps + k - 1)``. Reference: Kairouz, Oh & Viswanath (2014).
    """

    k: int
    epsilon: float | Fraction | None = None
    odds: float | Fraction | None = None

    kind = "choice"

    def __post_init__(self) -> None:
        if not is_integer(self.k) or self.k < 2:
            raise DPEngineError(
                f"k must be an integer of at least 2 options, got {fmt(self.k)}",
                reason=Reason.OUT_OF_RANGE if is_integer(self.k) else Reason.INVALID_TYPE,
                field="k",
            )
        object.__setattr__(self, "k", int(self.k))
        if (self.epsilon is None) == (self.odds is None):
            raise DPEngineError(
                "give exactly one of epsilon and odds, got "
                f"epsilon={fmt(self.epsilon)} and odds={fmt(self.odds)}",
                reason=Reason.INVALID_TYPE,
                field="epsilon",
            )
        if self.odds is not None:
            odds = _positive_exact("odds", self.odds, above=1)
            object.__setattr__(self, "odds", odds)
            # ln of a rational is irrational: charge the least float above it.
            object.__setattr__(self, "epsilon", log_upper(as_fraction(odds)))
        else:
            object.__setattr__(self, "epsilon", _positive_exact("epsilon", self.epsilon, above=0))

    @property
    def exact_odds(self) -> Fraction | None:
        """``e^epsilon`` as an exact rational when given as ``odds``, else None."""
        return None if self.odds is None else as_fraction(self.odds)

    @property
    def exact_epsilon(self) -> Fraction | None:
        """``epsilon`` as an exact rational when given as ``epsilon``, else None."""
        return as_fraction(self.epsilon) if self.odds is None else None

    @property
    def _e_eps(self) -> float:
        return float(self.odds) if self.odds is not None else math.exp(float(self.epsilon))

    @property
    def keep_probability(self) -> float:
        """``p = e^eps / (e^eps + k - 1)``: the true option is reported."""
        return self._e_eps / (self._e_eps + self.k - 1)

    @property
    def other_probability(self) -> float:
        """``q = 1 / (e^eps + k - 1)``: each particular other option is reported."""
        return 1 / (self._e_eps + self.k - 1)

    @property
    def information(self) -> float:
        """``p - q = (e^eps - 1) / (e^eps + k - 1)``."""
        return (self._e_eps - 1) / (self._e_eps + self.k - 1)

    @property
    def variance_factor(self) -> float:
        """``1 / (p - q)^2``: worst-case variance of one share relative to asking directly."""
        return 1 / self.information**2

    @property
    def parameters(self) -> dict[str, float]:
        return {"k": self.k, "epsilon": float(self.epsilon)}


def _check_mechanism(mechanism: object) -> KaryRandomizedResponse:
    return check_instance("mechanism", mechanism, KaryRandomizedResponse)


def randomize_choice(truth: int, mechanism: KaryRandomizedResponse, rng: object = None) -> int:
    """The reported option for the true option ``truth`` in ``{0, ..., k - 1}``, exactly.

    Propose an option uniformly; the true one is always accepted and any other with
    probability ``e^-eps`` (the exponential mechanism's rejection sampler), so the report
    is the truth with probability ``p`` and each other option with ``q``. With rational
    ``odds`` the acceptance is a rational Bernoulli(``1 / odds``); with rational
    ``epsilon`` it is :func:`dpengine.mechanisms.exponential_mechanism` (exact
    Bernoulli-exponential draws). ``rng``: see :func:`dpengine.randomness.random_source`.
    References: McSherry & Talwar (2007); Canonne, Kamath & Steinke (2020), Algorithm 1.
    """
    mechanism = _check_mechanism(mechanism)
    if not is_integer(truth) or not 0 <= truth < mechanism.k:
        raise DPEngineError(
            f"truth must be an option from 0 to {mechanism.k - 1}, got {fmt(truth)}",
            reason=Reason.OUT_OF_RANGE if is_integer(truth) else Reason.INVALID_TYPE,
            field="truth",
        )
    source = random_source(rng)
    odds = mechanism.exact_odds
    if odds is None:
        scores = [1 if option == truth else 0 for option in range(mechanism.k)]
        return exponential_mechanism(
            range(mechanism.k),
            scores,
            sensitivity=1,
            epsilon=2 * mechanism.exact_epsilon,
            rng=source,
        )
    accept = 1 / odds
    while True:
        option = source.randbelow(mechanism.k)
        if option == truth:
            return option
        if source.randbelow(accept.denominator) < accept.numerator:
            return option


@dataclass(frozen=True)
class ChoiceEstimate:
    """Share estimates for the ``k`` options of one question (arrays indexed by option).

    ``shares`` are the unbiased estimates (they sum to 1 and may leave [0, 1]);
    ``clamped`` clips each to [0, 1] (they need not sum to 1); ``consistent`` are the shares
    projected onto the probability simplex (non-negative, summing to 1: the headline).
    ``ci_low``/``ci_high`` are simultaneous intervals (Bonferroni, see the module docstring);
    ``consistent_ci_low``/``consistent_ci_high`` are the same intervals widened, where
    needed, to contain ``consistent``. Without data (``n = 0``) the estimates and standard
    errors are None and every interval is [0, 1].
    """

    n: int
    counts: tuple[int, ...]
    shares: np.ndarray | None
    clamped: np.ndarray | None
    std_errors: np.ndarray | None
    covariance: np.ndarray | None
    ci_low: np.ndarray
    ci_high: np.ndarray
    method: str
    confidence: float
    per_option_confidence: float
    mechanism: KaryRandomizedResponse
    consistent: np.ndarray | None = None
    consistent_ci_low: np.ndarray | None = None
    consistent_ci_high: np.ndarray | None = None
    # The method asked for when another was used (dpengine.estimate_choice_with_coverage).
    requested_method: str | None = None

    def __post_init__(self) -> None:
        if self.requested_method is None:
            object.__setattr__(self, "requested_method", self.method)

    @property
    def method_replaced(self) -> bool:
        """True when the intervals are not the requested method's (see dpengine.guarantee)."""
        return self.requested_method != self.method

    @property
    def has_data(self) -> bool:
        return self.n > 0

    @property
    def widened(self) -> np.ndarray:
        """Per option, whether the consistent share fell outside its simultaneous interval
        (so the interval shown with it is widened)."""
        return (self.consistent_ci_low < self.ci_low) | (self.consistent_ci_high > self.ci_high)


def project_to_simplex(values: Sequence[float] | np.ndarray) -> np.ndarray:
    """The Euclidean projection of ``values`` onto the probability simplex.

    ``argmin_x ||x - values||_2`` subject to ``x >= 0`` and ``sum(x) = 1``, which is
    ``x_j = max(values_j - tau, 0)``: sort ``u`` descending, ``rho`` the largest ``j``
    (1-based) with ``u_j > (u_1 + ... + u_j - 1) / j``, ``tau = (u_1 + ... + u_rho - 1) /
    rho``. The result is non-negative and sums to 1 up to rounding (a few units in the last
    place). Reference: Duchi, Shalev-Shwartz, Singer & Chandra (2008), Figure 1; Wang et al.
    (2020), "Norm-Sub".
    """
    v = np.asarray(values, dtype=float)
    if v.ndim != 1 or v.size == 0 or not np.all(np.isfinite(v)):
        raise DPEngineError(
            f"values must be a non-empty vector of finite numbers, got {values!r}",
            reason=Reason.SHAPE_MISMATCH,
            field="values",
        )
    u = np.sort(v)[::-1]
    cumulative = np.cumsum(u) - 1.0
    ranks = np.arange(1, v.size + 1)
    rho = int(np.nonzero(u - cumulative / ranks > 0)[0][-1]) + 1
    tau = cumulative[rho - 1] / rho
    projected = np.maximum(v - tau, 0.0)
    # Rounding can leave the sum a few ulps from 1; rescaling the positive entries fixes it
    # without moving any entry by more than that.
    return projected / math.fsum(projected)


def _check_counts(counts: object, k: int) -> tuple[int, ...]:
    values = tuple(counts) if isinstance(counts, Sequence | np.ndarray) else None
    if values is None or len(values) != k:
        raise DPEngineError(
            f"counts must hold one count per option ({k}), got {counts!r}",
            reason=Reason.SHAPE_MISMATCH,
            field="counts",
        )
    for index, value in enumerate(values):
        if not is_integer(value) or value < 0:
            raise DPEngineError(
                f"counts[{index}] must be a non-negative integer, got {fmt(value)}",
                reason=Reason.OUT_OF_RANGE if is_integer(value) else Reason.INVALID_TYPE,
                field="counts",
            )
    return tuple(int(value) for value in values)


def estimate_choice(
    *,
    counts: Sequence[int],
    mechanism: KaryRandomizedResponse,
    confidence: float = 0.95,
    method: str = DEFAULT_METHOD,
) -> ChoiceEstimate:
    """Unbiased shares of the ``k`` options with simultaneous confidence intervals.

    ``counts[j]`` is the number of reports of option ``j``. ``shares_j =
    (c_j / n - q) / (p - q)``; ``covariance = (diag(l) - l l^T) / (n (p - q)^2)`` with
    ``l = counts / n``; ``std_errors`` its diagonal's square roots. Intervals: for each
    option the binomial interval (``method`` as in :func:`dpengine.binomial_interval`) at
    level ``1 - (1 - confidence) / k`` for ``lambda_j``, mapped through
    ``(lambda - q) / (p - q)`` and clipped to [0, 1] (Bonferroni). References: Kairouz,
    Oh & Viswanath (2014); Wang et al. (2017); Brown, Cai & DasGupta (2001).
    """
    mechanism = _check_mechanism(mechanism)
    counts = _check_counts(counts, mechanism.k)
    confidence = check_open_unit("confidence", confidence)
    method = check_method(method)
    k, n = mechanism.k, sum(counts)
    per_option = 1 - (1 - confidence) / k
    p, q = mechanism.keep_probability, mechanism.other_probability
    interval = binomial_interval(yes=np.array(counts), n=n, confidence=per_option, method=method)
    low = np.clip((np.asarray(interval.low) - q) / (p - q), 0.0, 1.0)
    high = np.clip((np.asarray(interval.high) - q) / (p - q), 0.0, 1.0)
    if n == 0:
        shares = clamped = std_errors = covariance = consistent = None
        consistent_low, consistent_high = low, high
    else:
        rates = np.array(counts, dtype=float) / n
        shares = (rates - q) / (p - q)
        clamped = np.clip(shares, 0.0, 1.0)
        covariance = (np.diag(rates) - np.outer(rates, rates)) / (n * (p - q) ** 2)
        std_errors = np.sqrt(np.clip(np.diag(covariance), 0.0, None))
        consistent = project_to_simplex(shares)
        consistent_low = np.minimum(low, consistent)
        consistent_high = np.maximum(high, consistent)
    return ChoiceEstimate(
        n=n,
        counts=counts,
        shares=shares,
        clamped=clamped,
        std_errors=std_errors,
        covariance=covariance,
        ci_low=low,
        ci_high=high,
        method=method,
        confidence=confidence,
        per_option_confidence=per_option,
        mechanism=mechanism,
        consistent=consistent,
        consistent_ci_low=consistent_low,
        consistent_ci_high=consistent_high,
    )


def required_sample_size_choice(
    *, mechanism: KaryRandomizedResponse, margin: float, confidence: float = 0.95
) -> int:
    """Reports needed so every option's Bonferroni half-width is at most ``margin``.

    ``n = ceil(z^2 v / (margin^2 (p - q)^2))`` with ``z`` the two-sided critical value at
    level ``1 - (1 - confidence) / k`` and ``v`` the largest ``lambda (1 - lambda)`` for
    ``lambda`` in ``[q, p]`` (1/4 when the range contains 1/2): the worst case over all
    true shares. Normal approximation, as :func:`dpengine.required_sample_size`.
    """
    mechanism = _check_mechanism(mechanism)
    margin = check_open_unit("margin", margin)
    confidence = check_open_unit("confidence", confidence)
    p, q = mechanism.keep_probability, mechanism.other_probability
    nearest_half = min(max(0.5, q), p)
    variance = nearest_half * (1 - nearest_half)
    z = z_value(1 - (1 - confidence) / mechanism.k)
    return max(1, math.ceil(z * z * variance / (margin * margin * (p - q) ** 2)))
