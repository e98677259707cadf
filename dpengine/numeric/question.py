"""A bounded numeric question (its range and ε), the reports the server accepts, and a
respondent's randomized report. The model: ``dpengine.numeric``."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from dpengine._rational import as_fraction, fmt, is_integer
from dpengine._validation import check_instance, check_positive
from dpengine.errors import DPEngineError, Reason
from dpengine.mechanisms import geometric_mechanism


def check_integer(name: str, value: object) -> int:
    if not is_integer(value):
        raise DPEngineError(
            f"{name} must be an integer, got {fmt(value)}", reason=Reason.INVALID_TYPE, field=name
        )
    return int(value)


@dataclass(frozen=True)
class BoundedNumeric:
    """A numeric question on ``[lo, hi]`` (integers, ``lo < hi``) with privacy loss ``epsilon``.

    ``sensitivity = hi - lo``, ``scale = sensitivity / epsilon``,
    ``alpha = exp(-epsilon / sensitivity)``, ``noise_variance = 2 alpha / (1 - alpha)^2``.
    ``epsilon`` is a positive finite rational (floats read as their decimal).
    """

    lo: int
    hi: int
    epsilon: float | Fraction

    kind = "numeric"

    def __post_init__(self) -> None:
        lo, hi = check_integer("lo", self.lo), check_integer("hi", self.hi)
        if hi <= lo:
            raise DPEngineError(
                f"hi must be greater than lo = {lo}, got {hi}",
                reason=Reason.OUT_OF_RANGE,
                field="hi",
            )
        check_positive("epsilon", self.epsilon)
        object.__setattr__(self, "lo", lo)
        object.__setattr__(self, "hi", hi)
        if not isinstance(self.epsilon, Fraction):
            object.__setattr__(self, "epsilon", float(self.epsilon))

    @property
    def exact_epsilon(self) -> Fraction:
        return as_fraction(self.epsilon)

    @property
    def sensitivity(self) -> int:
        return self.hi - self.lo

    @property
    def exact_scale(self) -> Fraction:
        """``(hi - lo) / epsilon``, exactly: the discrete Laplace scale the sampler uses."""
        return Fraction(self.sensitivity) / self.exact_epsilon

    @property
    def alpha(self) -> float:
        """``exp(-epsilon / (hi - lo))``: the noise's geometric ratio."""
        return math.exp(-float(self.exact_epsilon / self.sensitivity))

    @property
    def noise_variance(self) -> float:
        """``2 alpha / (1 - alpha)^2``, the variance of the discrete Laplace noise."""
        alpha = self.alpha
        return 2 * alpha / (1 - alpha) ** 2

    @property
    def parameters(self) -> dict[str, float]:
        return {"lo": self.lo, "hi": self.hi, "epsilon": float(self.epsilon)}

    def clamp(self, value: int) -> int:
        return min(max(check_integer("value", value), self.lo), self.hi)


def check_question(question: object) -> BoundedNumeric:
    return check_instance("question", question, BoundedNumeric)


# The chance that an honest report falls outside the accepted reports, at most.
REPORT_TAIL = 1e-9
# ln(1 / REPORT_TAIL) = 20.7232658..., rounded up in the fifth digit so that the rounding of
# the floating-point product in report_bounds never narrows the bound below the tail's.
REPORT_SCALES = 20.7233


@dataclass(frozen=True)
class ReportBounds:
    """The reports accepted for a numeric question: ``low`` to ``high``, the range widened by
    ``slack`` on each side."""

    low: int
    high: int
    slack: int


def report_bounds(question: BoundedNumeric) -> ReportBounds:
    """The reports an honest respondent sends except with probability below ``REPORT_TAIL``.

    ``slack = ceil(REPORT_SCALES * (hi - lo) / epsilon)``, in binary floating point in that
    order (``hi - lo`` and ``epsilon`` as doubles), so that SQL computing
    ``ceil(20.7233::float8 * ((hi - lo)::float8 / epsilon))`` gets the same integer. For
    every true answer ``x`` in ``[lo, hi]``, ``P(x + Z outside [lo - slack, hi + slack]) <=
    P(|Z| > slack) = 2 alpha^(slack + 1) / (1 + alpha) < alpha^slack <= REPORT_TAIL``, as
    ``slack >= scale * ln(1 / REPORT_TAIL)`` and ``alpha = exp(-1 / scale)``.
    See docs/statistics.md, "Accepted numeric reports".
    """
    question = check_question(question)
    scale = float(question.sensitivity) / float(question.epsilon)
    slack = math.ceil(REPORT_SCALES * scale)
    return ReportBounds(low=question.lo - slack, high=question.hi + slack, slack=slack)


def randomize_number(value: int, question: BoundedNumeric, rng: object = None) -> int:
    """``clamp(value) + Z``, ``Z`` exact discrete Laplace of scale ``(hi - lo) / epsilon``,
    kept within :func:`report_bounds` (moved there with probability below ``REPORT_TAIL``).

    Reference: Ghosh et al. (2009); Canonne, Kamath & Steinke (2020), Algorithm 2.
    """
    question = check_question(question)
    report = geometric_mechanism(
        question.clamp(value),
        sensitivity=question.sensitivity,
        epsilon=question.exact_epsilon,
        rng=rng,
    )
    # Within the accepted reports, as the browser sends (post-processing: still ε-private).
    bounds = report_bounds(question)
    return min(max(report, bounds.low), bounds.high)
