"""Writes for a survey's translations (the check a change of its own language must pass is
``language_change.ensure_default_language_change``, which the survey writes call).

The reads, and the meaning of the stored JSON: surveys/selectors/languages.py.

What freezes, and why: question texts and option labels, in every language, are part of the
design that freezes at the first opening and that ``design_fingerprint`` names (respondents may
already hold the page, in any language; a changed translation is a changed question). Adding
one after opening would change the fingerprint, so pages already open would be refused and
browsers' memoised coin draws would no longer apply (a retake could draw fresh coins), or it
would not, and the fingerprint would no longer name what respondents read. So they are
refused after opening, like the questions; duplicate the survey, which copies them. The title
and intro, like the default language's, stay editable.
"""

from collections.abc import Mapping

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from ..models import Question, Survey
from ..selectors.languages import (
    LANGUAGE_CODES,
    TEXT_MAX_LENGTHS,
    other_languages,
    survey_texts,
    survey_with_texts,
)
from .pilot import pilot_design_refresh
from .surveys import survey_create, survey_update
from .validation import ensure_not_frozen, refuse_built_in_option

SURVEY_FIELDS = ("title", "intro", "consent_text")
QUESTION_FIELDS = ("text", "options")  # options: a multiple-choice question's labels


def _refused(field, at, message):
    """The error naming the request's ``field``, saying where inside it (``at``)."""
    return ValidationError({field: [f"{at}{message}"]})


def _clean_text(field, value, *, max_length, where=""):
    if not isinstance(value, str):
        raise _refused(field, where, _("Must be text, got %(v)r.") % {"v": value})
    if "\x00" in value or any("\ud800" <= char <= "\udfff" for char in value):
        # Neither can be stored (PostgreSQL refuses NUL in text and JSON) nor shown.
        raise _refused(field, where, _("Null characters and lone surrogates are not allowed."))
    value = value.strip()
    if len(value) > max_length:
        message = _("At most %(max)d characters, got %(n)d.") % {"max": max_length, "n": len(value)}
        raise _refused(field, where, message)
    return value


def _check_language(language, *, default_language, field, where):
    if language not in LANGUAGE_CODES:
        message = _("%(code)r is not a language of this site (%(codes)s).") % {
            "code": str(language)[:32],
            "codes": ", ".join(LANGUAGE_CODES),
        }
        raise _refused(field, where, message)
    if language == default_language:
        message = _(
            "%(code)r is the survey's own language: its texts are the survey's, not a translation."
        ) % {"code": language}
        raise _refused(field, where, message)


def _clean_option_labels(labels, *, option_count, field, where) -> list[str]:
    """A multiple-choice question's labels in one language: as many as its options, each
    cleaned like a text; a blank label is untranslated ("")."""
    if not option_count:
        raise _refused(field, where, _("Only a multiple-choice question has options."))
    if isinstance(labels, str | bytes) or not isinstance(labels, list | tuple):
        raise _refused(field, where, _("Must be a list of option labels."))
    if len(labels) != option_count:
        message = _("Must have one label per option: %(k)d, got %(n)d.") % {
            "k": option_count,
            "n": len(labels),
        }
        raise _refused(field, where, message)
    return [
        _clean_text(field, label, max_length=TEXT_MAX_LENGTHS["options"], where=f"{where}{index}: ")
        for index, label in enumerate(labels)
    ]


def _clean_entry(texts, *, fields, field, where, option_count=0) -> dict:
    """One language's ``{field: text}``, blank texts dropped; ``where`` ends with the language."""
    if not isinstance(texts, Mapping):
        raise _refused(field, where, _("Must be an object, got %(v)r.") % {"v": texts})
    entry = {}
    for name, text in texts.items():
        if name not in fields:
            message = _("%(name)r is not a translatable field; use %(fields)s.") % {
                "name": str(name)[:32],
                "fields": ", ".join(fields),
            }
            raise _refused(field, where, message)
        if name == "options":
            labels = _clean_option_labels(
                text, option_count=option_count, field=field, where=f"{where}options "
            )
            if any(labels):
                entry[name] = labels
            continue
        text = _clean_text(field, text, max_length=TEXT_MAX_LENGTHS[name], where=f"{where}{name}: ")
        if text:
            entry[name] = text
    return entry


def clean_translations(
    value, *, fields, default_language, field="translations", where="", option_count=0
) -> dict:
    """``{language: {field: text}}`` as stored: site languages other than ``default_language``,
    only ``fields``, texts within their field's length; blank texts are dropped (missing).
    ``options`` (a multiple-choice question's labels) is a list of ``option_count`` labels.

    Errors name ``field`` (the request's top-level field) and say where inside it, after
    ``where``."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        message = _("Must be an object mapping a language code to texts, got %(v)r.")
        raise _refused(field, where, message % {"v": value})
    cleaned = {}
    for language, texts in value.items():
        _check_language(language, default_language=default_language, field=field, where=where)
        entry = _clean_entry(
            texts,
            fields=fields,
            field=field,
            where=f"{where}{language}: ",
            option_count=option_count,
        )
        if entry:
            cleaned[language] = entry
    return cleaned


def _changed(obj, translations) -> bool:
    return (obj.translations or {}) != translations


@transaction.atomic
def survey_translations_save(*, survey, texts: Mapping) -> Survey:
    """Save the survey's texts in other languages from the builder's Translations page.

    ``texts`` maps ``"<language>-<key>"`` (``languages.TranslatableText.key``) to a
    translation; a blank one removes it. Keys it leaves out keep their translation. Question
    texts and option labels can change only until the survey first opens (module docstring).
    """
    survey = Survey.objects.select_for_update().get(pk=survey.pk)
    loaded = survey_with_texts(survey=survey)
    by_name = {
        f"{language}-{text.key}": (language, text)
        for text in survey_texts(
            survey=loaded,
            questions=loaded.questions.all(),
            grouping=loaded.grouping_questions.all(),
        )
        for language in other_languages(loaded)
    }
    unknown = sorted(set(texts) - set(by_name))
    if unknown:
        raise ValidationError({unknown[0]: [_("Not a text of this survey.")]})
    changed = {}  # id(object) -> (object, its new translations)
    for name, value in texts.items():
        language, text = by_name[name]
        value = _clean_text(name, value, max_length=TEXT_MAX_LENGTHS[text.field])
        if text.kind == "option":
            # A grouping option translated into "Prefer not to say" would repeat the built-in.
            refuse_built_in_option(value, field=name)
        if value == text.translated(language):
            continue
        if text.frozen_with_questions:
            ensure_not_frozen(survey)
        obj, current = changed.get(id(text.obj), (text.obj, _copy(text.obj.translations)))
        entry = current.setdefault(language, {})
        if text.index is not None:
            _set_option_label(entry, question=obj, index=text.index, label=value)
        elif value:
            entry[text.field] = value
        else:
            entry.pop(text.field, None)
        if not entry:
            del current[language]
        changed[id(text.obj)] = (obj, current)
    for obj, current in changed.values():
        obj.translations = current
        obj.save(update_fields=["translations"])
    # Translated question texts are part of the design a pilot's pages were drawn for.
    pilot_design_refresh(survey_id=survey.pk)
    return survey


def _set_option_label(entry, *, question, index, label) -> None:
    """Set one option label in a language's entry (a list aligned with ``question.options``,
    "" where untranslated); the list goes when no label is left."""
    labels = [
        *(entry.get("options") or [])[: len(question.options)],
        *[""] * len(question.options),
    ][: len(question.options)]
    labels[index] = label
    if any(labels):
        entry["options"] = labels
    else:
        entry.pop("options", None)


def _copy(translations) -> dict:
    return {
        language: {
            name: list(value) if isinstance(value, list) else value for name, value in entry.items()
        }
        for language, entry in (translations or {}).items()
    }


def _set_question_translations(*, survey, question_translations):
    questions = list(survey.questions.all())
    if len(question_translations) != len(questions):  # the serializer keeps them aligned
        raise ValueError("one translations object per question")
    updated = []
    for question, translations in zip(questions, question_translations, strict=True):
        if translations is None:
            continue
        cleaned = clean_translations(
            translations,
            fields=QUESTION_FIELDS,
            default_language=survey.language,
            field="questions",
            where=f"[{question.position}] translations: ",
            option_count=len(question.options),
        )
        if _changed(question, cleaned):
            question.translations = cleaned
            updated.append(question)
    if updated:
        ensure_not_frozen(survey)
        Question.objects.bulk_update(updated, ["translations"])


@transaction.atomic
def survey_create_translated(
    *, owner, title, questions=(), translations=None, question_translations=None, **fields
) -> Survey:
    """``services.survey_create``, then the survey's and each question's translations (API)."""
    survey = survey_create(owner=owner, title=title, questions=questions, **fields)
    return _apply(
        survey=survey, translations=translations, question_translations=question_translations
    )


@transaction.atomic
def survey_update_translated(
    *, survey, data, questions=None, translations=None, question_translations=None
) -> Survey:
    """``services.survey_update``, then the translations given (API). A ``translations`` object
    replaces the survey's whole; each question's replaces that question's."""
    survey = survey_update(survey=survey, data=data, questions=questions)
    return _apply(
        survey=survey, translations=translations, question_translations=question_translations
    )


def _apply(*, survey, translations, question_translations) -> Survey:
    survey.refresh_from_db()
    if translations is not None:
        cleaned = clean_translations(
            translations, fields=SURVEY_FIELDS, default_language=survey.language
        )
        if _changed(survey, cleaned):
            consent = {code: entry.get("consent_text") for code, entry in cleaned.items()}
            before = {
                code: entry.get("consent_text") for code, entry in survey.translations.items()
            }
            if {k: v for k, v in consent.items() if v} != {k: v for k, v in before.items() if v}:
                ensure_not_frozen(survey)  # what respondents agreed to: frozen at opening
            survey.translations = cleaned
            survey.save(update_fields=["translations", "updated_at"])
    if question_translations is not None:
        _set_question_translations(survey=survey, question_translations=question_translations)
        pilot_design_refresh(survey_id=survey.pk)
        survey.refresh_from_db(fields=["design_fingerprint"])
    return survey
