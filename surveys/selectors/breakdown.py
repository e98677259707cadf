"""Reads beyond one number: breakdowns by group, regression, study planning.

Selectors like those in ``selectors.py``; only these (and the services) call dpengine. A
breakdown reads the per-(question, option) tallies, so its cost does not grow with the
number of responses; a regression needs each submission's row and reads them in one query.
"""

import math
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np
from django.db.models import OuterRef, Prefetch, Subquery
from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext as _

import dpengine
from dpengine import Comparison, Estimate, ForcedResponse
from dpengine.errors import Reason

from .models import (
    GroupAnswer,
    GroupingOption,
    GroupingQuestion,
    GroupTally,
    Question,
    Submission,
    question_key,
)
from .selectors import survey_design

# --- grouping questions -------------------------------------------------------------------


def survey_grouping_questions(*, survey) -> list[GroupingQuestion]:
    """The survey's grouping questions in order, each with ``.options.all()`` prefetched."""
    return list(
        survey.grouping_questions.prefetch_related(
            Prefetch("options", queryset=GroupingOption.objects.order_by("position", "id"))
        )
    )


def grouping_question_for_survey(*, survey, grouping_id) -> GroupingQuestion:
    """One of this survey's grouping questions; anything else (or garbage) is a 404."""
    try:
        return survey.grouping_questions.get(pk=int(grouping_id))
    except (GroupingQuestion.DoesNotExist, TypeError, ValueError, OverflowError):
        raise Http404("No such grouping question.") from None


def question_for_survey(*, survey, question_id) -> Question:
    try:
        return survey.questions.get(pk=int(question_id))
    except (Question.DoesNotExist, TypeError, ValueError, OverflowError):
        raise Http404("No such question.") from None


# --- breakdown ----------------------------------------------------------------------------


class CellStatus:
    SHOWN = "shown"
    NO_DATA = "no_data"
    TOO_FEW = "too_few"  # fewer reports in the group than the survey's minimum n


class ComparisonStatus:
    SHOWN = "shown"
    GROUP_WITHHELD = "group_withheld"  # the group's own estimate is withheld
    REST_TOO_FEW = "rest_too_few"  # everybody else together is below the minimum n
    UNDEFINED = "undefined"  # all reports identical within both: the z-test is undefined


@dataclass(frozen=True)
class GroupCell:
    """One question's estimate among the respondents who chose one option."""

    option_id: int
    label: str
    estimate: Estimate
    status: str
    rest: Estimate  # everybody who chose another option of the same grouping question
    comparison: Comparison | None
    comparison_status: str

    @property
    def suppressed(self) -> bool:
        return self.status != CellStatus.SHOWN


@dataclass(frozen=True)
class QuestionBreakdown:
    question_id: int
    position: int
    text: str
    overall: Estimate
    cells: list[GroupCell]


@dataclass(frozen=True)
class OptionCount:
    option_id: int
    label: str
    respondents: int


@dataclass(frozen=True)
class Breakdown:
    survey: object
    grouping_question: GroupingQuestion
    options: list[OptionCount]
    design: ForcedResponse
    confidence: float
    method: str
    min_n: int
    rows: list[QuestionBreakdown]
    generated_at: datetime
    # Responses in no group: "Prefer not to say", and the grouping question skipped. Missing,
    # not a group of their own: in no cell here, and in the overall estimates of the results.
    declined: int = 0
    responses: int = 0  # every response to the survey

    @property
    def respondents(self) -> int:
        return sum(option.respondents for option in self.options)

    @property
    def skipped(self) -> int:
        return max(self.responses - self.respondents - self.declined, 0)


def _cell_status(est: Estimate, min_n: int) -> str:
    if not est.has_data:
        return CellStatus.NO_DATA
    return CellStatus.TOO_FEW if est.n < min_n else CellStatus.SHOWN


def _compare(est: Estimate, status: str, rest: Estimate, *, min_n, confidence):
    if status != CellStatus.SHOWN:
        return None, ComparisonStatus.GROUP_WITHHELD
    if rest.n < max(min_n, 1):
        return None, ComparisonStatus.REST_TOO_FEW
    try:
        return (
            dpengine.compare(group=est, rest=rest, confidence=confidence),
            ComparisonStatus.SHOWN,
        )
    except ValueError:
        return None, ComparisonStatus.UNDEFINED


def survey_breakdown(*, survey, grouping_question, confidence=None, method=None) -> Breakdown:
    """Per question, each group's estimate and its comparison with everybody else.

    A group's cell is withheld below the survey's minimum n (an estimate from so few
    randomized reports is mostly coin noise); the comparison of a group with the rest
    (``dpengine.compare``: difference, interval, two-sided p-value, not adjusted for
    multiple comparisons) needs both sides to be shown.
    """
    confidence = survey.confidence if confidence is None else confidence
    method = survey.ci_method if method is None else method
    design = survey_design(survey=survey)
    options = list(grouping_question.options.order_by("position", "id"))
    tallies = {
        (question_id, option_id): (n, yes)
        for question_id, option_id, n, yes in GroupTally.objects.filter(
            option__grouping_question=grouping_question
        ).values_list("question_id", "option_id", "report_count", "yes_count")
    }

    def est(yes, n):
        return dpengine.estimate(yes=yes, n=n, design=design, confidence=confidence, method=method)

    rows = []
    for question in survey.questions.all():
        counts = [tallies.get((question.pk, option.pk), (0, 0)) for option in options]
        total_n = sum(n for n, _yes in counts)
        total_yes = sum(yes for _n, yes in counts)
        cells = []
        for option, (n, yes) in zip(options, counts, strict=True):
            group = est(yes, n)
            status = _cell_status(group, survey.min_n)
            rest = est(total_yes - yes, total_n - n)
            comparison, comparison_status = _compare(
                group, status, rest, min_n=survey.min_n, confidence=confidence
            )
            cells.append(
                GroupCell(
                    option_id=option.pk,
                    label=option.label,
                    estimate=group,
                    status=status,
                    rest=rest,
                    comparison=comparison,
                    comparison_status=comparison_status,
                )
            )
        rows.append(
            QuestionBreakdown(
                question_id=question.pk,
                position=question.position,
                text=question.text,
                overall=est(total_yes, total_n),
                cells=cells,
            )
        )
    return Breakdown(
        survey=survey,
        grouping_question=grouping_question,
        options=[
            OptionCount(option_id=o.pk, label=o.label, respondents=o.respondent_count)
            for o in options
        ],
        design=design,
        confidence=confidence,
        method=method,
        min_n=survey.min_n,
        rows=rows,
        generated_at=timezone.now(),
        declined=grouping_question.declined_count,
        responses=survey.response_count,
    )


# --- regression ---------------------------------------------------------------------------


class RegressionStatus:
    FITTED = "fitted"
    NO_RESPONSES = "no_responses"
    TOO_FEW = "too_few"  # fewer reports than the minimum n, or than coefficients + 1
    SEPARATION = "separation"  # the estimate runs off to infinity
    SINGULAR = "singular"  # collinear or constant covariates
    NOT_CONVERGED = "not_converged"


@dataclass(frozen=True)
class Coefficient:
    """One row of the coefficient table; ``term`` and ``level`` are None for the intercept."""

    term: str | None
    level: str | None
    reference: str | None
    estimate: float
    std_error: float
    ci_low: float
    ci_high: float
    p_value: float

    @property
    def odds_ratio(self) -> float:
        return _exp(self.estimate)

    @property
    def odds_ratio_low(self) -> float:
        return _exp(self.ci_low)

    @property
    def odds_ratio_high(self) -> float:
        return _exp(self.ci_high)


def _exp(value):
    try:
        return math.exp(value)
    except OverflowError:
        return math.inf


@dataclass(frozen=True)
class LevelCount:
    option_id: int
    label: str
    respondents: int  # reports of this question from respondents who chose this option
    role: str  # "reference", "coefficient" or "dropped" (nobody chose it)


@dataclass(frozen=True)
class Covariate:
    grouping_question_id: int
    text: str
    levels: list[LevelCount]

    @property
    def reference(self) -> LevelCount | None:
        return next((level for level in self.levels if level.role == "reference"), None)


@dataclass(frozen=True)
class Regression:
    survey: object
    question: Question
    design: ForcedResponse
    confidence: float
    n: int  # reports used (every report of the question with all grouping answers)
    min_n: int
    covariates: list[Covariate]
    status: str
    # Reports of the question left out: some grouping answer skipped or "Prefer not to say".
    left_out: int = 0
    coefficients: list[Coefficient] = field(default_factory=list)
    detail: str = ""  # dpengine's explanation when the fit failed
    log_likelihood: float | None = None
    iterations: int | None = None

    @property
    def fitted(self) -> bool:
        return self.status == RegressionStatus.FITTED

    @property
    def coefficient_count(self) -> int:
        """The intercept plus one dummy per non-reference option somebody chose."""
        return 1 + sum(
            level.role == "coefficient"
            for covariate in self.covariates
            for level in covariate.levels
        )

    @property
    def message(self) -> str:
        return regression_message(self)


def regression_message(result: "Regression") -> str:
    """Why there is no coefficient table, in words for the researcher (empty when fitted)."""
    if result.status == RegressionStatus.NO_RESPONSES:
        return _("There are no responses yet, so there is nothing to fit.")
    if result.status == RegressionStatus.TOO_FEW:
        needed = max(result.min_n, result.coefficient_count + 1)
        return _(
            "Too little data: %(n)d responses, but the model needs at least %(needed)d (the "
            "survey’s minimum n, and more responses than coefficients). With fewer, the "
            "coefficients would be mostly coin noise."
        ) % {"n": result.n, "needed": needed}
    if result.status == RegressionStatus.SEPARATION:
        return _(
            "The model cannot be fitted: in some group the share of “yes” reports lies outside "
            "what the coins allow (or the groups separate the reports perfectly), so the best "
            "fit puts a true share of exactly 0% or 100% there and its coefficient runs off to "
            "infinity. This happens with small groups; collect more responses, or merge small "
            "options."
        )
    if result.status == RegressionStatus.SINGULAR:
        return _(
            "The model cannot be fitted: some groups’ columns are collinear or constant (for "
            "example, two grouping questions that split the respondents the same way), so "
            "their effects cannot be told apart."
        )
    if result.status == RegressionStatus.NOT_CONVERGED:
        return _("The fit did not converge; the data may be too thin for this model.")
    return ""


def _regression_rows(*, question, grouping):
    """``Counter`` of (option ids tuple, reported yes) over the question's reports, and how
    many reports were left out.

    One query: each submission's report for the question with its option for every grouping
    question. Only the submissions that answered the question have a report. Reports whose
    submission lacks a grouping answer (skipped, "Prefer not to say": no option; or
    bulk-imported) are left out: missing, not a level of their own (complete cases).
    """
    annotations = {
        f"g{gq.pk}": Subquery(
            GroupAnswer.objects.filter(submission=OuterRef("pk"), grouping_question=gq.pk).values(
                "option_id"
            )[:1]
        )
        for gq in grouping
    }
    names = list(annotations)
    key = question_key(question.pk)
    rows = (
        Submission.objects.filter(survey=question.survey_id, reports__has_key=key)
        .annotate(**annotations)
        .values_list(f"reports__{key}", *names)
        .iterator(chunk_size=10000)
    )
    cells = Counter()
    left_out = 0
    for reported_yes, *options in rows:
        if None not in options:
            cells[(tuple(options), bool(reported_yes))] += 1
        else:
            left_out += 1
    return cells, left_out


def survey_regression(*, survey, question, confidence=None) -> Regression:
    """Logistic regression of the TRUE answer to ``question`` on the grouping questions.

    Each grouping question is dummy-coded with its first option as the reference level
    (options nobody chose are left out, and if the first option was never chosen the
    first chosen one becomes the reference). Fitted by ``dpengine.fit_logistic``, the
    maximum-likelihood model ``P(report yes | x) = b + (a - b) logistic(beta_0 + x beta)``
    (Blair, Imai & Zhou 2015, section 4; the R package rr's ``rrreg``).
    """
    confidence = survey.confidence if confidence is None else confidence
    design = survey_design(survey=survey)
    grouping = survey_grouping_questions(survey=survey)
    cells, left_out = _regression_rows(question=question, grouping=grouping)
    n = sum(cells.values())

    covariates = []
    columns = []  # (grouping index, option id) of each dummy column
    for index, gq in enumerate(grouping):
        chosen = Counter()
        for (options, _bit), count in cells.items():
            chosen[options[index]] += count
        levels = []
        reference_seen = False
        for option in gq.options.all():
            if chosen[option.pk] == 0:
                role = "dropped"
            elif not reference_seen:
                role, reference_seen = "reference", True
            else:
                role = "coefficient"
                columns.append((index, option.pk))
            levels.append(LevelCount(option.pk, option.label, chosen[option.pk], role))
        covariates.append(Covariate(gq.pk, gq.text, levels))

    result = {
        "survey": survey,
        "question": question,
        "design": design,
        "confidence": confidence,
        "n": n,
        "min_n": survey.min_n,
        "covariates": covariates,
        "left_out": left_out,
    }
    if n == 0:
        return Regression(**result, status=RegressionStatus.NO_RESPONSES)
    if n < survey.min_n or n <= len(columns) + 1:
        return Regression(**result, status=RegressionStatus.TOO_FEW)

    keys = list(cells)
    counts = np.array([cells[key] for key in keys])
    X = np.array(
        [[1.0 if options[i] == oid else 0.0 for i, oid in columns] for (options, _bit) in keys]
    ).reshape(len(keys), len(columns))
    reports = np.array([bit for (_options, bit) in keys])
    try:
        fit = dpengine.fit_logistic(
            np.repeat(X, counts, axis=0), np.repeat(reports, counts), design=design
        )
    except dpengine.FitError as error:
        status = {
            Reason.SEPARATION: RegressionStatus.SEPARATION,
            Reason.SINGULAR: RegressionStatus.SINGULAR,
            Reason.TOO_FEW_ROWS: RegressionStatus.TOO_FEW,
        }.get(error.reason, RegressionStatus.NOT_CONVERGED)
        return Regression(**result, status=status, detail=str(error))

    low, high = fit.ci(confidence)
    labels = {level.option_id: level.label for c in covariates for level in c.levels}
    coefficients = [
        Coefficient(
            term=None,
            level=None,
            reference=None,
            estimate=float(fit.coef[0]),
            std_error=float(fit.std_error[0]),
            ci_low=float(low[0]),
            ci_high=float(high[0]),
            p_value=float(fit.p_values[0]),
        )
    ]
    for column, (index, option_id) in enumerate(columns, start=1):
        covariate = covariates[index]
        coefficients.append(
            Coefficient(
                term=covariate.text,
                level=labels[option_id],
                reference=covariate.reference.label,
                estimate=float(fit.coef[column]),
                std_error=float(fit.std_error[column]),
                ci_low=float(low[column]),
                ci_high=float(high[column]),
                p_value=float(fit.p_values[column]),
            )
        )
    return Regression(
        **result,
        status=RegressionStatus.FITTED,
        coefficients=coefficients,
        log_likelihood=fit.log_likelihood,
        iterations=fit.n_iter,
    )


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
        except ValueError:
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
