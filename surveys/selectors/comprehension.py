"""Reads of the comprehension check (``services.comprehension`` makes its hidden questions):
what the respondent page practises, and how many understood each design.

Each hidden question records, as a direct yes/no answer, whether a respondent's first try at
one design's practice round was right; its results are ordinary binomial shares of those
answers (``dpengine.direct_shares``), withheld below the survey's ``min_n`` like any direct
answer's.
"""

from dataclasses import dataclass

import dpengine
from dpengine import DirectShare

from ..designs import design_row
from ..models import Question
from .design_labels import DESIGN_LABELS, SURVEY_COINS
from .estimate_rows import parameters_text
from .estimates import survey_tallies
from .mechanisms import GROUP_SHARE, question_design


@dataclass(frozen=True)
class ComprehensionResult:
    """How many of the ``understood.n`` respondents who tried one design's practice round got
    it right the first time (``understood.count``), with the share's interval."""

    question_id: int
    design_kind: str  # a design_labels key: SURVEY_COINS for the survey's own coins
    parameters: dict  # the design's parameters (the survey's coins for SURVEY_COINS)
    understood: DirectShare
    suppressed: bool  # fewer answers than the survey's minimum n: numbers are withheld
    procedure: str = Question.Procedure.DEVICE  # the procedure practised

    @property
    def design_label(self):
        return DESIGN_LABELS[self.design_kind].name

    @property
    def parameters_text(self) -> str:
        return parameters_text(self.parameters)


def comprehension_questions(*, survey) -> list[Question]:
    """The survey's hidden comprehension questions, one per practised design, in the order of
    the practice rounds; none when it does not check comprehension (without a query: the
    setting and the questions change together, ``services.comprehension_sync``)."""
    if not survey.comprehension_check:
        return []
    return list(Question.all_objects.filter(survey=survey, role=Question.Role.COMPREHENSION))


def practice_rounds(*, survey, questions=None) -> list[dict]:
    """What the respondent page's practice needs: ``[{"id", "design": {"kind", ...}}]``, the
    hidden question each round's result is sent for and the design it walks through
    (static/js/comprehension.js); a device-procedure round also its texts, ``"practice":
    {"question", "why"}``, from the design's row of the design table (surveys/designs.py), in
    the active language."""
    if questions is None:
        questions = comprehension_questions(survey=survey)
    rounds = []
    for question in questions:
        design = question_design(question, survey=survey)
        parameters = dict(design.parameters)
        if "share" in parameters:
            # A cheating-detection design, spelled as the questions' (browser_parameters).
            parameters[GROUP_SHARE] = parameters.pop("share")
        round_ = {"id": question.pk, "design": {"kind": design.kind, **parameters}}
        row = design_row(design.kind)
        if question.procedure == Question.Procedure.RESPONDENT:
            round_["procedure"] = question.procedure
        elif row is not None and row.practice is not None:
            round_["practice"] = {
                "question": str(row.practice.question),
                "why": str(row.practice.why),
            }
        rounds.append(round_)
    return rounds


def practised_design_text(question, *, survey) -> str:
    """The design a comprehension question's practice walks through, as the exports name it:
    ``Warner (p = 0.75)``."""
    kind = question.design.get("kind", SURVEY_COINS) if question.design else SURVEY_COINS
    parameters = parameters_text(question_design(question, survey=survey).parameters)
    return f"{DESIGN_LABELS[kind].name} ({parameters})"


def comprehension_results(*, survey, confidence=None, method=None) -> list[ComprehensionResult]:
    """One result per practised design, from the tallies (one query)."""
    questions = comprehension_questions(survey=survey)
    if not questions:
        return []
    tallies = survey_tallies(survey=survey)
    confidence = survey.confidence if confidence is None else confidence
    method = survey.ci_method if method is None else method
    results = []
    for question in questions:
        n = tallies.reports_of(question.pk)
        (yes,) = tallies.counts_of(question.pk, width=1)
        understood, _not = dpengine.direct_shares(
            counts=[yes, n - yes], confidence=confidence, method=method
        )
        design = question_design(question, survey=survey)
        results.append(
            ComprehensionResult(
                question_id=question.pk,
                design_kind=question.design.get("kind", SURVEY_COINS)
                if question.design
                else SURVEY_COINS,
                parameters=dict(design.parameters),
                understood=understood,
                suppressed=n < survey.min_n,
                procedure=question.procedure,
            )
        )
    return results
