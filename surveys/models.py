"""Surveys, their questions and the randomized reports respondents send.

What is stored about a respondent is deliberately small: a client-generated submission id,
the coarse date it arrived and one randomized bit per question. No address, user agent,
precise time, cookie or account ties a report to a person.
"""

import hashlib
import json
import secrets
import uuid

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q, Value
from django.utils.translation import gettext_lazy as _

from . import limits

CI_METHODS = [
    ("wilson", _("Wilson score")),
    ("exact", _("Clopper–Pearson (exact)")),
    ("jeffreys", _("Jeffreys")),
    ("wald", _("Wald")),
]


def new_slug():
    # 96 random bits: unguessable, so a survey link cannot be found by enumeration.
    return secrets.token_urlsafe(12)


def is_slug(value):
    """Whether ``value`` could be a survey's slug (new_slug's URL-safe alphabet).

    Checked before a look-up: anything else names no survey, and some text taken from a URL
    (a NUL byte) is not even a valid PostgreSQL query parameter.
    """
    return (
        isinstance(value, str)
        and 0 < len(value) <= 32
        and value.isascii()
        and all(char.isalnum() or char in "-_" for char in value)
    )


def question_key(question_id) -> str:
    """A question's name in stored JSON (reports, tallies) and in exports: ``"q<id>"``.

    Not the bare id: Django's JSON key lookups read a numeric key as an array index.
    """
    return f"q{question_id}"


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


def random_key() -> int:
    """A row key drawn at random (63 bits, a positive bigint), never counted up.

    Counted keys (an identity column, SQLite's rowid) number rows in the order they arrived, so
    ``ORDER BY id`` would give back the order in which people answered. The chance that two
    keys of one table ever meet is about n²/2⁶⁴ (5·10⁻⁸ at a million rows); the submission
    SQL draws again when they do (``services.submissions``), and on the ORM path the
    submission is refused whole with a 409 that the page's retry, drawing anew, gets past.
    """
    return secrets.randbits(63)


class RandomKeyField(models.BigIntegerField):
    """A primary key filled with ``random_key``.

    On SQLite the column is declared INTEGER, which makes it the table's rowid: a BIGINT key
    would sit beside a hidden rowid that SQLite counts up as rows arrive, and a table scan
    (or ``SELECT rowid``) would follow it.
    """

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("primary_key", True)
        kwargs.setdefault("default", random_key)
        kwargs.setdefault("editable", False)
        super().__init__(*args, **kwargs)

    def db_type(self, connection):
        if connection.vendor == "sqlite":
            return "integer"
        return super().db_type(connection)


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


TALLY_SHARDS = 16


class TallyShard(models.Model):
    """One of a survey's rows of running tallies; the survey's tallies are the sum of its rows.

    Written with each submission (same statement or transaction), so reads never count
    submissions and the estimates cost the same at a thousand or a million responses. Several
    rows, not one, and each submission adds to one of them chosen at random: concurrent
    submissions to one survey then rarely wait for the same row's lock, so adding app servers
    adds throughput to a single survey too. Reads sum at most ``TALLY_SHARDS`` rows.
    """

    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="tally_shards")
    shard = models.PositiveSmallIntegerField()
    responses = models.PositiveIntegerField(default=0)
    # {"q<question id>": [reports, ...counts]}: randomized reports per question, in one value
    # so that a submission updates one row, not one per question. After the number of reports:
    # yes/no, the yes reports; choice, the reports of each option; numeric, the sum of the
    # reports and the sum of their squares (selectors.estimates.survey_tallies).
    reports = models.JSONField(default=dict)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["survey", "shard"], name="tally_shard_unique"),
        ]

    def __str__(self):
        return f"{self.survey_id} #{self.shard}: {self.responses}"


class DayTally(models.Model):
    """One of a survey's rows of counts for one day of submissions (the day they were received):
    what a public release counts (``selectors.public_results.count_keys``), kept as
    submissions arrive so that a release reads a few rows per day, never the submissions.
    Sharded as ``TallyShard`` is (the submission adds to the shard of the same number), so
    concurrent submissions of one day rarely wait for one row. A batched survey's submissions
    are added by their batch's release (services/batches.py), released ones only.
    """

    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="day_tallies")
    day = models.DateField()
    shard = models.PositiveSmallIntegerField()
    # {"respondents": n, "q<id>": yes reports, "nq<id>": reports, "o<option id>": respondents}
    # (the keys of ``selectors.public_results``), the yes/no reports only (a bit each).
    counts = models.JSONField(default=dict)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["survey", "day", "shard"], name="day_tally_unique"),
        ]

    def __str__(self):
        return f"{self.survey_id} {self.day} #{self.shard}"


class AskedQuestionManager(models.Manager):
    """The questions the researcher wrote: what every page, export and estimate lists.

    The hidden comprehension questions (``Question.Role.COMPREHENSION``) are read through
    ``Question.all_objects`` by the few readers that need them: the submission's checks and
    tallies, the page's definition, the fingerprint and their own results
    (surveys/selectors/comprehension.py).
    """

    def get_queryset(self):
        return super().get_queryset().filter(role=Question.Role.QUESTION)


class Question(models.Model):
    """One question: yes/no (under a yes/no design), multiple choice, numeric, or (asked
    directly only) short text. ``randomized`` False: asked directly, the answer sent and
    stored as given, covered by no ε (docs/respondent-page.md, "Threat model").

    What the respondent's browser sends for it (always randomized, never the true answer):
    yes/no: a boolean; choice: the index of an option (k-ary randomized response with
    ``epsilon``); numeric: an integer (the answer clamped to [min_value, max_value] plus
    discrete Laplace noise of scale (max_value - min_value) / epsilon). See
    ``selectors.mechanisms`` for the dpengine object each question randomizes with.
    """

    class Role(models.TextChoices):
        QUESTION = "question", _("Question")
        # Hidden, made and removed by services.comprehension: a direct yes/no answer, "did
        # the respondent's first try at the practice round of ``design`` get it right".
        COMPREHENSION = "comprehension", _("Comprehension check")

    class Procedure(models.TextChoices):
        # The browser carries out the design: the respondent enters the true answer.
        DEVICE = "device", _("Device")
        # The respondent carries it out: the page shows the randomizer's outcome as an
        # instruction and the answer pressed is the report; the true answer is never entered.
        RESPONDENT = "respondent", _("Respondent")

    class Kind(models.TextChoices):
        YES_NO = "yes_no", _("Yes / no")
        CHOICE = "choice", _("Multiple choice")
        NUMERIC = "numeric", _("Number")
        TEXT = "text", _("Short text")

    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="questions")
    position = models.PositiveIntegerField()
    text = models.TextField(max_length=limits.QUESTION_TEXT_MAX_LENGTH)
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.YES_NO)
    # yes/no only: {} randomizes with the survey's two coins (forced response); otherwise
    # {"kind": "warner", "p": 0.75}, a dpengine.designs kind and its parameters. A
    # comprehension question (asked directly): the design whose practice round it records.
    design = models.JSONField(default=dict, blank=True)
    # choice only: the option labels in order; reports name an option by its index.
    options = models.JSONField(default=list, blank=True)
    # choice and numeric: the privacy loss of one answer (yes/no: the design's).
    epsilon = models.FloatField(null=True, blank=True)
    # numeric only: the answer's range, both ends included.
    min_value = models.IntegerField(null=True, blank=True)
    max_value = models.IntegerField(null=True, blank=True)
    # A respondent may leave an optional question blank: the browser then sends nothing for
    # it, and its estimate counts only the reports it received (docs/researchers.md, "Optional
    # questions").
    required = models.BooleanField(default=True)
    # False: asked directly (no coins, no noise); the report is the answer itself: yes/no a
    # boolean, choice an option index, numeric an integer within [min_value, max_value],
    # text a string of at most limits.DIRECT_TEXT_MAX_BYTES bytes of UTF-8.
    randomized = models.BooleanField(default=True)
    # A randomized yes/no question compared with asking directly (the survey's control_share):
    # its report is one code, 0/1 the randomized report no/yes, 2/3 the direct answer no/yes
    # (selectors.mechanisms.report_range; surveys/selectors/control_group.py reads them).
    compare_direct = models.BooleanField(default=False)
    # A randomized yes/no question: who carries out its design (docs/researchers.md,
    # "Designing a publishable study"). A comprehension question: the procedure practised.
    procedure = models.CharField(max_length=10, choices=Procedure.choices, default=Procedure.DEVICE)
    # Kept where the researcher put it when the survey shuffles its questions (e.g. a closing
    # comment last); the others are shuffled among the remaining places.
    pinned = models.BooleanField(default=False)
    # {"ko": {"text", "options": [labels]}}
    translations = models.JSONField(default=dict, blank=True, editable=False)
    role = models.CharField(
        max_length=16, choices=Role.choices, default=Role.QUESTION, editable=False
    )

    all_objects = models.Manager()  # the comprehension questions too
    objects = AskedQuestionManager()

    class Meta:
        ordering = ["position", "id"]
        default_manager_name = "objects"
        base_manager_name = "all_objects"
        constraints = [
            # A comprehension answer is sent as given and may be left out (a respondent who
            # skips the practice sends nothing for it); its design field names the design
            # whose practice it records.
            models.CheckConstraint(
                condition=Q(role="question")
                | (
                    Q(role="comprehension")
                    & Q(kind="yes_no")
                    & Q(randomized=False)
                    & Q(required=False)
                ),
                name="question_role_valid",
            ),
            models.CheckConstraint(
                condition=Q(kind__in=["yes_no", "choice", "numeric", "text"]),
                name="question_kind_valid",
            ),
            models.CheckConstraint(
                condition=~Q(kind="text") | Q(randomized=False), name="question_text_direct"
            ),
            models.CheckConstraint(
                condition=Q(epsilon__isnull=True) | Q(epsilon__gt=0),
                name="question_epsilon_positive",
            ),
            models.CheckConstraint(
                condition=~Q(kind="numeric")
                | (
                    Q(min_value__isnull=False)
                    & Q(max_value__isnull=False)
                    & Q(max_value__gt=models.F("min_value"))
                    & (Q(epsilon__isnull=False) | Q(randomized=False))
                ),
                name="question_numeric_has_range",
            ),
            models.CheckConstraint(
                condition=~Q(kind="choice") | Q(epsilon__isnull=False) | Q(randomized=False),
                name="question_choice_has_epsilon",
            ),
            models.CheckConstraint(
                condition=Q(compare_direct=False) | (Q(kind="yes_no") & Q(randomized=True)),
                name="question_compare_direct_yes_no_randomized",
            ),
            models.CheckConstraint(
                condition=Q(procedure="device")
                | (Q(procedure="respondent") & Q(kind="yes_no") & Q(compare_direct=False)),
                name="question_procedure_valid",
            ),
        ]

    def __str__(self):
        return self.text

    @property
    def is_yes_no(self):
        return self.kind == self.Kind.YES_NO

    @property
    def is_direct(self):
        return not self.randomized


class NumericTally(models.Model):
    """How many reports of one randomized numeric question were ``report``: the question's
    histogram, one row per value reported so far.

    Written with each submission (same statement or transaction), like ``TallyShard``, so the
    share above any threshold and the manipulation check read these counts instead of every
    report. Reports lie within ``dpengine.report_bounds``, so a question has at most its range
    plus twice the slack rows, whatever the number of responses. Not sharded: a report lands
    on one of many values (the noise spreads them over several noise scales), so concurrent
    submissions rarely add to the same row, and a shard per row would multiply what reads sum.
    """

    # Random, not counted: a counted key would record in which order the values first came.
    id = RandomKeyField()
    # No index of its own: the unique (question, report) index serves lookups by question.
    question = models.ForeignKey(
        Question, on_delete=models.CASCADE, related_name="numeric_tallies", db_index=False
    )
    report = models.BigIntegerField()
    count = models.PositiveIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["question", "report"], name="numeric_tally_unique"),
        ]

    def __str__(self):
        return f"{self.question_id} = {self.report}: {self.count}"


class ReleasedSubmissionManager(models.Manager):
    """Submissions every researcher view counts: not held for a batch (``Submission.held``)."""

    def get_queryset(self):
        return super().get_queryset().filter(held=False)


class Submission(models.Model):
    """One respondent's randomized answers: what their browser sent, never the true answers."""

    # Random, not counted: no stored column says in which order submissions arrived.
    id = RandomKeyField()
    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="submissions")
    submission_id = models.UUIDField()
    # A date, not a time: precise timestamps could be joined with other logs to re-identify.
    received_on = models.DateField()
    # {"q<question id>": report}: the randomized value sent for each question (yes/no: a
    # boolean; choice: an option index; numeric: an integer). In the
    # submission's row rather than a row per answer: storing a submission is then one row, not
    # eleven, each with its indexes and foreign-key checks, which was most of the database's
    # work per respondent. The questions cannot change once a survey has responses.
    reports = models.JSONField(editable=False)
    # {"q<question id>": position}: where the page showed each question, from 1 (the order
    # the browser drew, sent as the body's ``order``), so order effects can be tested; empty
    # when the client sent no order.
    positions = models.JSONField(
        default=dict, db_default=Value({}, output_field=models.JSONField()), editable=False
    )

    # Stored, not yet visible: a batched survey's submission waits for its batch
    # (services/batches.py). A default in the database: the submission statement names no
    # such column.
    held = models.BooleanField(db_default=False, editable=False)

    # Every reader sees the released submissions only; the submission path and the batches
    # use ``all_objects``.
    all_objects = models.Manager()
    objects = ReleasedSubmissionManager()

    class Meta:
        default_manager_name = "objects"
        base_manager_name = "all_objects"
        constraints = [
            models.UniqueConstraint(
                fields=["survey", "submission_id"], name="submission_id_unique_per_survey"
            ),
        ]
        indexes = [
            models.Index(fields=["survey"], condition=Q(held=True), name="submission_held"),
        ]

    def __str__(self):
        return str(self.submission_id)


# --- grouping questions (answered directly, not randomized) ---------------------------------


class GroupingQuestion(models.Model):
    """A plain multiple-choice question (age band, department) answered as given, no coins.

    Its answers let results be broken down by group; they are NOT protected by the coins, and
    the privacy accounting (epsilon) covers the randomized yes/no questions only.
    """

    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="grouping_questions")
    position = models.PositiveIntegerField()
    text = models.TextField(max_length=limits.QUESTION_TEXT_MAX_LENGTH)
    # Optional by default: these answers are not randomized and may identify a respondent.
    # Required or not, "Prefer not to say" is always offered (a GroupAnswer without option).
    required = models.BooleanField(default=False)
    # Running tally of the submissions that answered "Prefer not to say" (same transaction).
    declined_count = models.PositiveIntegerField(default=0, editable=False)
    translations = models.JSONField(default=dict, blank=True, editable=False)  # {"ko": {"text"}}

    class Meta:
        ordering = ["position", "id"]

    def __str__(self):
        return self.text


class GroupingOption(models.Model):
    grouping_question = models.ForeignKey(
        GroupingQuestion, on_delete=models.CASCADE, related_name="options"
    )
    position = models.PositiveIntegerField()
    label = models.CharField(max_length=limits.OPTION_LABEL_MAX_LENGTH)
    translations = models.JSONField(default=dict, blank=True, editable=False)  # {"ko": {"label"}}
    # Running tally of the submissions that chose this option (same transaction as the answer).
    respondent_count = models.PositiveIntegerField(default=0, editable=False)

    class Meta:
        ordering = ["position", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["grouping_question", "position"], name="grouping_option_position_unique"
            ),
        ]

    def __str__(self):
        return self.label


# What a submission's ``groups`` carries for a grouping question answered "Prefer not to say".
PREFER_NOT_TO_SAY = "prefer_not_to_say"


class GroupAnswer(models.Model):
    """The option one submission chose for one grouping question, exactly as sent.

    No option: the respondent answered "Prefer not to say". A skipped question has no row.
    Both count as missing in breakdowns and regressions, never as a group of their own.
    """

    id = RandomKeyField()  # random like its submission's: stored together, in arrival order
    submission = models.ForeignKey(
        Submission, on_delete=models.CASCADE, related_name="group_answers"
    )
    grouping_question = models.ForeignKey(
        GroupingQuestion, on_delete=models.CASCADE, related_name="answers"
    )
    option = models.ForeignKey(
        GroupingOption, on_delete=models.CASCADE, related_name="answers", null=True, blank=True
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["submission", "grouping_question"],
                name="one_group_answer_per_question_per_submission",
            ),
        ]

    def __str__(self):
        return f"{self.grouping_question_id}: {self.option_id}"


class GroupTally(models.Model):
    """Randomized reports of one question among the respondents who chose one option.

    Updated in the submission's transaction like the survey's report tallies, so a breakdown
    costs the same at a thousand or a million responses.
    """

    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="group_tallies")
    option = models.ForeignKey(GroupingOption, on_delete=models.CASCADE, related_name="tallies")
    report_count = models.PositiveIntegerField(default=0)
    yes_count = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["question", "option"], name="group_tally_unique"),
            models.CheckConstraint(
                condition=Q(yes_count__lte=models.F("report_count")), name="group_tally_yes_le_n"
            ),
        ]

    def __str__(self):
        return f"{self.question_id} × {self.option_id}: {self.yes_count}/{self.report_count}"


def group_cell_key(groups) -> str:
    """The joint cell a submission's grouping answers fall in: ``"<grouping question
    id>:<option id>"`` per grouping question answered, ascending by grouping question id,
    joined by ``","``; ``"-"`` for "Prefer not to say"; a skipped question is absent.

    Ids, not positions: moving a grouping question changes no stored key. The submission
    statement builds the same text in SQL (``services/submissions/statement.py``).
    """
    return ",".join(f"{gid}:{'-' if oid is None else oid}" for gid, oid in sorted(groups.items()))


def group_cell_options(key) -> dict[int, int | None]:
    """``group_cell_key`` read back: {grouping question id: option id, None if declined}."""
    if not key:
        return {}
    pairs = (part.split(":") for part in key.split(","))
    return {int(gid): None if oid == "-" else int(oid) for gid, oid in pairs}


class GroupCell(models.Model):
    """Randomized reports of one yes/no question among the respondents who gave one
    combination of grouping answers (``group_cell_key``): the regression's cells.

    Added to by the submission's statement (or transaction) like ``GroupTally``, and created
    by the first report that falls in it, so a regression costs the same at a thousand or a
    million responses. Reports of respondents who gave no grouping answer are in no cell.
    """

    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="group_cells")
    key = models.TextField()
    report_count = models.PositiveIntegerField(default=0)
    yes_count = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["question", "key"], name="group_cell_unique"),
            models.CheckConstraint(
                condition=Q(yes_count__lte=models.F("report_count")), name="group_cell_yes_le_n"
            ),
        ]

    def __str__(self):
        return f"{self.question_id} × [{self.key}]: {self.yes_count}/{self.report_count}"


class PublicRelease(models.Model):
    """Release number ``step`` of the public results page's noisy counts, on its scheduled date.

    ``counts`` holds the noisy values shown (respondents, yes reports per question,
    respondents per grouping option); ``nodes`` the noisy binary-tree nodes this release drew,
    ``{count key: {"level:index": noisy value}}``, reused by later releases so no noise is
    ever drawn twice. ``source_count`` is the exact response count up to the release's date,
    kept server-side and never shown.
    """

    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="public_releases")
    step = models.PositiveIntegerField()
    released_at = models.DateTimeField()
    epsilon = models.FloatField()
    source_count = models.PositiveIntegerField()
    counts = models.JSONField()
    nodes = models.JSONField(default=dict)

    class Meta:
        ordering = ["-step"]
        get_latest_by = "step"
        constraints = [
            models.UniqueConstraint(fields=["survey", "step"], name="public_release_step_unique"),
            models.CheckConstraint(condition=Q(step__gte=1), name="public_release_step_positive"),
        ]

    def __str__(self):
        return f"{self.survey_id} @ {self.released_at:%Y-%m-%d %H:%M}"


class ApiToken(models.Model):
    """A researcher's API token, stored as a SHA-256 digest: the key itself is shown once.

    A token is 256 random bits, so a fast hash is enough (nothing to brute-force, unlike a
    password); a copy of the database then holds nothing that signs anyone in.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(_("name"), max_length=limits.API_TOKEN_NAME_MAX_LENGTH)
    # The key's first characters, shown in lists so a researcher can tell tokens apart.
    prefix = models.CharField(max_length=limits.API_TOKEN_SHOWN_PREFIX_LENGTH)
    digest = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField()

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self):
        return f"{self.name} ({self.prefix}…)"


class SurveyMember(models.Model):
    """A co-researcher: another account invited to a survey as an editor or a viewer.

    The owner is never a member row (``Survey.owner`` says who owns it); what each role may do
    is decided in one place, ``selectors.survey_for`` (docs/researchers.md, "Co-researchers").
    """

    class Role(models.TextChoices):
        VIEWER = "viewer", _("Viewer")
        EDITOR = "editor", _("Editor")

    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="members")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="survey_memberships"
    )
    role = models.CharField(max_length=10, choices=Role.choices)
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["survey", "user"], name="survey_member_unique"),
            models.CheckConstraint(
                condition=Q(role__in=["viewer", "editor"]), name="survey_member_role_valid"
            ),
        ]

    def __str__(self):
        return f"{self.user} ({self.role})"

    def clean(self):
        # The admin's inline: the owner already has every right; a member row would be noise.
        if self.survey_id is not None and self.user_id == self.survey.owner_id:
            raise ValidationError({"user": _("The owner of a survey cannot also be a member.")})


class SurveyInvitation(models.Model):
    """An offer waiting for its invitee's answer: to join a survey as a viewer or an editor,
    or (``role`` owner) to take it over. It grants nothing and counts towards no limit until
    accepted (docs/researchers.md, "Co-researchers").

    Addressed either to an account (by username; ownership offers always go to a member) or
    to an email address, stored lower-cased: whoever holds that address *verified* on their
    account may answer it, so nothing is looked up when it is made and the answer to the
    inviter cannot tell whether the address has an account.
    """

    class Role(models.TextChoices):
        VIEWER = "viewer", _("Viewer")
        EDITOR = "editor", _("Editor")
        OWNER = "owner", _("Owner")

    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="invitations")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="survey_invitations",
    )
    email = models.CharField(max_length=limits.EMAIL_MAX_LENGTH, blank=True)
    role = models.CharField(max_length=10, choices=Role.choices)
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.CheckConstraint(
                condition=(Q(user__isnull=False) & Q(email=""))
                | (Q(user__isnull=True) & ~Q(email="")),
                name="survey_invitation_one_addressee",
            ),
            models.CheckConstraint(
                condition=Q(role__in=["viewer", "editor"]) | Q(role="owner", user__isnull=False),
                name="survey_invitation_role_valid",
            ),
            models.UniqueConstraint(
                fields=["survey", "user"],
                condition=Q(user__isnull=False),
                name="survey_invitation_one_per_user",
            ),
            models.UniqueConstraint(
                fields=["survey", "email"],
                condition=~Q(email=""),
                name="survey_invitation_one_per_email",
            ),
        ]

    def __str__(self):
        return f"{self.user or self.email} ({self.role}, pending)"


class VerifiedEmail(models.Model):
    """The address an account proved it reads, by following a link mailed to it.

    An account's address is verified while ``User.email`` still equals the one stored here
    (compared lower-cased): changing the address makes it unverified without touching this row.
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="verified_email"
    )
    email = models.CharField(max_length=limits.EMAIL_MAX_LENGTH)
    verified_at = models.DateTimeField()

    def __str__(self):
        return f"{self.email} (verified)"


class ExportJob(models.Model):
    """A raw export written by the background worker into a file kept for a while.

    The file lives under ``settings.EXPORT_DIR`` with a random name (``file_name``) and is
    served only through the application to members of the survey; it appears there complete
    or not at all (written under a temporary name, then renamed). ``rows`` and ``sha256`` are
    computed while writing, so a researcher can check that the file is whole.
    """

    class Status(models.TextChoices):
        QUEUED = "queued", _("Waiting")
        RUNNING = "running", _("Writing")
        DONE = "done", _("Ready")
        FAILED = "failed", _("Failed")

    # Random: a job's address reveals nothing of how many exports anyone made.
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="export_jobs")
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    kind = models.CharField(max_length=20)  # a name of surveys.exports.kinds.EXPORT_KINDS
    options = models.JSONField(default=dict)  # the kind's options (interval, thresholds)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    rows_total = models.PositiveBigIntegerField(default=0)  # responses when it was requested
    rows_written = models.PositiveBigIntegerField(default=0)  # progress, while running
    file_name = models.CharField(max_length=80, blank=True)  # under EXPORT_DIR, random
    download_name = models.CharField(max_length=200, blank=True)
    size = models.PositiveBigIntegerField(null=True, blank=True)
    rows = models.PositiveBigIntegerField(null=True, blank=True)  # data rows in the raw file
    sha256 = models.CharField(max_length=64, blank=True)  # of the raw reports, as written
    error = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)

    def __str__(self):
        return f"{self.kind} export of survey {self.survey_id} ({self.status})"


class SurveyTokenKey(models.Model):
    """A survey's RSA key pair for invitation tokens (RFC 9474 blind signatures), made when
    invitations are first enabled and never replaced once the survey has opened: every
    invitee's token must be signed with the one key the frozen definition publishes, or the
    key would tell them apart (a pilot's discarded tokens take the pilot's key with them:
    ``services.pilot.pilot_tokens_discard``).

    The private key is sealed (``blindrsa.private_key_encrypt``: AES-256-GCM under a key
    derived from ``SECRET_KEY``, the survey's id as associated data), so a copy of the
    database alone cannot sign.
    """

    survey = models.OneToOneField(
        Survey, on_delete=models.CASCADE, primary_key=True, related_name="token_key"
    )
    public_key = models.TextField()  # SubjectPublicKeyInfo DER, base64url: ``token_key``
    sealed_private_key = models.BinaryField()

    def __str__(self):
        return f"token key of survey {self.survey_id}"


class Invitation(models.Model):
    """One person's invitation to answer an invitation-only survey: a random code that can
    obtain one token, once (``surveys/services/invitations.py``).

    The code is stored sealed (AES-GCM under a key derived from ``SECRET_KEY``) because
    editors and the owner must be able to read it again (to resend a link, to print a
    sheet), and found by ``code_digest``, an HMAC of the code under another key derived from
    ``SECRET_KEY``: a copy of the database alone yields no code that could obtain a token.
    Nothing here records when a token was obtained, and nothing joins an invitation to a
    submission: a token is spent by a digest of its message (``SpentToken``), which the
    server never saw when it signed.
    """

    class Status(models.TextChoices):
        UNUSED = "unused", _("Not used yet")
        ISSUED = "issued", _("Token obtained")
        REVOKED = "revoked", _("Revoked")

    class Mail(models.TextChoices):
        NONE = "", _("Nothing to send")
        INVITATION = "invitation", _("Invitation to send")
        REMINDER = "reminder", _("Reminder to send")

    survey = models.ForeignKey(
        Survey, on_delete=models.CASCADE, related_name="respondent_invitations"
    )
    email = models.CharField(max_length=limits.EMAIL_MAX_LENGTH, blank=True)  # "": anonymous
    code_digest = models.CharField(max_length=64, unique=True)
    sealed_code = models.BinaryField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.UNUSED)
    # Email: what waits to be sent by ``manage.py send_invitations``, its failed attempts and
    # the last error (shown on the page), emails sent, and whether the invitee opted out.
    mail_pending = models.CharField(max_length=12, choices=Mail.choices, blank=True, default="")
    mail_attempts = models.PositiveSmallIntegerField(default=0)
    mail_error = models.CharField(max_length=500, blank=True)
    mails_sent = models.PositiveSmallIntegerField(default=0)
    unsubscribed = models.BooleanField(default=False)
    # Made while the survey was a pilot: shown apart, never counted or printed with the real
    # study's, and revoked (or re-issued with new codes) when it opens (services/pilot.py).
    pilot = models.BooleanField(default=False)
    # The language the email and the slip are written in (one of the survey's); blank: the
    # survey's own language.
    language = models.CharField(max_length=limits.LANGUAGE_TAG_MAX_LENGTH, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # Its status changed (a token obtained) since the survey's last batch: the batch's release
    # rewrites it among the others, so its row's transaction number and place say nothing.
    reshuffle = models.BooleanField(db_default=False, editable=False)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["survey", "email", "pilot"],
                condition=~Q(email=""),
                name="invitation_one_per_email",
            ),
            models.CheckConstraint(
                condition=Q(status__in=["unused", "issued", "revoked"]),
                name="invitation_status_valid",
            ),
        ]

    def __str__(self):
        return f"{self.email or 'anonymous'} ({self.status})"


class SpentToken(models.Model):
    """A token that was spent on a submission: the SHA-256 of its prepared message, and
    nothing else (no time, no code, no submission), stored in the submission's transaction.
    The key is random (``random_key``) so that row order says nothing about arrival order."""

    id = RandomKeyField()
    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="spent_tokens")
    digest = models.BinaryField(max_length=32)
    # Spent on a submission still held for its batch: rewritten with it when it is released.
    held = models.BooleanField(db_default=False, editable=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["survey", "digest"], name="spent_token_once"),
        ]

    def __str__(self):
        return f"spent token of survey {self.survey_id}"
