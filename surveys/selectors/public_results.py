"""The opt-in public results page: estimates computed from counts released on a schedule.

What is released. Every number on the public page is computed from a *release*: the
respondent count, the yes-report count of each yes/no question (multiple-choice and numeric
questions are never released: they add no count) and the respondent count of each
grouping option, each noisy. One respondent joining or leaving changes the respondent count
by 1, each question's yes count by at most 1 and, per grouping question, one option's count
by 1: at most ``m = 1 + Q + G`` counts, so each count's stream gets ``epsilon / m`` (Dwork &
Roth 2014, section 3.3; the options of one grouping question are disjoint). An optional
question's reports are not one per respondent, so its report count is released too (one more
count per optional question: ``m = 1 + Q + Q_optional + G``), and its estimate uses that
noisy n, never the respondent count. The estimates and
intervals are post-processing of the noisy counts, so they leak nothing more.

When. Release ``k`` (``k = 1 .. T``) is dated ``public_started_on + k * public_release_days``
(UTC dates; the schedule starts the day the owner first turns the page on) and holds the
counts of the submissions received before that date (a batched survey's: released before it,
``services.batches``). Neither the dates nor the number of
releases depend on the data: a release happens whether or not anyone answered and whether
or not anyone looks (the page computes due releases when it is next viewed, or
``manage.py public_releases`` does; the content of release ``k`` depends only on the data
before its date, which can no longer change, and on noise drawn once). Under the old rule a
new release happened only when the count had changed, so its date alone told, without
noise, whether anyone had answered; and anyone could force one a day by answering, so the
total epsilon grew without bound and the noise averaged out.

How much. ``public_epsilon`` is the total for the page's whole lifetime. The ``T`` prefix
counts of each count's stream are released with the binary-tree mechanism
(``dpengine.continual_counts``; Chan, Shi & Song 2011; Dwork, Naor, Pitassi & Rothblum
2010), each tree node noised once with exact discrete Laplace noise and stored in the release
that drew it, so the noise in release ``k`` has variance ``popcount(k) V(L m / epsilon)``,
``L = floor(log2 T) + 1``: it grows polylogarithmically in ``T``, where fresh noise per
release under sequential composition would grow linearly. After ``T`` releases the budget is
spent and the page keeps showing the last one. While the survey is closed no release is made
(its data cannot change); reopened, the releases due meanwhile are made, each from the data
before its own date.

Changing epsilon, the interval or ``T`` would change the tree's noise scale mid-stream, so
once a release exists they can only change while the survey has no responses (every
release so far then holds nobody's data): the releases are dropped and the schedule starts
again that day.

This module only reads the releases; making them (and the owner's settings) is a write, in
``surveys.services.public_release``.
"""

from dataclasses import dataclass
from datetime import UTC, date, timedelta
from fractions import Fraction

from django.db.models import Q
from django.http import Http404
from django.utils import timezone

import dpengine
from dpengine import Estimate

from ..models import GroupingOption, Question, Survey, is_slug, question_key
from .estimates import estimator, question_fields
from .left_out import questions_left_out
from .mechanisms import CHEATING_KINDS, FORCED_RESPONSE, question_design, survey_coins

RESPONDENTS = "respondents"


def option_key(option_id):
    """The count key of a grouping option's number of respondents."""
    return f"o{option_id}"


def reports_key(question_id):
    """The count key of an optional question's number of reports (its own n)."""
    return f"n{question_key(question_id)}"


def utc_today(now=None) -> date:
    return (now or timezone.now()).astimezone(UTC).date()


# A release dated D counts the submissions received before D (UTC), and is made a few minutes
# after midnight rather than at it: a submission takes its day from its worker's clock before
# its statement runs, so one dated the day before may still be committing at midnight. A
# request's transaction ends within the web server's worker timeout (``GUNICORN_TIMEOUT``,
# 30 s by default), well inside this margin; tests/surveys/services/test_public_release.py
# holds the two together.
RELEASE_SETTLE = timedelta(minutes=5)


def release_today(now=None) -> date:
    """The day whose due releases may be made now: today once ``RELEASE_SETTLE`` has passed
    since midnight UTC, the day before until then."""
    return utc_today((now or timezone.now()) - RELEASE_SETTLE)


# --- the schedule -------------------------------------------------------------------------


@dataclass(frozen=True)
class ReleaseSchedule:
    started_on: date | None  # None until the owner first turns the page on
    every_days: int
    releases: int  # T: the most releases the budget pays for

    def release_on(self, step: int) -> date:
        return self.started_on + timedelta(days=step * self.every_days)

    def due(self, today: date) -> int:
        """How many releases are due by ``today`` (0 to ``T``)."""
        if self.started_on is None:
            return 0
        return min(self.releases, max((today - self.started_on).days, 0) // self.every_days)


def release_schedule(*, survey) -> ReleaseSchedule:
    return ReleaseSchedule(
        started_on=survey.public_started_on,
        every_days=survey.public_release_days,
        releases=survey.public_releases_max,
    )


# --- what a release counts ------------------------------------------------------------


def released_questions(survey):
    """The questions a release counts: the yes/no ones. A multiple-choice or numeric
    question's reports are never released (its count vector would need its own share of
    the budget), so it adds no count to ``m`` and appears on no public page. Nor does a
    question asked directly: its answers are not randomized (a text answer is never shown
    anywhere but in the researcher's downloads), nor one compared with asking directly (its
    direct arm's answers are not randomized either)."""
    return survey.questions.filter(
        kind=Question.Kind.YES_NO, randomized=True, compare_direct=False
    ).exclude(
        # A cheating-detection question's report is a code, not a bit: never released. (The
        # key test first: a design without "kind", the survey's coins, must stay.)
        Q(design__has_key="kind") & Q(design__kind__in=CHEATING_KINDS)
    )


def count_keys(*, survey) -> tuple[list[str], list[str]]:
    """The question count keys, and every count key (respondents, yes/no questions, the report
    counts of optional yes/no questions, options)."""
    rows = list(released_questions(survey).values_list("id", "required"))
    questions = [question_key(qid) for qid, _required in rows]
    reports = [reports_key(qid) for qid, required in rows if not required]
    options = [
        option_key(option_id)
        for option_id in GroupingOption.objects.filter(
            grouping_question__survey=survey
        ).values_list("id", flat=True)
    ]
    return questions, [RESPONDENTS, *questions, *reports, *options]


def noisy_counts(*, survey) -> int:
    """``m = 1 + Q + Q_optional + G``: how many counts one respondent joining or leaving
    changes (an optional question's yes count and report count both); ``Q`` counts the
    yes/no questions, the only ones released."""
    released = released_questions(survey)
    return (
        1
        + released.count()
        + released.filter(required=False).count()
        + survey.grouping_questions.count()
    )


# --- the page (read) ----------------------------------------------------------------------


@dataclass(frozen=True)
class PublicRow:
    question_id: int
    position: int
    text: str
    estimate: Estimate
    suppressed: bool  # the released respondent count is below the survey's minimum n
    optional: bool = False  # respondents may skip it: its n is its own released count


@dataclass(frozen=True)
class PublicOption:
    label: str
    respondents: int  # noisy, clipped at 0


@dataclass(frozen=True)
class PublicGroup:
    text: str
    options: list[PublicOption]


@dataclass(frozen=True)
class PublicStatus:
    """The schedule and budget, for the public page and the owner's settings page."""

    epsilon: float  # total, for all releases over the page's lifetime
    noisy_counts: int  # m: how many counts one respondent can change (1 + Q + G)
    every_days: int
    releases_max: int  # T
    releases_done: int
    started_on: date | None
    next_release_on: date | None  # None when not scheduled, spent, or the survey is closed
    closed: bool

    @property
    def budget_spent(self) -> bool:
        return self.releases_done >= self.releases_max

    @property
    def node_scale(self) -> float:
        """The discrete Laplace scale of each tree node: ``L m / epsilon``."""
        levels = dpengine.tree_levels(self.releases_max)
        return levels * self.noisy_counts / self.epsilon

    def noise_sd(self, step: int) -> float:
        """The standard deviation of the noise in each count of release ``step``."""
        per_count = Fraction(repr(float(self.epsilon))) / self.noisy_counts
        return (
            dpengine.tree_noise_variance(step, horizon=self.releases_max, epsilon=per_count) ** 0.5
        )


def public_status(*, survey, today=None) -> PublicStatus:
    """The schedule and budget as released so far (``public_release.public_results_release``
    makes the due releases first)."""
    today = today or utc_today()
    schedule = release_schedule(survey=survey)
    done = survey.public_releases.order_by("-step").values_list("step", flat=True).first() or 0
    closed = survey.status == Survey.Status.CLOSED
    next_on = None
    if not closed and schedule.started_on is not None and done < schedule.releases:
        next_on = max(schedule.release_on(done + 1), today)
    return PublicStatus(
        epsilon=survey.public_epsilon,
        noisy_counts=noisy_counts(survey=survey),
        every_days=schedule.every_days,
        releases_max=schedule.releases,
        releases_done=done,
        started_on=schedule.started_on,
        next_release_on=next_on,
        closed=closed,
    )


@dataclass(frozen=True)
class PublicResults:
    survey: Survey
    status: PublicStatus
    step: int | None  # the release shown; None before the first
    released_on: date | None
    respondents: int  # noisy, clipped at 0
    rows: list[PublicRow]
    groups: list[PublicGroup]
    left_out_questions: int = 0  # every question but the one-bit yes/no ones: never released
    left_out: tuple = ()  # the same, by kind (selectors.left_out)

    @property
    def noise_sd(self) -> float | None:
        return None if self.step is None else self.status.noise_sd(self.step)

    @property
    def optional_questions(self) -> int:
        return sum(row.optional for row in self.rows)

    @property
    def other_designs(self) -> bool:
        """Whether a published question uses a design other than the survey's two coins."""
        return any(row.estimate.design.kind != FORCED_RESPONSE for row in self.rows) or any(
            row.estimate.design != survey_coins(self.survey) for row in self.rows
        )


def public_results_survey(*, slug) -> Survey:
    """The survey with this slug whose owner turned its public page on; 404 otherwise."""
    if not is_slug(slug):
        raise Http404("No such public results page.")
    try:
        return Survey.objects.get(slug=slug, public_results=True)
    except Survey.DoesNotExist:
        raise Http404("No such public results page.") from None


def public_results(*, survey, now=None) -> PublicResults:
    """The public page from the latest release made so far. Reads only: the caller asks
    ``public_release.public_results_release`` for the releases due first."""
    status = public_status(survey=survey, today=utc_today(now))
    release = survey.public_releases.first()
    questions = list(survey.questions.all())
    released_ids = set(released_questions(survey).values_list("pk", flat=True))
    left_out = len(questions) - len(released_ids)
    by_kind = questions_left_out(questions=questions, kept_ids=released_ids)
    if release is None:
        return PublicResults(survey, status, None, None, 0, [], [], left_out, by_kind)
    counts = release.counts
    n = max(counts.get(RESPONDENTS, 0), 0)
    rows = []
    for question in released_questions(survey):
        # Debiased with the question's own design (the survey's coins unless it names one).
        estimate = estimator(
            design=question_design(question, survey=survey),
            confidence=survey.confidence,
            method=survey.ci_method,
        )
        noisy_yes = counts.get(question_key(question.pk))
        # A required question has a report from every respondent; an optional one its own n.
        question_n = n
        if not question.required:
            question_n = max(counts.get(reports_key(question.pk)) or 0, 0)
        yes = 0 if noisy_yes is None else min(max(noisy_yes, 0), question_n)
        released_n = 0 if noisy_yes is None else question_n
        rows.append(
            PublicRow(
                **question_fields(question),
                estimate=estimate(yes=yes, n=released_n),
                suppressed=released_n < max(survey.min_n, 1),
                optional=not question.required,
            )
        )
    groups = [
        PublicGroup(
            text=gq.text,
            options=[
                PublicOption(
                    label=option.label,
                    respondents=max(counts.get(option_key(option.pk), 0), 0),
                )
                for option in gq.options.all()
            ],
        )
        for gq in survey.grouping_questions.prefetch_related("options")
    ]
    return PublicResults(
        survey=survey,
        status=status,
        step=release.step,
        released_on=release.released_at.astimezone(UTC).date(),
        respondents=n,
        rows=rows,
        groups=groups,
        left_out_questions=left_out,
        left_out=by_kind,
    )
