"""One row per question of a survey's estimates, by type: a yes/no question's
``QuestionEstimate`` (its own design), a multiple-choice question's option shares and a
numeric question's mean and share above a threshold; and how the pages, exports and API name
each question's randomization (``parameters_text``; its name: ``design_labels``).

``selectors.estimates.survey_estimates`` builds them; reads only.
"""

from dataclasses import dataclass

from dpengine import ChoiceEstimate, DirectMean, DirectShare, Estimate, ManipulationCheck
from dpengine.numeric import BoundedNumeric, NumericEstimate

from .design_labels import DESIGN_LABELS
from .mechanisms import CHOICE, DIRECT, FORCED_RESPONSE, NUMERIC, TEXT, YES_NO, numeric_range


@dataclass(frozen=True)
class DirectQuestionEstimate:
    """A question asked directly: the answers as given, counted. yes/no: ``shares`` of yes
    and no; choice: one per option (``labels``); numeric: ``mean``; text: only ``n`` (its
    answers are in the exports, never on a results page)."""

    question_id: int
    position: int
    text: str
    type: str  # Question.Kind of the question
    n: int
    suppressed: bool  # fewer answers than the survey's minimum n: numbers are withheld
    labels: tuple = ()
    shares: tuple[DirectShare, ...] = ()
    mean: DirectMean | None = None
    min: int | None = None  # a numeric question's range, as the model's min_value, max_value
    max: int | None = None
    column: str = ""

    kind = DIRECT
    design_name = DIRECT
    epsilon = None

    @property
    def has_data(self) -> bool:
        return self.n > 0

    @property
    def is_text(self) -> bool:
        return self.type == TEXT

    @property
    def parameters(self) -> dict:
        return {}

    @property
    def parameters_text(self) -> str:
        return ""

    @property
    def options(self):
        """``[(label, share)]`` for the template."""
        return list(zip(self.labels, self.shares, strict=True))


def parameters_text(parameters) -> str:
    """A design's parameters as the exports and pages spell them: ``p = 0.75, k = 4``; a pair
    (a cheating-detection design's ``p``) as ``p1 = 0.25, p2 = 0.75``."""
    parts = []
    for name, value in parameters.items():
        if isinstance(value, list | tuple):
            parts.extend(f"{name}{index} = {item:g}" for index, item in enumerate(value, 1))
        else:
            parts.append(f"{name} = {value:g}")
    return ", ".join(parts)


class DesignDescription:
    """What every randomized question's estimate says about its randomization and its count.

    A row names its ``mechanism`` (the dpengine design or mechanism its reports were drawn by)
    and ``counted`` (the estimate whose ``n`` is the number of reports); ``design_name`` is
    the row's own."""

    @property
    def n(self) -> int:
        return self.counted.n

    @property
    def has_data(self) -> bool:
        return self.n > 0

    @property
    def epsilon(self) -> float:
        return float(self.mechanism.epsilon)

    @property
    def parameters(self) -> dict:
        return self.mechanism.parameters

    @property
    def design_label(self):
        return DESIGN_LABELS[self.design_name].name

    @property
    def parameters_text(self) -> str:
        return parameters_text(self.parameters)


@dataclass(frozen=True)
class QuestionEstimate(DesignDescription):
    """A yes/no question's estimate under its own design (``estimate.design``)."""

    question_id: int
    position: int
    text: str
    estimate: Estimate
    suppressed: bool  # fewer reports than the survey's minimum n: numbers are withheld
    column: str = ""  # "Q1", "Q2"...: as the results page and every export name it
    design_name: str = FORCED_RESPONSE  # selectors.mechanisms.design_name

    kind = YES_NO

    @property
    def counted(self) -> Estimate:
        return self.estimate

    @property
    def mechanism(self):
        return self.estimate.design

    @property
    def parameters(self) -> dict:
        """The design's parameters, then ``a`` and ``b`` (what every yes/no design maps to)."""
        design = self.estimate.design
        return {**design.parameters, "a": design.p_yes_given_yes, "b": design.p_yes_given_no}


@dataclass(frozen=True)
class Headline:
    """The estimate a page, the API and the CSV show as *the* estimate, with the interval
    shown next to it; the estimate always lies inside that interval (issue 23). Yes/no
    shares, numeric means and shares above: the clamped estimate with the clipped interval.
    Choice shares: the consistent share (projected onto the simplex, summing to 1) with
    its simultaneous interval, widened to contain it where the projection moved it out."""

    estimate: float | None
    ci_low: float | None
    ci_high: float | None


def headline(value) -> Headline:
    """The headline of a yes/no ``Estimate``, a numeric ``NumericEstimate`` or an
    ``OptionEstimate``; the unbiased value stays ``value.estimate``."""
    if isinstance(value, OptionEstimate):
        return Headline(value.consistent, value.consistent_low, value.consistent_high)
    return Headline(value.clamped, value.ci_low, value.ci_high)


@dataclass(frozen=True)
class OptionEstimate:
    """One option of a multiple-choice question: its share with a simultaneous interval."""

    index: int  # the option's place, 0-based: what a report holds
    label: str
    count: int  # reports of this option
    estimate: float | None  # unbiased; may leave [0, 1]
    clamped: float | None
    std_error: float | None
    ci_low: float  # the simultaneous (Bonferroni) interval of the unbiased share
    ci_high: float
    # The headline: the share projected onto the simplex (>= 0, all k sum to 1), and the
    # interval shown with it (ci widened to contain it; equal to ci almost always).
    consistent: float | None = None
    consistent_low: float = 0.0
    consistent_high: float = 1.0

    @property
    def was_clamped(self) -> bool:
        return self.estimate is not None and self.estimate != self.clamped

    @property
    def widened(self) -> bool:
        """Whether the interval shown with the consistent share is wider than ci."""
        return self.consistent_low < self.ci_low or self.consistent_high > self.ci_high


@dataclass(frozen=True)
class ChoiceQuestionEstimate(DesignDescription):
    """A multiple-choice question's option shares (``dpengine.estimate_choice``), with
    Bonferroni simultaneous intervals: all k hold together at the survey's level."""

    question_id: int
    position: int
    text: str
    estimate: ChoiceEstimate
    options: list[OptionEstimate]
    suppressed: bool
    column: str = ""

    kind = CHOICE
    design_name = CHOICE

    @property
    def counted(self) -> ChoiceEstimate:
        return self.estimate

    @property
    def mechanism(self):
        return self.estimate.mechanism

    @property
    def per_option_confidence(self) -> float:
        return self.estimate.per_option_confidence

    @property
    def any_widened(self) -> bool:
        """Whether a shown option's interval was widened to contain its consistent share."""
        return self.has_data and not self.suppressed and any(o.widened for o in self.options)


@dataclass(frozen=True)
class NumericQuestionEstimate(DesignDescription):
    """A numeric question's mean (from the running sums) and share above ``threshold``
    (from the raw reports), both of the clamped true answers."""

    question_id: int
    position: int
    text: str
    mechanism: BoundedNumeric
    mean: NumericEstimate
    share_above: NumericEstimate
    threshold: int
    suppressed: bool
    column: str = ""
    # Respondents the planner asks for the share above a threshold (±PLANNING_MARGIN at
    # PLANNING_CONFIDENCE), said next to a share whose interval is still all of [0, 1].
    share_respondents_needed: int | None = None
    # Reports beyond the range by more than a few noise scales against what honest reports
    # make (dpengine.manipulation_check); None when suppressed (the reports are not read).
    manipulation_check: ManipulationCheck | None = None

    kind = NUMERIC
    design_name = NUMERIC

    @property
    def counted(self) -> NumericEstimate:
        return self.mean

    # The range as the API, the forms and the browser name it (mechanisms.numeric_range).
    @property
    def min(self) -> int:
        return numeric_range(self.mechanism)["min"]

    @property
    def max(self) -> int:
        return numeric_range(self.mechanism)["max"]
