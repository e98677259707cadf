"""The opt-in public results page: estimates computed from counts released with noise.

Every number on the public page is computed from a *release*: the respondent count, the
yes-report count of each question and the respondent count of each grouping option, each
passed through dpengine's geometric (discrete Laplace) mechanism. One respondent joining or
leaving changes the respondent count by 1, each question's yes count by at most 1 and, per
grouping question, one option's count by 1: at most ``1 + Q + G`` counts, so each count gets
noise for ``epsilon / (1 + Q + G)`` and the whole release is ``epsilon``-differentially
private for participation (Dwork & Roth 2014, section 3.3). The estimates and intervals are
post-processing of the noisy counts, so they leak nothing more.

Why releases, not fresh noise per page view: noise re-drawn on every load could be averaged
away by reloading. A release is stored and shown to everybody until a new one is due: at most
one per ``RELEASE_INTERVAL``, and only when the data changed. Each release spends its epsilon
again (sequential composition), so the page shows how many releases there have been and their
total epsilon; a closed survey's data no longer change, so its last release stays forever.
"""

from dataclasses import dataclass
from datetime import datetime, timedelta
from fractions import Fraction

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Sum
from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext as _

import dpengine
from dpengine import Estimate

from .models import GroupingOption, PublicRelease, Survey, is_slug, question_key
from .selectors import survey_design

RELEASE_INTERVAL = timedelta(days=1)
EPSILON_MIN = 0.05
EPSILON_MAX = 10.0
RESPONDENTS = "respondents"


def _option_key(option_id):
    return f"o{option_id}"


# --- settings (write) ---------------------------------------------------------------------


@transaction.atomic
def public_results_update(*, survey, enabled, epsilon) -> Survey:
    """Turn the public page on or off and set the epsilon each release of its counts spends."""
    if not isinstance(enabled, bool):
        raise ValidationError({"public_results": [_("Must be true or false.")]})
    if (
        isinstance(epsilon, bool)
        or not isinstance(epsilon, int | float)
        or not EPSILON_MIN <= epsilon <= EPSILON_MAX
    ):
        raise ValidationError(
            {
                "public_epsilon": [
                    _("Must be a number from %(min)s to %(max)s, got %(v)r.")
                    % {"min": EPSILON_MIN, "max": EPSILON_MAX, "v": epsilon}
                ]
            }
        )
    survey = Survey.objects.select_for_update().get(pk=survey.pk)
    survey.public_results = enabled
    survey.public_epsilon = float(epsilon)
    survey.save(update_fields=["public_results", "public_epsilon", "updated_at"])
    return survey


# --- releases (a write made lazily by the page, at most once per interval) ----------------


def _exact_counts(survey) -> tuple[dict[str, int], int]:
    """The exact values to release, and how many of them one respondent can change."""
    counts = {RESPONDENTS: survey.response_count}
    for question_id in survey.questions.values_list("id", flat=True):
        counts[question_key(question_id)] = survey.tally(question_id)[1]
    grouping_ids = set()
    for option_id, grouping_id, respondents in GroupingOption.objects.filter(
        grouping_question__survey=survey
    ).values_list("id", "grouping_question_id", "respondent_count"):
        counts[_option_key(option_id)] = respondents
        grouping_ids.add(grouping_id)
    questions = sum(key.startswith("q") for key in counts)
    return counts, 1 + questions + len(grouping_ids)


def _is_current(release, survey, keys) -> bool:
    return (
        release.source_count == survey.response_count
        and set(release.counts) == keys
        and release.epsilon == survey.public_epsilon
    )


def _due(release, survey, keys, now) -> bool:
    if release is None:
        return True
    return not _is_current(release, survey, keys) and now - release.released_at >= RELEASE_INTERVAL


def public_results_release(*, survey, now=None, rng=None) -> PublicRelease:
    """The release to show now: the latest, or a new one when one is due (see the module)."""
    now = now or timezone.now()
    counts, sensitive = _exact_counts(survey)
    latest = survey.public_releases.first()
    if not _due(latest, survey, set(counts), now):
        return latest
    with transaction.atomic():
        survey = Survey.objects.select_for_update().get(pk=survey.pk)
        counts, sensitive = _exact_counts(survey)
        latest = survey.public_releases.first()
        if not _due(latest, survey, set(counts), now):
            return latest  # a concurrent view released first
        # Exact rational epsilon (the float as the decimal it prints), split evenly.
        per_count = Fraction(repr(float(survey.public_epsilon))) / sensitive
        noisy = {
            key: dpengine.geometric_mechanism(value, sensitivity=1, epsilon=per_count, rng=rng)
            for key, value in counts.items()
        }
        return PublicRelease.objects.create(
            survey=survey,
            released_at=now,
            epsilon=survey.public_epsilon,
            source_count=survey.response_count,
            counts=noisy,
        )


# --- the page (read) ----------------------------------------------------------------------


@dataclass(frozen=True)
class PublicRow:
    question_id: int
    position: int
    text: str
    estimate: Estimate
    suppressed: bool  # the released respondent count is below the survey's minimum n


@dataclass(frozen=True)
class PublicOption:
    label: str
    respondents: int  # noisy, clipped at 0


@dataclass(frozen=True)
class PublicGroup:
    text: str
    options: list[PublicOption]


@dataclass(frozen=True)
class PublicResults:
    survey: Survey
    released_at: datetime
    epsilon: float  # of this release, for all its counts together
    noisy_counts: int  # how many counts the release holds noise for (1 + Q + G)
    respondents: int  # noisy, clipped at 0
    rows: list[PublicRow]
    groups: list[PublicGroup]
    releases: int  # releases made so far
    epsilon_spent: float  # their total (sequential composition)
    next_release_earliest: datetime | None  # None when the data can no longer change

    @property
    def epsilon_per_count(self) -> float:
        return self.epsilon / self.noisy_counts


def public_results(*, slug, now=None, rng=None) -> PublicResults:
    """The public page of the survey with this slug; 404 unless its owner turned it on."""
    if not is_slug(slug):
        raise Http404("No such public results page.")
    try:
        survey = Survey.objects.get(slug=slug, public_results=True)
    except Survey.DoesNotExist:
        raise Http404("No such public results page.") from None
    now = now or timezone.now()
    release = public_results_release(survey=survey, now=now, rng=rng)
    counts = release.counts
    design = survey_design(survey=survey)
    n = max(counts.get(RESPONDENTS, 0), 0)
    rows = []
    for question in survey.questions.all():
        noisy_yes = counts.get(question_key(question.pk))
        yes = 0 if noisy_yes is None else min(max(noisy_yes, 0), n)
        released_n = 0 if noisy_yes is None else n
        rows.append(
            PublicRow(
                question_id=question.pk,
                position=question.position,
                text=question.text,
                estimate=dpengine.estimate(
                    yes=yes,
                    n=released_n,
                    design=design,
                    confidence=survey.confidence,
                    method=survey.ci_method,
                ),
                suppressed=released_n < max(survey.min_n, 1),
            )
        )
    grouping = list(survey.grouping_questions.prefetch_related("options"))
    groups = [
        PublicGroup(
            text=gq.text,
            options=[
                PublicOption(
                    label=option.label,
                    respondents=max(counts.get(_option_key(option.pk), 0), 0),
                )
                for option in gq.options.all()
            ],
        )
        for gq in grouping
    ]
    released_groupings = sum(
        any(_option_key(option.pk) in counts for option in gq.options.all()) for gq in grouping
    )
    totals = survey.public_releases.aggregate(spent=Sum("epsilon"))
    closed = survey.status == Survey.Status.CLOSED and release.source_count == (
        survey.response_count
    )
    return PublicResults(
        survey=survey,
        released_at=release.released_at,
        epsilon=release.epsilon,
        noisy_counts=1 + sum(key.startswith("q") for key in counts) + released_groupings,
        respondents=n,
        rows=rows,
        groups=groups,
        releases=survey.public_releases.count(),
        epsilon_spent=totals["spent"] or 0.0,
        next_release_earliest=None if closed else release.released_at + RELEASE_INTERVAL,
    )
