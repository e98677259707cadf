"""Writes for a survey's randomized questions (yes/no, multiple choice, numeric): add, edit,
delete, reorder. A question's type and parameters are checked by ``question_types``.

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
from .question_types import TYPE_FIELDS, clean_question_type
from .validation import clean_required, clean_text, ensure_owner_room, lock_for_design_change

MAX_QUESTIONS = limits.MAX_QUESTIONS


def _clean_question_text(text, *, field):
    return clean_text(field, text, max_length=limits.QUESTION_TEXT_MAX_LENGTH)


def _ensure_list(value, *, field):
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        raise ValidationError({field: [_("Must be a list of questions.")]})
    return list(value)


def clean_question_specs(items):
    """``[(text, required, type fields), ...]`` from question texts, or mappings
    ``{"text", "required", "type", ...}`` (``required`` defaults to true and ``type`` to
    yes/no with the survey's coins, so a client that only sends texts keeps what it had);
    errors name ``questions.<index>.<field>`` for a type's parameters."""
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
    specs = [
        (
            text,
            clean_required(item.get("required", True), field="questions")
            if isinstance(item, Mapping)
            else True,
            clean_question_type(item, prefix=f"questions.{index}."),
        )
        for index, (text, item) in enumerate(zip(texts, items, strict=True))
    ]
    ensure_text_room(
        existing=0, adding=_text_count(fields for _t, _r, fields in specs), field="questions"
    )
    return specs


def ensure_text_room(*, existing, adding, field):
    """Refuse more than ``limits.MAX_TEXT_QUESTIONS`` text questions in a survey: a skipped
    one leaves its whole fixed length to the body's padding (selectors.submission_length)."""
    if adding and existing + adding > limits.MAX_TEXT_QUESTIONS:
        raise ValidationError(
            {
                field: [
                    _("At most %(max)d text questions in a survey.")
                    % {"max": limits.MAX_TEXT_QUESTIONS}
                ]
            }
        )


def _text_count(fields_list):
    return sum(fields["kind"] == Question.Kind.TEXT for fields in fields_list)


def next_position(siblings) -> int:
    """The position after the last of ``siblings`` (a survey's questions or grouping
    questions), 0 for the first."""
    last = siblings.aggregate(last=Max("position"))["last"]
    return 0 if last is None else last + 1


def questions_create(*, survey, specs, first=0) -> list[Question]:
    """Store ``specs`` (``[(text, required, type fields), ...]``, already cleaned) from
    position ``first``."""
    return Question.objects.bulk_create(
        [
            Question(survey=survey, position=first + offset, text=text, required=required, **fields)
            for offset, (text, required, fields) in enumerate(specs)
        ]
    )


@transaction.atomic
def question_add(*, survey, text, required=True, question_type=None) -> Question:
    """Append one question; ``question_type`` is its type spec (``question_types``), yes/no
    with the survey's coins when None."""
    survey = lock_for_design_change(survey.pk)
    text = _clean_question_text(text, field="text")
    required = clean_required(required)
    fields = clean_question_type(question_type or {})
    ensure_text_room(
        existing=survey.questions.filter(kind=Question.Kind.TEXT).count(),
        adding=_text_count([fields]),
        field="type",
    )
    if survey.questions.count() >= MAX_QUESTIONS:
        raise ValidationError({"text": [_("At most %(max)d questions.") % {"max": MAX_QUESTIONS}]})
    ensure_owner_room(owner=survey.owner, field="text", questions=1)
    question = Question.objects.create(
        survey=survey,
        position=next_position(survey.questions),
        text=text,
        required=required,
        **fields,
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
def questions_add(*, survey, texts, required=True, question_type=None) -> list[Question]:
    """Append several questions (the builder's add box, one per line): all or none, each of
    type ``question_type`` (a spec, as :func:`question_add` takes).

    Each text is checked as :func:`question_add` checks one; the survey's and the account's
    question limits count them all before anything is stored."""
    survey = lock_for_design_change(survey.pk)
    required = clean_required(required)
    fields = clean_question_type(question_type or {})
    cleaned = _clean_lines(texts)
    ensure_text_room(
        existing=survey.questions.filter(kind=Question.Kind.TEXT).count(),
        adding=_text_count([fields]) * len(cleaned),
        field="type",
    )
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
        specs=[(text, required, fields) for text in cleaned],
        first=next_position(survey.questions),
    )
    pilot_design_refresh(survey_id=survey.pk)
    return added


@transaction.atomic
def question_update(*, question, text, required=None, question_type=None) -> Question:
    """Change the text, ``required`` unless it is None, and the type (a spec, as
    :func:`question_add` takes) unless it is None. A new type keeps no stale parameter: a
    choice question made numeric loses its options and their translations."""
    lock_for_design_change(question.survey_id)
    question.text = _clean_question_text(text, field="text")
    update_fields = ["text", "required"]
    if required is not None:
        question.required = clean_required(required)
    if question_type is not None:
        fields = clean_question_type(question_type)
        ensure_text_room(
            existing=Question.objects.filter(survey_id=question.survey_id, kind=Question.Kind.TEXT)
            .exclude(pk=question.pk)
            .count(),
            adding=_text_count([fields]),
            field="type",
        )
        if fields["options"] != question.options:
            for language_texts in question.translations.values():
                language_texts.pop("options", None)
            update_fields.append("translations")
        for name in TYPE_FIELDS:
            setattr(question, name, fields[name])
        update_fields.extend(TYPE_FIELDS)
    question.save(update_fields=update_fields)
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
