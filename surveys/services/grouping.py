"""Writes for grouping questions: plain multiple-choice questions answered as given.

A grouping question (age band, department, ...) lets the results be broken down by group.
Its answers are NOT randomized: the coins protect only the yes/no questions, and the privacy
accounting (epsilon) covers only those. Like the yes/no questions, grouping questions are
frozen once the survey has responses (the stored answers would change meaning otherwise).
Validation and recording of submitted grouping answers live with the submission in
``services.submission_record``.
"""

from collections.abc import Iterable

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max
from django.utils.translation import gettext as _

from .models import (
    GroupingOption,
    GroupingQuestion,
    Survey,
)
from .pilot import pilot_design_refresh
from .services import _clean_text, _ensure_not_frozen, clean_required

MAX_GROUPING_QUESTIONS = 10
MIN_OPTIONS = 2
MAX_OPTIONS = 12
OPTION_MAX_LENGTH = 200


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


def _create_options(grouping_question, labels):
    GroupingOption.objects.bulk_create(
        GroupingOption(grouping_question=grouping_question, position=index, label=label)
        for index, label in enumerate(labels)
    )


@transaction.atomic
def grouping_question_add(*, survey, text, options, required=False) -> GroupingQuestion:
    survey = Survey.objects.select_for_update().get(pk=survey.pk)
    _ensure_not_frozen(survey)
    text = _clean_text("text", text, max_length=1000)
    labels = _clean_options(options)
    required = clean_required(required)
    if survey.grouping_questions.count() >= MAX_GROUPING_QUESTIONS:
        raise ValidationError(
            {"text": [_("At most %(max)d grouping questions.") % {"max": MAX_GROUPING_QUESTIONS}]}
        )
    last = survey.grouping_questions.aggregate(last=Max("position"))["last"]
    grouping_question = GroupingQuestion.objects.create(
        survey=survey, position=0 if last is None else last + 1, text=text, required=required
    )
    _create_options(grouping_question, labels)
    pilot_design_refresh(survey_id=grouping_question.survey_id)
    return grouping_question


@transaction.atomic
def grouping_question_update(
    *, grouping_question, text, options, required=None
) -> GroupingQuestion:
    """Replace the text and the options (new option ids; allowed only without responses), and
    ``required`` unless it is None."""
    _ensure_not_frozen(Survey.objects.select_for_update().get(pk=grouping_question.survey_id))
    grouping_question.text = _clean_text("text", text, max_length=1000)
    labels = _clean_options(options)
    if required is not None:
        grouping_question.required = clean_required(required)
    grouping_question.save(update_fields=["text", "required"])
    grouping_question.options.all().delete()
    _create_options(grouping_question, labels)
    pilot_design_refresh(survey_id=grouping_question.survey_id)
    return grouping_question


@transaction.atomic
def grouping_question_delete(*, grouping_question) -> None:
    _ensure_not_frozen(Survey.objects.select_for_update().get(pk=grouping_question.survey_id))
    grouping_question.delete()
    pilot_design_refresh(survey_id=grouping_question.survey_id)
