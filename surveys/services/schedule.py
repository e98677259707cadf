"""When a survey takes responses: its status, and for an open survey the window
``[opens_at, closes_at)`` compared with the current time.

The phase is a read, never a write: the window holds at the second it says without any
background process. ``survey_schedule`` sets the window; ``manage.py apply_schedule``
(``schedule_apply``) only brings the stored status in line, so that lists, filters and
notifications that read ``status`` agree with what respondents see.
"""

from dataclasses import dataclass
from datetime import datetime

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from ..models import Survey
from .errors import Reason, SurveyConflict
from .surveys import freeze_for_opening
from .validation import clean_time_zone


class Phase:
    """What a respondent meets at the link now (``phase_of``)."""

    DRAFT = "draft"
    PILOT = "pilot"
    SCHEDULED = "scheduled"  # open, but before ``opens_at``
    OPEN = "open"
    ENDED = "ended"  # open, but at or after ``closes_at`` (the command has not run yet)
    CLOSED = "closed"

    ACCEPTING = (PILOT, OPEN)


def phase(*, status, opens_at, closes_at, now: datetime) -> str:
    if status == Survey.Status.PILOT:
        return Phase.PILOT  # a pilot takes responses whatever the schedule of the real study
    if status != Survey.Status.OPEN:
        return Phase.DRAFT if status == Survey.Status.DRAFT else Phase.CLOSED
    if opens_at is not None and now < opens_at:
        return Phase.SCHEDULED
    if closes_at is not None and now >= closes_at:
        return Phase.ENDED
    return Phase.OPEN


def phase_of(survey, *, now=None) -> str:
    return phase(
        status=survey.status,
        opens_at=survey.opens_at,
        closes_at=survey.closes_at,
        now=now or timezone.now(),
    )


def accepts_responses(survey, *, now=None) -> bool:
    return phase_of(survey, now=now) in Phase.ACCEPTING


@dataclass(frozen=True)
class ScheduleApplied:
    closed: int  # open surveys whose close time had passed, now stored as closed


@transaction.atomic
def schedule_apply(*, now=None) -> ScheduleApplied:
    """Store as closed every open survey whose ``closes_at`` has passed.

    Opening needs no write: a scheduled survey is stored open (its design frozen when it was
    scheduled) and starts taking responses at ``opens_at`` by itself.
    """
    now = now or timezone.now()
    closed = Survey.objects.filter(status=Survey.Status.OPEN, closes_at__lte=now).update(
        status=Survey.Status.CLOSED, updated_at=now
    )
    return ScheduleApplied(closed=closed)


def _ensure_times(survey, *, now, **times):
    """Every time given names its time zone; a changed one is in the future."""
    for field, value in times.items():
        if value is not None and (not hasattr(value, "tzinfo") or value.tzinfo is None):
            raise ValidationError({field: [_("Must be a date and time with a time zone.")]})
    for field, value in times.items():
        if value is not None and value != getattr(survey, field) and value <= now:
            raise ValidationError(
                {field: [_("Must be in the future, got %(v)s.") % {"v": value.isoformat()}]}
            )


@transaction.atomic
def survey_schedule(*, survey, opens_at, closes_at, time_zone=None, now=None) -> Survey:
    """Set when the survey takes responses: ``[opens_at, closes_at)``, either may be None,
    and (unless ``time_zone`` is None) the IANA zone in which the schedule is shown.

    Scheduling an opening opens the survey for the real study right away, frozen as any
    opening (pilot responses discarded): it will start taking responses without the researcher
    present, so its design cannot change in between. Before ``opens_at`` and from
    ``closes_at`` on it refuses responses (``phase``), with no process needed.
    """
    survey = Survey.objects.select_for_update().get(pk=survey.pk)
    now = now or timezone.now()
    if time_zone is not None:
        survey.time_zone = clean_time_zone(time_zone)
    _ensure_times(survey, now=now, opens_at=opens_at, closes_at=closes_at)
    if opens_at is not None and closes_at is not None and closes_at <= opens_at:
        raise ValidationError(
            {
                "closes_at": [
                    _("Must be after the opening time (%(open)s), got %(v)s.")
                    % {"open": opens_at.isoformat(), "v": closes_at.isoformat()}
                ]
            }
        )
    fields = ["opens_at", "closes_at", "time_zone", "updated_at"]
    if opens_at is not None and opens_at != survey.opens_at:
        if survey.status == Survey.Status.CLOSED or (
            survey.status == Survey.Status.OPEN and phase_of(survey, now=now) != Phase.SCHEDULED
        ):
            raise SurveyConflict(
                _("This survey has already opened; only its closing time can be scheduled."),
                reason=Reason.ALREADY_OPENED,
                field="opens_at",
            )
        fields += freeze_for_opening(survey)
        survey.status = Survey.Status.OPEN
        fields.append("status")
    survey.opens_at, survey.closes_at = opens_at, closes_at
    survey.save(update_fields=fields)
    return survey
