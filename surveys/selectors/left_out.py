"""Which questions a page leaves out, named by kind: what a page's count sentence is made of.

A regression reads one-bit randomized yes/no reports and a compared question's randomized
arm; a breakdown by group reads those and a cheating-detection question's codes
(``breakdown_codes``). Every other question is left out for a reason that depends on its kind,
and is analysed elsewhere on the results page. The page counts what this returns, so its
sentence stays true whichever questions a page takes.
"""

from dataclasses import dataclass

from ..models import Question
from .columns import question_column
from .mechanisms import is_cheating_detection

# The kinds in the order a page names them.
CHOICE, NUMERIC, DIRECT, TEXT, COMPARED, CHEATING, YES_NO = (
    "choice",
    "numeric",
    "direct",
    "text",
    "compared",
    "cheating",
    "yes_no",
)
KINDS = (YES_NO, CHOICE, NUMERIC, DIRECT, TEXT, COMPARED, CHEATING)


def question_kind(question) -> str:
    """The kind a page names ``question`` by (not the stored ``kind`` alone: how it is asked
    and what its report holds)."""
    if question.kind == Question.Kind.TEXT:
        return TEXT
    if not question.randomized:
        return DIRECT
    if question.kind == Question.Kind.CHOICE:
        return CHOICE
    if question.kind == Question.Kind.NUMERIC:
        return NUMERIC
    if is_cheating_detection(question):
        return CHEATING
    if question.compare_direct:
        return COMPARED
    return YES_NO


@dataclass(frozen=True)
class LeftOutQuestion:
    question_id: int
    column: str  # Q1, Q2, ... as on the results page and in the exports
    anchor: str  # where the results page analyses it


@dataclass(frozen=True)
class LeftOutKind:
    kind: str
    questions: tuple[LeftOutQuestion, ...]

    @property
    def count(self) -> int:
        return len(self.questions)


def results_anchor(question, *, kind) -> str:
    """The id of the results page's section on ``question``."""
    if kind == COMPARED:
        return "control-group-title"  # templates/surveys/_control_group.html
    return f"result-{question.pk}-title"


def questions_left_out(*, questions, kept_ids) -> tuple[LeftOutKind, ...]:
    """The questions of ``questions`` (the survey's, in order) whose id is not in
    ``kept_ids``, grouped by kind in ``KINDS`` order; empty kinds omitted."""
    by_kind = {kind: [] for kind in KINDS}
    for index, question in enumerate(questions):
        if question.pk in kept_ids:
            continue
        kind = question_kind(question)
        by_kind[kind].append(
            LeftOutQuestion(
                question_id=question.pk,
                column=question_column(index),
                anchor=results_anchor(question, kind=kind),
            )
        )
    return tuple(
        LeftOutKind(kind=kind, questions=tuple(found)) for kind, found in by_kind.items() if found
    )
