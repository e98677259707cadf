"""The breakdown by group of the questions whose report is a code, not a bit: a question
compared with asking directly (``control_arms``: per group, the randomized arm's estimate and
the direct arm's share) and a cheating-detection question (``cheating_rows``: per group, π
and the design's other parameters, each group's rows estimated as the whole survey's are).

These questions have no per-group tallies (the submission statement keeps those for one-bit
reports only, ``models.GroupTally``), so their codes are counted per group by one grouped query
over the survey's released submissions, counted by the database (a row per group back), as the
breakdown by a direct question counts its groups (``breakdown.direct_grouping``). Reads only.
"""

from dataclasses import dataclass

from django.db.models import Count, F, Q
from django.db.models.fields.json import KeyTransform

import dpengine
from dpengine import DirectShare, Estimate

from ..models import Submission, question_key
from .cheating_rows import CheatingQuestionEstimate, cheating_row_of_codes
from .columns import question_column
from .control_arms import ArmCounts
from .estimates import estimator, question_fields
from .mechanisms import (
    CHEATING_CODES,
    COMPARE_CODES,
    YES_NO,
    is_cheating_detection,
    question_design,
)

# How many codes each kind sends (0 .. width - 1).
CODE_WIDTH = {"compared": len(COMPARE_CODES), "cheating": CHEATING_CODES}


def code_kind(question) -> str | None:
    """``"compared"`` or ``"cheating"`` for a question whose report is a code, else None."""
    if is_cheating_detection(question):
        return "cheating"
    if question.randomized and question.compare_direct and question.kind == YES_NO:
        return "compared"
    return None


def group_code_counts(*, survey, questions, grouping_question=None, direct_question=None) -> dict:
    """``{(question id, group): (count of code 0, code 1, ...)}`` over ``questions`` (the
    survey's code questions) among the released submissions, grouped by ``grouping_question``
    (``group``: the option's id) or by ``direct_question`` (a direct question's answer: yes 1,
    no 0, or an option's index). One query; a submission in no group (skipped, "Prefer not to
    say") is in no row."""
    if not questions:
        return {}
    counts = {}
    for question in questions:
        key = question_key(question.pk)
        for code in range(CODE_WIDTH[code_kind(question)]):
            counts[f"c{question.pk}_{code}"] = Count("pk", filter=Q(**{f"reports__{key}": code}))
    submissions = Submission.objects.filter(survey=survey)
    if direct_question is not None:
        answer_key = question_key(direct_question.pk)
        rows = submissions.filter(reports__has_key=answer_key).values(
            group=KeyTransform(answer_key, "reports")
        )
    else:
        rows = submissions.filter(
            group_answers__grouping_question=grouping_question,
            group_answers__option__isnull=False,
        ).values(group=F("group_answers__option"))
    found = {}
    for row in rows.annotate(**counts).order_by():
        # A direct answer: a boolean (yes 1, no 0) or an option's index; JSON true reads back
        # as 1 on SQLite.
        group = int(row["group"])
        for question in questions:
            width = CODE_WIDTH[code_kind(question)]
            these = tuple(row[f"c{question.pk}_{code}"] for code in range(width))
            before = found.get((question.pk, group), (0,) * width)
            found[question.pk, group] = tuple(a + b for a, b in zip(before, these, strict=True))
    return found


# --- compared with asking directly ------------------------------------------------------


@dataclass(frozen=True)
class ComparedCell:
    """One group's two arms of a compared question: each withheld below the survey's
    minimum n on its own (either arm's numbers alone say as much as an estimate)."""

    option_id: int | None  # None: everyone in some group (the row's total)
    label: str
    arms: ArmCounts
    randomized: Estimate
    direct: DirectShare
    min_n: int

    @property
    def randomized_shown(self) -> bool:
        return self.randomized.has_data and self.arms.randomized_n >= self.min_n

    @property
    def direct_shown(self) -> bool:
        return self.arms.direct_n > 0 and self.arms.direct_n >= self.min_n


@dataclass(frozen=True)
class ComparedBreakdown:
    question_id: int
    position: int
    text: str
    column: str
    cells: list  # ComparedCell per group
    overall: ComparedCell

    kind = "compared"


def _arms(codes) -> ArmCounts:
    no_r, yes_r, no_d, yes_d = codes
    return ArmCounts(
        randomized_n=no_r + yes_r, randomized_yes=yes_r, direct_n=no_d + yes_d, direct_yes=yes_d
    )


def _compared_cell(*, option_id, label, arms, estimate, confidence, method, min_n):
    (direct, _no) = dpengine.direct_shares(
        counts=[arms.direct_yes, arms.direct_n - arms.direct_yes],
        confidence=confidence,
        method=method,
    )
    return ComparedCell(
        option_id=option_id,
        label=label,
        arms=arms,
        randomized=estimate(yes=arms.randomized_yes, n=arms.randomized_n),
        direct=direct,
        min_n=min_n,
    )


def compared_breakdown(question, *, survey, options, counts, confidence, method, index):
    """A compared question's row: each group's arms, then everyone in a group together."""
    estimate = estimator(
        design=question_design(question, survey=survey), confidence=confidence, method=method
    )
    common = {
        "estimate": estimate,
        "confidence": confidence,
        "method": method,
        "min_n": survey.min_n,
    }
    cells, total = [], (0, 0, 0, 0)
    for option in options:
        codes = counts.get((question.pk, option.pk), (0, 0, 0, 0))
        total = tuple(a + b for a, b in zip(total, codes, strict=True))
        cells.append(
            _compared_cell(option_id=option.pk, label=option.label, arms=_arms(codes), **common)
        )
    overall = _compared_cell(option_id=None, label="", arms=_arms(total), **common)
    return ComparedBreakdown(
        **question_fields(question), column=question_column(index), cells=cells, overall=overall
    )


# --- cheating detection ------------------------------------------------------------------


@dataclass(frozen=True)
class CheatingCell:
    """One group's estimates of a CDM/SLD question (``row``: π, γ or t, as the results page's
    row of the whole survey, withheld below the survey's minimum n)."""

    option_id: int | None
    label: str
    row: CheatingQuestionEstimate


@dataclass(frozen=True)
class CheatingBreakdown:
    question_id: int
    position: int
    text: str
    column: str
    design_name: str
    procedure: str
    cells: list  # CheatingCell per group
    overall: CheatingCell

    kind = "cheating"

    @property
    def is_sld(self) -> bool:
        return self.design_name == "sld"


def cheating_breakdown(question, *, survey, options, counts, confidence, index):
    """A CDM/SLD question's row: π (and γ or t) per group, then everyone in a group."""
    fields = {**question_fields(question), "column": question_column(index)}
    cells, total = [], (0,) * CHEATING_CODES
    for option in options:
        codes = counts.get((question.pk, option.pk), (0,) * CHEATING_CODES)
        total = tuple(a + b for a, b in zip(total, codes, strict=True))
        row = cheating_row_of_codes(
            question, survey=survey, codes=codes, confidence=confidence, fields=fields
        )
        cells.append(CheatingCell(option_id=option.pk, label=option.label, row=row))
    overall = CheatingCell(
        option_id=None,
        label="",
        row=cheating_row_of_codes(
            question, survey=survey, codes=total, confidence=confidence, fields=fields
        ),
    )
    design = question_design(question, survey=survey)
    return CheatingBreakdown(
        **fields,
        design_name=design.kind,
        procedure=question.procedure,
        cells=cells,
        overall=overall,
    )
