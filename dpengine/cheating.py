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

References: Clark & Desharnais (1998), "Honest answers to embarrassing questions: detecting
cheating in the randomized response model", Psychological Methods 3(2), 160-168; Moshagen,
Musch & Erdfelder (2012), "A stochastic lie detector", Behavior Research Methods 44(1),
222-231; Heck & Moshagen (2018), "RRreg: an R package for correlation and regression
analyses of randomized response data", Journal of Statistical Software 85(2);
Kotsogiannis, Doudalis, Haney, Machanavajjhala & Mehrotra (2020), "One-sided differential
privacy", IEEE ICDE.
"""

from __future__ import annotations

import math
import types
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from dpengine._rational import as_fraction, fmt, is_real_number
from dpengine._validation import check_closed_unit, check_count, check_open_unit
from dpengine.designs import RModel
from dpengine.errors import DPEngineError, Reason
from dpengine.intervals import ConfidenceInterval, z_value
from dpengine.randomness import random_source, uniform_below

__all__ = [
    "CHEATING_DESIGNS",
    "R_MODEL_NAMES_CHEATING",
    "CheatingDesign",
    "CheatingDetection",
    "CheatingEstimate",
    "ParameterEstimate",
    "StochasticLieDetector",
    "assign_groups",
    "closed_form",
    "estimate_cheating",
    "fieller_t_interval",
    "randomize_in_group",
    "simulate_cheating_counts",
    "triangle_ml",
    "wald_intervals",
]

_MAX_EXACT_DENOMINATOR = 1 << 64
_GROUPS = (1, 2)
# Below this |pi (p2 - p1)| the SLD's t is reported as undefined (None).
_T_UNDEFINED = 1e-12


def _probability(name: str, value: object) -> float | Fraction:
    """A probability strictly inside (0, 1), kept as the Fraction or float the caller passed."""
    if not is_real_number(value):
        raise DPEngineError(
            f"{name} must be a number in (0, 1), got {fmt(value)}",
            reason=Reason.INVALID_TYPE,
            field=name.split("[")[0],
        )
    checked: float | Fraction = value if isinstance(value, Fraction) else float(value)
    # NaN fails the comparison, so it is refused here too.
    if not 0 < checked < 1:
        raise DPEngineError(
            f"{name} must be in (0, 1), got {fmt(value)}",
            reason=Reason.OUT_OF_RANGE,
            field=name.split("[")[0],
        )
    return checked


def _check_group(group: object) -> np.ndarray:
    arr = np.asarray(group)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        raise DPEngineError(
            f"group must be 1 or 2 (or an array of them), got {fmt(group)}",
            reason=Reason.INVALID_TYPE,
            field="group",
        )
    if not np.isin(arr, _GROUPS).all():
        raise DPEngineError(
            f"group must be 1 or 2 (or an array of them), got {fmt(group)}",
            reason=Reason.OUT_OF_RANGE,
            field="group",
        )
    return arr


class CheatingDesign:
    """What both two-group cheating-detection designs offer; see the module docstring.

    Subclasses are frozen dataclasses with fields ``p`` (a pair of probabilities, RRreg's
    ``p = c(p1, p2)``) and ``share`` (the probability that a respondent is assigned to group
    1; RRreg's ``groupRatio``), and define :meth:`exact_randomized_yes`.
    """

    #: Short machine name, as the API and CSV exports spell the design.
    kind: str = ""
    #: The model's parameters in the order :func:`estimate_cheating` reports them.
    parameter_names: tuple[str, ...] = ()
    p: tuple[float | Fraction, float | Fraction]
    share: float | Fraction

    def _validate(self) -> None:
        p = self.p
        if isinstance(p, str | bytes) or not isinstance(p, Sequence) or len(p) != 2:
            raise DPEngineError(
                f"p must be a pair [p1, p2] of probabilities, got {p!r}",
                reason=Reason.INVALID_TYPE,
                field="p",
            )
        checked = (_probability("p[0]", p[0]), _probability("p[1]", p[1]))
        if as_fraction(checked[0]) == as_fraction(checked[1]):
            raise DPEngineError(
                f"p must hold two different probabilities: with p1 = p2 = {fmt(p[0])} the two "
                "groups cannot tell honest answers from cheating",
                reason=Reason.NO_INFORMATION,
                field="p",
            )
        object.__setattr__(self, "p", checked)
        object.__setattr__(self, "share", _probability("share", self.share))

    def exact_randomized_yes(self, group: int) -> Fraction:  # pragma: no cover - abstract
        """``r_g``: P(report yes) of an honest non-carrier in ``group`` (1 or 2)."""
        raise NotImplementedError

    def exact_p_yes(self, *, group: int, truth: bool) -> Fraction:
        """P(report yes | truth, group) for a respondent who follows the instructions."""
        if group not in _GROUPS:
            raise DPEngineError(
                f"group must be 1 or 2, got {fmt(group)}", reason=Reason.OUT_OF_RANGE, field="group"
            )
        return Fraction(1) if truth else self.exact_randomized_yes(group)

    @property
    def report_probabilities(self) -> tuple[tuple[float, float], tuple[float, float]]:
        """Per group (1, then 2): ``(P(yes | truth yes), P(yes | truth no))`` when honest."""
        return tuple(  # type: ignore[return-value]
            (
                float(self.exact_p_yes(group=g, truth=True)),
                float(self.exact_p_yes(group=g, truth=False)),
            )
            for g in _GROUPS
        )

    @property
    def yes_likelihood_ratio(self) -> Fraction:
        """``max_g P(yes | carrier) / P(yes | non-carrier) = max_g 1 / r_g``, exactly."""
        return max(1 / self.exact_randomized_yes(g) for g in _GROUPS)

    @property
    def epsilon_yes(self) -> float:
        """One-sided privacy loss of a "yes": ``ln max_g 1 / r_g`` (finite).

        A "yes" is at most ``e^epsilon_yes`` times as likely from an honest carrier as from
        an honest non-carrier in either group. A "no" has no such bound (see
        :attr:`epsilon`); non-compliers' reports ("no" whatever the truth) have ratio 1.
        """
        ratio = self.yes_likelihood_ratio
        return math.log(ratio.numerator) - math.log(ratio.denominator)

    @property
    def epsilon(self) -> float:
        """Privacy loss of one answer, the worst log ratio over reports and groups: ``inf``.

        ``max`` over groups ``g`` and reports ``x`` of ``|ln(P(x | yes, g) / P(x | no, g))|``.
        An honest carrier never reports "no" (P(no | carrier) = 0) while an honest
        non-carrier does with ``1 - r_g > 0``, so a "no" proves the respondent is not a
        carrier and the ratio is infinite: neither design is differentially private for any
        finite epsilon, whatever ``p``. The bound that holds is the one for the
        incriminating answer, :attr:`epsilon_yes`. Non-compliance (gamma) changes neither: a
        cheater's "no" is independent of the truth (ratio 1).
        """
        worst = 0.0
        for group in _GROUPS:
            yes_if_yes = self.exact_p_yes(group=group, truth=True)
            yes_if_no = self.exact_p_yes(group=group, truth=False)
            for first, second in ((yes_if_yes, yes_if_no), (1 - yes_if_yes, 1 - yes_if_no)):
                if first == second:
                    continue
                if min(first, second) == 0:
                    return math.inf
                ratio = max(first, second) / min(first, second)
                worst = max(worst, math.log(ratio.numerator) - math.log(ratio.denominator))
        return worst

    @property
    def is_differentially_private(self) -> bool:
        """Whether :attr:`epsilon` is finite: False, a "no" reveals a non-carrier."""
        return math.isfinite(self.epsilon)

    @property
    def parameters(self) -> dict[str, object]:
        """The design's own parameters as floats, named as the constructor names them."""
        return {"p": [float(q) for q in self.p], "share": float(self.share)}

    @property
    def r_model(self) -> RModel:
        """RRreg's model: ``RRuni(model=name, p=c(p1, p2), group=group)``."""
        return RModel(R_MODEL_NAMES_CHEATING[self.kind], tuple(float(q) for q in self.p))

    def _randomized_yes_floats(self) -> tuple[float, float]:
        return (float(self.exact_randomized_yes(1)), float(self.exact_randomized_yes(2)))


@dataclass(frozen=True)
class CheatingDetection(CheatingDesign):
    """Clark & Desharnais's (1998) cheating detection model (CDM), as RRreg's ``"CDM"``.

    A respondent is in group 1 with probability ``share`` (else group 2). A carrier of the
    sensitive attribute says "yes"; a non-carrier is prompted by the device to say "yes" with
    probability ``p_g`` of their group and says "no" otherwise. Cheaters say "no" whatever
    the truth. With ``pi`` the honest "yes" share, ``gamma`` the cheaters and
    ``beta = 1 - pi - gamma`` the compliant non-carriers, group ``g``'s yes-rate is
    ``lambda_g = pi + beta p_g``.

    ``gamma`` is a lower bound on non-compliance (only "no"-cheating is identified: see the
    module docstring), so the prevalence lies between ``pi`` and ``pi + gamma``.

    ``p = (p1, p2)``, both in (0, 1) and different (equal ones cannot separate honest
    answers from cheating: reason ``NO_INFORMATION``); ``share`` in (0, 1), default 1/2.
    Privacy: a "yes" is at most ``1 / min(p)`` times as likely from a carrier
    (:attr:`epsilon_yes`); a "no" reveals a non-carrier, so :attr:`epsilon` is infinite.
    Default ``p = (1/4, 3/4)``. Reference: Clark & Desharnais (1998); RRreg's ``RRuni.CDM``.
    """

    p: tuple[float | Fraction, float | Fraction] = (0.25, 0.75)
    share: float | Fraction = 0.5

    kind = "cdm"
    parameter_names = ("pi", "beta", "gamma")

    def __post_init__(self) -> None:
        self._validate()

    def exact_randomized_yes(self, group: int) -> Fraction:
        return as_fraction(self.p[group - 1])

    def expected_yes_rates(self, *, pi: float, gamma: float) -> tuple[float, float]:
        """``lambda_g = pi + (1 - pi - gamma) p_g`` for groups 1 and 2."""
        return tuple(pi + (1 - pi - gamma) * r for r in self._randomized_yes_floats())  # type: ignore[return-value]

    @property
    def description(self) -> str:
        return (
            "If your answer is yes, you say 'yes'. If it is no, your device asks you to say "
            f"'yes' with probability {fmt(self.p[0])} (group 1) or {fmt(self.p[1])} (group 2), "
            "else 'no'. You are in group 1 with probability "
            f"{fmt(self.share)}."
        )


@dataclass(frozen=True)
class StochasticLieDetector(CheatingDesign):
    """Moshagen, Musch & Erdfelder's (2012) stochastic lie detector (SLD), as RRreg's ``"SLD"``.

    A respondent is in group 1 with probability ``share`` (else group 2). A carrier of the
    sensitive attribute is asked to say "yes"; a non-carrier answers truthfully "no" with
    probability ``p_g`` of their group and says "yes" otherwise. Only a share ``t`` of the
    carriers answers honestly; the rest say "no". With ``pi`` the prevalence, group ``g``'s
    yes-rate is ``lambda_g = pi t + (1 - pi)(1 - p_g)``.

    ``1 - t`` is a lower bound on the carriers' lying: non-carriers are assumed to comply,
    and only "no"-lies are identified (module docstring).

    ``p = (p1, p2)``, both in (0, 1) and different (reason ``NO_INFORMATION`` when equal);
    ``share`` in (0, 1), default 1/2. Privacy: a "yes" is at most ``1 / min(1 - p)`` times as
    likely from a carrier (:attr:`epsilon_yes`); a "no" reveals a non-carrier, so
    :attr:`epsilon` is infinite. Default ``p = (1/4, 3/4)``. Reference: Moshagen, Musch &
    Erdfelder (2012); RRreg's ``RRuni.SLD``.
    """

    p: tuple[float | Fraction, float | Fraction] = (0.25, 0.75)
    share: float | Fraction = 0.5

    kind = "sld"
    parameter_names = ("pi", "t")

    def __post_init__(self) -> None:
        self._validate()

    def exact_randomized_yes(self, group: int) -> Fraction:
        return 1 - as_fraction(self.p[group - 1])

    def expected_yes_rates(self, *, pi: float, t: float) -> tuple[float, float]:
        """``lambda_g = pi t + (1 - pi)(1 - p_g)`` for groups 1 and 2."""
        return tuple(pi * t + (1 - pi) * r for r in self._randomized_yes_floats())  # type: ignore[return-value]

    @property
    def description(self) -> str:
        return (
            "If your answer is yes, you say 'yes'. If it is no, your device asks you to say "
            f"'no' with probability {fmt(self.p[0])} (group 1) or {fmt(self.p[1])} (group 2), "
            "else 'yes'. You are in group 1 with probability "
            f"{fmt(self.share)}."
        )


CHEATING_DESIGNS: types.MappingProxyType[str, type[CheatingDesign]] = types.MappingProxyType(
    {cls.kind: cls for cls in (CheatingDetection, StochasticLieDetector)}
)
"""Every cheating-detection design class by its ``kind``."""

R_MODEL_NAMES_CHEATING: types.MappingProxyType[str, str] = types.MappingProxyType(
    {"cdm": "CDM", "sld": "SLD"}
)
"""The RRreg model name (``RRuni(model=...)``) for each cheating design ``kind``."""


def _check_cheating_design(design: object) -> CheatingDesign:
    if not isinstance(design, CheatingDesign):
        raise DPEngineError(
            f"design must be a CheatingDetection or StochasticLieDetector, got {design!r}",
            reason=Reason.INVALID_TYPE,
            field="design",
        )
    return design


# --- sampling ---------------------------------------------------------------------------


def _thresholds(*probabilities: Fraction) -> tuple[int, tuple[int, ...]]:
    """A denominator ``D <= 2^64`` and integer thresholds ``k`` with ``P = k / D``.

    The rule of :mod:`dpengine.sampling`: exact for every denominator up to 2^64 (all dyadic
    and short decimal probabilities), else rounded to a multiple of 2^-64.
    """
    common = math.lcm(*(q.denominator for q in probabilities))
    if common <= _MAX_EXACT_DENOMINATOR:
        return common, tuple(int(q * common) for q in probabilities)
    return _MAX_EXACT_DENOMINATOR, tuple(
        min(round(q * _MAX_EXACT_DENOMINATOR), _MAX_EXACT_DENOMINATOR - 1) for q in probabilities
    )


def assign_groups(*, design: CheatingDesign, size: int, rng) -> np.ndarray:
    """``size`` independent group assignments: 1 with probability ``design.share``, else 2.

    One uniform integer per respondent compared with an exact rational threshold, as the
    browser does; ``rng`` as in :func:`dpengine.randomize`.
    """
    design = _check_cheating_design(design)
    size = check_count("size", size)
    denominator, (threshold,) = _thresholds(as_fraction(design.share))
    draws = uniform_below(random_source(rng), denominator, (size,))
    return np.where(draws < np.uint64(threshold), 1, 2).astype(np.int64)


def randomize_in_group(truth, *, group, design: CheatingDesign, rng):
    """The report of a respondent who follows the instructions, given truth and group.

    A carrier (``truth`` True) reports "yes"; a non-carrier reports "yes" with probability
    ``r_g`` (CDM: ``p_g``; SLD: ``1 - p_g``). One uniform integer ``u < D`` per respondent
    decides (``u < r_g D``), so the probabilities are exact for dyadic designs such as the
    default (1/4, 3/4) and for decimal ones with a denominator up to 2^64 (see
    :mod:`dpengine.sampling`). ``truth`` is a bool or an array of bools, ``group`` 1 or 2 (or
    an array of the same shape); the result has the shape of ``truth``. Non-compliers are
    not sampled here: they say "no" whatever the coin says.
    """
    design = _check_cheating_design(design)
    truth_arr = np.asarray(truth)
    if truth_arr.dtype != bool:
        raise DPEngineError(
            f"truth must be a bool or an array of bools, got {truth!r}",
            reason=Reason.INVALID_TYPE,
            field="truth",
        )
    group_arr = _check_group(group)
    if group_arr.shape not in ((), truth_arr.shape):
        raise DPEngineError(
            f"group must be 1, 2 or an array shaped like truth {truth_arr.shape}, got shape "
            f"{group_arr.shape}",
            reason=Reason.SHAPE_MISMATCH,
            field="group",
        )
    denominator, (first, second) = _thresholds(
        design.exact_randomized_yes(1), design.exact_randomized_yes(2)
    )
    draws = uniform_below(random_source(rng), denominator, truth_arr.shape)
    thresholds = np.where(group_arr == 1, np.uint64(first), np.uint64(second))
    reports = truth_arr | (draws < thresholds)
    if truth_arr.ndim == 0:
        return bool(reports)
    return reports


def simulate_cheating_counts(
    *, design: CheatingDesign, n: int, rng, **shares: float
) -> tuple[int, int, int, int]:
    """Simulated counts ``(n1, yes1, n2, yes2)`` of ``n`` respondents under the model.

    CDM: pass ``pi`` and ``gamma`` (each respondent is an honest carrier with ``pi``, a
    cheater with ``gamma``, else an honest non-carrier). SLD: pass ``pi`` and ``t`` (a
    carrier with ``pi``, who answers honestly with ``t``; non-carriers comply). Groups come
    from :func:`assign_groups`, honest reports from :func:`randomize_in_group`, and every
    cheater says "no". Who is a carrier or a cheater is drawn from 53-bit uniforms (a
    simulation of the population, not a published probability). ``rng`` should be a NumPy
    generator (vectorised draws).
    """
    design = _check_cheating_design(design)
    n = check_count("n", n)
    expected = set(design.parameter_names) - {"beta"}
    if set(shares) != expected:
        raise DPEngineError(
            f"{type(design).__name__} simulation needs {sorted(expected)}, got {sorted(shares)}",
            reason=Reason.INVALID_CHOICE,
            field="shares",
        )
    for name, value in shares.items():
        check_closed_unit(name, value)
    if design.kind == "cdm" and shares["pi"] + shares["gamma"] > 1:
        raise DPEngineError(
            f"pi + gamma must be at most 1, got {fmt(shares['pi'])} + {fmt(shares['gamma'])}",
            reason=Reason.OUT_OF_RANGE,
            field="gamma",
        )
    source = random_source(rng)
    groups = assign_groups(design=design, size=n, rng=rng)
    u = np.asarray(uniform_below(source, 1 << 53, (n,)), dtype=np.float64) / float(1 << 53)
    if design.kind == "cdm":
        pi, gamma = shares["pi"], shares["gamma"]
        carrier = u < pi
        cheater = (u >= pi) & (u < pi + gamma)
    else:
        pi, t = shares["pi"], shares["t"]
        carrier = u < pi
        cheater = u < pi * (1 - t)  # a carrier who lies (u < pi (1 - t) <= pi)
    honest = randomize_in_group(carrier, group=groups, design=design, rng=rng)
    reports = honest & ~cheater
    in1 = groups == 1
    return (
        int(in1.sum()),
        int(reports[in1].sum()),
        int((~in1).sum()),
        int(reports[~in1].sum()),
    )


# --- estimation -------------------------------------------------------------------------


@dataclass(frozen=True)
class ParameterEstimate:
    """One model parameter: estimate, maximum-likelihood value, standard error, interval.

    ``estimate`` is RRreg's closed form and may leave [0, 1] (it is unbiased for the CDM's
    three shares and the SLD's ``pi``, which are linear in the yes-rates); ``clamped`` is the
    maximum-likelihood estimate on the parameter space, equal to ``estimate`` whenever that
    lies inside. ``std_error`` is RRreg's closed-form standard error of ``estimate``; the
    interval is ``estimate +/- z std_error`` clipped to [0, 1], except for the SLD's ``t``
    (:func:`fieller_t_interval`). ``None`` where undefined (no data, a group with fewer than
    two respondents, or ``t`` when ``pi`` is 0).
    """

    name: str
    estimate: float | None
    clamped: float | None
    std_error: float | None
    ci_low: float
    ci_high: float

    @property
    def ci(self) -> ConfidenceInterval:
        return ConfidenceInterval(self.ci_low, self.ci_high)

    @property
    def was_clamped(self) -> bool:
        return self.estimate is not None and self.estimate != self.clamped

    def as_dict(self) -> dict[str, float | None]:
        return {
            "estimate": self.estimate,
            "clamped": self.clamped,
            "std_error": self.std_error,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
        }


@dataclass(frozen=True)
class CheatingEstimate:
    """The estimates of a cheating-detection design from its two groups' counts.

    ``parameters`` holds one :class:`ParameterEstimate` per name in
    ``design.parameter_names`` (CDM: ``pi``, ``beta``, ``gamma``; SLD: ``pi``, ``t``), also
    reachable as ``result["gamma"]``. ``boundary`` is True when the closed form left the
    parameter space and ``clamped`` values come from the constrained maximum likelihood.
    ``estimate``, ``clamped``, ``std_error``, ``ci_low``, ``ci_high``, ``n`` and ``yes``
    describe ``pi`` and the pooled counts, so code written for
    :class:`dpengine.Estimate` can show the honest-"yes" share the same way.
    """

    design: CheatingDesign
    n1: int
    yes1: int
    n2: int
    yes2: int
    confidence: float
    boundary: bool
    parameters: tuple[ParameterEstimate, ...]
    method: str = "wald"

    def __getitem__(self, name: str) -> ParameterEstimate:
        for parameter in self.parameters:
            if parameter.name == name:
                return parameter
        raise KeyError(name)

    @property
    def n(self) -> int:
        return self.n1 + self.n2

    @property
    def yes(self) -> int:
        return self.yes1 + self.yes2

    @property
    def has_data(self) -> bool:
        return self.n1 > 0 and self.n2 > 0

    @property
    def yes_rates(self) -> tuple[float | None, float | None]:
        return (
            self.yes1 / self.n1 if self.n1 else None,
            self.yes2 / self.n2 if self.n2 else None,
        )

    @property
    def estimate(self) -> float | None:
        return self["pi"].estimate

    @property
    def clamped(self) -> float | None:
        return self["pi"].clamped

    @property
    def std_error(self) -> float | None:
        return self["pi"].std_error

    @property
    def ci_low(self) -> float:
        return self["pi"].ci_low

    @property
    def ci_high(self) -> float:
        return self["pi"].ci_high

    @property
    def ci(self) -> ConfidenceInterval:
        return self["pi"].ci

    def as_dict(self) -> dict[str, object]:
        """Plain JSON-ready values: counts, each parameter, the design and its privacy.

        ``epsilon`` is ``None`` (JSON ``null``: no finite bound, see
        :attr:`CheatingDesign.epsilon`) and ``epsilon_yes`` the finite bound on a "yes".
        """
        return {
            "n1": self.n1,
            "yes1": self.yes1,
            "n2": self.n2,
            "yes2": self.yes2,
            "has_data": self.has_data,
            "boundary": self.boundary,
            "method": self.method,
            "confidence": self.confidence,
            **{parameter.name: parameter.as_dict() for parameter in self.parameters},
            "design": self.design.kind,
            **self.design.parameters,
            "epsilon": None if math.isinf(self.design.epsilon) else self.design.epsilon,
            "epsilon_yes": self.design.epsilon_yes,
        }


def closed_form(
    *, design: CheatingDesign, n1, yes1, n2, yes2
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """RRreg's closed-form estimates and standard errors, vectorised over count arrays.

    Returns ``{name: (estimate, std_error)}`` for ``design.parameter_names``; entries are NaN
    where undefined (a group with ``n_g < 2`` for the standard error; ``t`` when its
    denominator is 0). With ``lambda_g = yes_g / n_g`` and ``v_g = lambda_g (1 - lambda_g) /
    (n_g - 1)`` (RRreg 0.7.5, ``RRuni_models.R``):

    CDM: ``pi = (p2 l1 - p1 l2) / (p2 - p1)``, ``se^2 = (p2^2 v1 + p1^2 v2) / (p1 - p2)^2``;
    ``beta = (l2 - l1) / (p2 - p1)``, ``se^2 = (v1 + v2) / (p1 - p2)^2``;
    ``gamma = 1 + ((p2 - 1) l1 + (1 - p1) l2) / (p1 - p2)``,
    ``se^2 = ((1 - p2)^2 v1 + (1 - p1)^2 v2) / (p1 - p2)^2``.

    SLD: ``pi = ((l2 - l1) + (p2 - p1)) / (p2 - p1)``, ``se^2 = (v1 + v2) / (p1 - p2)^2``;
    ``t = (l2 (1 - p1) - l1 (1 - p2)) / ((l2 - l1) + (p2 - p1))`` with the delta-method
    ``se^2 = v1 (d (p2 + l2 - 1))^2 / D^4 + v2 (d (p1 + l1 - 1))^2 / D^4``, ``d = p1 - p2``,
    ``D = p1 - p2 + l1 - l2``.
    """
    p1, p2 = (float(q) for q in design.p)
    n1 = np.asarray(n1, dtype=np.float64)
    n2 = np.asarray(n2, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        l1 = np.asarray(yes1, dtype=np.float64) / n1
        l2 = np.asarray(yes2, dtype=np.float64) / n2
        v1 = np.where(n1 >= 2, l1 * (1 - l1) / (n1 - 1), np.nan)
        v2 = np.where(n2 >= 2, l2 * (1 - l2) / (n2 - 1), np.nan)
        d2 = (p1 - p2) ** 2
        if design.kind == "cdm":
            return {
                "pi": ((p2 * l1 - p1 * l2) / (p2 - p1), np.sqrt((p1**2 * v2 + p2**2 * v1) / d2)),
                "beta": ((l2 - l1) / (p2 - p1), np.sqrt((v2 + v1) / d2)),
                "gamma": (
                    1 + ((p2 - 1) * l1 + (1 - p1) * l2) / (p1 - p2),
                    np.sqrt(((p2 - 1) ** 2 * v1 + (1 - p1) ** 2 * v2) / d2),
                ),
            }
        denominator = (l2 - l1) + (p2 - p1)
        # The denominator is pi times (p2 - p1); at pi = 0 rounding leaves ~1e-17 of it,
        # and 0 / 1e-17 is no estimate of t.
        defined = np.abs(denominator) > _T_UNDEFINED
        t = np.where(defined, (l2 * (1 - p1) - l1 * (1 - p2)) / denominator, np.nan)
        big_d = (p1 - p2 + l1 - l2) ** 2
        t_se = np.sqrt(
            v1 * ((p1 - p2) * (p2 + l2 - 1) / big_d) ** 2
            + v2 * ((p1 - p2) * (p1 + l1 - 1) / big_d) ** 2
        )
        return {
            "pi": ((l2 - l1 + (p2 - p1)) / (p2 - p1), np.sqrt((v1 + v2) / d2)),
            "t": (t, np.where(defined, t_se, np.nan)),
        }


def wald_intervals(
    *, estimate: np.ndarray, std_error: np.ndarray, confidence: float
) -> ConfidenceInterval:
    """``estimate +/- z std_error`` clipped to [0, 1]; ``[0, 1]`` where either is NaN.

    Vectorised (the exact coverage tests enumerate both groups' counts through it).
    """
    z = z_value(confidence)
    estimate, std_error = np.asarray(estimate, float), np.asarray(std_error, float)
    known = np.isfinite(estimate) & np.isfinite(std_error)
    safe_est = np.where(known, estimate, 0.0)
    safe_se = np.where(known, std_error, 0.0)
    low = np.where(known, np.clip(safe_est - z * safe_se, 0.0, 1.0), 0.0)
    high = np.where(known, np.clip(safe_est + z * safe_se, 0.0, 1.0), 1.0)
    if low.ndim == 0:
        return ConfidenceInterval(float(low), float(high))
    return ConfidenceInterval(low, high)


def fieller_t_interval(
    *, design: CheatingDesign, n1, yes1, n2, yes2, confidence: float
) -> ConfidenceInterval:
    """The SLD's interval for ``t`` by inverting Fieller's test, vectorised over counts.

    ``t`` is a ratio (honest "yes" over carriers), and the delta-method Wald interval
    around RRreg's ``t`` under-covers badly when few respondents are carriers (0.71 at
    ``pi = 0.05``, ``t = 1``, n = 300 for ``p = (0.3, 0.7)``). At the true ``t`` the
    statistic ``D(t) = (l1 - t)(r2 - t) - (l2 - t)(r1 - t)`` (``r_g = 1 - p_g``) has mean 0
    and variance ``(r2 - t)^2 v1 + (r1 - t)^2 v2`` whatever ``pi`` is, so the interval is
    ``{t in [0, 1]: D(t)^2 <= z^2 ((r2 - t)^2 v1 + (r1 - t)^2 v2)}``, a quadratic inequality
    (Fieller 1954). Its hull is returned; when it misses [0, 1] altogether the interval
    collapses to the end nearest the estimate, and it is [0, 1] without a standard error.
    Reference: Fieller (1954), "Some problems in interval estimation", JRSS B 16(2).
    """
    r1, r2 = design._randomized_yes_floats()
    z2 = z_value(confidence) ** 2
    n1 = np.asarray(n1, dtype=np.float64)
    n2 = np.asarray(n2, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        l1 = np.asarray(yes1, dtype=np.float64) / n1
        l2 = np.asarray(yes2, dtype=np.float64) / n2
        v1 = np.where(n1 >= 2, l1 * (1 - l1) / (n1 - 1), np.nan)
        v2 = np.where(n2 >= 2, l2 * (1 - l2) / (n2 - 1), np.nan)
        alpha = l1 * r2 - l2 * r1
        slope = (l1 - l2) + (r2 - r1)
        qa = slope**2 - z2 * (v1 + v2)
        qb = -2 * alpha * slope + 2 * z2 * (r2 * v1 + r1 * v2)
        qc = alpha**2 - z2 * (r2**2 * v1 + r1**2 * v2)

        def q(t: float) -> np.ndarray:
            return (qa * t + qb) * t + qc

        disc = qb**2 - 4 * qa * qc
        root = np.sqrt(np.where(disc >= 0, disc, np.nan))
        quadratic = qa != 0
        first = np.where(quadratic, (-qb - root) / (2 * qa), -qc / qb)
        second = np.where(quadratic, (-qb + root) / (2 * qa), -qc / qb)
        smaller, larger = np.fmin(first, second), np.fmax(first, second)
        inside_small = (smaller > 0) & (smaller < 1)
        inside_large = (larger > 0) & (larger < 1)
        low = np.where(
            q(0.0) <= 0,
            0.0,
            np.where(inside_small, smaller, np.where(inside_large, larger, np.nan)),
        )
        high = np.where(
            q(1.0) <= 0,
            1.0,
            np.where(inside_large, larger, np.where(inside_small, smaller, np.nan)),
        )
        estimate = np.where(slope != 0, alpha / slope, np.nan)
    empty = np.isnan(low) | np.isnan(high)
    # The set misses [0, 1]: the estimate lies beyond one end, and the interval is that end.
    nearest = np.where(np.nan_to_num(estimate, nan=0.5) > 1, 1.0, 0.0)
    low = np.where(empty, nearest, low)
    high = np.where(empty, nearest, high)
    unknown = ~(np.isfinite(v1) & np.isfinite(v2)) | (empty & np.isnan(estimate))
    low = np.where(unknown, 0.0, low)
    high = np.where(unknown, 1.0, high)
    if low.ndim == 0:
        return ConfidenceInterval(float(low), float(high))
    return ConfidenceInterval(low, high)


def _log_likelihood(rates: Sequence[float], counts: Sequence[tuple[int, int]]) -> float:
    """``sum_g y_g log l_g + (n_g - y_g) log(1 - l_g)`` with ``0 log 0 = 0``."""
    total = 0.0
    for rate, (yes, n) in zip(rates, counts, strict=True):
        for k, q in ((yes, rate), (n - yes, 1 - rate)):
            if k:
                if q <= 0:
                    return -math.inf
                total += k * math.log(q)
    return total


def _edge_maximum(
    start: tuple[float, float], end: tuple[float, float], counts: Sequence[tuple[int, int]]
) -> float:
    """The ``s`` in [0, 1] maximising the log-likelihood at ``start + s (end - start)``.

    The log-likelihood of two binomials is concave in the yes-rates and the rates are linear
    in ``s``, so its derivative is decreasing and bisection on its sign finds the maximum to
    the last bit; inside the edge every rate lies strictly in (0, 1).
    """
    slope = (end[0] - start[0], end[1] - start[1])

    def derivative(s: float) -> float:
        total = 0.0
        for g, (yes, n) in enumerate(counts):
            rate = start[g] + s * slope[g]
            total += slope[g] * (yes / rate - (n - yes) / (1 - rate))
        return total

    low, high = 0.0, 1.0
    for _ in range(200):
        middle = (low + high) / 2
        if middle in (low, high):
            break
        if derivative(middle) > 0:
            low = middle
        else:
            high = middle
    return (low + high) / 2


def triangle_ml(
    *, design: CheatingDesign, n1: int, yes1: int, n2: int, yes2: int
) -> tuple[float, float, float]:
    """Maximum-likelihood shares ``(w_yes, w_rand, w_no)`` on the parameter space.

    The yes-rates ``(l1, l2)`` range over the triangle with vertices ``(1, 1)`` (all honest
    "yes"), ``(r1, r2)`` (all honest non-carriers) and ``(0, 0)`` (all "no"). Inside it the
    closed form is the maximum; outside, the concave log-likelihood is maximised on the
    boundary, so on one of the three edges (:func:`_edge_maximum`), and the best edge wins.
    """
    r1, r2 = design._randomized_yes_floats()
    counts = ((yes1, n1), (yes2, n2))
    l1, l2 = yes1 / n1, yes2 / n2
    w_rand = (l2 - l1) / (r2 - r1)
    w_yes = (r2 * l1 - r1 * l2) / (r2 - r1)
    w_no = 1 - w_yes - w_rand
    if min(w_yes, w_rand, w_no) >= 0:
        return w_yes, w_rand, w_no
    vertices = {"yes": (1.0, 1.0), "rand": (r1, r2), "no": (0.0, 0.0)}
    best: tuple[float, dict[str, float]] | None = None
    for a, b in (("yes", "rand"), ("rand", "no"), ("yes", "no")):
        s = _edge_maximum(vertices[a], vertices[b], counts)
        rates = tuple(vertices[a][g] + s * (vertices[b][g] - vertices[a][g]) for g in (0, 1))
        value = _log_likelihood(rates, counts)
        weights = {"yes": 0.0, "rand": 0.0, "no": 0.0}
        weights[a], weights[b] = 1 - s, s
        if best is None or value > best[0]:
            best = (value, weights)
    assert best is not None
    weights = best[1]
    return weights["yes"], weights["rand"], weights["no"]


def _optional(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def estimate_cheating(
    *,
    design: CheatingDesign,
    n1: int,
    yes1: int,
    n2: int,
    yes2: int,
    confidence: float = 0.95,
) -> CheatingEstimate:
    """Estimate a CDM's ``pi``, ``beta``, ``gamma`` or an SLD's ``pi``, ``t`` from group counts.

    ``yes_g`` of ``n_g`` respondents in group ``g`` reported "yes" (``0 <= yes_g <= n_g``).

    - ``estimate``: RRreg's closed form (:func:`closed_form`), the maximum-likelihood estimate
      when it lies in the parameter space; RRreg 0.7.5 ``RRuni`` returns the same values.
    - ``clamped``: the maximum-likelihood estimate on the parameter space
      (:func:`triangle_ml`). Where the closed form leaves it (CDM: ``pi``, ``beta`` or
      ``gamma`` below 0; SLD: ``pi`` or ``t`` outside [0, 1]), RRreg's ``RRuni`` calls
      ``optim`` (L-BFGS-B, bounds [1e-8, 1 - 1e-8], a random start); here the maximum is
      computed exactly. RRreg's CDM branch can return points outside the parameter space
      (its penalty of +1e6 for invalid points is maximised, not minimised), and its
      CDM check omits ``beta < 0``; both are documented in docs/statistics.md.
    - ``std_error``: RRreg's closed-form standard errors (``n_g - 1`` in the variance of each
      yes-rate, which makes the variance estimate of the linear estimators exactly unbiased).
    - Interval: ``estimate +/- z std_error`` (Wald), clipped to [0, 1]; for the SLD's ``t``, a
      ratio, Fieller's interval (:func:`fieller_t_interval`). ``confidence`` in (0, 1).

    Both groups need at least one respondent for an estimate (else every value is ``None``
    and each interval [0, 1]) and two for a standard error. ``gamma`` (CDM) and ``1 - t``
    (SLD) are lower bounds on non-compliance, since only "no"-cheating is identified.
    References: Clark & Desharnais (1998); Moshagen, Musch & Erdfelder (2012); Heck &
    Moshagen (2018).
    """
    design = _check_cheating_design(design)
    n1 = check_count("n1", n1)
    n2 = check_count("n2", n2)
    yes1 = check_count("yes1", yes1)
    yes2 = check_count("yes2", yes2)
    for name, yes, n in (("yes1", yes1, n1), ("yes2", yes2, n2)):
        if yes > n:
            raise DPEngineError(
                f"{name} must be between 0 and n{name[-1]} = {n}, got {yes}",
                reason=Reason.OUT_OF_RANGE,
                field=name,
            )
    confidence = check_open_unit("confidence", confidence)
    names = design.parameter_names
    if n1 == 0 or n2 == 0:
        empty = tuple(ParameterEstimate(name, None, None, None, 0.0, 1.0) for name in names)
        return CheatingEstimate(design, n1, yes1, n2, yes2, confidence, False, empty)
    forms = closed_form(design=design, n1=n1, yes1=yes1, n2=n2, yes2=yes2)
    w_yes, w_rand, w_no = triangle_ml(design=design, n1=n1, yes1=yes1, n2=n2, yes2=yes2)
    if design.kind == "cdm":
        ml = {"pi": w_yes, "beta": w_rand, "gamma": w_no}
    else:
        carriers = w_yes + w_no
        ml = {"pi": carriers, "t": w_yes / carriers if carriers > _T_UNDEFINED else math.nan}
    off_space = _off_space(forms, design)
    parameters = []
    for name in names:
        value, std_error = (float(x) for x in forms[name])
        if name == "t":
            interval = fieller_t_interval(
                design=design, n1=n1, yes1=yes1, n2=n2, yes2=yes2, confidence=confidence
            )
        else:
            interval = wald_intervals(estimate=value, std_error=std_error, confidence=confidence)
        estimate = _optional(value)
        parameters.append(
            ParameterEstimate(
                name=name,
                estimate=estimate,
                # Inside the parameter space the closed form is the maximum itself (kept
                # as is, so it equals RRreg's to the last bit); outside, the exact maximum.
                clamped=_optional(ml[name]) if off_space else estimate,
                std_error=_optional(std_error),
                ci_low=interval.low,
                ci_high=interval.high,
            )
        )
    return CheatingEstimate(design, n1, yes1, n2, yes2, confidence, off_space, tuple(parameters))


def _off_space(forms: dict[str, tuple[np.ndarray, np.ndarray]], design: CheatingDesign) -> bool:
    """True when the closed form lies outside the parameter space (some share below 0)."""
    values = [float(forms[name][0]) for name in design.parameter_names]
    if any(not math.isfinite(v) for v in values):
        return True
    return any(v < 0 or v > 1 for v in values)
