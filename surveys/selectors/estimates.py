"""The estimates of a survey: the running tallies and one estimate per question, each under
its own design and type (the survey's coins and privacy are in ``privacy``, the raw reports
the exports stream in ``report_rows``).

Reads only, and (with the services) the only place that calls dpengine.
"""

import functools
from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone

import dpengine
from dpengine import ForcedResponse

from ..models import CI_METHODS, Survey, TallyShard, question_key
from .cheating_rows import CHEATING, cheating_row
from .columns import question_column
from .control_arms import arm_counts
from .estimate_rows import (
    ChoiceQuestionEstimate,
    DirectQuestionEstimate,
    NumericQuestionEstimate,
    OptionEstimate,
    QuestionEstimate,
)
from .mechanisms import (
    CHOICE,
    DIRECT,
    FORCED_RESPONSE,
    NUMERIC,
    TEXT,
    YES_NO,
    PrivacyLedger,
    design_name,
    is_cheating_detection,
    numeric_bounds,
    privacy_ledger,
    question_design,
    question_mechanism,
)
from .numeric_tallies import NumericHistogram, numeric_histograms
from .privacy import PLANNING_CONFIDENCE, PLANNING_MARGIN, survey_design

VALID_METHODS = tuple(code for code, _label in CI_METHODS)


@dataclass(frozen=True)
class SurveyEstimates:
    survey: Survey
    design: ForcedResponse  # the survey's two coins (yes/no questions that name no design)
    confidence: float
    method: str
    rows: list  # one QuestionEstimate, ChoiceQuestionEstimate or NumericQuestionEstimate each
    generated_at: datetime
    ledger: PrivacyLedger | None = None

    @property
    def epsilon(self):
        return self.design.epsilon

    @property
    def coverage_floor(self) -> float:
        """The least coverage any interval shown keeps (``dpengine.guarantee``)."""
        return coverage_floor(self.confidence)

    @property
    def yes_no_rows(self) -> list[QuestionEstimate]:
        return [row for row in self.rows if row.kind == YES_NO]

    @property
    def choice_rows(self) -> list[ChoiceQuestionEstimate]:
        return [row for row in self.rows if row.kind == CHOICE]

    @property
    def numeric_rows(self) -> list[NumericQuestionEstimate]:
        return [row for row in self.rows if row.kind == NUMERIC]

    @property
    def direct_rows(self) -> list[DirectQuestionEstimate]:
        return [row for row in self.rows if row.kind == DIRECT]

    @property
    def cheating_rows(self) -> list:
        """The cheating-detection questions' rows (``cheating_rows.CheatingQuestionEstimate``)."""
        return [row for row in self.rows if row.kind == CHEATING]

    @property
    def mixed(self) -> bool:
        """Whether some question is not yes/no with the survey's coins (so one ε per answer
        does not describe the survey)."""
        return not (self.ledger is None or self.ledger.uniform) or any(
            row.design_name != FORCED_RESPONSE for row in self.rows if row.kind != DIRECT
        )


def coverage_floor(confidence) -> float:
    """``confidence - COVERAGE_TOLERANCE``: what every interval shown covers at least."""
    return round(confidence - dpengine.COVERAGE_TOLERANCE, 12)


@dataclass(frozen=True)
class SurveyTallies:
    """A survey's running tallies as stored now: the sum of its tally shards."""

    responses: int
    # {"q<question id>": (reports, ...counts)}: yes/no (reports, yes reports); choice
    # (reports, count of option 0, ..., count of option k-1); numeric (reports, sum, sum of
    # squares). See TallyShard.reports.
    reports: dict

    def of(self, question_id) -> tuple[int, int]:
        """``(reports, yes reports)`` of one yes/no question."""
        return self.reports.get(question_key(question_id), (0, 0))

    def counts_of(self, question_id, *, width) -> tuple[int, ...]:
        """The ``width`` counts of one question after its number of reports, zeros if none."""
        stored = self.reports.get(question_key(question_id), ())
        return tuple(stored[1:]) + (0,) * (width - len(stored[1:]))

    def reports_of(self, question_id) -> int:
        stored = self.reports.get(question_key(question_id))
        return stored[0] if stored else 0


def survey_tallies(*, survey) -> SurveyTallies:
    """One query over at most ``TALLY_SHARDS`` rows, whatever the number of responses."""
    responses, reports = 0, {}
    for shard_responses, shard_reports in TallyShard.objects.filter(survey=survey).values_list(
        "responses", "reports"
    ):
        responses += shard_responses
        for key, counts in shard_reports.items():
            reports[key] = tuple(dpengine.tally_sum(reports.get(key, ()), counts))
    return SurveyTallies(responses=responses, reports=reports)


def estimator(*, design, confidence, method):
    """``estimate(yes=..., n=...)``: dpengine's estimate under one design, level and interval
    method, as every read that shows estimates computes them: with ``method`` where it keeps
    the stated level at that n, else the exact interval (``dpengine.guarantee``; the estimate's
    ``requested_method`` says which was asked for)."""
    return functools.partial(
        dpengine.estimate_with_coverage, design=design, confidence=confidence, method=method
    )


def question_fields(question) -> dict:
    """The fields every per-question row of a read starts with: id, position and text."""
    return {"question_id": question.pk, "position": question.position, "text": question.text}


def default_threshold(question) -> int:
    """The share-above threshold a numeric question starts with: the middle of its range
    (rounded down, so it is always below the maximum)."""
    return (question.min_value + question.max_value) // 2


def _yes_no_row(question, *, survey, tallies, confidence, method, fields):
    if question.compare_direct:
        # The randomized arm's reports only (codes 0/1); control_group compares the arms.
        arms = arm_counts(tallies, question.pk)
        reports, yes = arms.randomized_n, arms.randomized_yes
    else:
        reports, yes = tallies.of(question.pk)
    design = question_design(question, survey=survey)
    est = estimator(design=design, confidence=confidence, method=method)(yes=yes, n=reports)
    return QuestionEstimate(
        **fields,
        estimate=est,
        suppressed=reports < survey.min_n,
        design_name=design_name(question),
    )


def _choice_row(question, *, survey, tallies, confidence, method, fields):
    mechanism = question_mechanism(question, survey=survey)
    counts = tallies.counts_of(question.pk, width=mechanism.k)
    # Exact Bonferroni intervals where the requested method's can't be shown to hold jointly.
    est = dpengine.estimate_choice_with_coverage(
        counts=counts, mechanism=mechanism, confidence=confidence, method=method
    )

    def value(array, index):
        return None if array is None else float(array[index])

    options = [
        OptionEstimate(
            index=index,
            label=label,
            count=counts[index],
            estimate=value(est.shares, index),
            clamped=value(est.clamped, index),
            std_error=value(est.std_errors, index),
            ci_low=float(est.ci_low[index]),
            ci_high=float(est.ci_high[index]),
            consistent=value(est.consistent, index),
            consistent_low=float(est.consistent_ci_low[index]),
            consistent_high=float(est.consistent_ci_high[index]),
        )
        for index, label in enumerate(question.options)
    ]
    return ChoiceQuestionEstimate(
        **fields, estimate=est, options=options, suppressed=est.n < survey.min_n
    )


def _numeric_row(question, *, survey, tallies, histogram, confidence, threshold, fields):
    mechanism = question_mechanism(question, survey=survey)
    n, total, total_squares = (
        tallies.reports_of(question.pk),
        *tallies.counts_of(question.pk, width=2),
    )
    mean = dpengine.estimate_mean_from_sums(
        n=n, total=total, total_squares=total_squares, question=mechanism, confidence=confidence
    )
    suppressed = n < survey.min_n
    # Suppressed: the histogram is not read at all (the numbers would be withheld anyway).
    histogram = NumericHistogram() if suppressed else histogram
    share = dpengine.estimate_share_above_from_histogram(
        values=histogram.values,
        counts=histogram.counts,
        question=mechanism,
        threshold=threshold,
        confidence=confidence,
    )
    return NumericQuestionEstimate(
        **fields,
        mechanism=mechanism,
        mean=mean,
        share_above=share,
        threshold=threshold,
        suppressed=suppressed,
        # The planner's own number (planning.question_plans calls the same function).
        share_respondents_needed=dpengine.required_sample_size_share(
            question=mechanism, margin=PLANNING_MARGIN, confidence=PLANNING_CONFIDENCE
        ),
        manipulation_check=None
        if suppressed
        else dpengine.manipulation_check_from_histogram(
            values=histogram.values, counts=histogram.counts, question=mechanism
        ),
    )


def _direct_row(question, *, survey, tallies, confidence, method, fields):
    """A direct question's answers as given: counts and shares with ordinary binomial
    intervals (the survey's method), or the sample mean; text answers counted only."""
    stored = tallies.reports.get(question_key(question.pk), ())
    n = stored[0] if stored else 0
    row = {**fields, "type": question.kind, "n": n, "suppressed": n < survey.min_n}
    if question.kind == TEXT:
        return DirectQuestionEstimate(**row)
    if question.kind == NUMERIC:
        total, squares = tallies.counts_of(question.pk, width=2)
        mean = dpengine.direct_mean(
            n=n,
            total=total,
            total_squares=squares,
            **numeric_bounds(question),
            confidence=confidence,
        )
        return DirectQuestionEstimate(
            **row, mean=mean, min=question.min_value, max=question.max_value
        )
    if question.kind == CHOICE:
        counts, labels = (
            tallies.counts_of(question.pk, width=len(question.options)),
            tuple(question.options),
        )
    else:
        (yes,) = tallies.counts_of(question.pk, width=1)
        counts, labels = (yes, n - yes), ("yes", "no")
    shares = dpengine.direct_shares(counts=list(counts), confidence=confidence, method=method)
    return DirectQuestionEstimate(**row, labels=labels, shares=shares)


def survey_estimates(*, survey, confidence=None, method=None, thresholds=None) -> SurveyEstimates:
    """Per-question estimates, each under its own design and type.

    Every question reads tallies kept at write time only, so the cost does not grow with the
    response count: yes/no and choice questions and a numeric question's mean the running
    tallies, a numeric question's share above the threshold and manipulation check its
    histogram (``numeric_tallies``). ``thresholds`` maps a numeric question's id to its
    threshold (checked by the caller: an integer from its minimum to its maximum - 1);
    missing ones are the middle of the range (``default_threshold``).
    """
    confidence = survey.confidence if confidence is None else confidence
    method = survey.ci_method if method is None else method
    thresholds = thresholds or {}
    questions = list(survey.questions.all())
    rows = []
    # The tallies as stored now, not as ``survey`` was read: submissions keep arriving.
    tallies = survey_tallies(survey=survey)
    # One query for the histograms of every randomized numeric question shown (not suppressed).
    histograms = numeric_histograms(
        question_ids=[
            question.pk
            for question in questions
            if question.randomized
            and question.kind == NUMERIC
            and tallies.reports_of(question.pk) >= survey.min_n
        ]
    )
    for index, question in enumerate(questions):
        fields = {**question_fields(question), "column": question_column(index)}
        if not question.randomized:
            row = _direct_row(
                question,
                survey=survey,
                tallies=tallies,
                confidence=confidence,
                method=method,
                fields=fields,
            )
        elif is_cheating_detection(question):
            row = cheating_row(
                question, survey=survey, tallies=tallies, confidence=confidence, fields=fields
            )
        elif question.kind == CHOICE:
            row = _choice_row(
                question,
                survey=survey,
                tallies=tallies,
                confidence=confidence,
                method=method,
                fields=fields,
            )
        elif question.kind == NUMERIC:
            row = _numeric_row(
                question,
                survey=survey,
                tallies=tallies,
                histogram=histograms.get(question.pk, NumericHistogram()),
                confidence=confidence,
                threshold=thresholds.get(question.pk, default_threshold(question)),
                fields=fields,
            )
        else:
            row = _yes_no_row(
                question,
                survey=survey,
                tallies=tallies,
                confidence=confidence,
                method=method,
                fields=fields,
            )
        rows.append(row)
    return SurveyEstimates(
        survey=survey,
        design=survey_design(survey=survey),
        confidence=confidence,
        method=method,
        rows=rows,
        generated_at=timezone.now(),
        ledger=privacy_ledger(survey=survey, questions=questions),
    )
