"""Cheating-detection designs: the CDM and the stochastic lie detector (SLD).

Both designs split the respondents at random into two groups that randomize with different
probabilities ``p = (p1, p2)`` (RRreg's parametrisation; Heck & Moshagen 2018) and allow for
respondents who do not follow the instructions. Honest carriers of the sensitive attribute
(truth "yes") always report "yes"; honest non-carriers report "yes" with a group-specific
probability ``r_g``; respondents who do not comply report "no" whatever their truth. The
yes-rate of group ``g`` is therefore a convex combination of three vertices,

    lambda_g = w_yes * 1 + w_rand * r_g + w_no * 0,    w_yes + w_rand + w_no = 1,

with ``w_yes`` the share of honest "yes" (carriers who comply), ``w_rand`` the share of
honest non-carriers and ``w_no`` the share who say "no" although instructed otherwise.
Two groups with ``r_1 != r_2`` identify all three shares.

- :class:`CheatingDetection` (Clark & Desharnais 1998, RRreg's ``"CDM"``): ``p_g`` is the
  probability that a non-carrier is prompted to say "yes" (``r_g = p_g``). Parameters:
  ``pi = w_yes`` (honest "yes"), ``beta = w_rand`` (honest "no"-sayers' share, the compliant
  non-carriers) and ``gamma = w_no`` (cheaters).
- :class:`StochasticLieDetector` (Moshagen, Musch & Erdfelder 2012, RRreg's ``"SLD"``):
  ``p_g`` is the probability that a non-carrier answers truthfully "no" (``r_g = 1 - p_g``).
  Parameters: ``pi = w_yes + w_no`` (carriers) and ``t = w_yes / pi`` (the share of carriers
  who answer honestly); non-carriers are assumed to comply.

Why ``gamma`` (and ``1 - t``) is only a lower bound: non-compliance is identified only in the
"no" direction. A cheater who says "no" is visible because the design predicts more "yes"
than appears; a non-carrier who says "yes" against the instructions, or a carrier who
follows them only because "yes" was what the coin asked anyway, cannot be told apart from an
honest respondent. ``gamma`` counts the respondents who *certainly* did not follow the
instructions, so the true prevalence of the attribute lies between ``pi`` and ``pi + gamma``
(CDM), and ``1 - t`` is the share of carriers who lied at least.

Privacy. An honest carrier always reports "yes", so an honest "no" proves the respondent is
not a carrier: in the sense of differential privacy both designs have ``epsilon = inf``
(:attr:`CheatingDesign.epsilon`). What they protect is the incriminating answer: a "yes" is
at most ``max_g 1 / r_g`` times as likely from a carrier as from a non-carrier
(:attr:`CheatingDesign.epsilon_yes`, one-sided privacy in the sense of Kotsogiannis et al.
2020). Non-compliance does not change either bound: a non-complier says "no" whatever the
truth, a report whose likelihood ratio is 1, and the privacy an honest respondent gets comes
from the design's randomization alone.

Estimation follows RRreg 0.7.5 (``RRuni.CDM``, ``RRuni.SLD``): the closed-form moment
estimates (the maximum-likelihood estimates whenever they lie in the parameter space) with
standard errors from ``v_g = lambda_g (1 - lambda_g) / (n_g - 1)``. When the closed form
leaves the parameter space, RRreg maximises the likelihood numerically (``optim``); here the
likelihood is maximised exactly on the triangle's edges (see :func:`estimate_cheating`).
Intervals are Wald's (Fieller's for the SLD's ``t``) where both groups are large enough for
them to keep their level, else a conservative interval from the two groups' exact intervals
(:mod:`dpengine.cheating.conservative`).

References: Clark & Desharnais (1998), "Honest answers to embarrassing questions: detecting
cheating in the randomized response model", Psychological Methods 3(2), 160-168; Moshagen,
Musch & Erdfelder (2012), "A stochastic lie detector", Behavior Research Methods 44(1),
222-231; Heck & Moshagen (2018), "RRreg: an R package for correlation and regression
analyses of randomized response data", Journal of Statistical Software 85(2);
Kotsogiannis, Doudalis, Haney, Machanavajjhala & Mehrotra (2020), "One-sided differential
privacy", IEEE ICDE.
"""

from dpengine.cheating.conservative import (
    CONSERVATIVE_METHOD,
    WALD_MIN_GROUP,
    CheatingIntervalMethod,
    CheatingMethodReason,
    cheating_interval_method,
    conservative_intervals,
)
from dpengine.cheating.designs import (
    CHEATING_DESIGNS,
    R_MODEL_NAMES_CHEATING,
    CheatingDesign,
    CheatingDetection,
    StochasticLieDetector,
)
from dpengine.cheating.estimates import (
    CheatingEstimate,
    ParameterEstimate,
    closed_form,
    fieller_t_interval,
    wald_intervals,
)
from dpengine.cheating.likelihood import estimate_cheating, triangle_ml
from dpengine.cheating.planning import cheating_pi_margin, required_sample_size_cheating
from dpengine.cheating.sampling import assign_groups, randomize_in_group, simulate_cheating_counts

__all__ = [
    "CHEATING_DESIGNS",
    "CONSERVATIVE_METHOD",
    "R_MODEL_NAMES_CHEATING",
    "WALD_MIN_GROUP",
    "CheatingDesign",
    "CheatingDetection",
    "CheatingEstimate",
    "CheatingIntervalMethod",
    "CheatingMethodReason",
    "ParameterEstimate",
    "StochasticLieDetector",
    "assign_groups",
    "cheating_interval_method",
    "cheating_pi_margin",
    "closed_form",
    "conservative_intervals",
    "estimate_cheating",
    "fieller_t_interval",
    "randomize_in_group",
    "required_sample_size_cheating",
    "simulate_cheating_counts",
    "triangle_ml",
    "wald_intervals",
]
