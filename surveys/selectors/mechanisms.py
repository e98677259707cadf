"""What each question randomizes with: its dpengine mechanism, its ε, what the browser needs.

One place maps a stored ``Question`` to dpengine, so the respondent page, the estimates, the
exports, the API and the privacy ledger cannot disagree about a question's design:

- yes/no: a ``dpengine.designs`` design; ``Question.design`` names it (``{"kind": "warner",
  "p": 0.75}``), and an empty ``design`` is the survey's two coins (forced response);
- yes/no with a cheating-detection design (``{"kind": "cdm" | "sld", "p": [p1, p2],
  "group_share": s}``, ``dpengine.cheating``): the browser puts itself in group 1 with
  probability ``group_share`` (else group 2), randomizes with that group's ``p`` and sends
  one code, ``2 × (group - 1) + bit`` (0-3), tallied as a four-option report;
- choice: ``dpengine.choice.KaryRandomizedResponse(k=len(options), epsilon=...)``;
- numeric: ``dpengine.numeric.BoundedNumeric(lo=min_value, hi=max_value, epsilon=...)``
  (``numeric_bounds``: the one mapping of the range's names);
- a direct question (``randomized`` False, and every text question): none. Its answer is
  sent as given; no ε covers it, and the ledger lists it apart (``PrivacyLedger.direct``).

Reads only. ``services.question_types`` checks the parameters when they are written, with
the same constructors, so a stored question always builds here.
"""

import math
from dataclasses import dataclass

from django.conf import settings

import dpengine
from dpengine import CHEATING_DESIGNS, DESIGNS, ForcedResponse, KaryRandomizedResponse
from dpengine.numeric import BoundedNumeric

from .. import limits
from ..models import Question

YES_NO, CHOICE, NUMERIC = Question.Kind.YES_NO, Question.Kind.CHOICE, Question.Kind.NUMERIC
TEXT = Question.Kind.TEXT
DIRECT = "direct"  # design_name of a question asked directly
FORCED_RESPONSE = ForcedResponse.kind
# The cheating-detection designs' kinds (``{"kind": "cdm", ...}``), and the name of their
# design's share of respondents in group 1 (dpengine's ``share``, RRreg's ``groupRatio``).
CHEATING_KINDS = tuple(CHEATING_DESIGNS)
GROUP_SHARE = "group_share"
# A cheating-detection question's report: 2 × (group - 1) + the randomized bit.
CHEATING_CODES = 4
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


def is_cheating_detection(question) -> bool:
    """Whether ``question`` is a randomized yes/no question under a CDM or SLD design."""
    return (
        question.kind == YES_NO
        and question.randomized
        and bool(question.design)
        and question.design.get("kind") in CHEATING_KINDS
    )


def reports_a_bit(question) -> bool:
    """Whether ``question`` is randomized yes/no with a one-bit report (its design a
    ``dpengine.designs`` one): what the per-group tallies, breakdowns, regression and public
    releases count. A cheating-detection question, and one compared with asking directly
    (``compare_direct``), send a code instead."""
    return (
        question.kind == YES_NO
        and question.randomized
        and not question.compare_direct
        and not is_cheating_detection(question)
    )


def cheating_design(*, kind, parameters):
    """The ``dpengine.cheating`` design of ``kind`` from stored (or API) parameters: ``p``
    and ``group_share`` (default ½). Raises ``DPEngineError`` naming the parameter (``p``,
    ``share``), or ``TypeError`` for a parameter the design does not take."""
    parameters = dict(parameters)
    p = parameters.pop("p", None)
    share = parameters.pop(GROUP_SHARE, 0.5)
    if parameters:
        raise TypeError(f"unexpected parameters {sorted(parameters)}")
    design_class = CHEATING_DESIGNS[kind]
    if p is None:
        return design_class(share=share)
    return design_class(p=tuple(p) if isinstance(p, list) else p, share=share)


def question_design(question, *, survey):
    """The yes/no design ``question`` randomizes with (``question.kind`` must be yes/no): a
    ``dpengine.designs`` design, or a ``dpengine.cheating`` one (``is_cheating_detection``)."""
    # By the design alone: a comprehension question (asked directly) names the CDM or SLD
    # design whose practice it records.
    if question.design and question.design.get("kind") in CHEATING_KINDS:
        parameters = {key: value for key, value in question.design.items() if key != "kind"}
        return cheating_design(kind=question.design["kind"], parameters=parameters)
    if not question.design:
        return survey_coins(survey)
    parameters = {key: value for key, value in question.design.items() if key != "kind"}
    return yes_no_design(kind=question.design["kind"], parameters=parameters)


def numeric_bounds(question) -> dict[str, int]:
    """A numeric question's range as dpengine names it, ``{"lo", "hi"}``: the one place the
    model's ``min_value`` and ``max_value`` (``min`` and ``max`` in the API, the builder, the
    estimate rows and the browser) become dpengine's ``lo`` and ``hi``; every call into
    dpengine goes through it, and :func:`numeric_range` is the way back."""
    return {"lo": question.min_value, "hi": question.max_value}


def numeric_range(mechanism: BoundedNumeric) -> dict[str, int]:
    """The range of a ``dpengine.numeric.BoundedNumeric`` as the app names it, ``{"min",
    "max"}``: the inverse of :func:`numeric_bounds`, so that ``lo`` and ``hi`` are read out
    of dpengine in this one place. (The API's ``parameters`` of a numeric row are dpengine's
    own, ``lo``, ``hi`` and ``epsilon``: a published field, kept as docs/api.md shows it.)"""
    return {"min": mechanism.lo, "max": mechanism.hi}


def numeric_mechanism(question) -> BoundedNumeric:
    """The ``dpengine.numeric.BoundedNumeric`` a randomized numeric question draws with."""
    return BoundedNumeric(**numeric_bounds(question), epsilon=question.epsilon)


def question_mechanism(question, *, survey):
    """The dpengine object ``question`` randomizes with: a yes/no design, k-ary randomized
    response or a bounded numeric mechanism. Each has ``.epsilon``. None for a direct
    question: nothing randomizes it."""
    if not question.randomized:
        return None
    if question.kind == CHOICE:
        return KaryRandomizedResponse(k=len(question.options), epsilon=question.epsilon)
    if question.kind == NUMERIC:
        return numeric_mechanism(question)
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
    1e-9 (about 20.7 noise scales), so absurd values are refused. A cheating-detection
    question: its code 0-3 (``2 × (group - 1) + bit``), checked and tallied as a four-option
    choice. A direct question's report
    is its answer: a numeric one within [min_value, max_value]; a text one, the answer's
    length in bytes of UTF-8, within [0, limits.DIRECT_TEXT_MAX_BYTES]. A direct yes/no
    question (a boolean, as a randomized one) has no range. A yes/no question compared with
    asking directly (``compare_direct``) sends one code, tallied as a four-option choice:
    ``COMPARE_CODES`` (0/1 the randomized report no/yes, 2/3 the direct answer no/yes)."""
    if question.kind == YES_NO and question.compare_direct:
        return (CHOICE, 0, len(COMPARE_CODES) - 1)
    if question.kind == TEXT:
        return (TEXT, 0, limits.DIRECT_TEXT_MAX_BYTES)
    if is_cheating_detection(question):
        return (CHOICE, 0, CHEATING_CODES - 1)
    if question.kind == CHOICE:
        return (CHOICE, 0, len(question.options) - 1)
    if not question.randomized:
        return (NUMERIC, question.min_value, question.max_value)
    bounds = dpengine.report_bounds(numeric_mechanism(question))
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
                # Likewise only when the respondent carries it out: the page then shows an
                # instruction and sends the answer pressed.
                **({"procedure": question.procedure} if by_respondent(question) else {}),
            },
        )
        for question in questions
        if not uses_survey_coins(question) or question.compare_direct or by_respondent(question)
    ]


def by_respondent(question) -> bool:
    """Whether the respondent carries out ``question``'s design (the respondent procedure)."""
    return question.procedure == Question.Procedure.RESPONDENT


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
    # static/js/procedure.js: the page shows the outcome as an instruction, sends what is pressed.
    procedure = {"procedure": question.procedure} if by_respondent(question) else {}
    if is_cheating_detection(question):
        # The browser draws its group with ``group_share`` and sends 2 × (group - 1) + bit.
        return {
            "design": {
                "kind": design.kind,
                "p": [float(q) for q in design.p],
                GROUP_SHARE: float(design.share),
            },
            **procedure,
        }
    parameters = {"design": {"kind": design.kind, **design.parameters}, **procedure}
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
    # Who carries out the design (Question.Procedure): the ledger says which questions the
    # respondent answers by following the coin, never entering the true answer.
    procedure: str = Question.Procedure.DEVICE


@dataclass(frozen=True)
class DirectEntry:
    """A question asked directly, in the ledger: no ε, since nothing randomizes it."""

    question_id: int
    position: int
    text: str
    kind: str  # Question.Kind
    required: bool


@dataclass(frozen=True)
class OneSidedEntry:
    """A cheating-detection question (CDM, SLD) in the ledger: no finite ε covers it, since an
    honest "no" proves the true answer is no; a "yes" is at most ``yes_odds`` times as likely
    from a true "yes" as from a true "no" (``epsilon_yes``, dpengine's one-sided bound)."""

    question_id: int
    position: int
    text: str
    design: str  # design_name(): cdm or sld
    epsilon_yes: float
    required: bool
    number: int = 0  # the question's number as the page shows it (1, 2, ...)
    procedure: str = Question.Procedure.RESPONDENT

    @property
    def yes_odds(self) -> float:
        return math.exp(self.epsilon_yes)


@dataclass(frozen=True)
class PrivacyLedger:
    """Every randomized question's ε and their sum (sequential composition), and apart from
    them the questions no finite ε covers: those asked directly, and the cheating-detection
    ones (``one_sided``: only a "yes" has a bound)."""

    entries: tuple[LedgerEntry, ...]
    total_epsilon: float
    total_odds: float  # e^total: the bound on everything one respondent sends randomized
    direct: tuple[DirectEntry, ...] = ()
    one_sided: tuple[OneSidedEntry, ...] = ()
    # The control group (Survey.control_share > 0): the randomized questions it asks directly
    # instead (compare_direct), whose ε holds only for the respondents not in it.
    compared: tuple[LedgerEntry, ...] = ()
    control_share: float = 0.0
    # The numbers (as the page shows them: 1, 2, ...) of the questions the respondent carries
    # out (the respondent procedure): the same ε if they follow the instruction shown.
    followed: tuple[int, ...] = ()

    @property
    def followed_numbers(self) -> str:
        return ", ".join(str(number) for number in self.followed)

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
    questions (``direct``) and the cheating-detection ones (``one_sided``) apart, outside
    that total."""
    questions = list(survey.questions.all()) if questions is None else list(questions)
    followed = tuple(index + 1 for index, q in enumerate(questions) if by_respondent(q))
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
    one_sided = tuple(
        OneSidedEntry(
            question_id=question.pk,
            position=question.position,
            text=question.text,
            design=design_name(question),
            epsilon_yes=question_design(question, survey=survey).epsilon_yes,
            required=question.required,
            number=index + 1,
            procedure=question.procedure,
        )
        for index, question in enumerate(questions)
        if is_cheating_detection(question)
    )
    questions = [
        question
        for question in questions
        if question.randomized and not is_cheating_detection(question)
    ]
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
            procedure=question.procedure,
        )
        for question, epsilon in zip(questions, ledger.per_question, strict=True)
    )
    compared_ids = {question.pk for question in questions if question.compare_direct}
    return PrivacyLedger(
        entries=entries,
        total_epsilon=ledger.total_epsilon,
        total_odds=ledger.total_odds,
        direct=direct,
        one_sided=one_sided,
        compared=tuple(entry for entry in entries if entry.question_id in compared_ids)
        if survey.control_share > 0
        else (),
        control_share=survey.control_share,
        followed=followed,
    )
