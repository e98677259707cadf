"""Study planning: respondents needed for a margin or a detectable difference, with the
precision curves of the chosen design and its neighbours (half and twice its ε).

The study plan is pure computation over dpengine (no database reads); ``question_plans``
applies the plan's margin to each of a survey's questions with its own type and design.
"""

import math
from dataclasses import dataclass

import dpengine
from dpengine import ForcedResponse
from dpengine.errors import DPEngineError, Reason

from ..models import Survey
from .columns import question_column
from .design_labels import DESIGN_LABELS
from .mechanisms import (
    CHOICE,
    NUMERIC,
    design_name,
    is_cheating_detection,
    privacy_ledger,
    question_mechanism,
)
from .privacy import PLANNING_CONFIDENCE, PLANNING_MARGIN, design_privacy, survey_design

# --- planning -----------------------------------------------------------------------------

PLAN_POINTS = 48


@dataclass(frozen=True)
class PrecisionCurve:
    """The goal's quantity against respondents for one design: the CI half-width for a
    margin, the power of the two-group test (respondents per group) for a difference."""

    epsilon: float
    design: ForcedResponse
    chosen: bool
    respondents: int  # needed under this design for the same goal
    points: list[tuple[int, float]]  # (respondents, half-width or power), denser at small n
    at_plan: float  # the same quantity at the plan's respondents (the chosen design's need)


@dataclass(frozen=True)
class Plan:
    design: ForcedResponse
    goal: str  # "margin" or "difference"
    confidence: float
    margin: float | None
    difference: float | None
    power: float | None
    prevalence: float | None
    respondents: int  # total needed for the margin; per group for the difference
    curves: list[PrecisionCurve]
    n_max: int

    @property
    def epsilon(self) -> float:
        return self.design.epsilon

    @property
    def quantity(self) -> str:
        """What the curves plot: ``"power"`` for a difference, ``"half_width"`` otherwise."""
        return "power" if self.goal == "difference" else "half_width"

    @property
    def total_for_two_groups(self) -> int:
        return 2 * self.respondents

    @property
    def alternatives(self) -> list[PrecisionCurve]:
        return [curve for curve in self.curves if not curve.chosen]


def _nice_ceiling(value: float) -> int:
    """The next of 1, 2, 2.5, 5 × 10^k at or above ``value``: a round axis end."""
    value = max(float(value), 10.0)
    power = 10 ** math.floor(math.log10(value))
    for step in (1, 2, 2.5, 5, 10):
        if step * power >= value:
            return int(step * power)
    return int(10 * power)


def _respondents(*, design, goal, confidence, margin, difference, power, prevalence):
    if goal == "difference":
        return dpengine.required_sample_size_difference(
            design=design, difference=difference, power=power, confidence=confidence, p=prevalence
        )
    return dpengine.required_sample_size(
        design=design, margin=margin, confidence=confidence, p=prevalence
    )


def _curve(*, design, chosen, respondents, n_max, n_plan, confidence, prevalence, difference=None):
    # Quadratic spacing: the curve bends most at small n, where the points are dense; the
    # plan's own n is one of the points, so the chosen line passes through its goal exactly.
    sizes = sorted(
        {max(1, round(n_max * (i / PLAN_POINTS) ** 2)) for i in range(1, PLAN_POINTS + 1)}
        | {n_plan}
    )
    if difference is None:
        points = [
            (
                n,
                dpengine.margin_for_sample_size(
                    design=design, n=n, confidence=confidence, p=prevalence
                ),
            )
            for n in sizes
        ]
    else:
        # A difference is about detecting it: the power with n per group, at the anticipated
        # share (first group) and that share plus the difference (second group).
        points = [
            (
                n,
                dpengine.power_difference(
                    design=design, n=n, difference=difference, confidence=confidence, p=prevalence
                ),
            )
            for n in sizes
        ]
    return PrecisionCurve(
        epsilon=design.epsilon,
        design=design,
        chosen=chosen,
        respondents=respondents,
        points=points,
        at_plan=dict(points)[n_plan],
    )


def study_plan(
    *,
    design,
    goal,
    confidence=0.95,
    margin=None,
    difference=None,
    power=0.8,
    prevalence=None,
) -> Plan:
    """Respondents needed for a margin or a detectable difference, with precision curves.

    ``goal="margin"``: respondents for a CI half-width of ``margin``
    (``dpengine.required_sample_size``); ``goal="difference"``: respondents in EACH of
    two groups to detect ``difference`` at ``power`` (``dpengine.
    required_sample_size_difference``). The curves show the goal's quantity against
    respondents (the half-width for a margin, ``dpengine.power_difference`` per group for a
    difference, both at the anticipated ``prevalence``) for the chosen design and for the
    designs with half and twice its ε (same forced-yes coin, ``ForcedResponse.for_epsilon``).
    """
    goal_arguments = {
        "goal": goal,
        "confidence": confidence,
        "margin": margin,
        "difference": difference,
        "power": power,
        "prevalence": prevalence,
    }
    respondents = _respondents(design=design, **goal_arguments)
    n_max = _nice_ceiling(respondents * 2)
    designs = [(design, True)]
    for factor in (0.5, 2.0):
        try:
            alternative = ForcedResponse.for_epsilon(
                design.epsilon * factor, p_forced_yes=design.p_forced_yes
            )
        except DPEngineError as error:
            # Half or twice ε may lie outside what these coins can reach: no such curve.
            if error.reason != Reason.OUT_OF_RANGE:
                raise
            continue
        designs.append((alternative, False))
    curves = [
        _curve(
            design=d,
            chosen=chosen,
            respondents=_respondents(design=d, **goal_arguments),
            n_max=n_max,
            n_plan=respondents,
            confidence=confidence,
            prevalence=prevalence,
            difference=difference if goal == "difference" else None,
        )
        for d, chosen in designs
    ]
    return Plan(
        design=design,
        goal=goal,
        confidence=confidence,
        margin=margin if goal == "margin" else None,
        difference=difference if goal == "difference" else None,
        power=power if goal == "difference" else None,
        prevalence=prevalence,
        respondents=respondents,
        curves=sorted(curves, key=lambda curve: curve.epsilon),
        n_max=n_max,
    )


# --- per question, each with its own type and design ----------------------------------------


@dataclass(frozen=True)
class QuestionPlan:
    """Respondents one question needs for the plan's margin at the plan's level."""

    question_id: int
    column: str
    text: str
    kind: str
    design: str  # selectors.mechanisms.design_name
    epsilon: float
    respondents: int  # yes/no: the share; choice: every option's share; numeric: the mean
    # numeric: the margin in the answer's units (the margin times the range); else None
    units_margin: float | None = None
    share_respondents: int | None = None  # numeric: for a share above any threshold

    @property
    def design_label(self):
        return DESIGN_LABELS[self.design].name


def question_plans(*, survey, questions, margin, confidence) -> list[QuestionPlan]:
    """For each question, the respondents needed for a half-width of ``margin`` (a share)
    under its own mechanism: a yes/no question with its own design
    (``dpengine.required_sample_size``), a multiple-choice question for every option at once
    (Bonferroni, ``required_sample_size_choice``), a numeric question's mean within
    ``margin`` times its range (``required_sample_size_mean``, worst-case spread) and its
    share above a threshold (``required_sample_size_share``). Worst cases throughout."""
    plans = []
    for index, question in enumerate(questions):
        mechanism = question_mechanism(question, survey=survey)
        if mechanism is None or is_cheating_detection(question):
            # Asked directly: no randomization to plan for. Cheating detection: not planned
            # here (its precision depends on the unknown share of non-compliers).
            continue
        common = {
            "question_id": question.pk,
            "column": question_column(index),
            "text": question.text,
            "kind": question.kind,
            "design": design_name(question),
            "epsilon": float(mechanism.epsilon),
        }
        if question.kind == CHOICE:
            respondents = dpengine.required_sample_size_choice(
                mechanism=mechanism, margin=margin, confidence=confidence
            )
            plans.append(QuestionPlan(**common, respondents=respondents))
        elif question.kind == NUMERIC:
            units = margin * mechanism.sensitivity
            plans.append(
                QuestionPlan(
                    **common,
                    respondents=dpengine.required_sample_size_mean(
                        question=mechanism, margin=units, confidence=confidence
                    ),
                    units_margin=units,
                    share_respondents=dpengine.required_sample_size_share(
                        question=mechanism, margin=margin, confidence=confidence
                    ),
                )
            )
        else:
            respondents = dpengine.required_sample_size(
                design=mechanism, margin=margin, confidence=confidence
            )
            plans.append(QuestionPlan(**common, respondents=respondents))
    return plans


def question_sample_sizes(*, survey, questions=None) -> dict[int, int]:
    """``{question id: respondents needed}`` for ±``PLANNING_MARGIN`` at
    ``PLANNING_CONFIDENCE`` (a numeric question: its mean within that fraction of its range),
    as the builder's privacy ledger shows beside each ε: ``question_plans`` at the builder's
    margin. ``survey`` may be unsaved, carrying the coins of a live preview."""
    questions = survey.questions.all() if questions is None else questions
    plans = question_plans(
        survey=survey, questions=questions, margin=PLANNING_MARGIN, confidence=PLANNING_CONFIDENCE
    )
    return {plan.question_id: plan.respondents for plan in plans}


def coins_privacy(*, p_truth, p_forced_yes, questions=0, survey=None):
    """``(privacy, needs)`` of coins being tried before they are saved (the new-survey page,
    the builder's live preview): the privacy of ``questions`` questions on these coins, or,
    with ``survey``, of its saved questions, each with its own design and type (the ledger),
    and the respondents each of them needs (``{question id: n}``, empty without ``survey``)."""
    # An unsaved Survey carries the coins into the same selectors a saved survey uses.
    coins = Survey(p_truth=p_truth, p_forced_yes=p_forced_yes)
    design = survey_design(survey=coins)
    if survey is None:
        return design_privacy(design=design, questions=questions), {}
    saved_questions = list(survey.questions.all())
    ledger = privacy_ledger(survey=coins, questions=saved_questions)
    needs = question_sample_sizes(survey=coins, questions=saved_questions)
    return design_privacy(design=design, questions=ledger.questions, ledger=ledger), needs
