"""Writes for grouping questions: plain multiple-choice questions answered as given.

A grouping question (age band, department, ...) lets the results be broken down by group.
Its answers are NOT randomized: only the randomized questions (yes/no, multiple choice,
numeric) are protected, and the privacy accounting (epsilon) covers only those. Like them,
grouping questions are
frozen once the survey has responses (the stored answers would change meaning otherwise).
Validation and recording of submitted grouping answers live with the submission
(``services.submissions``, ``services.tallies``).
"""

from collections.abc import Iterable
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from .. import limits
from ..languages import survey_languages, survey_with_texts
from ..models import GroupingOption, GroupingQuestion
from .pilot import pilot_design_refresh
from .questions import design_row_delete, next_position
from .validation import (
    clean_required,
    clean_text,
    lock_for_design_change,
    refuse_built_in_option,
)

MAX_GROUPING_QUESTIONS = limits.MAX_GROUPING_QUESTIONS
MIN_OPTIONS = 2
MAX_OPTIONS = limits.MAX_OPTIONS
OPTION_MAX_LENGTH = limits.OPTION_LABEL_MAX_LENGTH


def _clean_options(options) -> list[str]:
    if isinstance(options, str | bytes) or not isinstance(options, Iterable):
        raise ValidationError({"options": [_("Must be a list of option labels.")]})
    labels = []
    for option in options:
        if not isinstance(option, str):
            raise ValidationError({"options": [_("Every option must be text.")]})
        label = option.strip()
        if not label:
            continue
        if len(label) > OPTION_MAX_LENGTH:
            raise ValidationError(
                {
                    "options": [
                        _("An option may have at most %(max)d characters; “%(label)s…” has %(n)d.")
                        % {"max": OPTION_MAX_LENGTH, "label": label[:40], "n": len(label)}
                    ]
                }
            )
        refuse_built_in_option(label, field="options")
        labels.append(label)
    if len(labels) < MIN_OPTIONS:
        raise ValidationError(
            {"options": [_("Give at least %(min)d options.") % {"min": MIN_OPTIONS}]}
        )
    if len(labels) > MAX_OPTIONS:
        raise ValidationError(
            {
                "options": [
                    _("At most %(max)d options, got %(n)d.")
                    % {"max": MAX_OPTIONS, "n": len(labels)}
                ]
            }
        )
    seen = set()
    for label in labels:
        if label.casefold() in seen:
            raise ValidationError(
                {"options": [_("The option “%(label)s” appears twice.") % {"label": label}]}
            )
        seen.add(label.casefold())
    return labels


def _create_options(grouping_question, labels, *, translations=None):
    """The options in order; ``translations`` maps a folded label to the translations an
    option of that text had before an edit, so it keeps them."""
    translations = translations or {}
    GroupingOption.objects.bulk_create(
        GroupingOption(
            grouping_question=grouping_question,
            position=index,
            label=label,
            translations=translations.get(label.casefold(), {}),
        )
        for index, label in enumerate(labels)
    )


@dataclass(frozen=True)
class GroupingQuestionSaved:
    """An edited grouping question, and the languages the edit stopped offering (an option
    that is new or renamed has no translation yet, and a language is offered only when every
    text is translated)."""

    grouping_question: GroupingQuestion
    languages_dropped: list[str]


def _clean_grouping_text(text):
    return clean_text("text", text, max_length=limits.QUESTION_TEXT_MAX_LENGTH)


@transaction.atomic
def grouping_question_add(*, survey, text, options, required=False) -> GroupingQuestion:
    survey = lock_for_design_change(survey.pk)
    text = _clean_grouping_text(text)
    labels = _clean_options(options)
    required = clean_required(required)
    if survey.grouping_questions.count() >= MAX_GROUPING_QUESTIONS:
        raise ValidationError(
            {"text": [_("At most %(max)d grouping questions.") % {"max": MAX_GROUPING_QUESTIONS}]}
        )
    grouping_question = GroupingQuestion.objects.create(
        survey=survey,
        position=next_position(survey.grouping_questions),
        text=text,
        required=required,
    )
    _create_options(grouping_question, labels)
    pilot_design_refresh(survey_id=grouping_question.survey_id)
    return grouping_question


@transaction.atomic
def grouping_question_update(
    *, grouping_question, text, options, required=None
) -> GroupingQuestionSaved:
    """Replace the text and the options (new option ids; allowed only without responses), and
    ``required`` unless it is None. An option whose text is unchanged (case aside) keeps its
    translations; the result names the languages the edit stopped offering."""
    survey = lock_for_design_change(grouping_question.survey_id)
    offered_before = survey_languages(survey=survey)
    grouping_question.text = _clean_grouping_text(text)
    labels = _clean_options(options)
    if required is not None:
        grouping_question.required = clean_required(required)
    grouping_question.save(update_fields=["text", "required"])
    kept = {
        option.label.casefold(): option.translations
        for option in grouping_question.options.all()
        if option.translations
    }
    grouping_question.options.all().delete()
    _create_options(grouping_question, labels, translations=kept)
    pilot_design_refresh(survey_id=grouping_question.survey_id)
    offered_after = survey_languages(survey=survey_with_texts(survey=survey))
    return GroupingQuestionSaved(
        grouping_question=grouping_question,
        languages_dropped=[code for code in offered_before if code not in offered_after],
    )


@transaction.atomic
def grouping_question_delete(*, grouping_question) -> None:
    design_row_delete(grouping_question)
