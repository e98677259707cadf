"""What every export's columns mean: names as the interface shows them, and the codebook.

The raw reports file has the columns ``submission_id``, ``received_on``, ``Q1``…``Qn`` (the
yes/no questions in display order), ``G1``…``Gm`` (the grouping questions in display
order, holding the chosen option's label) and ``P1``…``Pn`` (where the page showed each
question to the respondent, 1 first; empty when not recorded). The codebook describes each
of them and carries the provenance that used to sit in ``#`` lines at the top of the
estimates file.

The codebook is one rectangular table (docs/researchers.md, "Exports and the codebook"), one
row per fact,
filterable by its first column:

- ``section = survey``: ``name`` is a fact about the file (title, design, ε, interval method
  and level, software, generated-at), ``value`` its value;
- ``section = column``: ``name`` is a column of the raw file, ``type`` what it holds, ``text``
  the question (or a description); a randomized question also has its coins, ``a``, ``b`` and ε
  (a cheating-detection question, type ``randomized_cheating_detection``: no ε, its ``p1``,
  ``p2``, ``group_share`` and ``epsilon_yes`` in ``parameters``, and codes 0-3, each
  2 × (group − 1) + the reported bit); a randomized yes/no question's ``procedure`` says who
  carried out its design (``device``: the browser randomized the true answer; ``respondent``:
  the respondent pressed what the coin's instruction shown said);
- ``section = value``: ``name`` is a column, ``value`` a value its cells can hold (exactly as
  written in the raw file) and ``text`` what it means. A blank cell means "skipped"; in a
  grouping column, ``prefer_not_to_say`` means the respondent chose "Prefer not to say".

Texts are the survey's own (its default language); descriptions follow the request's language;
everything in ``section``, ``name`` and ``type`` is a fixed code other programs can rely on.
"""

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime

from django.utils import timezone
from django.utils.translation import gettext as _

from dpengine import ForcedResponse, survey_epsilon

from .. import __version__
from ..models import PREFER_NOT_TO_SAY, GroupingQuestion, Question, Survey
from ..selectors import (
    GROUP_SHARE,
    PrivacyLedger,
    by_respondent,
    design_name,
    is_cheating_detection,
    privacy_ledger,
    question_mechanism,
    survey_design,
    survey_grouping_questions,
    uses_survey_coins,
)
from ..selectors.columns import (
    comprehension_column,
    grouping_column,
    position_column,
    question_column,
)
from ..selectors.comprehension import comprehension_questions, practised_design_text
from ..selectors.estimate_rows import parameters_text
from ..selectors.languages import survey_languages

CODEBOOK_HEADER = [
    "section",
    "name",
    "type",
    "value",
    "text",
    "p_truth",
    "p_forced_yes",
    "a",
    "b",
    "epsilon",
    "design",
    "parameters",
    # A randomized yes/no column: who carried out the design, device or respondent.
    "procedure",
]

TYPE_IDENTIFIER = "identifier"
TYPE_DATE = "date"
TYPE_RANDOMIZED = "randomized_yes_no"
TYPE_CHOICE = "randomized_choice"
TYPE_NUMERIC = "randomized_numeric"
TYPE_GROUPING = "grouping"
# A cheating-detection question (CDM, SLD): a code 2 × (group - 1) + reported bit.
TYPE_CHEATING = "randomized_cheating_detection"
# A yes/no question compared with asking directly: a code, 0/1 randomized, 2/3 as given.
TYPE_COMPARED = "compared_yes_no"
# Questions asked directly: the answer as given (a text answer exported only).
TYPE_DIRECT_YES_NO = "direct_yes_no"
TYPE_DIRECT_CHOICE = "direct_choice"
TYPE_DIRECT_NUMERIC = "direct_numeric"
TYPE_DIRECT_TEXT = "direct_text"
# Where the page showed a question to the respondent: 1 first (the order they saw).
TYPE_POSITION = "position"
DIRECT_COLUMN_TYPES = {
    Question.Kind.YES_NO: TYPE_DIRECT_YES_NO,
    Question.Kind.CHOICE: TYPE_DIRECT_CHOICE,
    Question.Kind.NUMERIC: TYPE_DIRECT_NUMERIC,
    Question.Kind.TEXT: TYPE_DIRECT_TEXT,
}
COLUMN_TYPES = {
    Question.Kind.YES_NO: TYPE_RANDOMIZED,
    Question.Kind.CHOICE: TYPE_CHOICE,
    Question.Kind.NUMERIC: TYPE_NUMERIC,
}


@dataclass(frozen=True)
class RawFileFacts:
    """The raw reports file an export job wrote: its name, data rows and SHA-256 (hex)."""

    name: str
    rows: int
    sha256: str = ""


@dataclass(frozen=True)
class Codebook:
    survey: Survey
    design: ForcedResponse
    questions: list[Question]  # display order: Q1, Q2, ...
    grouping: list[GroupingQuestion]  # display order with options prefetched: G1, G2, ...
    method: str
    confidence: float
    generated_at: datetime

    @property
    def question_columns(self) -> list[str]:
        return [question_column(index) for index in range(len(self.questions))]

    @property
    def comprehension_columns(self) -> list[str]:
        return [comprehension_column(index) for index in range(len(self.comprehension))]

    @property
    def grouping_columns(self) -> list[str]:
        return [grouping_column(index) for index in range(len(self.grouping))]

    @property
    def position_columns(self) -> list[str]:
        return [position_column(index) for index in range(len(self.questions))]

    @property
    def columns(self) -> list[str]:
        """The raw reports file's header."""
        return [
            "submission_id",
            "received_on",
            *self.question_columns,
            *self.comprehension_columns,
            *self.grouping_columns,
            *self.position_columns,
        ]

    ledger: PrivacyLedger | None = None
    # Set for a file written by an export job: rows and checksum, so it can be checked whole.
    raw_file: RawFileFacts | None = None
    # The comprehension check's hidden questions, one per practised design: C1, C2, ...
    comprehension: list[Question] = field(default_factory=list)

    @property
    def total_epsilon(self) -> float:
        # Sequential composition: the sum of every randomized question's own ε (the ledger).
        if self.ledger is not None:
            return self.ledger.total_epsilon
        if not self.questions:
            return 0.0
        # Exact k·ε rounded up: a float product could read below the true total.
        return survey_epsilon(self.design, questions=len(self.questions))

    @property
    def mixed(self) -> bool:
        """Whether some question is not yes/no with the survey's coins."""
        return not all(uses_survey_coins(question) for question in self.questions)


def survey_codebook(*, survey, method=None, confidence=None) -> Codebook:
    """The survey's columns and provenance; ``method``/``confidence`` default to the survey's."""
    questions = list(survey.questions.all())
    return Codebook(
        survey=survey,
        design=survey_design(survey=survey),
        questions=questions,
        grouping=survey_grouping_questions(survey=survey),
        method=survey.ci_method if method is None else method,
        confidence=survey.confidence if confidence is None else confidence,
        generated_at=timezone.now(),
        ledger=privacy_ledger(survey=survey, questions=questions),
        comprehension=comprehension_questions(survey=survey),
    )


def codebook_rows(codebook: Codebook, *, label=str) -> Iterator[list]:
    """The codebook table, header first. ``label`` writes an option label as the data file
    holds it (the CSV's escape), so a cell can be looked up in the codebook as it is."""
    survey, design = codebook.survey, codebook.design
    yield CODEBOOK_HEADER

    blank = [None] * (len(CODEBOOK_HEADER) - 5)

    def fact(name, value):
        return ["survey", name, "", value, "", *blank]

    yield fact("title", survey.title)
    # The survey's id, never its slug: that is the respondent link's secret code, and a file
    # travels further than the link should.
    yield fact("survey_id", survey.pk)
    yield fact("language", survey.language)
    # Only in aggregate: the languages the survey was offered in, never a respondent's.
    yield fact("languages_offered", " ".join(survey_languages(survey=survey)))
    # Mixed: each column row below names its question's design, parameters and ε.
    yield fact("design", "per question" if codebook.mixed else "forced response")
    yield fact("epsilon_per_answer", "per question" if codebook.mixed else design.epsilon)
    yield fact("total_epsilon", codebook.total_epsilon)
    yield fact("ci_method", codebook.method)
    yield fact("confidence", codebook.confidence)
    yield fact("minimum_n", survey.min_n)
    # Which estimate is which in estimates.csv (docs/statistics.md, "What is shown").
    yield fact(
        "estimate_column",
        "the estimate shown, inside ci_low-ci_high: clamped to the range; option rows: the "
        "consistent share (unbiased shares projected onto the simplex, >= 0, summing to 1)",
    )
    yield fact("unbiased_column", "the unbiased estimate, may leave the range: pool these")
    yield fact("software", f"rrsurvey {__version__}")
    yield fact("generated_at", codebook.generated_at.isoformat(timespec="seconds"))
    if survey.is_pilot:
        yield fact("pilot", "test responses only, discarded when the study opens")
    if codebook.raw_file is not None:
        # A file that ends early has fewer rows, and any change alters its SHA-256
        # (`sha256sum`, R's `digest::digest(file = ...)`): the researcher can check it.
        yield fact("raw_file", codebook.raw_file.name)
        yield fact("raw_file_rows", codebook.raw_file.rows)
        if codebook.raw_file.sha256:
            yield fact("raw_file_sha256", codebook.raw_file.sha256)

    def column(name, kind, text, coins=(None,) * 8):
        return ["column", name, kind, "", text, *coins]

    def value(name, cell, meaning):
        return ["value", name, "", cell, meaning, *blank]

    yield column(
        "submission_id",
        TYPE_IDENTIFIER,
        _(
            "Random id drawn by the respondent's browser. Rows are sorted by it, so their "
            "order says nothing about when anyone answered."
        ),
    )
    yield column(
        "received_on", TYPE_DATE, _("Day the response arrived (YYYY-MM-DD, no time of day).")
    )
    skipped = _("Skipped: not answered.")
    for name, question in zip(codebook.question_columns, codebook.questions, strict=True):
        if not question.randomized:
            yield column(
                name,
                DIRECT_COLUMN_TYPES[question.kind],
                question.text,
                _provenance(codebook, question),
            )
            yield from _direct_values(name, question, value=value, label=label)
            yield value(name, "", skipped)
            continue
        if is_cheating_detection(question):
            yield column(name, TYPE_CHEATING, question.text, _provenance(codebook, question))
            yield from _cheating_values(name, value=value)
            yield value(name, "", skipped)
            continue
        yield column(
            name,
            TYPE_COMPARED if question.compare_direct else COLUMN_TYPES[question.kind],
            question.text,
            _provenance(codebook, question),
        )
        if question.compare_direct:
            yield from _compared_values(name, value=value)
        elif question.kind == Question.Kind.CHOICE:
            for index, option in enumerate(question.options):
                yield value(
                    name,
                    index,
                    _("Reported “%(option)s” (after randomization: not necessarily the truth).")
                    % {"option": label(option)},
                )
        elif question.kind == Question.Kind.NUMERIC:
            yield value(
                name,
                "integer",
                _(
                    "A reported number: the answer clamped to %(min)s–%(max)s plus random noise "
                    "(it may fall outside the range; not the truth)."
                )
                % {"min": question.min_value, "max": question.max_value},
            )
        elif by_respondent(question):
            yield value(
                name,
                1,
                _("Pressed yes, as the coin's instruction said (not necessarily the truth)."),
            )
            yield value(
                name,
                0,
                _("Pressed no, as the coin's instruction said (not necessarily the truth)."),
            )
        else:
            yield value(name, 1, _("Reported yes (after the coins: not necessarily the truth)."))
            yield value(name, 0, _("Reported no (after the coins: not necessarily the truth)."))
        yield value(name, "", skipped)
    for name, question in zip(codebook.comprehension_columns, codebook.comprehension, strict=True):
        yield column(
            name,
            TYPE_DIRECT_YES_NO,
            _("Comprehension check: the first try at the practice round of %(design)s was right.")
            % {"design": practised_design_text(question, survey=survey)},
            (*(None,) * 7, question.procedure),
        )
        yield value(name, 1, _("Right at the first try (sent as given, not randomized)."))
        yield value(name, 0, _("Not right at the first try (sent as given, not randomized)."))
        yield value(name, "", _("Not tried: nothing was sent."))
    for name, grouping in zip(codebook.grouping_columns, codebook.grouping, strict=True):
        yield column(name, TYPE_GROUPING, grouping.text)
        for option in grouping.options.all():
            yield value(name, label(option.label), _("Chosen as given (not randomized)."))
        yield value(
            name,
            PREFER_NOT_TO_SAY,
            _("Answered “Prefer not to say” (offered with every grouping question)."),
        )
        yield value(name, "", skipped)
    for name, column_name in zip(codebook.position_columns, codebook.question_columns, strict=True):
        yield column(
            name,
            TYPE_POSITION,
            _("Where the page showed %(column)s to this respondent (1: first).")
            % {"column": column_name},
        )
        yield value(
            name,
            "integer",
            _(
                "The question's place in the order this respondent saw, from 1 (the survey's "
                "order, or the browser's own when it shuffles the questions)."
            ),
        )
        yield value(name, "", _("Not recorded: the submission carried no order."))


def _cheating_values(name, *, value):
    """The codes of a cheating-detection column: 2 × (group - 1) + the reported bit."""
    for group in (1, 2):
        for bit, reported in ((0, _("no")), (1, _("yes"))):
            yield value(
                name,
                2 * (group - 1) + bit,
                _(
                    "Group %(group)s, reported %(answer)s (code = 2 × (group − 1) + report; "
                    "after randomization: not necessarily the truth)."
                )
                % {"group": group, "answer": reported},
            )


def _compared_values(name, *, value):
    """A compared question's codes (selectors.mechanisms.COMPARE_CODES): the arm it was asked
    in, and the report or answer."""
    coins = _("after the coins: not necessarily the truth")
    as_given = _("control group: asked directly, as given, not randomized")
    yield value(name, 0, _("Reported no (%(how)s).") % {"how": coins})
    yield value(name, 1, _("Reported yes (%(how)s).") % {"how": coins})
    yield value(name, 2, _("Answered no (%(how)s).") % {"how": as_given})
    yield value(name, 3, _("Answered yes (%(how)s).") % {"how": as_given})


def _direct_values(name, question, *, value, label):
    """The value rows of a direct question's column: its answers as given."""
    as_given = _("as given, not randomized")
    if question.kind == Question.Kind.CHOICE:
        for index, option in enumerate(question.options):
            yield value(
                name,
                index,
                _("Answered “%(option)s” (%(as_given)s).")
                % {"option": label(option), "as_given": as_given},
            )
    elif question.kind == Question.Kind.NUMERIC:
        yield value(
            name,
            "integer",
            _("The number answered, from %(min)s to %(max)s (%(as_given)s).")
            % {"min": question.min_value, "max": question.max_value, "as_given": as_given},
        )
    elif question.kind == Question.Kind.TEXT:
        yield value(
            name,
            "text",
            _("The text answered (%(as_given)s; in the downloads only, never on a results page).")
            % {"as_given": as_given},
        )
    else:
        yield value(name, 1, _("Answered yes (%(as_given)s).") % {"as_given": as_given})
        yield value(name, 0, _("Answered no (%(as_given)s).") % {"as_given": as_given})


def _provenance(codebook, question) -> tuple:
    """p_truth, p_forced_yes, a, b, ε, design, parameters and procedure of one question's
    column (a direct question: no coins, no ε, design ``direct``, no procedure)."""
    mechanism = question_mechanism(question, survey=codebook.survey)
    if mechanism is None:
        return (None, None, None, None, None, design_name(question), "", None)
    procedure = question.procedure if question.kind == Question.Kind.YES_NO else None
    if is_cheating_detection(question):
        # No finite ε (an honest "no" is conclusive): blank, with the one-sided bound of a
        # "yes" among the parameters; a and b differ by group, so they are in p1 and p2.
        parameters = parameters_text(
            {
                "p": mechanism.p,
                GROUP_SHARE: mechanism.share,
                "epsilon_yes": mechanism.epsilon_yes,
            }
        )
        return (None, None, None, None, None, design_name(question), parameters, procedure)
    parameters = parameters_text(mechanism.parameters)
    if question.kind != Question.Kind.YES_NO:
        return (None, None, None, None, mechanism.epsilon, design_name(question), parameters, None)
    coins = uses_survey_coins(question)
    return (
        mechanism.p_truth if coins else None,
        mechanism.p_forced_yes if coins else None,
        mechanism.p_yes_given_yes,
        mechanism.p_yes_given_no,
        mechanism.epsilon,
        design_name(question),
        parameters,
        procedure,
    )
