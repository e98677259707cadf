"""Writes for a survey as a whole: create, edit, duplicate, trash, and its life from draft
through pilot and open to closed (the schedule: ``services.schedule``).

Every service either completes or raises ``django.core.exceptions.ValidationError`` (with a
``{field: [message]}`` dict naming the bad field) or a ``SurveyConflict`` (``services.errors``),
and in both cases nothing is stored half-way.
"""

from collections.abc import Mapping
from datetime import timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from .. import limits, selectors
from ..models import GroupingOption, Question, Survey
from .comprehension import comprehension_sync
from .errors import Reason, SurveyConflict
from .language_change import ensure_default_language_change
from .pilot import (
    clean_pilot_invitations,
    pilot_design_refresh,
    pilot_invitations_settle,
    pilot_responses_delete,
)
from .question_types import TYPE_FIELDS
from .questions import clean_question_specs, questions_create
from .tallies import group_tallies_ensure
from .token_keys import token_key_ensure
from .validation import (
    DESIGN_FIELDS,
    EDITABLE_SURVEY_FIELDS,
    clean_design,
    clean_survey_fields,
    ensure_not_frozen,
    ensure_owner_room,
    release_batch_clean,
)


def _consent_versioned(survey, text, *, now=None):
    """Set the consent text; a changed text is a new version, dated."""
    if text == survey.consent_text:
        return False
    survey.consent_text = text
    survey.consent_version += 1
    survey.consent_changed_at = now or timezone.now()
    return True


@transaction.atomic
def survey_create(*, owner, title, questions=(), **fields) -> Survey:
    cleaned = clean_survey_fields({"title": title, **fields})
    specs = clean_question_specs(questions)
    ensure_owner_room(owner=owner, field="questions", surveys=1, questions=len(specs))
    consent_text = cleaned.pop("consent_text", "")
    survey = Survey(owner=owner, **cleaned)
    _consent_versioned(survey, consent_text)
    survey.save()
    questions_create(survey=survey, specs=specs)
    comprehension_sync(survey=survey)
    _token_key_if_invited(survey)
    return survey


def _token_key_if_invited(survey):
    # The key is made when invitations are first enabled, so that the definition publishes
    # it, unchanged from then on, on the first page a respondent could hold.
    if survey.access != Survey.Access.LINK:
        token_key_ensure(survey=survey)


@transaction.atomic
def survey_update(*, survey, data: Mapping, questions=None) -> Survey:
    """Update survey fields and, when ``questions`` is given, replace the question list."""
    survey = Survey.objects.select_for_update().get(pk=survey.pk)
    cleaned = clean_survey_fields(dict(data), current=survey)
    if "language" in cleaned:
        ensure_default_language_change(survey=survey, language=cleaned["language"])
    design_changes = {
        field
        for field in DESIGN_FIELDS
        if field in cleaned and cleaned[field] != getattr(survey, field)
    }
    consent_text = cleaned.pop("consent_text", survey.consent_text)
    if design_changes or questions is not None or consent_text != survey.consent_text:
        ensure_not_frozen(survey, field=min(design_changes) if design_changes else None)
    for field, value in cleaned.items():
        setattr(survey, field, value)
    _consent_versioned(survey, consent_text)
    survey.save()
    if questions is not None:
        specs = clean_question_specs(questions)
        ensure_owner_room(
            owner=survey.owner, field="questions", questions=len(specs), replacing=survey
        )
        survey.questions.all().delete()
        questions_create(survey=survey, specs=specs)
    _token_key_if_invited(survey)
    pilot_design_refresh(survey_id=survey.pk)
    return survey


@transaction.atomic
def survey_duplicate(*, survey) -> Survey:
    """A new draft with the survey's settings, coins, questions and grouping questions.

    The way to change a design once it is frozen: the copy has its own link (a new slug), no
    responses, and is not published on a public results page until its owner says so.
    """
    ensure_owner_room(
        owner=survey.owner, field="questions", surveys=1, questions=survey.questions.count()
    )
    settings_kept = {field: getattr(survey, field) for field in EDITABLE_SURVEY_FIELDS}
    settings_kept["title"] = (_("%(title)s (copy)") % {"title": survey.title})[
        : limits.TITLE_MAX_LENGTH
    ]
    consent_text = settings_kept.pop("consent_text")
    copy = Survey(
        owner=survey.owner,
        translations=survey.translations,
        time_zone=survey.time_zone,  # where its researcher lives; the schedule is not copied
        **settings_kept,
    )
    # The copy's consent text starts its own history (version 1), like its own link.
    _consent_versioned(copy, consent_text)
    copy.save()
    _copies(
        Question,
        survey.questions.all(),
        ("text", "required", *TYPE_FIELDS),
        survey=copy,
    )
    for grouping_question in survey.grouping_questions.prefetch_related("options"):
        options = list(grouping_question.options.all())
        grouping_question.pk, grouping_question.survey = None, copy
        grouping_question.save()
        _copies(GroupingOption, options, ("label",), grouping_question=grouping_question)
    comprehension_sync(survey=copy)
    # Its own key and no invitations: the copy is another study.
    _token_key_if_invited(copy)
    return copy


def _copies(model, rows, fields, **parent):
    """Store a copy of each of ``rows`` under ``parent``: its position, translations and
    ``fields``."""
    kept = ("position", "translations", *fields)
    model.objects.bulk_create(
        model(**parent, **{field: getattr(row, field) for field in kept}) for row in rows
    )


@transaction.atomic
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
def survey_open(*, survey, pilot_invitations=None) -> Survey:
    """Open for responses. The first opening freezes the design and records its fingerprint;
    a pilot's invitations are revoked then, or re-issued with new codes when
    ``pilot_invitations`` is ``"reissue"`` (``pilot.pilot_invitations_settle``)."""
    choice = clean_pilot_invitations(pilot_invitations)
    survey = Survey.objects.select_for_update().get(pk=survey.pk)
    fields = ["status", "updated_at", *freeze_for_opening(survey, pilot_invitations=choice)]
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
        raise SurveyConflict(
            _("Add at least one question before opening the survey."), reason=Reason.NO_QUESTIONS
        )
    # Coins saved before the ceiling existed (or before it was lowered) never reach a page.
    try:
        clean_design(p_truth=survey.p_truth, p_forced_yes=survey.p_forced_yes)
    except ValidationError as exc:
        field, problems = next(iter(exc.message_dict.items()))
        raise SurveyConflict(problems[0], reason=Reason.DESIGN_OUT_OF_BOUNDS, field=field) from None
    # Batches (services/batches.py) freeze with the design: too small a batch never opens.
    release_batch_clean(survey.release_batch, opening_access=survey.access)


def freeze_for_opening(survey, *, pilot_invitations="revoke") -> list[str]:
    """At the first opening for the real study, pilot responses go (and the pilot's
    invitations: revoked, or re-issued) and the design freezes; the names of the fields this
    set (none when the survey has been opened before)."""
    if survey.opened_at is not None:
        return []
    _ensure_openable(survey)
    if survey.status == Survey.Status.PILOT:
        pilot_responses_delete(survey=survey)
        pilot_invitations_settle(survey=survey, choice=pilot_invitations)
    survey.opened_at = timezone.now()
    # Named afresh, never the pilot's: every browser then drops its pilot memo and draws a new
    # submission id and new coins, so no pilot row (nor its export) shares an id with the study.
    survey.design_fingerprint = ""
    survey.design_fingerprint = selectors.survey_design_fingerprint(survey=survey, pilot=False)
    # The design is frozen from here, so every per-(question, option) tally row a
    # submission will count in exists from the start: a submission only adds to rows.
    group_tallies_ensure(survey=survey)
    return ["opened_at", "design_fingerprint", "public_started_on"]


@transaction.atomic
def survey_pilot_start(*, survey) -> Survey:
    """Let the real link take pilot responses, which are never counted: the design stays
    editable (after discarding them) and opening for the real study discards them."""
    survey = Survey.objects.select_for_update().get(pk=survey.pk)
    if survey.status != Survey.Status.DRAFT or survey.opened_at is not None:
        raise SurveyConflict(
            _("Only a draft that has never been open can become a pilot; this one is %(s)s.")
            % {"s": survey.get_status_display()},
            reason=Reason.WRONG_STATUS,
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
            reason=Reason.WRONG_STATUS,
            field="status",
        )
    return pilot_responses_delete(survey=survey)


@transaction.atomic
def survey_close(*, survey) -> Survey:
    survey = Survey.objects.select_for_update().get(pk=survey.pk)
    if survey.status == Survey.Status.PILOT:
        raise SurveyConflict(
            _(
                "A pilot is not closed: open it for the real study (its responses are then "
                "discarded) or discard its responses."
            ),
            reason=Reason.WRONG_STATUS,
            field="status",
        )
    survey.status = Survey.Status.CLOSED
    survey.save(update_fields=["status", "updated_at"])
    return survey
