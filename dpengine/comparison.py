"""Comparing the prevalence of two independent groups, and randomized against direct asking.

Each group's unbiased estimate has the randomized-response standard error of
:func:`dpengine.estimate`; the groups are independent, so the difference has standard
error ``sqrt(se_a^2 + se_b^2)`` and is tested with a two-sided normal (Wald) z-test.
The groups may use different designs. References: Warner (1965); Blair, Imai & Zhou
(2015), section 3; Agresti (2013), "Categorical Data Analysis", section 3.1.

That Wald interval is kept for comparison with other software, but it is not what the
product shows: at small ``n`` it collapses (two groups of 7 and 13 whose reports are all
"yes" have standard error 0) and covers far less than its level. What is shown is the
**exact product interval** (:func:`difference_interval`): each group's exact
(Clopper-Pearson) interval for its share, at levels ``c_1``, ``c_2`` with
``c_1 c_2 = confidence``, combined as ``[low_1 - high_2, high_1 - low_2]``. Its coverage is
at least ``confidence`` at every pair of true shares, by a two-line proof: the groups are
independent, so both group intervals hold together with probability at least
``c_1 c_2``, and when both hold the difference of the true shares lies between those ends.
The split of the level between the groups depends only on the group sizes and designs
(never on the reports), so the proof holds given the group sizes, and so also for random
ones. References: Clopper & Pearson (1934); Sidak (1967), JASA 62(318) (the product
inequality for independent intervals).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

from dpengine._rational import fmt, is_real_number
from dpengine._validation import check_count, check_open_unit
from dpengine.errors import DPEngineError, Reason
from dpengine.estimation import Estimate
from dpengine.intervals import ConfidenceInterval, binomial_interval, z_value

__all__ = [
    "DIFFERENCE_METHOD",
    "Comparison",
    "DifferenceInterval",
    "DirectComparison",
    "compare",
    "compare_direct",
    "difference_coverage",
    "difference_interval",
    "difference_interval_table",
    "log_odds_interval",
    "log_odds_ratio_interval",
    "log_odds_ratio_interval_table",
]

# The method named on pages and in results for the interval of a difference that is shown.
DIFFERENCE_METHOD = "exact-product"
# Points per round of the search for the p-value that inverts the shown interval.
_P_VALUE_POINTS = 64
# The per-group share of the miss probability is searched in [1 %, 99 %]: a group given
# none would need an interval of level 1, i.e. all of [0, 1].
_SPLIT_BOUNDS = (0.01, 0.99)


@dataclass(frozen=True)
class DifferenceInterval:
    """The shown interval of ``first - second`` with its estimate and the test it inverts.

    ``estimate`` is the difference of the two clamped shares (each in [0, 1]), so it always
    lies in ``[low, high]``. ``p_value`` is the two-sided p-value of the test that rejects
    "no difference" exactly when 0 lies outside this interval at level ``1 - p``.
    ``first_level`` and ``second_level`` are the groups' own levels (their product is
    ``confidence``).
    """

    estimate: float
    low: float
    high: float
    p_value: float
    confidence: float
    first_level: float
    second_level: float
    method: str = DIFFERENCE_METHOD


@dataclass(frozen=True)
class _Group:
    yes: int
    n: int
    a: float  # P(report yes | truth yes): 1 for a question asked directly
    b: float  # P(report yes | truth no): 0 for a question asked directly

    @property
    def scale(self) -> float:
        # Half-width of the share's interval is about z / (2 (a - b) sqrt(n)) at worst.
        return 1.0 / ((self.a - self.b) * math.sqrt(self.n))

    def share(self) -> float:
        return min(max((self.yes / self.n - self.b) / (self.a - self.b), 0.0), 1.0)

    def limits(self, level):
        """Exact (Clopper-Pearson) interval of the share at ``level`` (a float or an array
        of counts' intervals when ``yes`` is an array), mapped through the design, clipped."""
        interval = binomial_interval(yes=self.yes, n=self.n, confidence=level, method="exact")
        return self._mapped(interval.low, interval.high)

    def limits_at(self, levels: np.ndarray):
        """The same for one count at many levels (Clopper-Pearson's beta quantiles)."""
        from scipy import stats  # imported here: see dpengine/__init__.py on lazy SciPy

        half_miss = (1.0 - levels) / 2
        y, n = self.yes, self.n
        low = stats.beta.ppf(half_miss, y, n - y + 1) if y > 0 else np.zeros_like(levels)
        high = stats.beta.isf(half_miss, y + 1, n - y) if y < n else np.ones_like(levels)
        return self._mapped(low, high)

    def _mapped(self, low, high):
        return (
            np.clip((low - self.b) / (self.a - self.b), 0.0, 1.0),
            np.clip((high - self.b) / (self.a - self.b), 0.0, 1.0),
        )


def _split(first: _Group, second: _Group, confidence: float) -> float:
    """The exponent ``t`` with ``c_1 = confidence^t``, ``c_2 = confidence^(1 - t)`` that
    minimises the worst-case width ``z(c_1) w_1 + z(c_2) w_2`` (``w`` the groups' scales).
    Depends on sizes and designs only, never on the reports."""
    from scipy import optimize  # imported here: see dpengine/__init__.py on lazy SciPy

    def width(t: float) -> float:
        return z_value(confidence**t) * first.scale + z_value(confidence ** (1 - t)) * (
            second.scale
        )

    found = optimize.minimize_scalar(width, bounds=_SPLIT_BOUNDS, method="bounded")
    return float(found.x)


def _product(first: _Group, second: _Group, *, confidence: float, t: float):
    low_1, high_1 = first.limits(confidence**t)
    low_2, high_2 = second.limits(confidence ** (1 - t))
    return low_1, high_1, low_2, high_2


def _holds_zero(first: _Group, second: _Group, *, t: float, misses: np.ndarray) -> np.ndarray:
    """Whether the interval at level ``1 - miss`` holds 0, for each miss probability."""
    levels = 1.0 - misses
    # One scalar count per group, many levels: binomial_interval broadcasts counts only.
    low_1, high_1 = first.limits_at(levels**t)
    low_2, high_2 = second.limits_at(levels ** (1 - t))
    return (low_1 - high_2 <= 0) & (high_1 - low_2 >= 0)


def _inverted_p_value(first: _Group, second: _Group, *, t: float) -> float:
    """``1 - c*`` with ``c*`` the least level whose interval holds 0. Both groups' levels
    grow with the overall level (exponents fixed), and exact intervals are nested in their
    level, so "0 inside" is monotone in the level; two rounds of 64 miss probabilities
    (log-spaced from 1e-12 to 1, then within the bracket found) fix the p-value to within
    1 % of itself."""
    misses = np.logspace(-12, 0, _P_VALUE_POINTS)
    inside = _holds_zero(first, second, t=t, misses=misses)
    if not inside.any():
        return float(misses[0])  # below 1e-12: shown as "< 0.001" anyway
    if inside.all():
        return 1.0
    # Small misses (high levels) hold 0; the p-value is the largest miss that still does.
    last = int(np.flatnonzero(inside).max())
    finer = np.logspace(np.log10(misses[last]), np.log10(misses[last + 1]), _P_VALUE_POINTS)
    inside = _holds_zero(first, second, t=t, misses=finer)
    return float(finer[int(np.flatnonzero(inside).max())])


def _difference(first: _Group, second: _Group, confidence: float) -> DifferenceInterval:
    t = _split(first, second, confidence)
    low_1, high_1, low_2, high_2 = _product(first, second, confidence=confidence, t=t)
    return DifferenceInterval(
        estimate=first.share() - second.share(),
        low=float(low_1 - high_2),
        high=float(high_1 - low_2),
        p_value=_inverted_p_value(first, second, t=t),
        confidence=confidence,
        first_level=confidence**t,
        second_level=confidence ** (1 - t),
    )


def _group_of(estimate: Estimate) -> _Group:
    design = estimate.design
    return _Group(yes=estimate.yes, n=estimate.n, a=design.p_yes_given_yes, b=design.p_yes_given_no)


def difference_interval(
    *, first: Estimate, second: Estimate, confidence: float = 0.95
) -> DifferenceInterval:
    """Interval for ``p_first - p_second`` (two independent groups' true shares) with
    coverage at least ``confidence`` at every pair of shares and every group size.

    With ``c_1 = confidence^t`` and ``c_2 = confidence^(1 - t)``, each group's exact
    Clopper-Pearson interval for its report rate ``lambda`` at its level is mapped through
    its design, ``p = (lambda - b) / (a - b)``, and clipped to [0, 1], giving
    ``[l_i, u_i]``; the interval is ``[l_1 - u_2, u_1 - l_2]``. Independence gives
    ``P(both hold) >= c_1 c_2 = confidence``, and when both hold the true difference is
    inside. ``t`` in [0.01, 0.99] minimises ``z(c_1) w_1 + z(c_2) w_2`` with
    ``w_i = 1 / ((a_i - b_i) sqrt(n_i))``: the worst-case width, from sizes and designs only.
    The estimate is ``clamp(p_hat_1) - clamp(p_hat_2)``, inside the interval because each
    exact interval holds its own ``yes / n``. The p-value inverts the interval (bisection
    on the level). Both groups need data (``n > 0``); ``confidence`` in (0, 1).
    References: Clopper & Pearson (1934); Sidak (1967).
    """
    first = _check_group("first", first)
    second = _check_group("second", second)
    confidence = check_open_unit("confidence", confidence)
    return _difference(_group_of(first), _group_of(second), confidence)


def difference_interval_table(
    *,
    n_first: int,
    first_rates: tuple[float, float],
    n_second: int,
    second_rates: tuple[float, float],
    confidence: float = 0.95,
) -> ConfidenceInterval:
    """The interval :func:`difference_interval` shows for every pair of yes-counts: arrays
    of shape ``(n_first + 1, n_second + 1)``. ``*_rates`` are each group's ``(a, b)``, its
    yes-report probabilities given a true yes and a true no (``(1, 0)`` for a question asked
    directly). For exact coverage (:func:`difference_coverage`)."""
    n_first = check_count("n_first", n_first)
    n_second = check_count("n_second", n_second)
    first = _Group(yes=np.arange(n_first + 1), n=n_first, a=first_rates[0], b=first_rates[1])
    second = _Group(yes=np.arange(n_second + 1), n=n_second, a=second_rates[0], b=second_rates[1])
    t = _split(first, second, check_open_unit("confidence", confidence))
    low_1, high_1, low_2, high_2 = _product(first, second, confidence=confidence, t=t)
    return ConfidenceInterval(low_1[:, None] - high_2[None, :], high_1[:, None] - low_2[None, :])


def difference_coverage(
    *,
    low,
    high,
    n_first: int,
    n_second: int,
    first_rates,
    second_rates,
    first_shares,
    second_shares,
) -> np.ndarray:
    """Exact coverage of an interval of a difference at given pairs of true shares.

    ``low`` and ``high`` are ``(n_first + 1, n_second + 1)`` arrays, the interval shown for
    every pair of yes-counts ``(y_1, y_2)``. For each pair ``k`` of true shares
    ``(first_shares[k], second_shares[k])`` with report rates ``first_rates[k]``,
    ``second_rates[k]`` (``lambda = b + (a - b) p``), the coverage is
    ``sum_{y_1, y_2} P(y_1) P(y_2) 1[low <= p_1 - p_2 <= high]``, the two counts being
    independent binomials: an enumeration, not a simulation.
    """
    from scipy import stats  # imported here: see dpengine/__init__.py on lazy SciPy

    pmf_1 = stats.binom.pmf(
        np.arange(n_first + 1)[None, :], n_first, np.asarray(first_rates)[:, None]
    )
    pmf_2 = stats.binom.pmf(
        np.arange(n_second + 1)[None, :], n_second, np.asarray(second_rates)[:, None]
    )
    truth = np.asarray(first_shares, dtype=float) - np.asarray(second_shares, dtype=float)
    result = np.empty(truth.shape)
    for k, value in enumerate(truth):
        inside = (low <= value) & (value <= high)
        result[k] = pmf_1[k] @ inside @ pmf_2[k]
    return result


@dataclass(frozen=True)
class Comparison:
    """Difference ``group - rest`` of two independent groups' true prevalences.

    ``difference`` is unbiased and may leave [-1, 1] (each group's estimate may leave
    [0, 1]); ``clamped`` is it clipped to [-1, 1]: it always lies in the Wald interval
    ``[ci_low, ci_high]``, which is clipped the same way. ``z``, ``p_value`` and the Wald
    interval are kept for comparison with other software; what a page shows is ``shown``
    (:func:`difference_interval`: its estimate, interval and p-value), whose coverage is
    guaranteed at every sample size. ``method`` names it.
    """

    difference: float
    clamped: float
    std_error: float
    ci_low: float
    ci_high: float
    z: float
    p_value: float
    confidence: float
    shown: DifferenceInterval

    @property
    def method(self) -> str:
        return self.shown.method

    @property
    def ci(self) -> ConfidenceInterval:
        return ConfidenceInterval(self.ci_low, self.ci_high)


def _clip(value: float) -> float:
    return min(max(value, -1.0), 1.0)


def _check_group(name: str, value: object) -> Estimate:
    if not isinstance(value, Estimate):
        raise DPEngineError(
            f"{name} must be an Estimate, got {value!r}", reason=Reason.INVALID_TYPE, field=name
        )
    if not value.has_data:
        raise DPEngineError(
            f"{name} has no data (n = 0); there is nothing to compare",
            reason=Reason.NO_DATA,
            field=name,
        )
    return value


def compare(*, group: Estimate, rest: Estimate, confidence: float = 0.95) -> Comparison:
    """Two-sided z-test and confidence interval for the difference of two prevalences.

    ``difference = p_hat_group - p_hat_rest`` (the unbiased, unclamped estimates of two
    independent groups, e.g. one group and everybody else),
    ``std_error = sqrt(se_group^2 + se_rest^2)``, ``z = difference / std_error``,
    ``p_value = 2 (1 - Phi(|z|))``, and the interval ``difference +/- z_c std_error``
    with both ends clipped to [-1, 1], with ``z_c`` the two-sided critical value for
    ``confidence`` in (0, 1). ``clamped`` is ``difference`` clipped to [-1, 1]: clipping is
    monotone, so it lies in the clipped interval, even when the unbiased difference (e.g.
    +1.25 from two small groups) lies beyond it. The test is approximate (normal theory);
    plan sample sizes with :func:`dpengine.planning.required_sample_size_difference`.
    ``shown`` is :func:`difference_interval` of the same groups: the interval to show.

    Raises :class:`~dpengine.errors.DPEngineError` (a ``ValueError``) with reason
    ``NO_DATA`` and the field (``"group"`` or ``"rest"``) when either has no data, and with
    reason ``ZERO_VARIANCE`` when both standard errors are zero (every report within each
    group identical), because the normal test is then undefined rather than infinitely
    confident.
    References: Blair, Imai & Zhou (2015); Agresti (2013), section 3.1.
    """
    group = _check_group("group", group)
    rest = _check_group("rest", rest)
    confidence = check_open_unit("confidence", confidence)
    difference = group.estimate - rest.estimate
    std_error = math.hypot(group.std_error, rest.std_error)
    if std_error == 0:
        raise DPEngineError(
            "both groups have zero estimated variance (all reports in each group are the "
            f"same: {group.yes} of {group.n} and {rest.yes} of {rest.n}); the z-test "
            "is undefined",
            reason=Reason.ZERO_VARIANCE,
            field=None,
        )
    from scipy import stats  # imported here: see dpengine/__init__.py on lazy SciPy

    z = difference / std_error
    half = z_value(confidence) * std_error
    return Comparison(
        difference=difference,
        clamped=_clip(difference),
        std_error=std_error,
        ci_low=_clip(difference - half),
        ci_high=_clip(difference + half),
        z=z,
        p_value=float(2 * stats.norm.sf(abs(z))),
        confidence=confidence,
        shown=_difference(_group_of(group), _group_of(rest), confidence),
    )


@dataclass(frozen=True)
class DirectComparison:
    """Randomized-response estimate minus the direct-questioning estimate ("more is better").

    ``p_value`` is one-sided, for the alternative that the randomized estimate is larger
    (respondents under-report when asked directly); ``ci_low``/``ci_high`` is the two-sided
    interval of the difference and ``lower_bound`` the one-sided bound at ``confidence``
    (normal theory, Wald). ``shown`` is the interval to show, with coverage guaranteed at
    every sample size (:func:`difference_interval`, the direct group's share a plain
    binomial), when the randomized half's reports were given; None otherwise (an estimate
    and a standard error alone cannot back one).
    """

    randomized: float
    randomized_std_error: float
    direct: float
    direct_std_error: float
    direct_yes: int
    direct_n: int
    difference: float
    std_error: float
    ci_low: float
    ci_high: float
    lower_bound: float
    z: float
    p_value: float
    confidence: float
    shown: DifferenceInterval | None = None

    @property
    def ci(self) -> ConfidenceInterval:
        return ConfidenceInterval(self.ci_low, self.ci_high)

    def as_dict(self) -> dict[str, object]:
        values = {field: getattr(self, field) for field in self.__dataclass_fields__}
        values["shown"] = None if self.shown is None else asdict(self.shown)
        return values


def _finite(name: str, value: object, *, minimum: float | None = None) -> float:
    if not is_real_number(value) or not math.isfinite(float(value)):
        raise DPEngineError(
            f"{name} must be a finite number, got {fmt(value)}",
            reason=Reason.INVALID_TYPE if not is_real_number(value) else Reason.OUT_OF_RANGE,
            field=name,
        )
    if minimum is not None and float(value) < minimum:
        raise DPEngineError(
            f"{name} must be at least {minimum}, got {fmt(value)}",
            reason=Reason.OUT_OF_RANGE,
            field=name,
        )
    return float(value)


def compare_direct(
    *,
    estimate: float,
    std_error: float,
    direct_yes: int,
    direct_n: int,
    confidence: float = 0.95,
    randomized: Estimate | None = None,
) -> DirectComparison:
    """Split-ballot test: did randomized response reveal more than asking directly?

    ``estimate`` and ``std_error`` are the randomized half's prevalence estimate and its
    standard error from any design (e.g. ``dpengine.estimate(...).estimate`` and
    ``.std_error``, the unclamped value, or a cheating design's ``pi``); ``direct_yes`` of
    ``direct_n`` respondents of the control group said "yes" when asked directly. The two
    halves are independent (each respondent is assigned to one), so with
    ``p_d = direct_yes / direct_n`` and ``se_d = sqrt(p_d (1 - p_d) / direct_n)``:

    ``difference = estimate - p_d``, ``std_error = sqrt(se^2 + se_d^2)``,
    ``z = difference / std_error``, one-sided ``p_value = 1 - Phi(z)`` for the alternative
    "randomized > direct" (the "more is better" criterion: a sensitive behaviour is
    under-reported when asked directly), the two-sided interval ``difference +/- z_c
    std_error`` clipped to [-1, 1] and the one-sided lower bound ``difference - z_1
    std_error`` (``z_1 = Phi^-1(confidence)``). Normal theory (Wald); its level on
    simulated data is checked in ``tests/dpengine/test_cheating.py``.

    ``randomized``, the randomized half's :class:`~dpengine.Estimate` (its reports and
    design), is optional; given, ``shown`` is :func:`difference_interval` of it against the
    direct group (``a = 1``, ``b = 0``): the interval to show, coverage guaranteed, with the
    p-value that inverts it. ``estimate`` and ``std_error`` must then be its own.

    Raises :class:`~dpengine.errors.DPEngineError` naming the field: ``NO_DATA`` when
    ``direct_n`` is 0 or ``randomized`` has no data, ``ZERO_VARIANCE`` when both standard
    errors are 0, ``OUT_OF_RANGE`` (field ``randomized``) when ``randomized`` disagrees with
    ``estimate`` or ``std_error``.
    References: Lensvelt-Mulders, Hox, van der Heijden & Maas (2005), "Meta-analysis of
    randomized response research", Sociological Methods & Research 33(3) (the "more is
    better" criterion); Agresti (2013), section 3.1.
    """
    estimate = _finite("estimate", estimate)
    std_error = _finite("std_error", std_error, minimum=0.0)
    direct_n = check_count("direct_n", direct_n)
    direct_yes = check_count("direct_yes", direct_yes)
    if direct_yes > direct_n:
        raise DPEngineError(
            f"direct_yes must be between 0 and direct_n = {direct_n}, got {direct_yes}",
            reason=Reason.OUT_OF_RANGE,
            field="direct_yes",
        )
    if direct_n == 0:
        raise DPEngineError(
            "direct_n is 0: the direct-questioning group has no answers to compare",
            reason=Reason.NO_DATA,
            field="direct_n",
        )
    confidence = check_open_unit("confidence", confidence)
    shown = None
    if randomized is not None:
        randomized = _check_group("randomized", randomized)
        if not (
            math.isclose(randomized.estimate, estimate, rel_tol=1e-12, abs_tol=1e-12)
            and math.isclose(randomized.std_error, std_error, rel_tol=1e-12, abs_tol=1e-12)
        ):
            raise DPEngineError(
                f"randomized (estimate {randomized.estimate}, standard error "
                f"{randomized.std_error}) disagrees with estimate = {estimate} and "
                f"std_error = {std_error}",
                reason=Reason.OUT_OF_RANGE,
                field="randomized",
            )
        direct_group = _Group(yes=direct_yes, n=direct_n, a=1.0, b=0.0)
        shown = _difference(_group_of(randomized), direct_group, confidence)
    direct = direct_yes / direct_n
    direct_std_error = math.sqrt(direct * (1 - direct) / direct_n)
    total = math.hypot(std_error, direct_std_error)
    if total == 0:
        raise DPEngineError(
            "both standard errors are zero (the randomized estimate's and the direct "
            f"group's, {direct_yes} of {direct_n}); the z-test is undefined",
            reason=Reason.ZERO_VARIANCE,
            field=None,
        )
    difference = estimate - direct
    z = difference / total
    half = z_value(confidence) * total
    one_sided = z_value(2 * confidence - 1) * total if confidence > 0.5 else 0.0
    return DirectComparison(
        randomized=estimate,
        randomized_std_error=std_error,
        direct=direct,
        direct_std_error=direct_std_error,
        direct_yes=direct_yes,
        direct_n=direct_n,
        difference=difference,
        std_error=total,
        ci_low=max(difference - half, -1.0),
        ci_high=min(difference + half, 1.0),
        lower_bound=max(difference - one_sided, -1.0),
        z=z,
        # erfc keeps the upper tail accurate far out (1 - Phi(z) would round to 0).
        p_value=0.5 * math.erfc(z / math.sqrt(2)),
        confidence=confidence,
        shown=shown,
    )


# --- exact intervals for a one-question logistic regression --------------------------------
#
# With a single grouping question the logistic model is saturated: the intercept is the
# reference group's log-odds, logit(p_ref), and each coefficient is logit(p_j) - logit(p_ref).
# logit is increasing, so the exact product construction above carries over unchanged: when
# both groups' exact intervals hold (probability >= c_1 c_2 = confidence, by independence),
# logit(p_j) - logit(p_ref) lies in [logit(l_j) - logit(u_ref), logit(u_j) - logit(l_ref)].
# An end is infinite when a share's interval reaches 0 or 1 (logit(0) = -inf): the data
# cannot rule out a share of exactly 0 or 1, so no finite odds ratio can be promised.


def _logit(value) -> np.ndarray:
    value = np.asarray(value, dtype=float)
    with np.errstate(divide="ignore"):
        return np.log(value) - np.log1p(-value)


def log_odds_interval(*, group: Estimate, confidence: float = 0.95) -> ConfidenceInterval:
    """Interval for ``logit(p)``, a group's true log-odds, with coverage at least
    ``confidence`` at every share and size: its exact Clopper-Pearson interval mapped
    through the design, clipped to [0, 1], then through logit (ends may be infinite)."""
    group = _check_group("group", group)
    confidence = check_open_unit("confidence", confidence)
    low, high = _group_of(group).limits(confidence)
    return ConfidenceInterval(float(_logit(low)), float(_logit(high)))


def log_odds_ratio_interval(
    *, first: Estimate, second: Estimate, confidence: float = 0.95
) -> ConfidenceInterval:
    """Interval for ``logit(p_first) - logit(p_second)``, a log odds ratio of two independent
    groups, with coverage at least ``confidence`` at every pair of shares and sizes: the
    groups' levels and exact intervals of :func:`difference_interval` (same split of the
    level), combined as ``[logit(l_1) - logit(u_2), logit(u_1) - logit(l_2)]``. Ends are
    infinite when a share's interval reaches 0 or 1. Per coefficient, not simultaneous."""
    first = _check_group("first", first)
    second = _check_group("second", second)
    confidence = check_open_unit("confidence", confidence)
    low, high = log_odds_ratio_interval_table(
        n_first=first.n,
        first_rates=(first.design.p_yes_given_yes, first.design.p_yes_given_no),
        n_second=second.n,
        second_rates=(second.design.p_yes_given_yes, second.design.p_yes_given_no),
        confidence=confidence,
    )
    return ConfidenceInterval(float(low[first.yes, second.yes]), float(high[first.yes, second.yes]))


def log_odds_ratio_interval_table(
    *,
    n_first: int,
    first_rates: tuple[float, float],
    n_second: int,
    second_rates: tuple[float, float],
    confidence: float = 0.95,
) -> ConfidenceInterval:
    """:func:`log_odds_ratio_interval` for every pair of yes-counts, arrays of shape
    ``(n_first + 1, n_second + 1)`` (for exact coverage by enumeration)."""
    n_first = check_count("n_first", n_first)
    n_second = check_count("n_second", n_second)
    first = _Group(yes=np.arange(n_first + 1), n=n_first, a=first_rates[0], b=first_rates[1])
    second = _Group(yes=np.arange(n_second + 1), n=n_second, a=second_rates[0], b=second_rates[1])
    t = _split(first, second, check_open_unit("confidence", confidence))
    low_1, high_1, low_2, high_2 = _product(first, second, confidence=confidence, t=t)
    with np.errstate(invalid="ignore"):
        low = _logit(low_1)[:, None] - _logit(high_2)[None, :]
        high = _logit(high_1)[:, None] - _logit(low_2)[None, :]
    # inf - inf (both shares' intervals pinned at the same end, e.g. all-yes reports beyond
    # what the coins allow in both groups): nothing is known, so the whole line.
    return ConfidenceInterval(
        np.where(np.isnan(low), -np.inf, low), np.where(np.isnan(high), np.inf, high)
    )
