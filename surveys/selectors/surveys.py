"""Reads. The only place (with services) that calls dpengine."""

import math
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime
from typing import NamedTuple

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.db.models import (
    BigIntegerField,
    Case,
    CharField,
    Count,
    OuterRef,
    Q,
    Subquery,
    Sum,
    Value,
    When,
)
from django.db.models.functions import Coalesce, Lower
from django.http import Http404
from django.utils import timezone

import dpengine
from dpengine import Estimate, ForcedResponse

from . import languages
from .columns import question_column
from .models import (
    CI_METHODS,
    GroupingOption,
    GroupingQuestion,
    Question,
    Submission,
    Survey,
    SurveyMember,
    TallyShard,
    design_fingerprint_of,
    is_slug,
    question_key,
)

VALID_METHODS = tuple(code for code, _label in CI_METHODS)
PLANNING_MARGIN = 0.05
PLANNING_CONFIDENCE = 0.95


@dataclass(frozen=True)
class PrivacySummary:
    per_answer_epsilon: float
    total_epsilon: float
    questions: int
    odds_ratio: float  # e^epsilon: how much more likely any report is under one truth
    respondents_for_margin: int  # for ±PLANNING_MARGIN at PLANNING_CONFIDENCE
    margin: float
    confidence: float
    epsilon_ceiling: float  # the site's MAX_EPSILON_PER_ANSWER
    # e^(k epsilon) from dpengine's privacy report: the bound on everything one respondent who
    # answers all k questions sends; 1 with no questions, inf beyond the float range.
    total_odds: float = 1.0

    @property
    def exceeds_ceiling(self) -> bool:
        return self.per_answer_epsilon > self.epsilon_ceiling + 1e-12


@dataclass(frozen=True)
class QuestionEstimate:
    question_id: int
    position: int
    text: str
    estimate: Estimate
    suppressed: bool  # fewer reports than the survey's minimum n: numbers are withheld
    column: str = ""  # "Q1", "Q2"...: as the results page and every export name it


@dataclass(frozen=True)
class SurveyEstimates:
    survey: Survey
    design: ForcedResponse
    confidence: float
    method: str
    rows: list[QuestionEstimate]
    generated_at: datetime

    @property
    def epsilon(self):
        return self.design.epsilon


def survey_design(*, survey) -> ForcedResponse:
    return ForcedResponse(p_truth=survey.p_truth, p_forced_yes=survey.p_forced_yes)


def design_privacy(*, design, questions) -> PrivacySummary:
    epsilon = design.epsilon
    report = dpengine.privacy_report(design, questions=questions) if questions else None
    return PrivacySummary(
        per_answer_epsilon=epsilon,
        total_epsilon=epsilon * questions,
        questions=questions,
        odds_ratio=math.exp(epsilon),
        respondents_for_margin=dpengine.required_sample_size(
            design=design, margin=PLANNING_MARGIN, confidence=PLANNING_CONFIDENCE
        ),
        margin=PLANNING_MARGIN,
        confidence=PLANNING_CONFIDENCE,
        epsilon_ceiling=settings.MAX_EPSILON_PER_ANSWER,
        total_odds=report.total_odds if report else 1.0,
    )


def survey_privacy(*, survey) -> PrivacySummary:
    return design_privacy(design=survey_design(survey=survey), questions=survey.questions.count())


def _responses_total():
    """A survey's response count summed over its tally shards, 0 without any."""
    # A subquery, not a join: joined with the questions it would be counted once each.
    return Coalesce(
        Subquery(
            TallyShard.objects.filter(survey=OuterRef("pk"))
            .values("survey")
            .annotate(total=Sum("responses"))
            .values("total")
        ),
        0,
    )


def surveys_for_owner(*, owner):
    # Explicit order: Meta.ordering is not applied to aggregating (GROUP BY) queries.
    return (
        Survey.objects.filter(owner=owner)
        .annotate(
            question_total=Count("questions"),
            responses_total=_responses_total(),
        )
        .order_by("-created_at", "-id")
    )


DASHBOARD_SORTS = ("newest", "title", "status", "responses")


def surveys_for_dashboard(*, owner, search="", sort="newest"):
    """The owner's surveys whose title or slug contains ``search`` (any case), in ``sort``
    order: newest first, by title, by status (open, draft, closed), or most responses first;
    ties newest first."""
    if sort not in DASHBOARD_SORTS:
        raise ValueError(f"sort must be one of {', '.join(DASHBOARD_SORTS)}, got {sort!r}")
    surveys = surveys_for_owner(owner=owner)
    search = search.strip()
    if search:
        surveys = surveys.filter(Q(title__icontains=search) | Q(slug__icontains=search))
    newest = ("-created_at", "-id")
    if sort == "title":
        return surveys.order_by(Lower("title"), *newest)
    if sort == "status":
        rank = Case(
            When(status=Survey.Status.OPEN, then=Value(0)),
            When(status=Survey.Status.DRAFT, then=Value(1)),
            default=Value(2),
        )
        return surveys.order_by(rank, *newest)
    if sort == "responses":
        return surveys.order_by("-responses_total", *newest)
    return surveys.order_by(*newest)


def surveys_in_trash(*, owner):
    """The owner's trashed surveys, most recently deleted first."""
    return list(
        Survey.all_objects.filter(owner=owner, deleted_at__isnull=False).order_by("-deleted_at")
    )


def survey_in_trash(*, owner, survey_id) -> bool:
    return Survey.all_objects.filter(pk=survey_id, owner=owner, deleted_at__isnull=False).exists()


@dataclass(frozen=True)
class SurveyTallies:
    """A survey's running tallies as stored now: the sum of its tally shards."""

    responses: int
    reports: dict  # {"q<question id>": (reports, yes reports)}

    def of(self, question_id) -> tuple[int, int]:
        """``(reports, yes reports)`` of one question."""
        return self.reports.get(question_key(question_id), (0, 0))


def survey_tallies(*, survey) -> SurveyTallies:
    """One query over at most ``TALLY_SHARDS`` rows, whatever the number of responses."""
    responses, reports = 0, {}
    for shard_responses, shard_reports in TallyShard.objects.filter(survey=survey).values_list(
        "responses", "reports"
    ):
        responses += shard_responses
        for key, (n, yes) in shard_reports.items():
            have_n, have_yes = reports.get(key, (0, 0))
            reports[key] = (have_n + n, have_yes + yes)
    return SurveyTallies(responses=responses, reports=reports)


def survey_for_owner(*, owner, survey_id) -> Survey:
    """The owner's survey: ``survey_for`` with the owner's role (a member gets a 403)."""
    return survey_for(user=owner, survey_id=survey_id, role=OWNER)


# --- co-researchers: the one place that decides who may do what with a survey --------------

VIEWER, EDITOR, OWNER = "viewer", "editor", "owner"
ROLE_RANK = {VIEWER: 1, EDITOR: 2, OWNER: 3}


class SurveyRoleRequired(PermissionDenied):
    """A member of the survey whose role is below what the request needs (HTTP 403)."""

    def __init__(self, *, role, required):
        super().__init__(f"Your role on this survey is {role}; this needs {required}.")
        self.role = role
        self.required = required


def _member_role(user):
    return Subquery(
        SurveyMember.objects.filter(survey=OuterRef("pk"), user=user).values("role")[:1]
    )


def survey_for(*, user, survey_id, role) -> Survey:
    """The survey ``survey_id`` if ``user`` owns it or is a member with at least ``role``.

    Not the owner and not a member (or no such survey, or one in the trash): 404, exactly as
    a missing survey, so nobody learns which ids exist. A member whose role is below ``role``:
    ``SurveyRoleRequired`` (403). The survey carries ``access_role`` (owner, editor, viewer).
    """
    if role not in ROLE_RANK:
        raise ValueError(f"role must be one of {sorted(ROLE_RANK)}, got {role!r}")
    if not getattr(user, "is_authenticated", False):
        raise Http404("No such survey.")
    try:
        survey = Survey.objects.annotate(member_role=_member_role(user)).get(pk=int(survey_id))
    except (Survey.DoesNotExist, TypeError, ValueError, OverflowError):
        raise Http404("No such survey.") from None
    have = OWNER if survey.owner_id == user.pk else survey.member_role
    if have is None:
        raise Http404("No such survey.")
    survey.access_role = have
    ensure_role(survey=survey, role=role)
    return survey


def ensure_role(*, survey, role) -> None:
    """Raise ``SurveyRoleRequired`` unless ``survey.access_role`` (from ``survey_for``) is at
    least ``role``."""
    if ROLE_RANK[survey.access_role] < ROLE_RANK[role]:
        raise SurveyRoleRequired(role=survey.access_role, required=role)


def survey_role(*, survey, user) -> str | None:
    """``user``'s role on ``survey`` (owner, editor, viewer), or None."""
    if survey.owner_id == user.pk:
        return OWNER
    return (
        SurveyMember.objects.filter(survey=survey, user=user).values_list("role", flat=True).first()
    )


def surveys_for_user(*, user):
    """The user's own surveys and those shared with them, newest first, each with
    ``access_role``; a survey in the trash is gone for its members too."""
    shared = SurveyMember.objects.filter(user=user).values("survey")
    return (
        Survey.objects.filter(Q(owner=user) | Q(pk__in=shared))
        .annotate(
            access_role=Case(
                When(owner=user, then=Value(OWNER)),
                default=_member_role(user),
                output_field=CharField(),
            ),
        )
        .order_by("-created_at", "-id")
    )


def surveys_shared_with(*, user):
    """Surveys other accounts shared with ``user``, newest first, with ``access_role`` and
    the question and response counts the dashboard shows (as ``surveys_for_owner``)."""
    shared = SurveyMember.objects.filter(user=user).values("survey")
    return (
        Survey.objects.filter(pk__in=shared)
        .select_related("owner")
        .annotate(
            access_role=_member_role(user),
            question_total=Count("questions"),
            responses_total=_responses_total(),
        )
        .order_by("-created_at", "-id")
    )


def survey_by_slug(*, slug) -> Survey:
    if not is_slug(slug):
        raise Http404("No such survey.")
    try:
        return Survey.objects.get(slug=slug)
    except Survey.DoesNotExist:
        raise Http404("No such survey.") from None


def survey_published(*, slug) -> Survey:
    """A survey that has been opened, by slug: drafts are the researcher's alone (404)."""
    survey = survey_by_slug(slug=slug)
    if survey.status == Survey.Status.DRAFT:
        raise Http404("No such survey.")
    return survey


@dataclass(frozen=True)
class SubmissionTarget:
    """What validating a submission needs to know about its survey."""

    survey_id: int
    slug: str
    status: str
    design_fingerprint: str
    question_ids: frozenset
    options: dict  # {grouping question id: frozenset of its option ids}
    required_questions: frozenset = frozenset()  # the question ids a submission must answer
    required_groupings: frozenset = frozenset()  # the grouping question ids it must answer
    # The window of an open survey (surveys/schedule.py); None: no bound.
    opens_at: datetime | None = None
    closes_at: datetime | None = None


def submission_target(*, slug) -> SubmissionTarget:
    """The survey a respondent submits to, with its question ids and grouping options, in two
    queries. 404 if there is no such survey."""
    if not is_slug(slug):
        raise Http404("No such survey.")
    row = (
        Survey.objects.filter(slug=slug)
        .values_list("id", "status", "design_fingerprint", "opens_at", "closes_at")
        .first()
    )
    if row is None:
        raise Http404("No such survey.")
    survey_id, status, fingerprint, opens_at, closes_at = row
    questions = Question.objects.filter(survey_id=survey_id).values_list(
        "id", Value(None, output_field=BigIntegerField()), "required"
    )
    options = GroupingOption.objects.filter(grouping_question__survey_id=survey_id).values_list(
        "grouping_question_id", "id", "grouping_question__required"
    )
    question_ids, grouped, required_questions, required_groupings = set(), {}, set(), set()
    for first, option_id, required in questions.order_by().union(options.order_by(), all=True):
        if option_id is None:
            question_ids.add(first)
            if required:
                required_questions.add(first)
        else:
            grouped.setdefault(first, set()).add(option_id)
            if required:
                required_groupings.add(first)
    return SubmissionTarget(
        survey_id=survey_id,
        slug=slug,
        status=status,
        design_fingerprint=fingerprint,
        question_ids=frozenset(question_ids),
        options={gid: frozenset(oids) for gid, oids in grouped.items()},
        required_questions=frozenset(required_questions),
        required_groupings=frozenset(required_groupings),
        opens_at=opens_at,
        closes_at=closes_at,
    )


def survey_design_fingerprint(*, survey) -> str:
    """The fingerprint of the survey's design: as frozen at its first opening, else as it is
    now (a draft's preview)."""
    if survey.design_fingerprint:
        return survey.design_fingerprint
    grouping = list(GroupingQuestion.objects.filter(survey=survey).prefetch_related("options"))
    questions = list(Question.objects.filter(survey=survey))
    return design_fingerprint_of(
        p_truth=survey.p_truth,
        p_forced_yes=survey.p_forced_yes,
        questions=[(question.pk, question.text) for question in questions],
        grouping=[
            (gq.pk, gq.text, [(option.pk, option.label) for option in gq.options.all()])
            for gq in grouping
        ],
        translations=languages.fingerprint_translations(
            survey=survey, questions=questions, grouping=grouping
        ),
    )


def survey_questions(*, survey) -> list[Question]:
    return list(survey.questions.all())


def survey_estimates(*, survey, confidence=None, method=None) -> SurveyEstimates:
    """Per-question estimates from the running tallies: cost independent of response count."""
    confidence = survey.confidence if confidence is None else confidence
    method = survey.ci_method if method is None else method
    design = survey_design(survey=survey)
    rows = []
    # The tallies as stored now, not as ``survey`` was read: submissions keep arriving.
    tallies = survey_tallies(survey=survey)
    for index, question in enumerate(survey.questions.all()):
        reports, yes = tallies.of(question.pk)
        est = dpengine.estimate(
            yes=yes,
            n=reports,
            design=design,
            confidence=confidence,
            method=method,
        )
        rows.append(
            QuestionEstimate(
                question_id=question.pk,
                position=question.position,
                text=question.text,
                estimate=est,
                suppressed=reports < survey.min_n,
                column=question_column(index),
            )
        )
    return SurveyEstimates(
        survey=survey,
        design=design,
        confidence=confidence,
        method=method,
        rows=rows,
        generated_at=timezone.now(),
    )


class SubmissionReports(NamedTuple):
    submission_id: uuid.UUID
    received_on: date
    bits: list  # reported bit per yes/no question, in position order (None if missing)


def survey_report_rows(*, survey, chunk_size=10000) -> Iterator[SubmissionReports]:
    """Every submission's randomized reports, ordered by submission id, streamed.

    By submission id, which the respondent's browser drew at random, so the order says
    nothing about when anyone answered (arrival order could be matched with other records).
    Reads straight from the database in chunks (the unique index on (survey, submission id)
    serves the order), so a million-row export needs memory for one chunk, not the whole
    survey.
    """
    keys = [question_key(qid) for qid in survey.questions.values_list("id", flat=True)]
    rows = (
        Submission.objects.filter(survey=survey)
        .order_by("submission_id")
        .values_list("submission_id", "received_on", "reports")
        .iterator(chunk_size=chunk_size)
    )
    for submission_uuid, received_on, reports in rows:
        yield SubmissionReports(submission_uuid, received_on, [reports.get(k) for k in keys])
