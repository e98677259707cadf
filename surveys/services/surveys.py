"""Writes. Views, API views and commands validate input shape, then call exactly one of these.

Every service either completes or raises ``django.core.exceptions.ValidationError`` (with a
``{field: [message]}`` dict naming the bad field) or one of the conflicts below, and in both
cases nothing is stored half-way.
"""

import math
import random
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Case, Count, F, Max, Q, Value, When
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from dpengine import ForcedResponse
from dpengine.errors import DPEngineError

from . import languages, schedule, selectors, submission_statement
from .models import (
    CI_METHODS,
    PREFER_NOT_TO_SAY,
    TALLY_SHARDS,
    GroupAnswer,
    GroupingOption,
    GroupingQuestion,
    GroupTally,
    Question,
    Submission,
    Survey,
    TallyShard,
    is_slug,
    question_key,
)
from .pilot import pilot_design_refresh, pilot_responses_delete

EDITABLE_SURVEY_FIELDS = (
    "title",
    "intro",
    "language",
    "p_truth",
    "p_forced_yes",
    "confidence",
    "ci_method",
    "min_n",
    "shared_devices",
    "consent_text",
    "response_target",
)
# Changing any of these once the survey has been open would make reports mean something else.
DESIGN_FIELDS = ("p_truth", "p_forced_yes")
MAX_QUESTIONS = 100
DESIGN_MIN, DESIGN_MAX = 0.001, 0.999
# Ids are signed 64-bit in the database: a larger key can name no row, and PostgreSQL would
# refuse to even compare it (an error, not "no such question"), so it is refused here.
ID_MIN, ID_MAX = -(2**63), 2**63 - 1


class SurveyConflict(Exception):
    """The request is well formed but the survey's state forbids it (HTTP 409)."""

    def __init__(self, message, *, field=None):
        super().__init__(message)
        self.message = message
        self.field = field


class SurveyFrozen(SurveyConflict):
    pass


class SurveyNotAcceptingResponses(SurveyConflict):
    pass


class DesignChanged(SurveyConflict):
    """The submission was randomized with another design than the survey's (a stale page)."""


@dataclass(frozen=True)
class SubmissionOutcome:
    submission_id: uuid.UUID
    created: bool
    questions_answered: int


# --- validation helpers -------------------------------------------------------------------


def _clean_text(field, value, *, max_length, required=True):
    if not isinstance(value, str):
        raise ValidationError({field: [_("Must be text.")]})
    value = value.strip()
    if required and not value:
        raise ValidationError({field: [_("This field may not be blank.")]})
    if len(value) > max_length:
        raise ValidationError(
            {
                field: [
                    _("At most %(max)d characters, got %(n)d.")
                    % {"max": max_length, "n": len(value)}
                ]
            }
        )
    return value


def clean_required(value, *, field="required"):
    """A question's ``required`` flag: true or false, nothing that merely looks like one."""
    if not isinstance(value, bool):
        raise ValidationError({field: [_("Must be true or false, got %(v)r.") % {"v": value}]})
    return value


def _clean_design(*, p_truth, p_forced_yes):
    for field, value in (("p_truth", p_truth), ("p_forced_yes", p_forced_yes)):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValidationError({field: [_("Must be a number, got %(v)r.") % {"v": value}]})
    try:
        ForcedResponse(p_truth=float(p_truth), p_forced_yes=float(p_forced_yes))
    except DPEngineError as exc:
        # dpengine's message is English for programmers; researchers get it in their language.
        field = "p_forced_yes" if exc.field == "p_forced_yes" else "p_truth"
        value = p_forced_yes if field == "p_forced_yes" else p_truth
        raise ValidationError(
            {field: [_("Must be strictly between 0 and 1, got %(v)r.") % {"v": value}]}
        ) from None
    # Mathematically any value inside (0, 1) works, but coins like 1e-200 make ε or the
    # sample size overflow and no survey could ever reach them: keep designs usable.
    for field, value in (("p_truth", p_truth), ("p_forced_yes", p_forced_yes)):
        if not DESIGN_MIN <= value <= DESIGN_MAX:
            raise ValidationError(
                {
                    field: [
                        _("Must be between %(lo)s and %(hi)s, got %(v)r.")
                        % {"lo": DESIGN_MIN, "hi": DESIGN_MAX, "v": value}
                    ]
                }
            )
    ensure_within_epsilon_ceiling(p_truth=float(p_truth), p_forced_yes=float(p_forced_yes))
    return float(p_truth), float(p_forced_yes)


def ensure_within_epsilon_ceiling(*, p_truth, p_forced_yes):
    """Refuse coins whose privacy loss per answer exceeds the site's ``MAX_EPSILON_PER_ANSWER``.

    Named on ``p_truth``: coin 1 is what trades privacy for precision.
    """
    epsilon = ForcedResponse(p_truth=p_truth, p_forced_yes=p_forced_yes).epsilon
    ceiling = settings.MAX_EPSILON_PER_ANSWER
    if epsilon > ceiling + 1e-12:
        raise ValidationError(
            {
                "p_truth": [
                    _(
                        "These coins give ε = %(eps).2f per answer, above this site's ceiling "
                        "of ε = %(max).2f: a report would be more than %(odds)s times as likely "
                        "under one true answer as under the other. Lower coin 1 or bring "
                        "coin 2 closer to one half."
                    )
                    % {"eps": epsilon, "max": ceiling, "odds": f"{math.exp(ceiling):.3g}"}
                ]
            }
        )


def clean_survey_fields(data, *, current=None):
    """Validate the editable fields present in ``data``; ``current`` supplies the other coin.

    Public: the admin's survey form validates with it too, so the rules exist once.
    """
    cleaned = {}
    unknown = set(data) - set(EDITABLE_SURVEY_FIELDS)
    if unknown:
        field = sorted(unknown)[0]
        raise ValidationError({field: [_("Unknown field.")]})
    if "title" in data:
        cleaned["title"] = _clean_text("title", data["title"], max_length=200)
    if "intro" in data:
        cleaned["intro"] = _clean_text("intro", data["intro"], max_length=5000, required=False)
    if "language" in data:
        codes = [code for code, _name in settings.LANGUAGES]
        if data["language"] not in codes:
            raise ValidationError(
                {"language": [_("Must be one of %(codes)s.") % {"codes": ", ".join(codes)}]}
            )
        cleaned["language"] = data["language"]
    if "p_truth" in data or "p_forced_yes" in data:
        cleaned["p_truth"], cleaned["p_forced_yes"] = _clean_design(
            p_truth=data.get("p_truth", current.p_truth if current else 0.5),
            p_forced_yes=data.get("p_forced_yes", current.p_forced_yes if current else 0.5),
        )
    if "confidence" in data:
        value = data["confidence"]
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0.5 <= value < 1:
            raise ValidationError(
                {"confidence": [_("Must be a number in [0.5, 1), got %(v)r.") % {"v": value}]}
            )
        cleaned["confidence"] = float(value)
    if "ci_method" in data:
        methods = [code for code, _label in CI_METHODS]
        if data["ci_method"] not in methods:
            raise ValidationError(
                {"ci_method": [_("Must be one of %(m)s.") % {"m": ", ".join(methods)}]}
            )
        cleaned["ci_method"] = data["ci_method"]
    if "shared_devices" in data:
        if not isinstance(data["shared_devices"], bool):
            raise ValidationError({"shared_devices": [_("Must be true or false.")]})
        cleaned["shared_devices"] = data["shared_devices"]
    if "min_n" in data:
        value = data["min_n"]
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 100000:
            raise ValidationError(
                {"min_n": [_("Must be a whole number from 0 to 100000, got %(v)r.") % {"v": value}]}
            )
        cleaned["min_n"] = value
    if "consent_text" in data:
        cleaned["consent_text"] = _clean_text(
            "consent_text", data["consent_text"], max_length=5000, required=False
        )
    if "response_target" in data:
        value = data["response_target"]
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 10_000_000
        ):
            raise ValidationError(
                {
                    "response_target": [
                        _("Must be empty or a whole number from 1 to 10000000, got %(v)r.")
                        % {"v": value}
                    ]
                }
            )
        cleaned["response_target"] = value
    return cleaned


def _consent_versioned(survey, text, *, now=None):
    """Set the consent text; a changed text is a new version, dated."""
    if text == survey.consent_text:
        return False
    survey.consent_text = text
    survey.consent_version += 1
    survey.consent_changed_at = now or timezone.now()
    return True


def _clean_question_texts(texts):
    if isinstance(texts, str | bytes) or not isinstance(texts, Iterable):
        raise ValidationError({"questions": [_("Must be a list of questions.")]})
    texts = list(texts)
    if len(texts) > MAX_QUESTIONS:
        raise ValidationError(
            {"questions": [_("At most %(max)d questions.") % {"max": MAX_QUESTIONS}]}
        )
    return [_clean_text("questions", text, max_length=1000) for text in texts]


def _clean_question_specs(items):
    """``[(text, required), ...]`` from question texts, or ``{"text", "required"}`` mappings
    (``required`` defaults to true, so a client that only sends texts keeps every question
    required)."""
    if isinstance(items, str | bytes) or not isinstance(items, Iterable):
        raise ValidationError({"questions": [_("Must be a list of questions.")]})
    items = list(items)
    texts = _clean_question_texts(
        [item.get("text") if isinstance(item, Mapping) else item for item in items]
    )
    return [
        (
            text,
            clean_required(item.get("required", True), field="questions")
            if isinstance(item, Mapping)
            else True,
        )
        for text, item in zip(texts, items, strict=True)
    ]


FROZEN_MESSAGE = gettext_lazy(
    "This survey has been opened, so its questions and coins are frozen: respondents may "
    "already hold the page, and their answers must mean what the estimates assume. To change "
    "them, duplicate the survey."
)


PILOT_RESPONSES_MESSAGE = gettext_lazy(
    "This pilot has responses, so its questions, coins and consent text cannot change yet: "
    "discard the pilot responses first (they would no longer match the survey)."
)


def _ensure_not_frozen(survey):
    if survey.status == Survey.Status.PILOT and survey.opened_at is None and survey.is_frozen:
        raise SurveyFrozen(str(PILOT_RESPONSES_MESSAGE))
    if survey.is_frozen:
        raise SurveyFrozen(str(FROZEN_MESSAGE))


def _ensure_owner_room(*, owner, field, surveys=0, questions=0, replacing=None):
    """Refuse a write that would take ``owner`` past MAX_SURVEYS_PER_USER or
    MAX_QUESTIONS_PER_USER; ``replacing`` is a survey whose questions the write replaces."""
    # The owner's row serialises their concurrent writes, so two cannot both pass the counts.
    get_user_model().objects.select_for_update().filter(pk=owner.pk).first()
    if surveys:
        limit = settings.MAX_SURVEYS_PER_USER
        if Survey.objects.filter(owner=owner).count() + surveys > limit:
            raise ValidationError(
                _(
                    "You have reached the limit of %(max)d surveys per account; delete one "
                    "before creating another."
                )
                % {"max": limit}
            )
    if questions:
        limit = settings.MAX_QUESTIONS_PER_USER
        existing = Question.objects.filter(survey__owner=owner)
        if replacing is not None:
            existing = existing.exclude(survey=replacing)
        if existing.count() + questions > limit:
            raise ValidationError(
                {
                    field: [
                        _(
                            "Your surveys may hold at most %(max)d questions in all; this "
                            "would make %(n)d."
                        )
                        % {"max": limit, "n": existing.count() + questions}
                    ]
                }
            )


# Public for the other write modules (surveys/members.py: a transfer counts for the new owner).
ensure_owner_room = _ensure_owner_room


# --- surveys ------------------------------------------------------------------------------


@transaction.atomic
def survey_create(*, owner, title, questions=(), **fields) -> Survey:
    cleaned = clean_survey_fields({"title": title, **fields})
    specs = _clean_question_specs(questions)
    _ensure_owner_room(owner=owner, field="questions", surveys=1, questions=len(specs))
    consent_text = cleaned.pop("consent_text", "")
    survey = Survey(owner=owner, **cleaned)
    _consent_versioned(survey, consent_text)
    survey.save()
    Question.objects.bulk_create(
        Question(survey=survey, position=index, text=text, required=required)
        for index, (text, required) in enumerate(specs)
    )
    return survey


@transaction.atomic
def survey_update(*, survey, data: Mapping, questions=None) -> Survey:
    """Update survey fields and, when ``questions`` is given, replace the question list."""
    survey = Survey.objects.select_for_update().get(pk=survey.pk)
    cleaned = clean_survey_fields(dict(data), current=survey)
    if "language" in cleaned:
        languages.ensure_default_language_change(survey=survey, language=cleaned["language"])
    design_changes = {
        field
        for field in DESIGN_FIELDS
        if field in cleaned and cleaned[field] != getattr(survey, field)
    }
    consent_text = cleaned.pop("consent_text", survey.consent_text)
    if design_changes or questions is not None or consent_text != survey.consent_text:
        _ensure_not_frozen(survey)
    for field, value in cleaned.items():
        setattr(survey, field, value)
    _consent_versioned(survey, consent_text)
    survey.save()
    if questions is not None:
        specs = _clean_question_specs(questions)
        _ensure_owner_room(
            owner=survey.owner, field="questions", questions=len(specs), replacing=survey
        )
        survey.questions.all().delete()
        Question.objects.bulk_create(
            Question(survey=survey, position=index, text=text, required=required)
            for index, (text, required) in enumerate(specs)
        )
    pilot_design_refresh(survey_id=survey.pk)
    return survey


@transaction.atomic
def survey_duplicate(*, survey) -> Survey:
    """A new draft with the survey's settings, coins, questions and grouping questions.

    The way to change a design once it is frozen: the copy has its own link (a new slug), no
    responses, and is not published on a public results page until its owner says so.
    """
    _ensure_owner_room(
        owner=survey.owner, field="questions", surveys=1, questions=survey.questions.count()
    )
    settings_kept = {field: getattr(survey, field) for field in EDITABLE_SURVEY_FIELDS}
    settings_kept["title"] = (_("%(title)s (copy)") % {"title": survey.title})[:200]
    consent_text = settings_kept.pop("consent_text")
    copy = Survey(owner=survey.owner, translations=survey.translations, **settings_kept)
    # The copy's consent text starts its own history (version 1), like its own link.
    _consent_versioned(copy, consent_text)
    copy.save()
    Question.objects.bulk_create(
        Question(
            survey=copy,
            position=question.position,
            text=question.text,
            required=question.required,
            translations=question.translations,
        )
        for question in survey.questions.all()
    )
    for grouping_question in survey.grouping_questions.prefetch_related("options"):
        options = list(grouping_question.options.all())
        grouping_question.pk, grouping_question.survey = None, copy
        grouping_question.declined_count = 0
        grouping_question.save()
        GroupingOption.objects.bulk_create(
            GroupingOption(
                grouping_question=grouping_question,
                position=option.position,
                label=option.label,
                translations=option.translations,
            )
            for option in options
        )
    return copy


def survey_delete(*, survey) -> None:
    """Move the survey to its owner's trash, closed: it takes no responses there and is gone
    from every page and API route until restored or purged (``trash_purge``)."""
    survey = Survey.objects.select_for_update().get(pk=survey.pk)
    if survey.status == Survey.Status.PILOT:
        # Restored, it would be a closed survey holding responses that were never real.
        pilot_responses_delete(survey=survey)
    survey.deleted_at = timezone.now()
    survey.status = Survey.Status.CLOSED
    survey.save(update_fields=["deleted_at", "status", "updated_at"])


@transaction.atomic
def survey_restore(*, owner, survey_id) -> Survey:
    """Take one of ``owner``'s surveys out of the trash (closed, as it went in).

    Raises ``Survey.DoesNotExist`` when the owner has no such survey in the trash."""
    survey = Survey.all_objects.select_for_update().get(
        pk=survey_id, owner=owner, deleted_at__isnull=False
    )
    survey.deleted_at = None
    survey.save(update_fields=["deleted_at", "updated_at"])
    return survey


def trash_purge(*, now=None) -> int:
    """Delete for good the surveys trashed more than TRASH_DAYS ago; how many there were."""
    cutoff = (now or timezone.now()) - timedelta(days=settings.TRASH_DAYS)
    expired = Survey.all_objects.filter(deleted_at__lte=cutoff)
    count = expired.count()
    expired.delete()
    return count


@transaction.atomic
def survey_open(*, survey) -> Survey:
    """Open for responses. The first opening freezes the design and records its fingerprint."""
    survey = Survey.objects.select_for_update().get(pk=survey.pk)
    fields = ["status", "updated_at"]
    if survey.opened_at is None:
        _freeze_for_opening(survey)
        fields += ["opened_at", "design_fingerprint", "public_started_on"]
    now = timezone.now()
    # Opening by hand means now: a later scheduled opening, or a close time already past,
    # would otherwise keep the survey from taking responses.
    if survey.opens_at is not None and survey.opens_at > now:
        survey.opens_at = None
        fields.append("opens_at")
    if survey.closes_at is not None and survey.closes_at <= now:
        survey.closes_at = None
        fields.append("closes_at")
    survey.status = Survey.Status.OPEN
    survey.save(update_fields=fields)
    return survey


def _ensure_openable(survey):
    if not survey.questions.exists():
        raise SurveyConflict(_("Add at least one question before opening the survey."))
    # Coins saved before the ceiling existed (or before it was lowered) never reach a page.
    try:
        _clean_design(p_truth=survey.p_truth, p_forced_yes=survey.p_forced_yes)
    except ValidationError as exc:
        field, problems = next(iter(exc.message_dict.items()))
        raise SurveyConflict(problems[0], field=field) from None


def _freeze_for_opening(survey):
    """The first opening for the real study: pilot responses go, the design freezes."""
    _ensure_openable(survey)
    if survey.status == Survey.Status.PILOT:
        pilot_responses_delete(survey=survey)
    survey.opened_at = timezone.now()
    survey.design_fingerprint = selectors.survey_design_fingerprint(survey=survey)
    # The design is frozen from here, so every per-(question, option) tally row a
    # submission will count in exists from the start: a submission only adds to rows.
    group_tallies_ensure(survey=survey)


@transaction.atomic
def survey_pilot_start(*, survey) -> Survey:
    """Let the real link take pilot responses, which are never counted: the design stays
    editable (after discarding them) and opening for the real study discards them."""
    survey = Survey.objects.select_for_update().get(pk=survey.pk)
    if survey.status != Survey.Status.DRAFT or survey.opened_at is not None:
        raise SurveyConflict(
            _("Only a draft that has never been open can become a pilot; this one is %(s)s.")
            % {"s": survey.get_status_display()},
            field="status",
        )
    _ensure_openable(survey)
    survey.status = Survey.Status.PILOT
    survey.design_fingerprint = ""
    survey.design_fingerprint = selectors.survey_design_fingerprint(survey=survey)
    group_tallies_ensure(survey=survey)
    survey.save(update_fields=["status", "design_fingerprint", "updated_at"])
    return survey


@transaction.atomic
def survey_pilot_discard(*, survey) -> int:
    """Delete every pilot response and what was counted from it; how many there were."""
    survey = Survey.objects.select_for_update().get(pk=survey.pk)
    if survey.status != Survey.Status.PILOT:
        raise SurveyConflict(
            _(
                "Responses can be discarded only while the survey is a pilot; this one is "
                "%(s)s, and its responses are real."
            )
            % {"s": survey.get_status_display()},
            field="status",
        )
    return pilot_responses_delete(survey=survey)


@transaction.atomic
def survey_schedule(*, survey, opens_at, closes_at, now=None) -> Survey:
    """Set when the survey takes responses: ``[opens_at, closes_at)``, either may be None.

    Scheduling an opening opens the survey for the real study right away, frozen as any
    opening (pilot responses discarded): it will start taking responses without the researcher
    present, so its design cannot change in between. Before ``opens_at`` and from
    ``closes_at`` on it refuses responses (``schedule.phase``), with no process needed.
    """
    survey = Survey.objects.select_for_update().get(pk=survey.pk)
    now = now or timezone.now()
    for field, value in (("opens_at", opens_at), ("closes_at", closes_at)):
        if value is not None and (not hasattr(value, "tzinfo") or value.tzinfo is None):
            raise ValidationError({field: [_("Must be a date and time with a time zone.")]})
    if opens_at is not None and opens_at != survey.opens_at and opens_at <= now:
        raise ValidationError(
            {"opens_at": [_("Must be in the future, got %(v)s.") % {"v": opens_at.isoformat()}]}
        )
    if closes_at is not None and closes_at != survey.closes_at and closes_at <= now:
        raise ValidationError(
            {"closes_at": [_("Must be in the future, got %(v)s.") % {"v": closes_at.isoformat()}]}
        )
    if opens_at is not None and closes_at is not None and closes_at <= opens_at:
        raise ValidationError(
            {
                "closes_at": [
                    _("Must be after the opening time (%(open)s), got %(v)s.")
                    % {"open": opens_at.isoformat(), "v": closes_at.isoformat()}
                ]
            }
        )
    fields = ["opens_at", "closes_at", "updated_at"]
    if opens_at is not None and opens_at != survey.opens_at:
        if survey.status == Survey.Status.CLOSED or (
            survey.status == Survey.Status.OPEN
            and schedule.phase_of(survey, now=now) != schedule.Phase.SCHEDULED
        ):
            raise SurveyConflict(
                _("This survey has already opened; only its closing time can be scheduled."),
                field="opens_at",
            )
        if survey.opened_at is None:
            _freeze_for_opening(survey)
            fields += ["opened_at", "design_fingerprint", "public_started_on"]
        survey.status = Survey.Status.OPEN
        fields.append("status")
    survey.opens_at, survey.closes_at = opens_at, closes_at
    survey.save(update_fields=fields)
    return survey


@transaction.atomic
def survey_close(*, survey) -> Survey:
    survey = Survey.objects.select_for_update().get(pk=survey.pk)
    if survey.status == Survey.Status.PILOT:
        raise SurveyConflict(
            _(
                "A pilot is not closed: open it for the real study (its responses are then "
                "discarded) or discard its responses."
            ),
            field="status",
        )
    survey.status = Survey.Status.CLOSED
    survey.save(update_fields=["status", "updated_at"])
    return survey


# --- questions ----------------------------------------------------------------------------


@transaction.atomic
def question_add(*, survey, text, required=True) -> Question:
    survey = Survey.objects.select_for_update().get(pk=survey.pk)
    _ensure_not_frozen(survey)
    text = _clean_text("text", text, max_length=1000)
    required = clean_required(required)
    if survey.questions.count() >= MAX_QUESTIONS:
        raise ValidationError({"text": [_("At most %(max)d questions.") % {"max": MAX_QUESTIONS}]})
    _ensure_owner_room(owner=survey.owner, field="text", questions=1)
    last = survey.questions.aggregate(last=Max("position"))["last"]
    question = Question.objects.create(
        survey=survey, position=0 if last is None else last + 1, text=text, required=required
    )
    pilot_design_refresh(survey_id=survey.pk)
    return question


@transaction.atomic
def questions_add(*, survey, texts, required=True) -> list[Question]:
    """Append several questions (the builder's add box, one per line): all or none.

    Each text is checked as :func:`question_add` checks one; the survey's and the account's
    question limits count them all before anything is stored."""
    survey = Survey.objects.select_for_update().get(pk=survey.pk)
    _ensure_not_frozen(survey)
    required = clean_required(required)
    if isinstance(texts, str | bytes) or not isinstance(texts, Iterable):
        raise ValidationError({"text": [_("Must be a list of questions.")]})
    cleaned = []
    for line, text in enumerate(texts, start=1):
        try:
            cleaned.append(_clean_text("text", text, max_length=1000))
        except ValidationError as exc:
            message = exc.message_dict["text"][0]
            raise ValidationError(
                {"text": [_("Line %(line)d: %(error)s") % {"line": line, "error": message}]}
            ) from exc
    if not cleaned:
        raise ValidationError({"text": [_("This field may not be blank.")]})
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
    _ensure_owner_room(owner=survey.owner, field="text", questions=len(cleaned))
    last = survey.questions.aggregate(last=Max("position"))["last"]
    first = 0 if last is None else last + 1
    added = Question.objects.bulk_create(
        [
            Question(survey=survey, position=first + offset, text=text, required=required)
            for offset, text in enumerate(cleaned)
        ]
    )
    pilot_design_refresh(survey_id=survey.pk)
    return added


@transaction.atomic
def question_update(*, question, text, required=None) -> Question:
    """Change the text, and ``required`` unless it is None."""
    _ensure_not_frozen(Survey.objects.select_for_update().get(pk=question.survey_id))
    question.text = _clean_text("text", text, max_length=1000)
    if required is not None:
        question.required = clean_required(required)
    question.save(update_fields=["text", "required"])
    pilot_design_refresh(survey_id=question.survey_id)
    return question


@transaction.atomic
def question_delete(*, question) -> None:
    _ensure_not_frozen(Survey.objects.select_for_update().get(pk=question.survey_id))
    question.delete()
    pilot_design_refresh(survey_id=question.survey_id)


@transaction.atomic
def question_move(*, question, offset: int) -> None:
    """Move a question ``offset`` places up (negative) or down, renumbering positions 0..n-1."""
    survey = Survey.objects.select_for_update().get(pk=question.survey_id)
    _ensure_not_frozen(survey)
    ordered = list(survey.questions.all())
    index = next(i for i, q in enumerate(ordered) if q.pk == question.pk)
    target = max(0, min(len(ordered) - 1, index + offset))
    ordered.insert(target, ordered.pop(index))
    for position, item in enumerate(ordered):
        item.position = position
    Question.objects.bulk_update(ordered, ["position"])
    pilot_design_refresh(survey_id=survey.pk)


# --- responses ----------------------------------------------------------------------------


def _clean_submission_id(value):
    if isinstance(value, uuid.UUID):
        return value
    if not isinstance(value, str):
        raise ValidationError({"submission_id": [_("Must be a UUID string.")]})
    try:
        return uuid.UUID(value)
    except ValueError:
        raise ValidationError(
            {"submission_id": [_("Must be a UUID, got %(v)r.") % {"v": value[:64]}]}
        ) from None


def _clean_fingerprint(value):
    if value is None:
        return None
    if not isinstance(value, str) or not 0 < len(value) <= 64:
        message = _("Must be the design_fingerprint of the survey's definition.")
        raise ValidationError({"design_fingerprint": [message]})
    return value


def _answer_bits(answers):
    """``{question id: bit}`` from what the client sent, checking only its shape."""
    if not isinstance(answers, Mapping):
        raise ValidationError(
            {"answers": [_("Must be an object mapping question id to true/false.")]}
        )
    bits = {}
    for key, value in answers.items():
        try:
            question_id = int(key)
        except (TypeError, ValueError):
            question_id = None
        if (
            question_id is None
            or str(question_id) != str(key).strip()
            or not ID_MIN <= question_id <= ID_MAX
        ):
            raise ValidationError(
                {
                    "answers": [
                        _("%(k)r is not a question id of this survey.") % {"k": str(key)[:32]}
                    ]
                }
            )
        if not isinstance(value, bool):
            raise ValidationError(
                {
                    "answers": [
                        _("Answer to question %(k)s must be true or false.") % {"k": question_id}
                    ]
                }
            )
        bits[question_id] = value
    return bits


def _clean_answers(answers, question_ids, required=frozenset()):
    """``{question id: bit}``: only the survey's ``question_ids``, every ``required`` one."""
    cleaned = _answer_bits(answers)
    unknown = cleaned.keys() - question_ids
    if unknown:
        raise ValidationError(
            {
                "answers": [
                    _("%(k)r is not a question id of this survey.") % {"k": str(min(unknown))[:32]}
                ]
            }
        )
    missing = required - cleaned.keys()
    if missing:
        # Named one by one (``answers.<id>``); an optional question left out is no error.
        message = _("This question is required; the submission has no answer to it.")
        raise ValidationError({f"answers.{qid}": [message] for qid in sorted(missing)})
    return cleaned


def _group_choices(groups):
    """``{grouping question id: option id}`` from what the client sent, checking only its shape
    (every key and value a whole number as ``_clean_group_key`` reads them, or the value
    ``PREFER_NOT_TO_SAY``, read as None), or None."""
    if groups is None:
        return {}
    if not isinstance(groups, Mapping):
        return None
    chosen = {}
    for key, value in groups.items():
        try:
            grouping_id = int(key)
        except (TypeError, ValueError):
            return None
        if str(grouping_id) != str(key).strip():
            return None
        if isinstance(value, int) and not isinstance(value, bool):
            chosen[grouping_id] = value
        elif value == PREFER_NOT_TO_SAY:
            chosen[grouping_id] = None
        elif isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
            chosen[grouping_id] = int(value.strip())
        else:
            return None
    return chosen


@dataclass(frozen=True)
class _CleanSubmission:
    submission_uuid: uuid.UUID
    answers: dict  # {question id: randomized bit}; optional questions left out are absent
    groups: dict  # {grouping question id: option id, or None for "Prefer not to say"}
    fingerprint: str | None

    def outcome(self, *, created):
        return SubmissionOutcome(
            self.submission_uuid, created=created, questions_answered=len(self.answers)
        )


def _one_statement():
    # settings.SUBMISSION_STATEMENT=False stores through the ORM transaction instead: the
    # benchmark's "ORM only" row, and a way out should the SQL ever misbehave.
    return submission_statement.supported() and settings.SUBMISSION_STATEMENT


def submission_receive(
    *, slug, submission_id, answers, groups=None, design_fingerprint=None
) -> SubmissionOutcome:
    """A respondent's submission to the survey at ``slug``, as the public endpoint receives it.

    The one owner of the submission path. It stores at most once per request, one of two ways:
    SQL that checks every rule of ``submission_validate`` as it writes (``submission_statement``:
    one statement on PostgreSQL, one short transaction on SQLite), tried first, before anything
    is read; or, with ``SUBMISSION_STATEMENT`` off, the survey is read, the submission
    validated and stored in one ORM transaction. When the SQL stores nothing (no such survey,
    not open, wrong answers, another design, a replay), the survey is read only to explain why,
    with the error that names the field, or to answer the replay as the first time; nothing is
    stored then.
    """
    # The SQL is tried first when it can be (nothing read before it); once it has run, the
    # survey is read only to explain why it stored nothing, never to store a second time.
    finish = _submission_store
    if _one_statement():
        shaped = _submission_shape(
            submission_id=submission_id,
            answers=answers,
            groups=groups,
            design_fingerprint=design_fingerprint,
        )
        if shaped is not None and is_slug(slug):
            if _statement_store(slug=slug, clean=shaped):
                return shaped.outcome(created=True)
            finish = _submission_explain
    return finish(
        target=selectors.submission_target(slug=slug),
        submission_id=submission_id,
        answers=answers,
        groups=groups,
        design_fingerprint=design_fingerprint,
    )


def submission_record(
    *, survey, submission_id, answers, groups=None, inputs=None, design_fingerprint=None
) -> SubmissionOutcome:
    """Store one respondent's randomized answers, all or nothing, idempotent on submission_id.

    ``answers`` maps question id to the *randomized* bit the respondent's browser drew. A
    replayed submission id stores nothing new and reports the first outcome again, so a
    client may retry safely after a timeout or a crashed worker. ``groups`` maps grouping
    question id to the chosen option id, exactly as the respondent gave it (not randomized).
    ``inputs`` is the survey's ``(question ids, grouping options)`` when the caller already
    read them (every question and grouping question then counts as required); otherwise they
    are read here. Stored the way ``submission_receive`` stores.
    """
    if inputs is None:
        target = selectors.submission_target(slug=survey.slug)
    else:
        question_ids, options = inputs
        target = selectors.SubmissionTarget(
            survey_id=survey.pk,
            slug=survey.slug,
            status=survey.status,
            design_fingerprint=survey.design_fingerprint,
            question_ids=frozenset(question_ids),
            options={gid: frozenset(oids) for gid, oids in options.items()},
            required_questions=frozenset(question_ids),
            required_groupings=frozenset(options),
            opens_at=survey.opens_at,
            closes_at=survey.closes_at,
        )
    return _submission_store(
        target=target,
        submission_id=submission_id,
        answers=answers,
        groups=groups,
        design_fingerprint=design_fingerprint,
    )


def _submission_shape(*, submission_id, answers, groups, design_fingerprint):
    """The submission with every value of the right type, or None (validation will say why)."""
    try:
        clean = _CleanSubmission(
            submission_uuid=_clean_submission_id(submission_id),
            answers=_answer_bits(answers),
            groups=_group_choices(groups),
            fingerprint=_clean_fingerprint(design_fingerprint),
        )
    except ValidationError:
        return None
    return clean if clean.groups is not None else None


def submission_validate(
    *, target, submission_id, answers, groups, design_fingerprint
) -> _CleanSubmission | SubmissionOutcome:
    """The rules a submission must pass, stated once (``submission_statement`` checks the same
    in SQL): the survey is open; the answers are to its questions, each a bit, every required
    one answered (an optional one may be left out: no key at all); the groups are to its
    grouping questions, every required one answered, each with one of that question's option
    ids or ``PREFER_NOT_TO_SAY``; the design it was
    randomized with, if named, is the survey's. Raises the error that names the field, or
    returns the outcome of an earlier submission with this id (a replay answers as the first
    time did, even if the survey closed or the body is no longer valid since)."""
    submission_uuid = _clean_submission_id(submission_id)
    phase = schedule.phase(
        status=target.status,
        opens_at=target.opens_at,
        closes_at=target.closes_at,
        now=timezone.now(),
    )
    if phase not in schedule.Phase.ACCEPTING:
        replay = _replay_outcome(target.survey_id, submission_uuid)
        if replay is None:
            raise SurveyNotAcceptingResponses(_not_accepting_message(phase, target))
        return replay
    try:
        fingerprint = _clean_fingerprint(design_fingerprint)
        cleaned = _clean_answers(answers, target.question_ids, target.required_questions)
        chosen = _clean_groups(groups, options=target.options, required=target.required_groupings)
        if fingerprint is not None and fingerprint != target.design_fingerprint:
            raise DesignChanged(
                _(
                    "This survey's design is not the one your page randomized with. Please "
                    "reload the page; nothing was stored."
                ),
                field="design_fingerprint",
            )
    except (ValidationError, DesignChanged):
        replay = _replay_outcome(target.survey_id, submission_uuid)
        if replay is None:
            raise
        return replay
    return _CleanSubmission(submission_uuid, cleaned, chosen, fingerprint)


def _not_accepting_message(phase, target):
    if phase == schedule.Phase.SCHEDULED:
        return _("This survey opens on %(when)s; it does not accept responses before then.") % {
            "when": _moment(target.opens_at)
        }
    if phase == schedule.Phase.ENDED:
        return _("This survey closed on %(when)s and no longer accepts responses.") % {
            "when": _moment(target.closes_at)
        }
    if phase == schedule.Phase.CLOSED:
        return _("This survey is closed and no longer accepts responses.")
    return _("This survey is not open for responses yet.")


def _moment(value):
    # UTC, named as such: the API answers people in every time zone.
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def _submission_store(*, target, **body) -> SubmissionOutcome:
    """Validate, then store once: by the statement or by the ORM transaction."""
    clean = submission_validate(target=target, **body)
    if isinstance(clean, SubmissionOutcome):
        return clean
    if _one_statement():
        stored = _statement_store(slug=target.slug, clean=clean)
    else:
        stored = _orm_store(survey_id=target.survey_id, clean=clean)
    if stored:
        return clean.outcome(created=True)
    return _not_stored(survey_id=target.survey_id, clean=clean)


def _submission_explain(*, target, **body) -> SubmissionOutcome:
    """Why the statement stored nothing: an error naming the field, or the replay's outcome."""
    clean = submission_validate(target=target, **body)
    if isinstance(clean, SubmissionOutcome):
        return clean
    return _not_stored(survey_id=target.survey_id, clean=clean)


def _not_stored(*, survey_id, clean):
    # Most often a replay: this id (or a concurrent retry with it) was stored before, whole.
    replay = _replay_outcome(survey_id, clean.submission_uuid)
    if replay is not None:
        return replay
    # Otherwise the survey changed between the read and the store (a database shell, or a
    # status change in between).
    raise SurveyConflict(_("The survey changed while you were answering. Please reload the page."))


def _statement_store(*, slug, clean) -> bool:
    stored = submission_statement.submission_insert(
        slug=slug,
        shard=tally_shard_pick(),
        submission_uuid=clean.submission_uuid,
        received_on=timezone.now().date(),
        answers=clean.answers,
        groups=clean.groups,
        design_fingerprint=clean.fingerprint,
        now=timezone.now(),
    )
    if stored is None:
        return False
    if stored.group_tallies_incomplete:
        # Tally rows are created when the survey opens; some were missing (a survey opened
        # before that, or rows removed): recount from the stored rows, this submission included.
        group_tallies_rebuild(survey=Survey.objects.get(pk=stored.survey_id))
    return True


def _orm_store(*, survey_id, clean) -> bool:
    """The submission in one ORM transaction (SQLite, or the statement switched off)."""
    try:
        with transaction.atomic():
            # Reports name questions, no foreign key would notice one deleted since validation,
            # nor a required one added (a database shell: the design is frozen once open).
            questions = dict(
                Question.objects.filter(survey_id=survey_id).values_list("id", "required")
            )
            if not clean.answers.keys() <= questions.keys() or any(
                required and qid not in clean.answers for qid, required in questions.items()
            ):
                return False
            submission = Submission.objects.create(
                survey_id=survey_id,
                submission_id=clean.submission_uuid,
                received_on=timezone.now().date(),
                reports={question_key(qid): bit for qid, bit in clean.answers.items()},
            )
            if clean.groups:
                _record_group_answers(
                    survey_id=survey_id,
                    submission=submission,
                    answers=clean.answers,
                    chosen=clean.groups,
                )
            _tallies_add(
                survey_id,
                responses=1,
                reports={qid: (1, int(bit)) for qid, bit in clean.answers.items()},
                shard=tally_shard_pick(),
            )
    except IntegrityError:  # this id is stored already (a replay, or a concurrent retry)
        return False
    return True


def _tallies_add(survey_id, *, responses, reports, shard=0):
    """Add ``responses`` responses and, per question id, ``(reports, yes reports)``, to one of
    the survey's tally shards, inside the caller's transaction.

    The row is read FOR UPDATE, so concurrent transactions on the same shard add up instead of
    overwriting each other's counts (on SQLite the transaction already holds the database's
    write lock). It is created first if missing, ignoring a concurrent creation.
    """
    TallyShard.objects.bulk_create(
        [TallyShard(survey_id=survey_id, shard=shard)], ignore_conflicts=True
    )
    tally = TallyShard.objects.select_for_update().get(survey_id=survey_id, shard=shard)
    for question_id, (added, added_yes) in reports.items():
        key = question_key(question_id)
        have, have_yes = tally.reports.get(key, (0, 0))
        tally.reports[key] = [have + added, have_yes + added_yes]
    tally.responses += responses
    tally.save(update_fields=["responses", "reports"])


def tally_shard_pick():
    """The shard a submission adds to: any, at random (not a secret; spreads row locks)."""
    return random.randrange(TALLY_SHARDS)


def _replay_outcome(survey_id, submission_uuid):
    """The outcome of the submission stored earlier with this id, or None if there is none."""
    stored = Submission.objects.filter(survey_id=survey_id, submission_id=submission_uuid).first()
    if stored is None:
        return None
    return SubmissionOutcome(submission_uuid, created=False, questions_answered=len(stored.reports))


@transaction.atomic
def simulated_submissions_record(
    *, survey, reports, options=None, received_on=None, batch_size=5000
) -> int:
    """Bulk-store simulated submissions: randomized reports, plus grouping answers if any.

    ``reports`` is an n × questions boolean array whose rows already went through the coins
    (dpengine's ``simulate_reports``), so they are stored exactly as a browser would have sent
    them. ``options`` (n × grouping questions option ids) is required when the survey has
    grouping questions. For demos, tests and benchmarks; tallies are updated once at the end.
    """
    questions = list(survey.questions.all())
    grouping = list(survey.grouping_questions.prefetch_related("options"))
    if reports.ndim != 2 or reports.shape[1] != len(questions):
        raise ValidationError(
            {"reports": [f"Expected an n × {len(questions)} array, got shape {reports.shape}."]}
        )
    total = int(reports.shape[0])
    options = [] if options is None else [list(row) for row in options]
    if grouping and (len(options) != total or any(len(row) != len(grouping) for row in options)):
        raise ValidationError(
            {"options": [f"Expected {total} rows of {len(grouping)} option ids."]}
        )
    if options and not grouping:
        raise ValidationError({"options": ["This survey has no grouping questions."]})
    allowed = [{option.pk for option in gq.options.all()} for gq in grouping]
    for row in options:
        for valid, option_id in zip(allowed, row, strict=True):
            if option_id not in valid:
                raise ValidationError({"options": [f"{option_id!r} is not an option here."]})
    received_on = received_on or timezone.now().date()
    keys = [question_key(question.pk) for question in questions]
    for start in range(0, total, batch_size):
        chunk = reports[start : start + batch_size]
        submissions = Submission.objects.bulk_create(
            Submission(
                survey=survey,
                submission_id=uuid.uuid4(),
                received_on=received_on,
                reports=dict(zip(keys, map(bool, row), strict=True)),
            )
            for row in chunk
        )
        if grouping:
            GroupAnswer.objects.bulk_create(
                (
                    GroupAnswer(submission=submission, grouping_question=gq, option_id=int(option))
                    for submission, row in zip(
                        submissions, options[start : start + batch_size], strict=True
                    )
                    for gq, option in zip(grouping, row, strict=True)
                ),
                batch_size=batch_size,
            )
    yes_totals = reports.sum(axis=0)
    _tallies_add(
        survey.pk,
        responses=total,
        reports={
            question.pk: (total, int(yes))
            for question, yes in zip(questions, yes_totals, strict=True)
        },
    )
    if grouping:
        group_tallies_rebuild(survey=survey)
    return total


# --- grouping answers (sent as given, not randomized; see surveys/grouping.py) -------------


def _clean_group_key(key, value, options):
    """``(grouping question id, option id)`` from one entry of the ``groups`` object."""
    try:
        grouping_id = int(key)
    except (TypeError, ValueError):
        grouping_id = None
    if grouping_id not in options or str(grouping_id) != str(key).strip():
        raise ValidationError(
            {
                "groups": [
                    _("%(k)r is not a grouping question id of this survey.") % {"k": str(key)[:32]}
                ]
            }
        )
    option_id = None
    if value == PREFER_NOT_TO_SAY:
        return grouping_id, None
    if isinstance(value, int) and not isinstance(value, bool):
        option_id = value
    elif isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        option_id = int(value.strip())
    if option_id not in options[grouping_id]:
        raise ValidationError(
            {
                "groups": [
                    _(
                        "The answer to grouping question %(k)s must be one of its option ids "
                        "or “%(decline)s”."
                    )
                    % {"k": grouping_id, "decline": PREFER_NOT_TO_SAY}
                ]
            }
        )
    return grouping_id, option_id


def _clean_groups(groups, *, options, required=frozenset()):
    """``{grouping question id: option id or None}``: every ``required`` grouping question
    answered, nothing but the survey's; None is "Prefer not to say".

    ``options`` is ``{grouping question id: {option ids}}`` (``SubmissionTarget.options``).
    """
    if groups is None:
        groups = {}
    if not isinstance(groups, Mapping):
        raise ValidationError(
            {"groups": [_("Must be an object mapping grouping question id to option id.")]}
        )
    if groups and not options:
        raise ValidationError({"groups": [_("This survey has no grouping questions.")]})
    chosen = dict(_clean_group_key(key, value, options) for key, value in groups.items())
    missing = required - chosen.keys()
    if missing:
        message = _(
            "This grouping question is required; answer it with one of its option ids or "
            "“%(decline)s”."
        ) % {"decline": PREFER_NOT_TO_SAY}
        raise ValidationError({f"groups.{gid}": [message] for gid in sorted(missing)})
    return chosen


def _record_group_answers(*, survey_id, submission, answers, chosen):
    """Store the chosen options and add the submission to the per-(question, option) tallies.

    A "Prefer not to say" (option None) is stored and counted on its grouping question, and
    is in no option's tallies: it is missing for breakdowns, not a group of its own."""
    GroupAnswer.objects.bulk_create(
        GroupAnswer(submission=submission, grouping_question_id=gid, option_id=oid)
        for gid, oid in chosen.items()
    )
    declined = [gid for gid, oid in chosen.items() if oid is None]
    if declined:
        GroupingQuestion.objects.filter(id__in=declined).update(
            declined_count=F("declined_count") + 1
        )
    options = [oid for oid in chosen.values() if oid is not None]
    GroupingOption.objects.filter(id__in=options).update(respondent_count=F("respondent_count") + 1)
    yes_ids = [qid for qid, bit in answers.items() if bit]
    updated = GroupTally.objects.filter(question_id__in=answers, option_id__in=options).update(
        report_count=F("report_count") + 1,
        yes_count=F("yes_count")
        + Case(When(question_id__in=yes_ids, then=Value(1)), default=Value(0)),
    )
    if updated != len(answers) * len(options):
        # Rows missing (created when the survey opens, so: a survey opened before they were,
        # or rows removed): recount from the stored rows, this submission included.
        group_tallies_rebuild(survey=Survey.objects.get(pk=survey_id))


def group_tallies_ensure(*, survey):
    """Create the zero tally row of every (question, grouping option) pair that lacks one."""
    question_ids = list(survey.questions.values_list("id", flat=True))
    option_ids = list(
        GroupingOption.objects.filter(grouping_question__survey=survey).values_list("id", flat=True)
    )
    GroupTally.objects.bulk_create(
        (GroupTally(question_id=qid, option_id=oid) for qid in question_ids for oid in option_ids),
        ignore_conflicts=True,
    )


@transaction.atomic
def group_tallies_rebuild(*, survey):
    """Recount every per-(question, option) tally and option count from the stored rows."""
    question_ids = list(survey.questions.values_list("id", flat=True))
    # Per option, one pair of counts per question (reports, yes reports), in one query.
    aggregates = {}
    for qid in question_ids:
        key = question_key(qid)
        aggregates[f"n_{qid}"] = Count("id", filter=Q(submission__reports__has_key=key))
        aggregates[f"yes_{qid}"] = Count("id", filter=Q(**{f"submission__reports__{key}": True}))
    counts = (
        GroupAnswer.objects.filter(submission__survey=survey)
        .values("option_id")
        .annotate(**aggregates)
    )
    found = {
        (qid, row["option_id"]): (row[f"n_{qid}"], row[f"yes_{qid}"])
        for row in counts
        for qid in question_ids
    }
    options = list(GroupingOption.objects.filter(grouping_question__survey=survey))
    GroupTally.objects.filter(option__in=options).delete()
    GroupTally.objects.bulk_create(
        GroupTally(
            question_id=qid,
            option=option,
            report_count=found.get((qid, option.pk), (0, 0))[0],
            yes_count=found.get((qid, option.pk), (0, 0))[1],
        )
        for qid in question_ids
        for option in options
    )
    respondents = dict(
        GroupAnswer.objects.filter(submission__survey=survey)
        .values_list("option_id")
        .annotate(n=Count("id"))
    )
    for option in options:
        option.respondent_count = respondents.get(option.pk, 0)
    GroupingOption.objects.bulk_update(options, ["respondent_count"])
    declined = dict(
        GroupAnswer.objects.filter(submission__survey=survey, option__isnull=True)
        .values_list("grouping_question_id")
        .annotate(n=Count("id"))
    )
    grouping_questions = list(GroupingQuestion.objects.filter(survey=survey))
    for grouping_question in grouping_questions:
        grouping_question.declined_count = declined.get(grouping_question.pk, 0)
    GroupingQuestion.objects.bulk_update(grouping_questions, ["declined_count"])
