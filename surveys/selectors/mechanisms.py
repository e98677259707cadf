"""What each question randomizes with: its dpengine mechanism, its ε, what the browser needs.

One place maps a stored ``Question`` to dpengine, so the respondent page, the estimates, the
exports, the API and the privacy ledger cannot disagree about a question's design:

- yes/no: a ``dpengine.designs`` design; ``Question.design`` names it (``{"kind": "warner",
  "p": 0.75}``), and an empty ``design`` is the survey's two coins (forced response);
- choice: ``dpengine.choice.KaryRandomizedResponse(k=len(options), epsilon=...)``;
- numeric: ``dpengine.numeric.BoundedNumeric(lo=min_value, hi=max_value, epsilon=...)``;
- a direct question (``randomized`` False, and every text question): none. Its answer is
  sent as given; no ε covers it, and the ledger lists it apart (``PrivacyLedger.direct``).

Reads only. ``services.question_types`` checks the parameters when they are written, with
the same constructors, so a stored question always builds here.
"""

from dataclasses import dataclass

from django.conf import settings

import dpengine
from dpengine import DESIGNS, ForcedResponse, KaryRandomizedResponse
from dpengine.numeric import BoundedNumeric

from .. import limits
from ..models import Question

YES_NO, CHOICE, NUMERIC = Question.Kind.YES_NO, Question.Kind.CHOICE, Question.Kind.NUMERIC
TEXT = Question.Kind.TEXT
DIRECT = "direct"  # design_name of a question asked directly
FORCED_RESPONSE = ForcedResponse.kind
# The report codes of a yes/no question compared with asking directly (Question.compare_direct):
# the randomized report no/yes, then the direct answer no/yes; also its tally's four options.
COMPARE_CODES = ("randomized_no", "randomized_yes", "direct_no", "direct_yes")
# The slack under which an ε computed in floating point still counts as at the ceiling (a
# ceiling typed as ln 9 must admit coins whose ε is ln 9 up to rounding).
EPSILON_CEILING_SLACK = 1e-12


def exceeds_epsilon_ceiling(epsilon, *, ceiling=None) -> bool:
    """Whether a per-answer ``epsilon`` is above the site's ``MAX_EPSILON_PER_ANSWER`` (or the
    ``ceiling`` given): the one comparison behind the refusals of the writes
    (``services.validation.ensure_within_epsilon_ceiling``) and the pages' warnings."""
    if ceiling is None:
        ceiling = settings.MAX_EPSILON_PER_ANSWER
    return epsilon > ceiling + EPSILON_CEILING_SLACK


def survey_coins(survey) -> ForcedResponse:
    """The survey's two coins: the design of every yes/no question that names no other."""
    return ForcedResponse(p_truth=survey.p_truth, p_forced_yes=survey.p_forced_yes)


def yes_no_design(*, kind, parameters):
    """The ``dpengine.designs`` design of ``kind`` with ``parameters`` (raises
    ``DPEngineError`` naming the parameter when they are not a private, informative design)."""
    return DESIGNS[kind](**parameters)


def question_design(question, *, survey):
    """The yes/no design ``question`` randomizes with (``question.kind`` must be yes/no)."""
    if not question.design:
        return survey_coins(survey)
    parameters = {key: value for key, value in question.design.items() if key != "kind"}
    return yes_no_design(kind=question.design["kind"], parameters=parameters)


def question_mechanism(question, *, survey):
    """The dpengine object ``question`` randomizes with: a yes/no design, k-ary randomized
    response or a bounded numeric mechanism. Each has ``.epsilon``. None for a direct
    question: nothing randomizes it."""
    if not question.randomized:
        return None
    if question.kind == CHOICE:
        return KaryRandomizedResponse(k=len(question.options), epsilon=question.epsilon)
    if question.kind == NUMERIC:
        return BoundedNumeric(
            lo=question.min_value, hi=question.max_value, epsilon=question.epsilon
        )
    return question_design(question, survey=survey)


def design_name(question) -> str:
    """The machine name of a question's randomization: a yes/no design's kind (forced
    response for the survey's coins), or ``choice`` / ``numeric``; ``direct`` for a question
    asked directly."""
    if not question.randomized:
        return DIRECT
    if question.kind == YES_NO:
        return question.design.get("kind", FORCED_RESPONSE) if question.design else FORCED_RESPONSE
    return question.kind


def report_range(question) -> tuple[str, int, int]:
    """``(kind, lowest, highest)``: the integers a multiple-choice or numeric question's
    report may be. Choice: an option index. Numeric: ``dpengine.report_bounds``, the range
    widened on each side so that an honest report lands outside with probability below
    1e-9 (about 20.7 noise scales), so absurd values are refused. A direct question's report
    is its answer: a numeric one within [min_value, max_value]; a text one, the answer's
    length in bytes of UTF-8, within [0, limits.DIRECT_TEXT_MAX_BYTES]. A direct yes/no
    question (a boolean, as a randomized one) has no range. A yes/no question compared with
    asking directly (``compare_direct``) sends one code, tallied as a four-option choice:
    ``COMPARE_CODES`` (0/1 the randomized report no/yes, 2/3 the direct answer no/yes)."""
    if question.kind == YES_NO and question.compare_direct:
        return (CHOICE, 0, len(COMPARE_CODES) - 1)
    if question.kind == TEXT:
        return (TEXT, 0, limits.DIRECT_TEXT_MAX_BYTES)
    if question.kind == CHOICE:
        return (CHOICE, 0, len(question.options) - 1)
    if not question.randomized:
        return (NUMERIC, question.min_value, question.max_value)
    bounds = dpengine.report_bounds(
        BoundedNumeric(lo=question.min_value, hi=question.max_value, epsilon=question.epsilon)
    )
    return (NUMERIC, bounds.low, bounds.high)


def fingerprint_types(questions) -> list:
    """``[(id, {type fields})]`` of the questions that are not yes/no with the survey's coins:
    what ``models.design_fingerprint_of`` adds, so a changed design, option, range or ε is a
    changed design for every browser that memoised draws."""
    return [
        (
            question.pk,
            {
                "kind": question.kind,
                "design": question.design,
                "options": question.options,
                "epsilon": question.epsilon,
                "min": question.min_value,
                "max": question.max_value,
                # Only when false, so a randomized question keeps the fingerprint it had.
                **({} if question.randomized else {"randomized": False}),
                # Likewise only when true: the report is then a code (report_range).
                **({"compare_direct": True} if question.compare_direct else {}),
            },
        )
        for question in questions
        if not uses_survey_coins(question) or question.compare_direct
    ]


def uses_survey_coins(question) -> bool:
    return question.kind == YES_NO and question.randomized and not question.design


def browser_parameters(question, *, survey) -> dict:
    """What the respondent's browser needs to randomize ``question`` (static/js/designs.js).

    yes/no: ``{"design": {"kind", ...parameters}}``; choice: ``{"options": [labels],
    "epsilon": "<decimal>"}``; numeric: ``{"min", "max", "epsilon": "<decimal>", "report_min",
    "report_max"}`` (the reports accepted: the browser keeps its report within them). ε goes as
    the decimal string Python prints, which both dpengine and exact.js read as the same exact
    rational, so the browser's probabilities are the ones the estimates assume. A direct
    question: ``{"direct": true}`` with its options or range, and a text one its byte limit.
    """
    if not question.randomized:
        parameters = {"direct": True}
        if question.kind == CHOICE:
            parameters["options"] = list(question.options)
        elif question.kind == NUMERIC:
            parameters.update(min=question.min_value, max=question.max_value)
        elif question.kind == TEXT:
            parameters["max_bytes"] = limits.DIRECT_TEXT_MAX_BYTES
        return parameters
    if question.kind == CHOICE:
        return {"options": list(question.options), "epsilon": repr(float(question.epsilon))}
    if question.kind == NUMERIC:
        _kind, report_min, report_max = report_range(question)
        return {
            "min": question.min_value,
            "max": question.max_value,
            "epsilon": repr(float(question.epsilon)),
            # The browser keeps its report within what the server accepts (report_range).
            "report_min": report_min,
            "report_max": report_max,
        }
    design = question_design(question, survey=survey)
    parameters = {"design": {"kind": design.kind, **design.parameters}}
    if question.compare_direct:
        # static/js/control.js: asked directly in the control arm, sent as a code.
        parameters["compare_direct"] = True
    return parameters


@dataclass(frozen=True)
class LedgerEntry:
    """One question's line in the privacy ledger."""

    question_id: int
    position: int
    text: str
    kind: str  # Question.Kind
    design: str  # design_name()
    epsilon: float
    required: bool


@dataclass(frozen=True)
class DirectEntry:
    """A question asked directly, in the ledger: no ε, since nothing randomizes it."""

    question_id: int
    position: int
    text: str
    kind: str  # Question.Kind
    required: bool


@dataclass(frozen=True)
class PrivacyLedger:
    """Every randomized question's ε and their sum (sequential composition), and apart from
    them the questions asked directly, which no finite ε covers."""

    entries: tuple[LedgerEntry, ...]
    total_epsilon: float
    total_odds: float  # e^total: the bound on everything one respondent sends randomized
    direct: tuple[DirectEntry, ...] = ()
    # The control group (Survey.control_share > 0): the randomized questions it asks directly
    # instead (compare_direct), whose ε holds only for the respondents not in it.
    compared: tuple[LedgerEntry, ...] = ()
    control_share: float = 0.0

    @property
    def questions(self) -> int:
        return len(self.entries)

    @property
    def uniform(self) -> bool:
        """Whether every question costs the same ε (then one number says it all)."""
        return len({round(entry.epsilon, 12) for entry in self.entries}) <= 1

    @property
    def largest_epsilon(self) -> float:
        return max((entry.epsilon for entry in self.entries), default=0.0)


def privacy_ledger(*, survey, questions=None) -> PrivacyLedger:
    """The ledger of ``survey``: one entry per randomized question, in position order, and
    the total ε of a respondent who answers them all (dpengine.privacy_ledger); the direct
    questions apart (``direct``), outside that total."""
    questions = list(survey.questions.all()) if questions is None else list(questions)
    direct = tuple(
        DirectEntry(
            question_id=question.pk,
            position=question.position,
            text=question.text,
            kind=question.kind,
            required=question.required,
        )
        for question in questions
        if not question.randomized
    )
    questions = [question for question in questions if question.randomized]
    mechanisms = [question_mechanism(question, survey=survey) for question in questions]
    ledger = dpengine.privacy_ledger(mechanisms)
    entries = tuple(
        LedgerEntry(
            question_id=question.pk,
            position=question.position,
            text=question.text,
            kind=question.kind,
            design=design_name(question),
            epsilon=epsilon,
            required=question.required,
        )
        for question, epsilon in zip(questions, ledger.per_question, strict=True)
    )
    compared_ids = {question.pk for question in questions if question.compare_direct}
    return PrivacyLedger(
        entries=entries,
        total_epsilon=ledger.total_epsilon,
        total_odds=ledger.total_odds,
        direct=direct,
        compared=tuple(entry for entry in entries if entry.question_id in compared_ids)
        if survey.control_share > 0
        else (),
        control_share=survey.control_share,
    )
