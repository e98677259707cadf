"""Breakdowns by group: each question's estimate among the respondents who chose one option
of a grouping question, and its comparison with everybody else.

A breakdown reads the per-(question, option) tallies, so its cost does not grow with the
number of responses. Those count one-bit yes/no reports only; a compared or cheating-detection
question's codes are counted per group by one grouped query (``breakdown_codes``), and
multiple-choice, numeric, direct and text questions are left out (``Breakdown.left_out``
says which). Reads only; with the
services, the only place that calls dpengine.
"""

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Prefetch, Q
from django.db.models.fields.json import KeyTransform
from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext

import dpengine
from dpengine import Comparison, DifferenceInterval, Estimate, ForcedResponse
from dpengine.errors import DPEngineError, Reason

from ..models import (
    GroupingOption,
    GroupingQuestion,
    GroupingTally,
    GroupTally,
    Question,
    Submission,
    question_key,
)
from .breakdown_codes import cheating_breakdown, code_kind, compared_breakdown, group_code_counts
from .columns import question_column
from .estimates import coverage_floor, estimator, question_fields
from .left_out import questions_left_out
from .mechanisms import question_design, reports_a_bit
from .privacy import survey_design

# --- grouping questions -------------------------------------------------------------------


@dataclass(frozen=True)
class GroupingAnswerCounts:
    """A grouping question's respondents: per option id, and "Prefer not to say"."""

    options: dict[int, int]
    declined: int


def grouping_answer_counts(*, grouping_question) -> GroupingAnswerCounts:
    """Summed over the shards of its ``GroupingTally`` rows: one small query, whatever n."""
    options, declined = {}, 0
    for _gid, option_id, n in GroupingTally.objects.filter(
        grouping_question=grouping_question
    ).totals():
        if option_id is None:
            declined = n
        else:
            options[option_id] = n
    return GroupingAnswerCounts(options=options, declined=declined)


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


# --- direct questions as groups ---------------------------------------------------------


@dataclass(frozen=True)
class DirectOption:
    """One answer of a direct question, as a breakdown's group."""

    pk: int  # yes/no: 1 yes, 0 no; choice: the option's index
    label: str
    respondent_count: int


@dataclass(frozen=True)
class DirectGrouping:
    """A direct yes/no or choice question used to break results down, like a grouping
    question: its answers are the groups. ``pk`` is ``"d<question id>"``, apart from
    grouping question ids."""

    question: Question
    options: tuple[DirectOption, ...]
    # {(randomized question id, answer): (reports, yes reports)} among its respondents
    tallies: dict
    declined_count: int = 0  # a direct question has no "Prefer not to say"

    @property
    def pk(self) -> str:
        return direct_grouping_key(self.question.pk)

    @property
    def text(self) -> str:
        return self.question.text


def direct_grouping_key(question_id) -> str:
    return f"d{question_id}"


def direct_grouping_questions(*, survey) -> list[Question]:
    """The survey's direct yes/no and choice questions: the ones results may be broken down
    by, as by a grouping question."""
    return [
        question
        for question in survey.questions.all()
        if not question.randomized and question.kind in (Question.Kind.YES_NO, Question.Kind.CHOICE)
    ]


def direct_grouping(*, survey, question) -> DirectGrouping:
    """``question``'s answers as groups, with each randomized yes/no question's reports per
    group. One grouped query over the survey's submissions (counted by the database, a row
    per answer back): there are no per-group tallies of direct answers kept at write time,
    which would add writes to every submission of a survey that asks a question directly,
    so it still reads every row, as the public releases' day counts do."""
    key = question_key(question.pk)
    bits = [q.pk for q in survey.questions.all() if reports_a_bit(q)]
    counts = {}
    for qid in bits:
        report_key = question_key(qid)
        counts[f"n_{qid}"] = Count("pk", filter=Q(reports__has_key=report_key))
        counts[f"yes_{qid}"] = Count("pk", filter=Q(**{f"reports__{report_key}": True}))
    rows = (
        Submission.objects.filter(survey=survey, reports__has_key=key)
        .values(answer=KeyTransform(key, "reports"))
        .annotate(respondents=Count("pk"), **counts)
        .order_by()
    )
    respondents, tallies = {}, {}
    for row in rows:
        # A boolean (yes 1, no 0) or an option's index; JSON true reads back as 1 on SQLite.
        answer = int(row["answer"])
        respondents[answer] = respondents.get(answer, 0) + row["respondents"]
        for qid in bits:
            if row[f"n_{qid}"]:
                n, yes = tallies.get((qid, answer), (0, 0))
                tallies[qid, answer] = (n + row[f"n_{qid}"], yes + row[f"yes_{qid}"])
    if question.kind == Question.Kind.CHOICE:
        labelled = list(enumerate(question.options))
    elif question.role == Question.Role.COMPREHENSION:
        # The comprehension check's answer: passed the practice on the first try or not.
        labelled = [(1, gettext("Right on the first try")), (0, gettext("Not on the first try"))]
    else:
        labelled = [(1, gettext("Yes")), (0, gettext("No"))]
    options = tuple(
        DirectOption(pk=index, label=label, respondent_count=respondents.get(index, 0))
        for index, label in labelled
    )
    return DirectGrouping(question=question, options=options, tallies=tallies)


# --- breakdown ----------------------------------------------------------------------------


class CellStatus:
    SHOWN = "shown"
    NO_DATA = "no_data"
    TOO_FEW = "too_few"  # fewer reports in the group than the survey's minimum n


class ComparisonStatus:
    SHOWN = "shown"
    GROUP_WITHHELD = "group_withheld"  # the group's own estimate is withheld
    REST_TOO_FEW = "rest_too_few"  # everybody else together is below the minimum n


@dataclass(frozen=True)
class GroupCell:
    """One question's estimate among the respondents who chose one option."""

    option_id: int
    label: str
    estimate: Estimate
    status: str
    rest: Estimate  # everybody who chose another option of the same grouping question
    # The Wald z-test (dpengine.compare), None where it is undefined (every report the same
    # within both sides) or not compared; ``difference`` is what the page shows: the exact
    # product interval, whose coverage holds at any group size (dpengine.difference_interval).
    comparison: Comparison | None
    comparison_status: str
    difference: DifferenceInterval | None = None

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
    column: str = ""  # "Q3": the question's column among all the survey's questions

    kind = "yes_no"  # as breakdown_codes' rows name theirs


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
    # Multiple-choice, numeric, direct and text questions: not broken down, so the page can
    # say they are left out.
    left_out_questions: int = 0
    left_out: tuple = ()  # the same, by kind (selectors.left_out)
    # The questions whose report is a code, in the survey's order (breakdown_codes): compared
    # with asking directly (ComparedBreakdown) and cheating detection (CheatingBreakdown).
    code_rows: tuple = ()

    @property
    def respondents(self) -> int:
        return sum(option.respondents for option in self.options)

    @property
    def sections(self) -> list:
        """Every row, one-bit and coded, in the survey's order (as the page shows them)."""
        return sorted([*self.rows, *self.code_rows], key=lambda row: int(row.column[1:]))

    @property
    def skipped(self) -> int:
        return max(self.responses - self.respondents - self.declined, 0)

    @property
    def coverage_floor(self) -> float:
        return coverage_floor(self.confidence)

    @property
    def methods_replaced(self) -> int:
        """Intervals shown with the exact method instead of the requested one (too few
        reports for it to keep the level, ``dpengine.guarantee``)."""
        shown = [cell.estimate for row in self.rows for cell in row.cells if not cell.suppressed]
        shown += [row.overall for row in self.rows if row.overall.n >= self.min_n]
        return sum(estimate.method_replaced for estimate in shown)


def _cell_status(est: Estimate, min_n: int) -> str:
    if not est.has_data:
        return CellStatus.NO_DATA
    return CellStatus.TOO_FEW if est.n < min_n else CellStatus.SHOWN


def _compare(est: Estimate, status: str, rest: Estimate, *, min_n, confidence):
    """(Wald comparison or None, the difference shown or None, status)."""
    if status != CellStatus.SHOWN:
        return None, None, ComparisonStatus.GROUP_WITHHELD
    if rest.n < max(min_n, 1):
        return None, None, ComparisonStatus.REST_TOO_FEW
    try:
        comparison = dpengine.compare(group=est, rest=rest, confidence=confidence)
    except DPEngineError as error:
        if error.reason != Reason.ZERO_VARIANCE:
            raise
        # Wald's test is undefined, the exact interval is not: still shown.
        difference = dpengine.difference_interval(first=est, second=rest, confidence=confidence)
        return None, difference, ComparisonStatus.SHOWN
    return comparison, comparison.shown, ComparisonStatus.SHOWN


def survey_breakdown(*, survey, grouping_question, confidence=None, method=None) -> Breakdown:
    """Per question, each group's estimate and its comparison with everybody else.

    A group's cell is withheld below the survey's minimum n (an estimate from so few
    randomized reports is mostly coin noise); the comparison of a group with the rest needs
    both sides to be shown. What is shown of it is ``difference`` (the exact product interval
    of ``dpengine.difference_interval``, its estimate and the p-value that inverts it, not
    adjusted for multiple comparisons); ``comparison`` keeps the Wald z-test.
    """
    confidence = survey.confidence if confidence is None else confidence
    method = survey.ci_method if method is None else method
    if isinstance(grouping_question, DirectGrouping):
        options, tallies = list(grouping_question.options), grouping_question.tallies
        respondents = {option.pk: option.respondent_count for option in options}
        declined = grouping_question.declined_count
    else:
        options = list(grouping_question.options.order_by("position", "id"))
        tallies = {
            (question_id, option_id): (n, yes)
            for question_id, option_id, n, yes in GroupTally.objects.filter(
                option__grouping_question=grouping_question
            ).totals()
        }
        answered = grouping_answer_counts(grouping_question=grouping_question)
        respondents, declined = answered.options, answered.declined

    questions = list(survey.questions.all())
    rows = []
    for index, question in enumerate(questions):
        # Direct questions too: their tallies hold answers, which no design debiases. The
        # ones that send a code (cheating detection, compared with asking directly) have no
        # group tallies: counted per group in code_rows (breakdown_codes).
        if not reports_a_bit(question):
            continue
        # Each question debiased with its own design (the survey's coins unless it names one).
        estimate = estimator(
            design=question_design(question, survey=survey),
            confidence=confidence,
            method=method,
        )

        def est(yes, n, estimate=estimate):
            return estimate(yes=yes, n=n)

        counts = [tallies.get((question.pk, option.pk), (0, 0)) for option in options]
        total_n = sum(n for n, _yes in counts)
        total_yes = sum(yes for _n, yes in counts)
        cells = []
        for option, (n, yes) in zip(options, counts, strict=True):
            group = est(yes, n)
            status = _cell_status(group, survey.min_n)
            rest = est(total_yes - yes, total_n - n)
            comparison, difference, comparison_status = _compare(
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
                    difference=difference,
                )
            )
        rows.append(
            QuestionBreakdown(
                **question_fields(question),
                overall=est(total_yes, total_n),
                cells=cells,
                column=question_column(index),
            )
        )
    code_rows = _code_rows(
        survey=survey,
        grouping_question=grouping_question,
        questions=questions,
        options=options,
        confidence=confidence,
        method=method,
    )
    kept = {row.question_id for row in rows} | {row.question_id for row in code_rows}
    return Breakdown(
        survey=survey,
        grouping_question=grouping_question,
        options=[
            OptionCount(option_id=o.pk, label=o.label, respondents=respondents.get(o.pk, 0))
            for o in options
        ],
        design=survey_design(survey=survey),
        confidence=confidence,
        method=method,
        min_n=survey.min_n,
        rows=rows,
        generated_at=timezone.now(),
        declined=declined,
        responses=survey.response_count,
        left_out_questions=len(questions) - len(kept),
        left_out=questions_left_out(questions=questions, kept_ids=kept),
        code_rows=code_rows,
    )


def _code_rows(*, survey, grouping_question, questions, options, confidence, method):
    """The compared and cheating-detection questions' rows (``breakdown_codes``)."""
    coded = [(index, q) for index, q in enumerate(questions) if code_kind(q)]
    if not coded:
        return ()
    direct = isinstance(grouping_question, DirectGrouping)
    counts = group_code_counts(
        survey=survey,
        questions=[question for _index, question in coded],
        grouping_question=None if direct else grouping_question,
        direct_question=grouping_question.question if direct else None,
    )
    rows = []
    for index, question in coded:
        common = {"survey": survey, "options": options, "counts": counts, "index": index}
        if code_kind(question) == "cheating":
            rows.append(cheating_breakdown(question, confidence=confidence, **common))
        else:
            rows.append(
                compared_breakdown(question, confidence=confidence, method=method, **common)
            )
    return tuple(rows)
