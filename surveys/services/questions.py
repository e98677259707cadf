"""Writes for a survey's yes/no questions: add, edit, delete, reorder.

All of them are refused once the design is frozen (``validation.lock_for_design_change``), and each
renames a pilot's design (``pilot.pilot_design_refresh``) so pages drawn for the old questions
are told to reload.
"""

from collections.abc import Iterable, Mapping

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max
from django.utils.translation import gettext as _

from .. import limits
from ..models import Question
from .pilot import pilot_design_refresh
from .validation import clean_required, clean_text, ensure_owner_room, lock_for_design_change

MAX_QUESTIONS = limits.MAX_QUESTIONS


def _clean_question_text(text, *, field):
    return clean_text(field, text, max_length=limits.QUESTION_TEXT_MAX_LENGTH)


def _ensure_list(value, *, field):
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        raise ValidationError({field: [_("Must be a list of questions.")]})
    return list(value)


def clean_question_specs(items):
    """``[(text, required), ...]`` from question texts, or ``{"text", "required"}`` mappings
    (``required`` defaults to true, so a client that only sends texts keeps every question
    required)."""
    items = _ensure_list(items, field="questions")
    if len(items) > MAX_QUESTIONS:
        raise ValidationError(
            {"questions": [_("At most %(max)d questions.") % {"max": MAX_QUESTIONS}]}
        )
    texts = [
        _clean_question_text(
            item.get("text") if isinstance(item, Mapping) else item, field="questions"
        )
        for item in items
    ]
    return [
        (
            text,
            clean_required(item.get("required", True), field="questions")
            if isinstance(item, Mapping)
            else True,
        )
        for text, item in zip(texts, items, strict=True)
    ]


def next_position(siblings) -> int:
    """The position after the last of ``siblings`` (a survey's questions or grouping
    questions), 0 for the first."""
    last = siblings.aggregate(last=Max("position"))["last"]
    return 0 if last is None else last + 1


def questions_create(*, survey, specs, first=0) -> list[Question]:
    """Store ``specs`` (``[(text, required), ...]``, already cleaned) from position ``first``."""
    return Question.objects.bulk_create(
        [
            Question(survey=survey, position=first + offset, text=text, required=required)
            for offset, (text, required) in enumerate(specs)
        ]
    )


@transaction.atomic
def question_add(*, survey, text, required=True) -> Question:
    survey = lock_for_design_change(survey.pk)
    text = _clean_question_text(text, field="text")
    required = clean_required(required)
    if survey.questions.count() >= MAX_QUESTIONS:
        raise ValidationError({"text": [_("At most %(max)d questions.") % {"max": MAX_QUESTIONS}]})
    ensure_owner_room(owner=survey.owner, field="text", questions=1)
    question = Question.objects.create(
        survey=survey, position=next_position(survey.questions), text=text, required=required
    )
    pilot_design_refresh(survey_id=survey.pk)
    return question


def _clean_lines(texts):
    cleaned = []
    for line, text in enumerate(_ensure_list(texts, field="text"), start=1):
        try:
            cleaned.append(_clean_question_text(text, field="text"))
        except ValidationError as exc:
            message = exc.message_dict["text"][0]
            raise ValidationError(
                {"text": [_("Line %(line)d: %(error)s") % {"line": line, "error": message}]}
            ) from exc
    if not cleaned:
        raise ValidationError({"text": [_("This field may not be blank.")]})
    return cleaned


@transaction.atomic
def questions_add(*, survey, texts, required=True) -> list[Question]:
    """Append several questions (the builder's add box, one per line): all or none.

    Each text is checked as :func:`question_add` checks one; the survey's and the account's
    question limits count them all before anything is stored."""
    survey = lock_for_design_change(survey.pk)
    required = clean_required(required)
    cleaned = _clean_lines(texts)
    existing = survey.questions.count()
    if existing + len(cleaned) > MAX_QUESTIONS:
        raise ValidationError(
            {
                "text": [
                    _("At most %(max)d questions in a survey; this would make %(n)d.")
                    % {"max": MAX_QUESTIONS, "n": existing + len(cleaned)}
                ]
            }
        )
    ensure_owner_room(owner=survey.owner, field="text", questions=len(cleaned))
    added = questions_create(
        survey=survey,
        specs=[(text, required) for text in cleaned],
        first=next_position(survey.questions),
    )
    pilot_design_refresh(survey_id=survey.pk)
    return added


@transaction.atomic
def question_update(*, question, text, required=None) -> Question:
    """Change the text, and ``required`` unless it is None."""
    lock_for_design_change(question.survey_id)
    question.text = _clean_question_text(text, field="text")
    if required is not None:
        question.required = clean_required(required)
    question.save(update_fields=["text", "required"])
    pilot_design_refresh(survey_id=question.survey_id)
    return question


def design_row_delete(row) -> None:
    """Delete a question or grouping question (``row``), inside the caller's transaction."""
    lock_for_design_change(row.survey_id)
    row.delete()
    pilot_design_refresh(survey_id=row.survey_id)


@transaction.atomic
def question_delete(*, question) -> None:
    design_row_delete(question)


@transaction.atomic
def question_move(*, question, offset: int) -> None:
    """Move a question ``offset`` places up (negative) or down, renumbering positions 0..n-1."""
    survey = lock_for_design_change(question.survey_id)
    ordered = list(survey.questions.all())
    index = next(i for i, q in enumerate(ordered) if q.pk == question.pk)
    target = max(0, min(len(ordered) - 1, index + offset))
    ordered.insert(target, ordered.pop(index))
    for position, item in enumerate(ordered):
        item.position = position
    Question.objects.bulk_update(ordered, ["position"])
    pilot_design_refresh(survey_id=survey.pk)
