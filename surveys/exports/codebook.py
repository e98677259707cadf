"""What every export's columns mean: names as the interface shows them, and the codebook.

The raw reports file has the columns ``submission_id``, ``received_on``, ``Q1``…``Qn`` (the
yes/no questions in display order) and ``G1``…``Gm`` (the grouping questions in display
order, holding the chosen option's label). The codebook describes each of them and carries
the provenance that used to sit in ``#`` lines at the top of the estimates file.

The codebook is one rectangular table (docs/researchers.md, "Exports and the codebook"), one
row per fact,
filterable by its first column:

- ``section = survey``: ``name`` is a fact about the file (title, design, ε, interval method
  and level, software, generated-at), ``value`` its value;
- ``section = column``: ``name`` is a column of the raw file, ``type`` what it holds, ``text``
  the question (or a description); a randomized question also has its coins, ``a``, ``b`` and ε;
- ``section = value``: ``name`` is a column, ``value`` a value its cells can hold (exactly as
  written in the raw file) and ``text`` what it means. A blank cell means "not answered".

Texts are the survey's own (its default language); descriptions follow the request's language;
everything in ``section``, ``name`` and ``type`` is a fixed code other programs can rely on.
"""

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone
from django.utils.translation import gettext as _

from dpengine import ForcedResponse

from .. import __version__
from ..languages import survey_languages
from ..models import GroupingQuestion, Question, Survey
from ..selectors import survey_design, survey_grouping_questions
from .columns import grouping_column, question_column

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
]

TYPE_IDENTIFIER = "identifier"
TYPE_DATE = "date"
TYPE_RANDOMIZED = "randomized_yes_no"
TYPE_GROUPING = "grouping"


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
    def grouping_columns(self) -> list[str]:
        return [grouping_column(index) for index in range(len(self.grouping))]

    @property
    def columns(self) -> list[str]:
        """The raw reports file's header."""
        return ["submission_id", "received_on", *self.question_columns, *self.grouping_columns]

    @property
    def total_epsilon(self) -> float:
        # Basic sequential composition over the randomized questions a respondent answers.
        return self.design.epsilon * len(self.questions)


def survey_codebook(*, survey, method=None, confidence=None) -> Codebook:
    """The survey's columns and provenance; ``method``/``confidence`` default to the survey's."""
    return Codebook(
        survey=survey,
        design=survey_design(survey=survey),
        questions=list(survey.questions.all()),
        grouping=survey_grouping_questions(survey=survey),
        method=survey.ci_method if method is None else method,
        confidence=survey.confidence if confidence is None else confidence,
        generated_at=timezone.now(),
    )


def codebook_rows(codebook: Codebook, *, label=str) -> Iterator[list]:
    """The codebook table, header first. ``label`` writes an option label as the data file
    holds it (the CSV's escape), so a cell can be looked up in the codebook as it is."""
    survey, design = codebook.survey, codebook.design
    yield CODEBOOK_HEADER

    def fact(name, value):
        return ["survey", name, "", value, "", None, None, None, None, None]

    yield fact("title", survey.title)
    yield fact("slug", survey.slug)
    yield fact("language", survey.language)
    # Only in aggregate: the languages the survey was offered in, never a respondent's.
    yield fact("languages_offered", " ".join(survey_languages(survey=survey)))
    yield fact("design", "forced response")
    yield fact("epsilon_per_answer", design.epsilon)
    yield fact("total_epsilon", codebook.total_epsilon)
    yield fact("ci_method", codebook.method)
    yield fact("confidence", codebook.confidence)
    yield fact("minimum_n", survey.min_n)
    yield fact("software", f"rrsurvey {__version__}")
    yield fact("generated_at", codebook.generated_at.isoformat(timespec="seconds"))
    if survey.is_pilot:
        yield fact("pilot", "test responses only, discarded when the study opens")

    def column(name, kind, text, coins=(None,) * 5):
        return ["column", name, kind, "", text, *coins]

    def value(name, cell, meaning):
        return ["value", name, "", cell, meaning, None, None, None, None, None]

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
    coins = (
        design.p_truth,
        design.p_forced_yes,
        design.p_yes_given_yes,
        design.p_yes_given_no,
        design.epsilon,
    )
    not_answered = _("Not answered.")
    for name, question in zip(codebook.question_columns, codebook.questions, strict=True):
        yield column(name, TYPE_RANDOMIZED, question.text, coins)
        yield value(name, 1, _("Reported yes (after the coins: not necessarily the truth)."))
        yield value(name, 0, _("Reported no (after the coins: not necessarily the truth)."))
        yield value(name, "", not_answered)
    for name, grouping in zip(codebook.grouping_columns, codebook.grouping, strict=True):
        yield column(name, TYPE_GROUPING, grouping.text)
        for option in grouping.options.all():
            yield value(name, label(option.label), _("Chosen as given (not randomized)."))
        yield value(name, "", not_answered)
