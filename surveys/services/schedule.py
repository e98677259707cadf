"""When a survey takes responses: its status, and for an open survey the window
``[opens_at, closes_at)`` compared with the current time.

A read, never a write: the window holds at the second it says without any background process.
``manage.py apply_schedule`` (``schedule_apply``) only brings the stored status in line, so that
lists, filters and notifications that read ``status`` agree with what respondents see.
"""

from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from .models import Survey


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
