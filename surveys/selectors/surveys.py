"""Reads about surveys as objects: lookups by id and slug, roles, the dashboard, the target
of a submission and the design fingerprint.

Reads only: nothing here writes. The estimates and everything else that calls dpengine are
in the sibling modules (``estimates``, ``breakdown``, ``regression``, ``planning``).
"""

from dataclasses import dataclass, field
from datetime import datetime

from django.core.exceptions import PermissionDenied
from django.db.models import (
    BigIntegerField,
    BooleanField,
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
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Coalesce, Lower
from django.http import Http404

from ..models import (
    GroupingOption,
    GroupingQuestion,
    Question,
    Submission,
    Survey,
    SurveyMember,
    TallyShard,
    design_fingerprint_of,
    is_slug,
)
from . import languages, mechanisms


def _question_counts():
    """The dashboard's counts: the questions the researcher wrote, and apart from them the
    practice rounds (one hidden comprehension question each, ``Question.Role``). A join's
    Count sees every role: the asked-questions manager does not filter it."""
    return {
        "question_total": Count("questions", filter=Q(questions__role=Question.Role.QUESTION)),
        "practice_total": Count("questions", filter=Q(questions__role=Question.Role.COMPREHENSION)),
    }


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


def held_responses(*, survey) -> int:
    """Submissions stored for ``survey`` and held for a batch not released yet
    (services/batches.py). Shown to its researcher only once the survey takes no more
    responses: while it is open, a count that moves by one would say when each person
    answered."""
    return Submission.all_objects.filter(survey=survey, held=True).count()


def surveys_for_owner(*, owner):
    # Explicit order: Meta.ordering is not applied to aggregating (GROUP BY) queries.
    return (
        Survey.objects.filter(owner=owner)
        .annotate(
            **_question_counts(),
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
            **_question_counts(),
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
    # The window of an open survey (surveys/services/schedule.py); None: no bound.
    opens_at: datetime | None = None
    closes_at: datetime | None = None
    # What each question that is not yes/no accepts as its report (mechanisms.report_range):
    # {question id: (kind, lowest, highest)}. Yes/no questions, absent, take a boolean.
    report_ranges: dict = field(default_factory=dict)
    access: str = "link"  # who may answer: Survey.Access
    # The questions the page shows (not the comprehension check's hidden ones): what an
    # ``order`` lists.
    shown_question_ids: frozenset = frozenset()


def submission_target(*, slug) -> SubmissionTarget:
    """The survey a respondent submits to, with its question ids and grouping options, in two
    queries. 404 if there is no such survey."""
    if not is_slug(slug):
        raise Http404("No such survey.")
    row = (
        Survey.objects.filter(slug=slug)
        .values_list("id", "status", "design_fingerprint", "opens_at", "closes_at", "access")
        .first()
    )
    if row is None:
        raise Http404("No such survey.")
    survey_id, status, fingerprint, opens_at, closes_at, access = row
    # The comprehension questions too: their answers are sent like any direct answer.
    questions = Question.all_objects.filter(survey_id=survey_id).values_list(
        "id",
        Value(None, output_field=BigIntegerField()),
        "required",
        "kind",
        # A cheating-detection design's kind: its report is a code, not a bit. Only when
        # randomized: a comprehension question names the CDM/SLD design it practised, and its
        # answer is a boolean.
        Case(
            When(
                randomized=True,
                then=Coalesce(KeyTextTransform("kind", "design"), Value("")),
            ),
            default=Value(""),
            output_field=CharField(),
        ),
        "compare_direct",
        "role",
    )
    options = GroupingOption.objects.filter(grouping_question__survey_id=survey_id).values_list(
        "grouping_question_id",
        "id",
        "grouping_question__required",
        Value("", output_field=CharField()),
        Value("", output_field=CharField()),
        Value(False, output_field=BooleanField()),
        Value("", output_field=CharField()),
    )
    question_ids, grouped, required_questions, required_groupings = set(), {}, set(), set()
    typed, shown = set(), set()
    for (
        first,
        option_id,
        required,
        kind,
        design_kind,
        compare_direct,
        role,
    ) in questions.order_by().union(options.order_by(), all=True):
        if option_id is None:
            question_ids.add(first)
            if role == Question.Role.QUESTION:
                shown.add(first)
            if required:
                required_questions.add(first)
            # A cheating-detection or compared question's report is a code, 0 to 3
            # (mechanisms.report_range).
            if (
                kind != Question.Kind.YES_NO
                or design_kind in mechanisms.CHEATING_KINDS
                or compare_direct
            ):
                typed.add(first)
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
        shown_question_ids=frozenset(shown),
        options={gid: frozenset(oids) for gid, oids in grouped.items()},
        required_questions=frozenset(required_questions),
        required_groupings=frozenset(required_groupings),
        opens_at=opens_at,
        closes_at=closes_at,
        access=access,
        # A third query, only for surveys with questions that are not plain yes/no ones.
        report_ranges={
            question.pk: mechanisms.report_range(question)
            for question in Question.objects.filter(pk__in=typed)
        }
        if typed
        else {},
    )


def survey_design_fingerprint(*, survey, pilot=None) -> str:
    """The fingerprint of the survey's design: as frozen at its first opening, else as it is
    now (a draft's preview). ``pilot``: whether it names a pilot's design (by default, whether
    the survey is a pilot); ``services.freeze_for_opening`` passes False for the real study."""
    if pilot is None:
        pilot = survey.status == Survey.Status.PILOT
    if survey.design_fingerprint:
        return survey.design_fingerprint
    grouping = list(GroupingQuestion.objects.filter(survey=survey).prefetch_related("options"))
    questions = list(Question.objects.filter(survey=survey))
    comprehension = Question.all_objects.filter(
        survey=survey, role=Question.Role.COMPREHENSION
    ).values_list("id", "design")
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
        types=mechanisms.fingerprint_types(questions),
        shared_devices=survey.shared_devices,
        shuffle_questions=survey.shuffle_questions,
        comprehension=list(comprehension),
        pilot=pilot,
        access=survey.access,
        control_share=survey.control_share,
    )


def survey_questions(*, survey) -> list[Question]:
    return list(survey.questions.all())
