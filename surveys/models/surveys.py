"""A survey: its coins, schedule, access and the digest of the design its respondents see."""

import hashlib
import json

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from .. import limits
from .keys import new_slug

CI_METHODS = [
    ("wilson", _("Wilson score")),
    ("exact", _("Clopper–Pearson (exact)")),
    ("jeffreys", _("Jeffreys")),
    ("wald", _("Wald")),
]


def design_fingerprint_of(
    *,
    p_truth,
    p_forced_yes,
    questions,
    grouping,
    translations=None,
    types=None,
    shared_devices=False,
    shuffle_questions=False,
    pilot=False,
    access="link",
    control_share=0.0,
    comprehension=(),
) -> str:
    """A short digest of everything a respondent's page randomizes with and asks.

    ``questions`` is ``[(id, text), ...]`` and ``grouping`` is
    ``[(id, text, [(option id, label), ...]), ...]``, both in display order. Browsers key their
    memoised coin draws by it, and the submission body carries it back, so a page or a stored
    draw from another design can never be decoded with this one's coins. ``translations`` is
    ``{language: every text of the survey in it}`` for the languages the survey is offered in
    besides its own (``surveys/selectors/languages.py``): a changed translation is a changed
    question. Left out when empty, so an untranslated survey keeps the fingerprint it always had.
    ``types`` is ``[(id, {type fields}), ...]`` for the questions that are not yes/no with the
    survey's coins (a design, options, a range, ε): left out when empty, likewise.
    ``shared_devices`` (whether browsers keep a memo at all), ``shuffle_questions`` (whether
    each browser draws its own question order) and ``pilot`` (a pilot's design,
    so that the real opening names another one and every browser drops its pilot memo: a fresh
    submission id and fresh coins, which nothing joins to the pilot's) are added only when
    true, likewise; ``access`` (who may answer) only when it is not ``"link"``;
    ``control_share`` (the chance that a browser asks the ``compare_direct`` questions
    directly) only when above 0.
    true, likewise; ``access`` (who may answer) only when it is not ``"link"``.
    ``comprehension`` is ``[(id, design), ...]``, the practice questions of a survey that
    checks comprehension (``services.comprehension``): only when there are any.
    """
    design = {
        "coins": [repr(float(p_truth)), repr(float(p_forced_yes))],
        "questions": [[int(qid), text] for qid, text in questions],
        "grouping": [
            [int(gid), text, [[int(oid), label] for oid, label in options]]
            for gid, text, options in grouping
        ],
    }
    if types:
        design["types"] = [
            [int(qid), json.loads(json.dumps(fields, sort_keys=True))] for qid, fields in types
        ]
    if translations:
        # Sorted here, not with sort_keys: the keys above keep the order old fingerprints used.
        design["translations"] = json.loads(json.dumps(translations, sort_keys=True))
    if shared_devices:
        design["shared_devices"] = True
    if shuffle_questions:
        design["shuffle_questions"] = True
    if pilot:
        design["pilot"] = True
    if access != "link":
        # Likewise only when not the default, so every link survey keeps its fingerprint.
        design["access"] = access
    if control_share:
        design["control_share"] = repr(float(control_share))
    if comprehension:
        design["comprehension"] = [
            [int(qid), json.loads(json.dumps(checked, sort_keys=True))]
            for qid, checked in comprehension
        ]
    canonical = json.dumps(design, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:32]


class LiveSurveyManager(models.Manager):
    """Surveys not in the trash: what every page, API route and service sees."""

    def get_queryset(self):
        return super().get_queryset().filter(deleted_at__isnull=True)


class Survey(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", _("Draft")
        # Takes responses through the real link, but none counts: they are discarded when the
        # survey opens for the real study (surveys/services/pilot.py). The design is not frozen yet.
        PILOT = "pilot", _("Pilot")
        OPEN = "open", _("Open")
        CLOSED = "closed", _("Closed")

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="surveys"
    )
    title = models.CharField(max_length=limits.TITLE_MAX_LENGTH)
    intro = models.TextField(blank=True, max_length=limits.INTRO_MAX_LENGTH)
    language = models.CharField(
        max_length=10, choices=settings.LANGUAGES, default=settings.LANGUAGE_CODE
    )
    # The title and intro in other languages, {"ko": {"title": ..., "intro": ...}}; ``language``
    # is the one the survey is written in (its default). See surveys/selectors/languages.py.
    translations = models.JSONField(default=dict, blank=True, editable=False)
    slug = models.CharField(max_length=32, unique=True, default=new_slug, editable=False)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT)
    p_truth = models.FloatField(default=0.5)
    p_forced_yes = models.FloatField(default=0.5)
    confidence = models.FloatField(default=0.95)
    ci_method = models.CharField(max_length=10, choices=CI_METHODS, default="wilson")
    min_n = models.PositiveIntegerField(default=30)
    # Lab tablets, kiosks, family computers: the browser keeps nothing about a respondent once
    # their answers are sent, so the next person draws fresh coins (SPEC §2, respondent flow).
    shared_devices = models.BooleanField(default=False)
    # Each respondent's browser shows the questions in its own random order, drawn there and
    # never sent (static/js/order.js), against order effects; grouping questions stay put.
    shuffle_questions = models.BooleanField(default=False)
    # A direct-questioning control group (split ballot): each respondent's browser asks the
    # questions marked ``compare_direct`` directly with this probability (0: never, at most
    # limits.CONTROL_SHARE_MAX), and says which it did (surveys/selectors/control_group.py).
    control_share = models.FloatField(default=0.0)
    # Before the questions, a practice round of each yes/no design the survey uses, with
    # feedback; whether the first try was right is sent as a direct answer to a hidden
    # comprehension question per design (surveys/services/comprehension.py), so the researcher
    # can report how many understood the procedure. Part of the frozen design.
    comprehension_check = models.BooleanField(default=False)

    class Access(models.TextChoices):
        LINK = "link", _("Anyone with the link")
        INVITATION = "invitation", _("Invitation only")
        BOTH = "both", _("The link and invitations")

    # Who may answer (docs/invitations.md): part of the frozen design once opened.
    access = models.CharField(max_length=10, choices=Access.choices, default=Access.LINK)
    # How many invitations were given a new code: each reset lets one person answer twice.
    invitation_resets = models.PositiveIntegerField(default=0, editable=False)
    # How invitation emails and printed slips name the researcher, as they chose to be shown
    # (never their username); blank: the email names nobody and gives no contact address.
    contact_name = models.CharField(max_length=limits.CONTACT_NAME_MAX_LENGTH, blank=True)
    contact_email = models.CharField(max_length=limits.EMAIL_MAX_LENGTH, blank=True)
    # Reminder emails sent, counted for the survey as a whole: nothing records who got one.
    reminders_sent = models.PositiveIntegerField(default=0, editable=False)
    # Set when the survey first opens and never cleared: from then on coins and questions are
    # frozen (respondents may already hold the page), and design_fingerprint names that design.
    opened_at = models.DateTimeField(null=True, blank=True, editable=False)
    design_fingerprint = models.CharField(max_length=64, blank=True, editable=False)
    # Opt-in public results page (/r/<slug>/): its counts are released every
    # public_release_days days from public_started_on, at most public_releases_max times, with
    # noise from the binary-tree mechanism; public_epsilon is the total privacy loss of all
    # those releases together (see surveys/services/public_release.py).
    public_results = models.BooleanField(default=False)
    public_epsilon = models.FloatField(default=1.0)
    public_release_days = models.PositiveSmallIntegerField(default=1)
    public_releases_max = models.PositiveSmallIntegerField(default=30)
    public_started_on = models.DateField(null=True, blank=True, editable=False)
    # Shown before the questions, which appear once the respondent accepts it. Frozen with the
    # design at the first opening (it is what respondents agreed to). The version counts its
    # changes, so a study can cite which text was in force; nothing about consent is stored
    # per respondent.
    consent_text = models.TextField(blank=True, max_length=limits.CONSENT_MAX_LENGTH)
    consent_version = models.PositiveIntegerField(default=0, editable=False)
    consent_changed_at = models.DateTimeField(null=True, blank=True, editable=False)
    # An optional window in which an open survey takes responses: [opens_at, closes_at).
    # Compared with the current time wherever responses are accepted (surveys/services/schedule.py),
    # so the window holds without any background process; ``manage.py apply_schedule`` only
    # brings the stored status in line for lists and notifications.
    opens_at = models.DateTimeField(null=True, blank=True, editable=False)
    closes_at = models.DateTimeField(null=True, blank=True, editable=False)
    # The IANA time zone (``Asia/Seoul``) in which the researcher gives and reads the schedule,
    # and in which respondents are told it; blank until chosen, which reads as UTC. The times
    # themselves are stored as instants, so the zone changes how they are shown, never when.
    time_zone = models.CharField(max_length=limits.TIME_ZONE_MAX_LENGTH, blank=True, default="")
    # How many responses the researcher aims for (the planner suggests one); progress only.
    response_target = models.PositiveIntegerField(null=True, blank=True)
    # Responses become visible to every researcher view in batches of at least this many
    # (services/batches.py); None: the default for the survey's access (``batch_size``).
    # Part of the frozen design.
    release_batch = models.PositiveIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    # Set when the owner deletes the survey: it waits in their trash (restorable) until
    # ``manage.py purge_trash`` deletes it for good, TRASH_DAYS later.
    deleted_at = models.DateTimeField(null=True, blank=True, editable=False)

    all_objects = models.Manager()  # the trash too: restoring, purging, the admin
    objects = LiveSurveyManager()

    class Meta:
        ordering = ["-created_at", "-id"]
        default_manager_name = "objects"
        constraints = [
            models.CheckConstraint(
                condition=Q(p_truth__gt=0) & Q(p_truth__lt=1), name="survey_p_truth_open_unit"
            ),
            models.CheckConstraint(
                condition=Q(p_forced_yes__gt=0) & Q(p_forced_yes__lt=1),
                name="survey_p_forced_yes_open_unit",
            ),
            # The services' bound ([CONFIDENCE_MIN, CONFIDENCE_MAX]), so no layer allows more.
            models.CheckConstraint(
                condition=Q(confidence__gte=limits.CONFIDENCE_MIN)
                & Q(confidence__lte=limits.CONFIDENCE_MAX),
                name="survey_confidence_in_range",
            ),
            models.CheckConstraint(
                condition=Q(status__in=["draft", "pilot", "open", "closed"]),
                name="survey_status_valid",
            ),
            models.CheckConstraint(
                condition=Q(public_epsilon__gt=0), name="survey_public_epsilon_positive"
            ),
            models.CheckConstraint(
                condition=Q(public_release_days__gte=1) & Q(public_releases_max__gte=1),
                name="survey_public_schedule_positive",
            ),
            models.CheckConstraint(
                condition=Q(opens_at__isnull=True)
                | Q(closes_at__isnull=True)
                | Q(closes_at__gt=models.F("opens_at")),
                name="survey_closes_after_opening",
            ),
            models.CheckConstraint(
                condition=Q(access__in=["link", "invitation", "both"]), name="survey_access_valid"
            ),
            models.CheckConstraint(
                condition=Q(control_share__gte=0) & Q(control_share__lte=limits.CONTROL_SHARE_MAX),
                name="survey_control_share_in_range",
            ),
        ]

    def __str__(self):
        return self.title

    @property
    def is_open(self):
        return self.status == self.Status.OPEN

    @property
    def is_pilot(self):
        return self.status == self.Status.PILOT

    @property
    def response_count(self) -> int:
        """Responses stored so far: the sum of the survey's tally shards (``TallyShard``).

        Read from the database each time, unless the survey was read with ``responses_total``
        annotated (``selectors.surveys_for_owner``), so a list does not query once per survey.
        """
        if "responses_total" in self.__dict__:
            return self.responses_total
        total = self.tally_shards.aggregate(total=models.Sum("responses"))["total"]
        return total or 0

    @property
    def batch_size(self) -> int:
        """How many submissions are held before they become visible together: the survey's
        ``release_batch``, else ``limits.RELEASE_BATCH_INVITATION`` for a survey that takes
        invitations and 1 (no batches) for a link survey. A pilot is never batched."""
        if self.release_batch is not None:
            return self.release_batch
        if self.access == self.Access.LINK:
            return 1
        return limits.RELEASE_BATCH_INVITATION

    @property
    def zone_name(self):
        """The schedule's time zone: the one chosen, else UTC."""
        return self.time_zone or "UTC"

    @property
    def is_frozen(self):
        """Coins and questions cannot change once the survey has been open.

        Respondents may hold the page from the first opening on: a later change would decode
        their reports with other coins, and reset nothing in their browsers.
        """
        return self.opened_at is not None or self.response_count > 0
