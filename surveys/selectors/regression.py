"""Logistic regression of a question's true answer on the grouping questions.

A regression reads the question's cells (``models.GroupCell``: reports and "yes" reports per
combination of grouping answers, kept at write time; with one grouping question its
per-(question, option) tallies), a few rows whatever the number of responses. Reads only;
with the services, the only place that calls dpengine.
"""

import math
from collections import Counter
from dataclasses import dataclass, field

import numpy as np
from django.utils.translation import gettext as _

import dpengine
from dpengine.designs import YesNoDesign
from dpengine.errors import Reason

from ..models import GroupCell, GroupTally, Question, group_cell_options, group_cells_kept
from .breakdown import survey_grouping_questions
from .breakdown_codes import code_kind
from .estimates import survey_tallies
from .mechanisms import question_design, reports_a_bit
from .regression_compared import RANDOMIZED_ARM, compared_regression_cells

# --- regression ---------------------------------------------------------------------------


class RegressionStatus:
    FITTED = "fitted"
    NO_RESPONSES = "no_responses"
    TOO_FEW = "too_few"  # fewer reports than the minimum n, or than coefficients + 1
    SEPARATION = "separation"  # the estimate runs off to infinity
    SINGULAR = "singular"  # collinear or constant covariates
    NOT_CONVERGED = "not_converged"


# The interval shown with a one-question model (dpengine.log_odds_ratio_interval).
EXACT_METHOD = dpengine.DIFFERENCE_METHOD


@dataclass(frozen=True)
class Coefficient:
    """One row of the coefficient table; ``term`` and ``level`` are None for the intercept.

    ``ci_low``/``ci_high`` are the interval SHOWN: with at most one grouping question that
    splits the respondents, the exact product interval (coverage at least the level at every
    n, per coefficient; an end is -inf/+inf when a group's share may be 0 or 1); with
    several, None: no interval is shown. ``wald_low``/``wald_high`` (and ``std_error``,
    ``p_value``) are the Wald approximation, kept for comparison with R's rr and RRreg.
    """

    term: str | None
    level: str | None
    reference: str | None
    estimate: float
    std_error: float
    wald_low: float
    wald_high: float
    p_value: float
    ci_low: float | None = None
    ci_high: float | None = None

    @property
    def odds_ratio(self) -> float:
        return _exp(self.estimate)

    @property
    def shown_low(self) -> float | None:
        """The shown lower end, None when there is none or it is unbounded (page: "—")."""
        return _bounded(self.ci_low)

    @property
    def shown_high(self) -> float | None:
        return _bounded(self.ci_high)

    @property
    def unbounded(self) -> bool:
        return self.ci_low is not None and (math.isinf(self.ci_low) or math.isinf(self.ci_high))

    @property
    def odds_ratio_low(self) -> float | None:
        return _exp(self.shown_low)

    @property
    def odds_ratio_high(self) -> float | None:
        return _exp(self.shown_high)

    @property
    def wald_odds_ratio_low(self) -> float:
        return _exp(self.wald_low)

    @property
    def wald_odds_ratio_high(self) -> float:
        return _exp(self.wald_high)


def _bounded(value):
    return None if value is None or math.isinf(value) else value


def _exp(value):
    if value is None:
        return None
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
    design: YesNoDesign  # the question's own
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
    # EXACT_METHOD when the coefficients carry intervals; None when none is shown.
    ci_method: str | None = None
    # A question compared with asking directly: "randomized", the arm the model is fitted on
    # (regression_compared); None for a one-bit question (every report).
    arm: str | None = None

    @property
    def intervals_shown(self) -> bool:
        return self.ci_method is not None

    @property
    def any_unbounded(self) -> bool:
        return any(coefficient.unbounded for coefficient in self.coefficients)

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


def regression_questions(questions) -> list[Question]:
    """The questions a regression can model: randomized yes/no questions sent as one bit, and
    those compared with asking directly (on their randomized arm alone, ``Regression.arm``)."""
    return [q for q in questions if reports_a_bit(q) or code_kind(q) == "compared"]


def _regression_rows(*, survey, question, grouping):
    """``Counter`` of (option ids tuple, reported yes) over the question's reports, and how
    many reports were left out.

    Read from the question's cells (a few rows), not from the submissions. Reports whose
    submission lacks an answer to some grouping question (skipped, "Prefer not to say"; or no
    grouping answer at all: in no cell) are left out: missing, not a level of their own
    (complete cases), counted as the question's reports (its tally) outside complete cells.
    Grouping questions and options cannot change while responses exist (were one to, an
    option a cell names that is not among its question's would count as missing).
    """
    total, total_yes = survey_tallies(survey=survey).of(question.pk)
    if not grouping:
        # The model is the intercept: every report is a complete case, counted in the tally.
        return +Counter({((), True): total_yes, ((), False): total - total_yes}), 0
    options = {gq.pk: {option.pk for option in gq.options.all()} for gq in grouping}
    cells = Counter()
    for combination, reports, yes in _cell_totals(question=question, grouping=grouping):
        if all(oid in options[gq.pk] for gq, oid in zip(grouping, combination, strict=True)):
            cells[(combination, True)] += yes
            cells[(combination, False)] += reports - yes
    cells = +cells  # no empty cells: the fit's rows are the cells somebody is in
    return cells, total - sum(cells.values())


def _cell_totals(*, question, grouping):
    """(option ids tuple, reports, yes reports) per cell of ``question``. One grouping
    question: its options' per-(question, option) tallies, the same counts as their cells
    (a survey of one keeps no cells, ``models.group_cells_kept``; the cells of its declined
    answers are left out anyway)."""
    if not group_cells_kept(len(grouping)):
        tallies = GroupTally.objects.filter(option__grouping_question__in=grouping)
        for _qid, oid, reports, yes in tallies.totals(question_ids=[question.pk]):
            yield (oid,), reports, yes
        return
    for _qid, key, reports, yes in GroupCell.objects.filter(question=question).totals():
        chosen = group_cell_options(key)
        yield tuple(chosen.get(gq.pk) for gq in grouping), reports, yes


def survey_regression(*, survey, question, confidence=None) -> Regression:
    """Logistic regression of the TRUE answer to ``question`` on the grouping questions.

    Each grouping question is dummy-coded with its first option as the reference level
    (options nobody chose are left out, and if the first option was never chosen the
    first chosen one becomes the reference). Fitted by ``dpengine.fit_logistic``, the
    maximum-likelihood model ``P(report yes | x) = b + (a - b) logistic(beta_0 + x beta)``
    (Blair, Imai & Zhou 2015, section 4; the R package rr's ``rrreg``).
    """
    confidence = survey.confidence if confidence is None else confidence
    # The question's own yes/no design: the model's a and b are its P(yes | truth).
    design = question_design(question, survey=survey)
    grouping = survey_grouping_questions(survey=survey)
    if question.compare_direct:
        cells, left_out = compared_regression_cells(
            survey=survey, question=question, grouping=grouping
        )
    else:
        cells, left_out = _regression_rows(survey=survey, question=question, grouping=grouping)
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
        "arm": RANDOMIZED_ARM if question.compare_direct else None,
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
        # One row per cell, weighted by its count: the cost of the cells, not of the n rows.
        fit = dpengine.fit_logistic(X, reports, counts=counts, design=design)
    except dpengine.FitError as error:
        status = {
            Reason.SEPARATION: RegressionStatus.SEPARATION,
            Reason.SINGULAR: RegressionStatus.SINGULAR,
            Reason.TOO_FEW_ROWS: RegressionStatus.TOO_FEW,
        }.get(error.reason, RegressionStatus.NOT_CONVERGED)
        return Regression(**result, status=status, detail=str(error))

    low, high = fit.ci(confidence)
    exact = _exact_intervals(
        cells=cells, columns=columns, covariates=covariates, design=design, confidence=confidence
    )
    labels = {level.option_id: level.label for c in covariates for level in c.levels}
    terms = [(None, None, None)] + [
        (covariates[index].text, labels[option_id], covariates[index].reference.label)
        for index, option_id in columns
    ]
    coefficients = [
        Coefficient(
            term=term,
            level=level,
            reference=reference,
            estimate=float(fit.coef[column]),
            std_error=float(fit.std_error[column]),
            wald_low=float(low[column]),
            wald_high=float(high[column]),
            p_value=float(fit.p_values[column]),
            ci_low=None if exact is None else exact[column][0],
            ci_high=None if exact is None else exact[column][1],
        )
        for column, (term, level, reference) in enumerate(terms)
    ]
    return Regression(
        **result,
        status=RegressionStatus.FITTED,
        coefficients=coefficients,
        log_likelihood=fit.log_likelihood,
        iterations=fit.n_iter,
        ci_method=None if exact is None else EXACT_METHOD,
    )


def _exact_intervals(*, cells, columns, covariates, design, confidence):
    """``(low, high)`` per coefficient (intercept first) with guaranteed coverage, or None.

    When at most one grouping question splits the respondents (the others, if any, have one
    chosen option), the model is saturated: the intercept is the reference group's log-odds
    and each coefficient the log odds ratio of its option against the reference, so each
    gets dpengine's exact interval for exactly that quantity. With several splitting
    questions the additive model is not saturated and only Wald intervals exist, whose
    coverage falls far below the level (docs/statistics.md): None, none is shown.
    """
    splitting = {index for index, _option in columns}
    if len(splitting) > 1:
        return None
    index = next(iter(splitting), None)
    yes, total = Counter(), Counter()
    for (options, bit), count in cells.items():
        level = None if index is None else options[index]
        total[level] += count
        yes[level] += count if bit else 0

    def group(level):
        return dpengine.estimate(yes=yes[level], n=total[level], design=design)

    reference = None if index is None else covariates[index].reference.option_id
    intercept = dpengine.log_odds_interval(group=group(reference), confidence=confidence)
    rows = [(float(intercept.low), float(intercept.high))]
    for _index, option_id in columns:
        ratio = dpengine.log_odds_ratio_interval(
            first=group(option_id), second=group(reference), confidence=confidence
        )
        rows.append((float(ratio.low), float(ratio.high)))
    return rows
