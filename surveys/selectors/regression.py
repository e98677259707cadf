"""Logistic regression of a question's true answer on the grouping questions.

A regression needs each submission's row and reads them in one query. Reads only; with the
services, the only place that calls dpengine.
"""

import math
from collections import Counter
from dataclasses import dataclass, field

import numpy as np
from django.db.models import OuterRef, Subquery
from django.utils.translation import gettext as _

import dpengine
from dpengine.designs import YesNoDesign
from dpengine.errors import Reason

from ..models import GroupAnswer, Question, Submission, question_key
from .breakdown import survey_grouping_questions
from .mechanisms import question_design

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
    # The question's own yes/no design: the model's a and b are its P(yes | truth).
    design = question_design(question, survey=survey)
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
