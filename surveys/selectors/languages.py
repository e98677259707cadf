"""Reads for one survey in several languages: which languages it is offered in, its texts in
one of them, and which of them a respondent gets.

A survey is written in its ``language`` (its default, or source, language). Every row that
holds respondent-facing text keeps that text's other languages in its own ``translations``
JSON, shaped like the API's: ``{"ko": {"title": ..., "intro": ...}}`` on the survey,
``{"ko": {"text": ...}}`` on a question or grouping question, ``{"ko": {"label": ...}}`` on a
grouping option; a multiple-choice question's option labels are a list beside its text,
aligned with ``Question.options`` (``{"ko": {"text": ..., "options": ["...", ""]}}``, a blank
label untranslated). The respondent page reads those rows anyway, so a translated page costs no
extra query, and the submission path (ids and bits only) reads none of it.

A language is *offered* once every text has its translation; until then respondents never see
it. Respondents are never asked or told anything else about language: nothing about it is
sent with a submission or stored with a response, and answers in every language pool into the
same tallies.
"""

from collections.abc import Iterable
from dataclasses import dataclass

from django.conf import settings
from django.db.models import Prefetch
from django.utils import translation
from django.utils.translation.trans_real import parse_accept_lang_header

from .. import limits
from ..models import GroupingOption, GroupingQuestion, Question, Survey

LANGUAGE_CODES = tuple(code for code, _name in settings.LANGUAGES)
# Each translatable field and its longest text: the same limits as the default-language fields
# ("options": one label of a multiple-choice question).
TEXT_MAX_LENGTHS = {
    "title": limits.TITLE_MAX_LENGTH,
    "intro": limits.INTRO_MAX_LENGTH,
    "consent_text": limits.CONSENT_MAX_LENGTH,
    "text": limits.QUESTION_TEXT_MAX_LENGTH,
    "label": limits.OPTION_LABEL_MAX_LENGTH,
    "options": limits.OPTION_LABEL_MAX_LENGTH,
}


def other_languages(survey) -> list[str]:
    """The site's languages a survey can be translated into: all but its own."""
    return [code for code in LANGUAGE_CODES if code != survey.language]


def translation_of(obj, field, language) -> str:
    """``obj``'s ``field`` in ``language`` as stored, or "" when it has none."""
    entry = (obj.translations or {}).get(language)
    value = entry.get(field) if isinstance(entry, dict) else None
    return value if isinstance(value, str) else ""


def option_translations(question, language) -> list[str]:
    """A multiple-choice question's option labels in ``language`` as stored, aligned with
    ``question.options`` ("" for each untranslated one)."""
    entry = (question.translations or {}).get(language)
    stored = entry.get("options") if isinstance(entry, dict) else None
    stored = stored if isinstance(stored, list) else []
    return [
        stored[index] if index < len(stored) and isinstance(stored[index], str) else ""
        for index in range(len(question.options))
    ]


@dataclass(frozen=True)
class TranslatableText:
    """One text a respondent reads, in the survey's own language.

    ``key`` names it in the translations form (``title``, ``intro``, ``q<id>``, ``g<id>``,
    ``o<id>``, ``q<id>o<index>`` for a multiple-choice option); ``frozen_with_questions`` is
    True for question texts and option labels, which are part of the design frozen at the
    first opening (the title and intro are not).
    """

    key: str
    kind: str  # "title", "intro", "consent", "question", "grouping", "option", "choice_option"
    obj: object
    field: str  # the model field: "title", "intro", "consent_text", "text", "label", "options"
    source: str
    number: str  # "Q1", "G2", "G2 · 3", "Q1 · 2": how the builder numbers it
    index: int | None = None  # a multiple-choice option's place in ``obj.options``

    @property
    def frozen_with_questions(self) -> bool:
        # The consent text too: it is what respondents agreed to (frozen at the first opening).
        return self.kind in ("question", "grouping", "option", "choice_option", "consent")

    def translated(self, language) -> str:
        if self.index is not None:
            return option_translations(self.obj, language)[self.index]
        return translation_of(self.obj, self.field, language)


def survey_texts(*, survey, questions, grouping) -> list[TranslatableText]:
    """Every text of the survey a respondent reads, in page order (the intro only if any)."""
    texts = [TranslatableText("title", "title", survey, "title", survey.title, "")]
    if survey.intro:
        texts.append(TranslatableText("intro", "intro", survey, "intro", survey.intro, ""))
    if survey.consent_text:
        texts.append(
            TranslatableText("consent", "consent", survey, "consent_text", survey.consent_text, "")
        )
    for index, question in enumerate(questions, start=1):
        texts.append(
            TranslatableText(
                f"q{question.pk}", "question", question, "text", question.text, f"Q{index}"
            )
        )
        if question.kind == Question.Kind.CHOICE:
            texts.extend(
                TranslatableText(
                    f"q{question.pk}o{place}",
                    "choice_option",
                    question,
                    "options",
                    label,
                    f"Q{index} · {place + 1}",
                    index=place,
                )
                for place, label in enumerate(question.options)
            )
    for index, grouping_question in enumerate(grouping, start=1):
        texts.append(
            TranslatableText(
                f"g{grouping_question.pk}",
                "grouping",
                grouping_question,
                "text",
                grouping_question.text,
                f"G{index}",
            )
        )
        for number, option in enumerate(grouping_question.options.all(), start=1):
            texts.append(
                TranslatableText(
                    f"o{option.pk}", "option", option, "label", option.label, f"G{index} · {number}"
                )
            )
    return texts


def offered_languages(*, survey, texts) -> list[str]:
    """The survey's own language, then every other language with every text translated."""
    return [survey.language] + [
        code for code in other_languages(survey) if all(text.translated(code) for text in texts)
    ]


def survey_with_texts(*, survey) -> Survey:
    """A fresh copy of ``survey`` with its questions, grouping questions and their options
    prefetched (three queries), for the functions below."""
    options = Prefetch("options", queryset=GroupingOption.objects.order_by("position", "id"))
    return Survey.objects.prefetch_related(
        "questions",
        Prefetch("grouping_questions", queryset=GroupingQuestion.objects.prefetch_related(options)),
    ).get(pk=survey.pk)


def _texts_of(survey):
    return survey_texts(
        survey=survey,
        questions=survey.questions.all(),
        grouping=survey.grouping_questions.all(),
    )


def survey_languages(*, survey) -> list[str]:
    """The languages ``survey`` is offered in, its own first (for pages, the API and the
    provenance of exports: the only trace of language in any result). Reads its questions,
    grouping questions and options, or uses them if prefetched."""
    return offered_languages(survey=survey, texts=_texts_of(survey))


def fingerprint_translations(*, survey, questions, grouping) -> dict:
    """The question texts and option labels in other languages, as the design fingerprint
    names them: ``{language: {"questions": [[id, text]], "grouping": [[id, text, [[id,
    label]]]], "options": [[question id, [labels]]]}}``, every stored translation (they freeze
    with the questions at the first opening). Empty when there is none, so an untranslated
    survey's fingerprint is unchanged; ``options`` (multiple-choice labels) only when some
    label is translated, so a survey translated before question types keeps its fingerprint.
    """
    result = {}
    for code in other_languages(survey):
        options = [
            [q.pk, labels]
            for q in questions
            if q.kind == Question.Kind.CHOICE
            for labels in [option_translations(q, code)]
            if any(labels)
        ]
        entry = {
            "questions": [
                [q.pk, translation_of(q, "text", code)]
                for q in questions
                if translation_of(q, "text", code)
            ],
            "grouping": [
                [
                    gq.pk,
                    translation_of(gq, "text", code),
                    [[o.pk, translation_of(o, "label", code)] for o in gq.options.all()],
                ]
                for gq in grouping
            ],
        }
        entry["grouping"] = [
            row for row in entry["grouping"] if row[1] or any(label for _id, label in row[2])
        ]
        if options:
            entry["options"] = options
        if entry["questions"] or entry["grouping"] or options:
            result[code] = entry
    return result


def localize(*, survey, preferences: Iterable[str]) -> Survey:
    """Put ``survey``'s texts (as loaded by ``survey_with_texts``) in place in the first of
    ``preferences`` (language codes, most wanted first) it is offered in, else leave them in
    its own language.

    For display only, never saved: the survey then says ``language`` (what its texts are in
    now), ``default_language`` and ``languages`` (offered, its own first).
    """
    texts = _texts_of(survey)
    offered = offered_languages(survey=survey, texts=texts)
    language = next((code for code in preferences if code in offered), survey.language)
    survey.default_language = survey.language
    survey.languages = offered
    if language != survey.language:
        for text in texts:
            if text.index is not None:  # one label of a multiple-choice question's list
                labels = list(getattr(text.obj, text.field))
                labels[text.index] = text.translated(language)
                setattr(text.obj, text.field, labels)
            else:
                setattr(text.obj, text.field, text.translated(language))
        survey.language = language
    return survey


def accept_language_tags(header) -> list[str]:
    """The language tags an Accept-Language header asks for, most wanted first, without the
    ``q=0`` ones ("not this one"). The one parser of the header (Django's, which LocaleMiddleware
    uses too): a malformed header asks for nothing."""
    if not isinstance(header, str):
        return []
    return [tag for tag, quality in parse_accept_lang_header(header) if quality > 0]


def supported_languages(tags: Iterable[str]) -> list[str]:
    """The site languages ``tags`` name, in order, each once; tags the site does not speak
    (and anything that is not a short string) are skipped."""
    wanted = []
    for tag in tags:
        if not isinstance(tag, str) or not tag or len(tag) > limits.LANGUAGE_TAG_MAX_LENGTH:
            continue
        try:
            code = translation.get_supported_language_variant(tag)
        except LookupError:
            continue
        if code not in wanted:
            wanted.append(code)
    return wanted


def language_preferences(request) -> list[str]:
    """The site languages a respondent's request asks for, most wanted first: the switcher's
    ``?lang=`` (respondent pages set no cookie), the researcher's own language cookie, then
    the browser's Accept-Language by quality."""
    return supported_languages(
        [
            request.GET.get("lang", ""),
            request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME, ""),
            *accept_language_tags(request.headers.get("Accept-Language", "")),
        ]
    )


def survey_for_respondent(*, survey, preferences: Iterable[str]) -> Survey:
    """``survey`` in the first of ``preferences`` it is offered in, else in its own language:
    a fresh copy with its questions and grouping questions, for display only (``localize``)."""
    return localize(survey=survey_with_texts(survey=survey), preferences=preferences)


@dataclass(frozen=True)
class LanguageStatus:
    """How far the survey is translated into one language."""

    code: str
    missing: int
    total: int

    @property
    def offered(self) -> bool:
        return self.missing == 0


@dataclass(frozen=True)
class TranslationTable:
    """The builder's Translations page: every text, and each other language's progress."""

    survey: Survey
    texts: list[TranslatableText]
    languages: list[LanguageStatus]


def survey_translation_table(*, survey) -> TranslationTable:
    loaded = survey_with_texts(survey=survey)
    texts = _texts_of(loaded)
    return TranslationTable(
        survey=loaded,
        texts=texts,
        languages=[
            LanguageStatus(
                code=code,
                missing=sum(1 for text in texts if not text.translated(code)),
                total=len(texts),
            )
            for code in other_languages(loaded)
        ],
    )
