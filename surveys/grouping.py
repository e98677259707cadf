"""Writes for grouping questions: plain multiple-choice questions answered as given.

A grouping question (age band, department, ...) lets the results be broken down by group.
Its answers are NOT randomized: the coins protect only the yes/no questions, and the privacy
accounting (epsilon) covers only those. Like the yes/no questions, grouping questions are
frozen once the survey has responses (the stored answers would change meaning otherwise).
Validation and recording of submitted grouping answers live with the submission in
``services.submission_record``.
"""

import uuid
from collections.abc import Iterable

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F, Max
from django.utils import timezone
from django.utils.translation import gettext as _

from .models import (
    GroupAnswer,
    GroupingOption,
    GroupingQuestion,
    Question,
    Report,
    Submission,
    Survey,
)
from .services import _clean_text, _ensure_not_frozen, group_tallies_rebuild

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
def grouping_question_add(*, survey, text, options) -> GroupingQuestion:
    survey = Survey.objects.select_for_update().get(pk=survey.pk)
    _ensure_not_frozen(survey)
    text = _clean_text("text", text, max_length=1000)
    labels = _clean_options(options)
    if survey.grouping_questions.count() >= MAX_GROUPING_QUESTIONS:
        raise ValidationError(
            {"text": [_("At most %(max)d grouping questions.") % {"max": MAX_GROUPING_QUESTIONS}]}
        )
    last = survey.grouping_questions.aggregate(last=Max("position"))["last"]
    grouping_question = GroupingQuestion.objects.create(
        survey=survey, position=0 if last is None else last + 1, text=text
    )
    _create_options(grouping_question, labels)
    return grouping_question


@transaction.atomic
def grouping_question_update(*, grouping_question, text, options) -> GroupingQuestion:
    """Replace the text and the options (new option ids; allowed only without responses)."""
    _ensure_not_frozen(Survey.objects.select_for_update().get(pk=grouping_question.survey_id))
    grouping_question.text = _clean_text("text", text, max_length=1000)
    labels = _clean_options(options)
    grouping_question.save(update_fields=["text"])
    grouping_question.options.all().delete()
    _create_options(grouping_question, labels)
    return grouping_question


@transaction.atomic
def grouping_question_delete(*, grouping_question) -> None:
    _ensure_not_frozen(Survey.objects.select_for_update().get(pk=grouping_question.survey_id))
    grouping_question.delete()


@transaction.atomic
def simulated_grouped_submissions_record(*, survey, reports, options, received_on=None) -> int:
    """Bulk-store simulated submissions: randomized reports plus one option per grouping question.

    ``reports`` is an n × questions boolean array (already through the coins, e.g. from
    dpengine's ``simulate_reports``); ``options`` is an n × grouping-questions array of option
    ids. For demos, tests and benchmarks; the tallies are recounted once at the end.
    """
    questions = list(survey.questions.all())
    grouping = list(survey.grouping_questions.prefetch_related("options"))
    if reports.ndim != 2 or reports.shape[1] != len(questions):
        raise ValidationError(
            {"reports": [f"Expected an n × {len(questions)} array, got shape {reports.shape}."]}
        )
    if len(options) != reports.shape[0] or any(len(row) != len(grouping) for row in options):
        raise ValidationError(
            {"options": [f"Expected {reports.shape[0]} rows of {len(grouping)} option ids."]}
        )
    valid = [{option.pk for option in gq.options.all()} for gq in grouping]
    for row in options:
        for allowed, option_id in zip(valid, row, strict=True):
            if option_id not in allowed:
                raise ValidationError({"options": [f"{option_id!r} is not an option here."]})
    received_on = received_on or timezone.now().date()
    submissions = Submission.objects.bulk_create(
        Submission(survey=survey, submission_id=uuid.uuid4(), received_on=received_on)
        for _row in reports
    )
    Report.objects.bulk_create(
        Report(submission=submission, question=question, reported_yes=bool(bit))
        for submission, row in zip(submissions, reports, strict=True)
        for question, bit in zip(questions, row, strict=True)
    )
    GroupAnswer.objects.bulk_create(
        GroupAnswer(submission=submission, grouping_question=gq, option_id=int(option_id))
        for submission, row in zip(submissions, options, strict=True)
        for gq, option_id in zip(grouping, row, strict=True)
    )
    total = len(submissions)
    yes_totals = reports.sum(axis=0)
    for question, yes in zip(questions, yes_totals, strict=True):
        Question.objects.filter(pk=question.pk).update(
            report_count=F("report_count") + total, yes_count=F("yes_count") + int(yes)
        )
    Survey.objects.filter(pk=survey.pk).update(response_count=F("response_count") + total)
    group_tallies_rebuild(survey=survey)
    return total
