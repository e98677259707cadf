"""Numeric questions: bounded integers with discrete Laplace noise, and their estimators.

A respondent's integer answer is clamped to ``[lo, hi]`` and sent as ``Y = X + Z`` with
``Z`` two-sided geometric (discrete Laplace): ``P(Z = z) = (1 - alpha) / (1 + alpha)
alpha^|z|`` with ``alpha = exp(-epsilon / (hi - lo))``, i.e. scale ``(hi - lo) / epsilon``.
Two clamped answers differ by at most the sensitivity ``hi - lo``, so each report is
``epsilon``-locally differentially private (Ghosh, Roughgarden & Sundararajan 2009;
Dwork & Roth 2014, section 3.3). The draw is exact: :func:`dpengine.geometric_mechanism`
(Canonne, Kamath & Steinke 2020, Algorithm 2), with ``epsilon`` an exact rational
(floats read as the decimal they print as, so ``math.log(3)`` means the rational
1.0986122886681098, which the ledger charges; the browser reads the same decimal).

Estimators (``n`` reports ``y_i``):

- Mean of the clamped answers: ``y_bar``, unbiased since ``E[Z] = 0``. ``Var(Y) =
  Var(X) + sigma^2`` with the known noise variance ``sigma^2 = 2 alpha / (1 - alpha)^2``.
  Interval: normal, ``y_bar +/- z se`` with ``se = sqrt(max(s^2, sigma^2) / n)`` (``s^2``
  the sample variance of the reports; it cannot truly be below ``sigma^2``, so the known
  noise variance is its floor), clipped to ``[lo, hi]``.
- Share above a threshold ``t`` (``P(X > t)``): the generating function of ``Z`` is
  ``(1 - alpha)^2 / ((1 - alpha s)(1 - alpha / s))``, whose inverse is the three-term filter
  ``((1 + alpha^2) - alpha s - alpha / s) / (1 - alpha)^2``. Hence with ``g = 1{. > t}``,
  ``h(y) = ((1 + alpha^2) g(y) - alpha g(y - 1) - alpha g(y + 1)) / (1 - alpha)^2``
  satisfies ``E[h(X + Z)] = g(X)`` exactly, and the mean of ``h(y_i)`` is unbiased.
  ``h`` takes four values: 0 below ``t``, ``-alpha / (1 - alpha)^2`` at ``t``,
  ``(1 - alpha + alpha^2) / (1 - alpha)^2`` at ``t + 1`` and 1 above, so the estimate
  depends on the reports only through the four counts of those cases. The variance is
  large when ``alpha`` is near 1 (wide ranges, small epsilon): about
  ``2 P(Y in {t, t+1}) / (1 - alpha)^4``, carried by reports next to the threshold that a
  small sample often lacks. So the sample variance ``s_h^2`` alone can be tiny where the
  truth is huge; the noise alone forces at least
  ``v_min = min over x in [lo, hi] of Var_Z h(x + Z)`` (law of total variance:
  ``Var h(Y) = E[Var(h(Y) | X)] + Var(E[h(Y) | X]) >= v_min``; for fixed answers the mean's
  variance is ``sum_i Var_Z h(x_i + Z) / n^2 >= v_min / n``), computed exactly from the
  discrete Laplace pmf. The interval is ``h_bar +/- t_{n-1} sqrt(max(s_h^2, v_min) / n)``
  with the Student t quantile (the reports of ``h`` are far from normal at small ``n``),
  clipped to [0, 1]; ``informative`` is False when that is all of [0, 1].

Accepted reports (:func:`report_bounds`): the noise is unbounded, so the server accepts
``[lo - t, hi + t]`` with ``t = ceil(REPORT_SCALES * (hi - lo) / epsilon)`` and
``REPORT_SCALES >= ln(1 / REPORT_TAIL)``. Since ``P(|Z| > t) = 2 alpha^(t + 1) / (1 + alpha)
< alpha^t <= REPORT_TAIL``, an honest report of any answer in range falls outside with
probability below ``REPORT_TAIL = 1e-9``. The sender clamps its report to these bounds
(:func:`randomize_number`, as the browser does): a function of the ε-private report, so
still ε-private (post-processing), and a report moved by it is one the server would refuse.
The estimators ignore the clamp: a survey of ``n`` reports differs from the unclamped one
with probability below ``n * REPORT_TAIL``, and the mean moves by less than
``REPORT_TAIL * scale``.

References: Ghosh, Roughgarden & Sundararajan (2009), "Universally utility-maximizing
privacy mechanisms", STOC; Canonne, Kamath & Steinke (2020); Dwork & Roth (2014).
"""

from dpengine.numeric.estimation import (
    NumericEstimate,
    estimate_mean,
    estimate_mean_from_sums,
    estimate_share_above,
    estimate_share_above_from_histogram,
    required_sample_size_mean,
    required_sample_size_share,
)
from dpengine.numeric.question import (
    REPORT_SCALES,
    REPORT_TAIL,
    BoundedNumeric,
    ReportBounds,
    randomize_number,
    report_bounds,
)
from dpengine.numeric.share_above import (
    ShareAboveIntervals,
    histogram_share_above_counts,
    share_above_counts,
    share_above_filter,
    share_above_intervals,
    share_above_probabilities,
    share_above_values,
    share_above_variance_floor,
)

__all__ = [
    "REPORT_SCALES",
    "REPORT_TAIL",
    "BoundedNumeric",
    "NumericEstimate",
    "ReportBounds",
    "ShareAboveIntervals",
    "estimate_mean",
    "estimate_mean_from_sums",
    "estimate_share_above",
    "estimate_share_above_from_histogram",
    "histogram_share_above_counts",
    "randomize_number",
    "report_bounds",
    "required_sample_size_mean",
    "required_sample_size_share",
    "share_above_counts",
    "share_above_filter",
    "share_above_intervals",
    "share_above_probabilities",
    "share_above_values",
    "share_above_variance_floor",
]
