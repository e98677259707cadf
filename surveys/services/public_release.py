"""The public results page's writes: the owner's settings, and the releases made on schedule.

What a release holds, when it is made and how much ε it spends is explained in
``surveys.selectors.public_results``, which reads the releases this module makes. A page
view asks for the releases due (``public_results_release``) before it reads them; the
command ``manage.py public_releases`` makes them for every published survey
(``public_releases_make``).
"""

from dataclasses import dataclass
from datetime import UTC, datetime, time
from fractions import Fraction

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

import dpengine

from .. import limits
from ..models import DayTally, PublicRelease, Survey
from ..selectors.public_results import (
    RESPONDENTS,
    ReleaseSchedule,
    count_keys,
    noisy_counts,
    release_schedule,
    release_today,
    utc_today,
)

# --- settings (write) ---------------------------------------------------------------------


def _check_number(field, value, low, high, *, integer):
    kinds = int if integer else int | float
    if isinstance(value, bool) or not isinstance(value, kinds) or not low <= value <= high:
        raise ValidationError(
            {
                field: [
                    _("Must be a number from %(min)s to %(max)s, got %(v)r.")
                    % {"min": low, "max": high, "v": value}
                ]
            }
        )


@transaction.atomic
def public_results_update(
    *, survey, enabled, epsilon, release_days=None, releases=None, today=None
) -> Survey:
    """Turn the public page on or off; set its lifetime epsilon, interval and number of releases.

    ``release_days`` and ``releases`` default to the survey's current values. See the module
    docstring for when they may change.
    """
    if not isinstance(enabled, bool):
        raise ValidationError({"public_results": [_("Must be true or false.")]})
    _check_number(
        "public_epsilon",
        epsilon,
        limits.PUBLIC_EPSILON_MIN,
        limits.PUBLIC_EPSILON_MAX,
        integer=False,
    )
    survey = Survey.objects.select_for_update().get(pk=survey.pk)
    release_days = survey.public_release_days if release_days is None else release_days
    releases = survey.public_releases_max if releases is None else releases
    _check_number(
        "public_release_days",
        release_days,
        limits.PUBLIC_RELEASE_DAYS_MIN,
        limits.PUBLIC_RELEASE_DAYS_MAX,
        integer=True,
    )
    _check_number(
        "public_releases_max",
        releases,
        limits.PUBLIC_RELEASES_MIN,
        limits.PUBLIC_RELEASES_MAX,
        integer=True,
    )
    today = today or utc_today()
    changed = [
        field
        for field, new in [
            ("public_epsilon", float(epsilon)),
            ("public_release_days", release_days),
            ("public_releases_max", releases),
        ]
        if getattr(survey, field) != new
    ]
    if changed and survey.public_releases.exists():
        if survey.response_count > 0:
            raise ValidationError(
                {
                    field: [
                        _(
                            "Cannot change once results from responses have been published: "
                            "the budget is already being spent on this schedule."
                        )
                    ]
                    for field in changed
                }
            )
        survey.public_releases.all().delete()  # they hold nobody's data: start again
        survey.public_started_on = None
    survey.public_results = enabled
    survey.public_epsilon = float(epsilon)
    survey.public_release_days = release_days
    survey.public_releases_max = releases
    if enabled and survey.public_started_on is None:
        survey.public_started_on = today
    survey.save(
        update_fields=[
            "public_results",
            "public_epsilon",
            "public_release_days",
            "public_releases_max",
            "public_started_on",
            "updated_at",
        ]
    )
    return survey


# --- releases (a write made lazily by the page, or by manage.py public_releases) ----------


def _increments(survey, schedule, steps) -> dict[str, list[int]]:
    """Exact per-period counts for periods ``1..steps``: period ``k`` is the submissions
    received before release ``k``'s date and not before release ``k - 1``'s (a batched
    survey's: released). Read from the day tallies kept as submissions arrive
    (``models.DayTally``, released submissions only, a batch on its release's day):
    a few rows per day, whatever the number of responses."""
    end = schedule.release_on(steps)
    increments = {}
    for day, counts in DayTally.objects.filter(survey=survey, day__lt=end).values_list(
        "day", "counts"
    ):
        period = max((day - schedule.started_on).days, 0) // schedule.every_days
        for key, n in counts.items():
            increments.setdefault(key, [0] * steps)[period] += n
    return increments


@dataclass(frozen=True)
class _Counted:
    """The exact per-period counts of releases ``1..due``, and what they were counted for:
    read before the survey's lock is taken, used under it only if nothing they depend on
    changed in between."""

    schedule: ReleaseSchedule
    due: int
    keys: tuple[list[str], list[str]]
    increments: dict[str, list[int]]


def _count(survey, schedule, due) -> _Counted:
    return _Counted(schedule, due, count_keys(survey=survey), _increments(survey, schedule, due))


def _make_due_releases(survey, schedule, due, rng, counted) -> None:
    latest = survey.public_releases.order_by("-step").values_list("step", flat=True).first() or 0
    if due <= latest:
        return
    if (counted.schedule, counted.due, counted.keys) != (schedule, due, count_keys(survey=survey)):
        # The settings changed since the counts were read (or more releases are due now):
        # count again, under the lock this time, which happens at most once per change.
        counted = _count(survey, schedule, due)
    _questions, keys = counted.keys
    increments = counted.increments
    m = noisy_counts(survey=survey)
    nodes = {key: {} for key in keys}
    for stored in survey.public_releases.values_list("nodes", flat=True):
        for key, values in stored.items():
            nodes.setdefault(key, {}).update(values)
    # Exact rational epsilon (the float as the decimal it prints), split over the m counts.
    per_count = Fraction(repr(float(survey.public_epsilon))) / m
    counts = {step: {} for step in range(latest + 1, due + 1)}
    drawn = {step: {} for step in counts}
    for key in keys:
        result = dpengine.continual_counts(
            increments.get(key, [0] * due),
            horizon=schedule.releases,
            epsilon=per_count,
            nodes=nodes[key],
            rng=rng,
        )
        for step in counts:
            counts[step][key] = result.counts[step - 1]
        for node_key in result.drawn:
            # A node is first needed by the release at its last step (or, for a count new
            # since then, by the first release made now): it is stored with that release.
            level, index = map(int, node_key.split(":"))
            step = max(dpengine.TreeNode(level, index).last, latest + 1)
            drawn[step].setdefault(key, {})[node_key] = result.nodes[node_key]
    respondents = increments.get(RESPONDENTS, [0] * due)
    for step in counts:
        PublicRelease.objects.create(
            survey=survey,
            step=step,
            released_at=datetime.combine(schedule.release_on(step), time(), tzinfo=UTC),
            epsilon=survey.public_epsilon,
            source_count=sum(respondents[:step]),
            counts=counts[step],
            nodes=drawn[step],
        )


def public_results_release(*, survey, today=None, rng=None) -> PublicRelease | None:
    """The latest release, after making the releases due by ``today`` (None before the first;
    by default the day ``release_today`` allows, which waits a few minutes past midnight)."""
    today = today or release_today()
    schedule = release_schedule(survey=survey)
    # A pilot's responses are discarded at the real opening: nothing of them is ever released.
    stopped = (Survey.Status.CLOSED, Survey.Status.PILOT)
    due = 0 if survey.status in stopped else schedule.due(today)
    latest = survey.public_releases.first()
    if due > (latest.step if latest else 0):
        # The day counts are read first, without the survey's lock: submissions to the survey
        # need not wait for it. They count only days before the release's date, which no
        # submission changes any more (``release_today`` waited for those still committing).
        counted = _count(survey, schedule, due)
        with transaction.atomic():
            # The lock serializes release makers and settings changes (public_results_update
            # takes FOR UPDATE). NO KEY: a submission's row only references the survey (it
            # takes KEY SHARE), so it never waits for this lock.
            survey = Survey.objects.select_for_update(no_key=True).get(pk=survey.pk)
            schedule = release_schedule(survey=survey)
            # A concurrent view may have made them first: this checks again under the lock.
            _make_due_releases(survey, schedule, schedule.due(today), rng, counted)
        latest = survey.public_releases.first()
    return latest


def public_releases_make(*, today=None, rng=None) -> int:
    """Make every due release of every published survey; how many surveys were looked at."""
    surveys = Survey.objects.filter(public_results=True, public_started_on__isnull=False)
    count = 0
    for survey in surveys.exclude(
        status__in=[Survey.Status.CLOSED, Survey.Status.PILOT]
    ).iterator():
        public_results_release(survey=survey, today=today, rng=rng)
        count += 1
    return count


def make_due_releases(*, survey, today=None, rng=None) -> PublicRelease | None:
    """The releases due, made when the survey's public page is on (a page turned off makes
    none): what the public page and its settings page ask for before they read."""
    if not survey.public_results:
        return None
    return public_results_release(survey=survey, today=today, rng=rng)
