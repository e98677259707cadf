"""Surveys, their questions and the randomized reports respondents send.

What is stored about a respondent is deliberately small: a client-generated submission id,
the coarse date it arrived and one randomized bit per question. No address, user agent,
precise time, cookie or account ties a report to a person.
"""

from django.db import models
from django.db.models import Q, Sum, Value

from .keys import RandomKeyField, question_key
from .questions import GroupingOption, GroupingQuestion, Question
from .surveys import Survey

TALLY_SHARDS = 16


class ShardedTallyQuerySet(models.QuerySet):
    """The rows of a sharded tally (``TOTALS``: its key fields, its count fields)."""

    def totals(self):
        """Per key, its counts summed over the shards: ``(*key, *counts)`` tuples."""
        keys, counts = self.model.TOTALS
        return self.values_list(*keys).annotate(*(Sum(name) for name in counts)).order_by()


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
    are added by their batch's release (services/batches.py), released ones only, to the day
    of the release: a public release already made for the days they came in never changes.
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


class NumericTally(models.Model):
    """How many reports of one randomized numeric question were ``report``: the question's
    histogram, one row per value reported so far.

    Written with each submission (same statement or transaction), like ``TallyShard``, so the
    share above any threshold and the manipulation check read these counts instead of every
    report. Reports lie within ``dpengine.report_bounds``, so a question has at most its range
    plus twice the slack rows per shard, whatever the number of responses. Sharded as
    ``TallyShard`` (a submission adds to the shard of the same number, created with its first
    report of the value): a narrow range puts most reports on a few values, whose rows would
    otherwise make concurrent submissions wait for one another.
    """

    # Random, not counted: a counted key would record in which order the values first came.
    id = RandomKeyField()
    # No index of its own: the unique (question, report) index serves lookups by question.
    question = models.ForeignKey(
        Question, on_delete=models.CASCADE, related_name="numeric_tallies", db_index=False
    )
    report = models.BigIntegerField()
    shard = models.PositiveSmallIntegerField(default=0)
    count = models.PositiveIntegerField()

    objects = ShardedTallyQuerySet.as_manager()
    TOTALS = (("question_id", "report"), ("count",))

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["question", "report", "shard"], name="numeric_tally_unique"
            ),
        ]

    def __str__(self):
        return f"{self.question_id} = {self.report} #{self.shard}: {self.count}"


class ReleasedSubmissionManager(models.Manager):
    """Submissions every researcher view counts: not held for a batch (``Submission.held``)."""

    def get_queryset(self):
        return super().get_queryset().filter(held=False)


class Submission(models.Model):
    """One respondent's randomized answers: what their browser sent, never the true answers."""

    # Random, not counted: no stored column says in which order submissions arrived.
    id = RandomKeyField()
    # No index of its own: the unique (survey, submission id) index serves lookups by survey,
    # and every submission would otherwise add an entry to both.
    survey = models.ForeignKey(
        Survey, on_delete=models.CASCADE, related_name="submissions", db_index=False
    )
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

PREFER_NOT_TO_SAY = "prefer_not_to_say"


class GroupAnswer(models.Model):
    """The option one submission chose for one grouping question, exactly as sent.

    No option: the respondent answered "Prefer not to say". A skipped question has no row.
    Both count as missing in breakdowns and regressions, never as a group of their own.
    """

    id = RandomKeyField()  # random like its submission's: stored together, in arrival order
    # No index of its own: the unique (submission, grouping question) index serves lookups by
    # submission.
    submission = models.ForeignKey(
        Submission, on_delete=models.CASCADE, related_name="group_answers", db_index=False
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


class GroupTallyQuerySet(models.QuerySet):
    def totals(self, *, question_ids=None):
        """Per (question, option), its counts summed over the shards: ``(question id, option
        id, reports, yes reports)`` tuples (of ``question_ids`` only, when given), as
        ``ShardedTallyQuerySet.totals`` gives for a table of one row per (question, option)."""
        keys = None if question_ids is None else {question_key(qid) for qid in question_ids}
        summed = {}
        for option_id, reports in self.values_list("option_id", "reports"):
            for key, (n, yes) in reports.items():
                if keys is None or key in keys:
                    pair = (int(key[1:]), option_id)
                    have_n, have_yes = summed.get(pair, (0, 0))
                    summed[pair] = (have_n + n, have_yes + yes)
        return [(qid, oid, n, yes) for (qid, oid), (n, yes) in summed.items()]


class GroupTally(models.Model):
    """Randomized yes/no reports of every question among the respondents who chose one option:
    one of the option's ``TALLY_SHARDS`` rows, its counts the sum of its rows.

    Updated in the submission's transaction like the survey's report tallies, so a breakdown
    costs the same at a thousand or a million responses. One row per (option, shard) holding
    every question's counts, as ``TallyShard`` holds the survey's: a grouped submission then
    updates one row per option chosen, not one per question and option. All ``TALLY_SHARDS``
    rows are created when the survey opens, so a row the submission has to create tells that
    rows were missing.
    """

    # Its grouping question is the option's. No index of its own: the unique (option, shard)
    # index serves lookups by option.
    option = models.ForeignKey(
        GroupingOption, on_delete=models.CASCADE, related_name="group_tallies", db_index=False
    )
    shard = models.PositiveSmallIntegerField(default=0)
    # {"q<question id>": [reports, yes reports]} (``dpengine.report_tally`` of a yes/no
    # report, summed), per yes/no question whose reports breakdowns count.
    reports = models.JSONField(default=dict)

    objects = GroupTallyQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["option", "shard"], name="group_tally_option_unique"),
        ]

    def __str__(self):
        return f"{self.option_id} #{self.shard}: {self.reports}"


class GroupingTally(models.Model):
    """How many respondents chose one grouping option (``option``), or answered its grouping
    question "Prefer not to say" (``option`` None): one of its ``TALLY_SHARDS`` rows, the count
    is their sum. Added to by the submission's statement (or transaction) in the shard of its
    tally shard's number, created by the first answer that falls in it.
    """

    grouping_question = models.ForeignKey(
        GroupingQuestion, on_delete=models.CASCADE, related_name="answer_tallies"
    )
    option = models.ForeignKey(
        GroupingOption, on_delete=models.CASCADE, null=True, related_name="respondent_tallies"
    )
    shard = models.PositiveSmallIntegerField()
    count = models.PositiveIntegerField(default=0)

    objects = ShardedTallyQuerySet.as_manager()
    TOTALS = (("grouping_question_id", "option_id"), ("count",))

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["option", "shard"],
                condition=Q(option__isnull=False),
                name="grouping_tally_option_unique",
            ),
            models.UniqueConstraint(
                fields=["grouping_question", "shard"],
                condition=Q(option__isnull=True),
                name="grouping_tally_declined_unique",
            ),
        ]

    def __str__(self):
        return f"{self.grouping_question_id}: {self.option_id} #{self.shard}: {self.count}"


def group_cell_key(groups) -> str:
    """The joint cell a submission's grouping answers fall in: ``"<grouping question
    id>:<option id>"`` per grouping question answered, ascending by grouping question id,
    joined by ``","``; ``"-"`` for "Prefer not to say"; a skipped question is absent.

    Ids, not positions: moving a grouping question changes no stored key. The submission
    statement builds the same text in SQL (``services/submissions/statement.py``).
    """
    return ",".join(f"{gid}:{'-' if oid is None else oid}" for gid, oid in sorted(groups.items()))


# A survey keeps the regression's cells (``GroupCell``) only from this many grouping questions
# on. With one, a cell is one option's (question, option) tally (``GroupTally``, the same
# counts) or its declined answers' (missing, left out of the regression): the regression reads
# the tallies, and a submission writes ten rows fewer.
GROUP_CELLS_MIN_GROUPINGS = 2


def group_cells_kept(grouping_questions: int) -> bool:
    """Whether a survey with ``grouping_questions`` grouping questions keeps ``GroupCell``
    rows (``GROUP_CELLS_MIN_GROUPINGS``); every writer of cells asks this."""
    return grouping_questions >= GROUP_CELLS_MIN_GROUPINGS


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
    Kept only by a survey of several grouping questions (``group_cells_kept``).
    Sharded as ``TallyShard`` (a cell is the sum of its rows).
    """

    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="group_cells")
    key = models.TextField()
    shard = models.PositiveSmallIntegerField(default=0)
    report_count = models.PositiveIntegerField(default=0)
    yes_count = models.PositiveIntegerField(default=0)

    objects = ShardedTallyQuerySet.as_manager()
    TOTALS = (("question_id", "key"), ("report_count", "yes_count"))

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["question", "key", "shard"], name="group_cell_unique"),
            models.CheckConstraint(
                condition=Q(yes_count__lte=models.F("report_count")), name="group_cell_yes_le_n"
            ),
        ]

    def __str__(self):
        counts = f"{self.yes_count}/{self.report_count}"
        return f"{self.question_id} × [{self.key}] #{self.shard}: {counts}"


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
