"""Responses that become visible in batches (docs/invitations.md, "Batches").

A survey is batched when its ``Survey.batch_size`` is above 1 and it is not a pilot (by default
a survey that takes invitations: ``limits.RELEASE_BATCH_INVITATION``). Its submission is stored
at once, by the same path as every other (``services.submissions``), and in the same
transaction ``submission_hold`` marks it held (``Submission.held``: ``Submission.objects``, which
every reader uses, leaves it out) and takes what the submission added to the tallies out again,
so every tally a page reads counts released submissions only. When ``batch_size`` submissions
are held, ``batch_release`` adds them back, all at once, and rewrites the batch's rows in a
random order: its submissions and grouping answers and spent tokens (deleted and stored again
under new random keys), the histogram rows and regression cells it touched (likewise), the
per-option counts and tallies it touched, and the invitations that obtained a token since the
last batch (updated in a random order). On PostgreSQL each rewritten row then carries the
release's transaction number (``xmin``) and a place (``ctid``) drawn by the shuffle, not by
arrival. A closed survey's last, smaller batch waits for its researcher
(``batch_release_last``).

Every batched write locks the survey's row first (``survey_lock``), before any tally row:
two submissions that complete a batch at once release it once, and no two writers wait for
each other in a cycle. What a release costs grows with the batch and the cells it touched,
never with the responses stored before.
"""

import random
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from django.db import connection, transaction
from django.db.models import F
from django.utils.translation import gettext as _

from dpengine import report_tally, tally_sum

from .. import selectors
from ..models import (
    GroupAnswer,
    GroupCell,
    GroupingOption,
    GroupingQuestion,
    GroupTally,
    Invitation,
    NumericTally,
    Question,
    SpentToken,
    Submission,
    Survey,
    TallyShard,
    group_cell_key,
    is_slug,
    random_key,
)
from . import schedule
from .errors import Reason, SurveyConflict

RESPONSES_FIELD = "responses"
_shuffle = random.SystemRandom().shuffle


@dataclass(frozen=True)
class BatchTarget:
    """A batched survey: its id and how many submissions make a batch."""

    survey_id: int
    size: int


def batch_target(*, slug) -> BatchTarget | None:
    """The survey at ``slug`` if its submissions are held for batches now, else None.

    Kept in this process once the survey has opened: its access and batch size are frozen from
    then on, and it is never a pilot again, so a submission saves the query.
    """
    if not is_slug(slug):
        return None  # no survey has it (and PostgreSQL refuses a NUL byte in a text)
    cached = _targets.get(slug)
    if cached is not None:
        return cached if cached.size > 1 else None
    row = (
        Survey.objects.filter(slug=slug)
        .values_list("id", "status", "access", "release_batch", "opened_at")
        .first()
    )
    if row is None:
        return None
    survey_id, status, access, release_batch, opened_at = row
    size = Survey(access=access, release_batch=release_batch).batch_size
    if status == Survey.Status.PILOT:
        size = 1  # pilot responses are never counted; nothing to hold
    target = BatchTarget(survey_id=survey_id, size=size)
    if opened_at is not None:
        if len(_targets) >= _TARGETS_MAX:
            _targets.clear()
        _targets[slug] = target
    return target if size > 1 else None


_targets: dict[str, BatchTarget] = {}
_TARGETS_MAX = 1024


def survey_lock(survey_id) -> None:
    """Lock the survey's row for the caller's transaction (a no-op on SQLite, whose
    transactions take the database's write lock at BEGIN)."""
    list(Survey.all_objects.select_for_update().filter(pk=survey_id).values_list("pk"))


def submission_hold(*, batch: BatchTarget, submission_uuid, token_digest=None) -> bool:
    """In the transaction that stored it, after ``survey_lock``: hold the submission (and the
    token it spent) for its batch and take it out of the tallies again; release the batch
    when it is complete. Whether a batch was released."""
    stored = Submission.all_objects.filter(survey_id=batch.survey_id, submission_id=submission_uuid)
    rows = list(stored.values_list("pk", "reports"))
    stored.update(held=True)
    if token_digest is not None:
        SpentToken.objects.filter(survey_id=batch.survey_id, digest=token_digest).update(held=True)
    _tallies_apply(batch.survey_id, _counts(batch.survey_id, rows), sign=-1)
    held = Submission.all_objects.filter(survey_id=batch.survey_id, held=True).count()
    if held < batch.size:
        return False
    batch_release(survey_id=batch.survey_id)
    return True


def batch_release(*, survey_id) -> int:
    """Make every held submission of the survey visible at once, its rows rewritten in random
    order; how many there were. In the caller's transaction, the survey's row locked."""
    held = list(
        Submission.all_objects.filter(survey_id=survey_id, held=True).values_list(
            "pk", "submission_id", "received_on", "reports"
        )
    )
    if not held:
        return 0
    counts = _counts(survey_id, [(pk, reports) for pk, _sid, _on, reports in held])
    answers = list(
        GroupAnswer.objects.filter(submission_id__in=[row[0] for row in held]).values_list(
            "submission_id", "grouping_question_id", "option_id"
        )
    )
    GroupAnswer.objects.filter(submission_id__in=[row[0] for row in held]).delete()
    Submission.all_objects.filter(pk__in=[row[0] for row in held]).delete()
    _shuffle(held)
    new_keys = {row[0]: random_key() for row in held}
    Submission.all_objects.bulk_create(
        Submission(
            id=new_keys[pk],
            survey_id=survey_id,
            submission_id=submission_id,
            received_on=received_on,
            reports=reports,
            held=False,
        )
        for pk, submission_id, received_on, reports in held
    )
    _shuffle(answers)
    GroupAnswer.objects.bulk_create(
        GroupAnswer(
            id=random_key(), submission_id=new_keys[pk], grouping_question_id=gid, option_id=oid
        )
        for pk, gid, oid in answers
    )
    _tokens_rewrite(survey_id)
    _tallies_apply(survey_id, counts, sign=1)
    return len(held)


def _tokens_rewrite(survey_id):
    """The batch's spent tokens, stored again under new keys in random order; the invitations
    that obtained a token since the last batch, updated in random order."""
    spent = SpentToken.objects.filter(survey_id=survey_id, held=True)
    digests = [bytes(digest) for digest in spent.values_list("digest", flat=True)]
    spent.delete()
    _shuffle(digests)
    SpentToken.objects.bulk_create(
        SpentToken(id=random_key(), survey_id=survey_id, digest=digest, held=False)
        for digest in digests
    )
    # Deleted and stored again, whole and under the same key (pages link to it by its key,
    # which counts up as invitations are made, not as they are used): an UPDATE would leave
    # the new version on the page of the old one where there is room.
    table = connection.ops.quote_name(Invitation._meta.db_table)
    columns = [field.column for field in Invitation._meta.concrete_fields]
    names = ", ".join(connection.ops.quote_name(column) for column in columns)
    reshuffle = columns.index(Invitation._meta.get_field("reshuffle").column)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {names} FROM {table} WHERE survey_id = %s AND reshuffle", [survey_id]
        )
        rows = [list(row) for row in cursor.fetchall()]
        if not rows:
            return
        cursor.execute(f"DELETE FROM {table} WHERE survey_id = %s AND reshuffle", [survey_id])
        _shuffle(rows)
        for row in rows:
            row[reshuffle] = False
        marks = "(" + ", ".join(["%s"] * len(columns)) + ")"
        cursor.execute(
            f"INSERT INTO {table} ({names}) VALUES {', '.join([marks] * len(rows))}",
            [value for row in rows for value in row],
        )


@transaction.atomic
def batch_release_last(*, survey, responses) -> int:
    """The researcher releases a closed survey's last batch, smaller than ``batch_size``,
    having been told how many responses it holds (``responses``, checked against the count:
    a 409 naming ``responses`` if it differs). How many were released."""
    survey = Survey.objects.select_for_update().get(pk=survey.pk)
    if schedule.phase_of(survey) in schedule.Phase.ACCEPTING:
        raise SurveyConflict(
            _(
                "The survey still takes responses: its batches are released as they fill. "
                "Close it to release the last one."
            ),
            reason=Reason.WRONG_STATUS,
            field="status",
        )
    held = selectors.held_responses(survey=survey)
    if held == 0 or responses != held:
        raise SurveyConflict(
            _("The last batch holds %(n)d responses; confirm that number to release it.")
            % {"n": held},
            reason=Reason.CHANGED_MEANWHILE,
            field=RESPONSES_FIELD,
        )
    return batch_release(survey_id=survey.pk)


@dataclass
class _Counts:
    """What some submissions add to the tallies (the submission statement's writes)."""

    responses: int = 0
    reports: dict = field(default_factory=dict)  # {question key: tally vector}
    group_tallies: Counter = field(default_factory=Counter)  # {(qid, oid, "n"|"yes"): count}
    cells: Counter = field(default_factory=Counter)  # {(qid, key, "n"|"yes"): count}
    histograms: Counter = field(default_factory=Counter)  # {(qid, report): count}
    options: Counter = field(default_factory=Counter)  # {option id: respondents}
    declined: Counter = field(default_factory=Counter)  # {grouping question id: declined}


def _kinds(survey_id):
    """{question id: (the kind its report is tallied as, randomized)}: a cheating-detection
    question and one compared with asking directly send a code, tallied as a choice."""
    kinds = {}
    for question in Question.all_objects.filter(survey_id=survey_id).only(
        "id", "kind", "randomized", "design", "compare_direct"
    ):
        kind = question.kind
        if selectors.is_cheating_detection(question) or question.compare_direct:
            kind = selectors.report_range(question)[0]
        kinds[question.pk] = (kind, question.randomized)
    return kinds


def _counts(survey_id, rows) -> _Counts:
    """What the submissions ``rows`` (``(pk, reports)``) added to the tallies."""
    kinds = _kinds(survey_id)
    chosen = defaultdict(dict)
    for submission_id, gid, oid in GroupAnswer.objects.filter(
        submission_id__in=[pk for pk, _reports in rows]
    ).values_list("submission_id", "grouping_question_id", "option_id"):
        chosen[submission_id][gid] = oid
    counts = _Counts(responses=len(rows))
    for pk, reports in rows:
        bits = {}
        for key, report in reports.items():
            qid = int(key[1:])
            kind, randomized = kinds.get(qid, (Question.Kind.YES_NO, True))
            counts.reports[key] = tally_sum(counts.reports.get(key, ()), report_tally(kind, report))
            if kind == Question.Kind.YES_NO:
                bits[qid] = int(report)
            elif kind == Question.Kind.NUMERIC and randomized:
                counts.histograms[qid, report] += 1
        groups = chosen.get(pk, {})
        for gid, oid in groups.items():
            if oid is None:
                counts.declined[gid] += 1
            else:
                counts.options[oid] += 1
                for qid, bit in bits.items():
                    counts.group_tallies[qid, oid, "n"] += 1
                    counts.group_tallies[qid, oid, "yes"] += bit
        if groups:
            cell = group_cell_key(groups)
            for qid, bit in bits.items():
                counts.cells[qid, cell, "n"] += 1
                counts.cells[qid, cell, "yes"] += bit
    return counts


def _tallies_apply(survey_id, counts: _Counts, *, sign):
    """Add (``sign`` 1) or take out (-1) ``counts``, each row in random order; the histogram
    rows and cells touched are stored again under new keys (``sign`` 1) or removed once empty
    (-1)."""
    _shards_apply(survey_id, counts, sign=sign)
    pairs = sorted({(qid, oid) for qid, oid, _part in counts.group_tallies})
    _shuffle(pairs)
    for qid, oid in pairs:
        n, yes = counts.group_tallies[qid, oid, "n"], counts.group_tallies[qid, oid, "yes"]
        updated = GroupTally.objects.filter(question_id=qid, option_id=oid).update(
            report_count=F("report_count") + sign * n, yes_count=F("yes_count") + sign * yes
        )
        if not updated and sign > 0:
            GroupTally.objects.create(question_id=qid, option_id=oid, report_count=n, yes_count=yes)
    for model, counter in ((GroupingOption, counts.options), (GroupingQuestion, counts.declined)):
        name = "respondent_count" if model is GroupingOption else "declined_count"
        ids = list(counter)
        _shuffle(ids)
        for pk in ids:
            model.objects.filter(pk=pk).update(**{name: F(name) + sign * counter[pk]})
    _cells_apply(counts, sign=sign)
    _histograms_apply(counts, sign=sign)


def _shards_apply(survey_id, counts, *, sign):
    if not counts.responses:
        return
    shards = list(TallyShard.objects.select_for_update().filter(survey_id=survey_id))
    if sign > 0:
        shard = next((s for s in shards if s.shard == 0), None)
        if shard is None:
            shard = TallyShard.objects.create(survey_id=survey_id, shard=0)
    else:
        # Taken out of a shard that holds all of it (the one it was added to does), so no
        # count goes below zero.
        shard = next(
            (s for s in shards if _holds(s, counts)), max(shards, key=lambda s: s.responses)
        )
    for key, vector in counts.reports.items():
        summed = tally_sum(shard.reports.get(key, ()), [sign * value for value in vector])
        if any(summed):
            shard.reports[key] = summed
        else:
            shard.reports.pop(key, None)
    shard.responses += sign * counts.responses
    shard.save(update_fields=["responses", "reports"])


def _holds(shard, counts):
    if shard.responses < counts.responses:
        return False
    for key, vector in counts.reports.items():
        have = list(shard.reports.get(key, ()))
        if len(have) < len(vector) or any(h < v for h, v in zip(have, vector, strict=False)):
            return False
    return True


def _cells_apply(counts, *, sign):
    wanted = sorted({(qid, key) for qid, key, _part in counts.cells})
    if not wanted:
        return
    by_question = defaultdict(list)
    for qid, key in wanted:
        by_question[qid].append(key)
    rows = []
    for qid, keys in by_question.items():
        rows += list(GroupCell.objects.filter(question_id=qid, key__in=keys))
    have = {(row.question_id, row.key): row for row in rows}
    result = []
    for qid, key in wanted:
        row = have.get((qid, key))
        n = (row.report_count if row else 0) + sign * counts.cells[qid, key, "n"]
        yes = (row.yes_count if row else 0) + sign * counts.cells[qid, key, "yes"]
        if n > 0:
            result.append(GroupCell(question_id=qid, key=key, report_count=n, yes_count=yes))
    GroupCell.objects.filter(pk__in=[row.pk for row in rows]).delete()
    _shuffle(result)
    GroupCell.objects.bulk_create(result)


def _histograms_apply(counts, *, sign):
    wanted = sorted(counts.histograms)
    if not wanted:
        return
    by_question = defaultdict(list)
    for qid, report in wanted:
        by_question[qid].append(report)
    rows = []
    for qid, reports in by_question.items():
        rows += list(NumericTally.objects.filter(question_id=qid, report__in=reports))
    have = {(row.question_id, row.report): row.count for row in rows}
    result = []
    for qid, report in wanted:
        count = have.get((qid, report), 0) + sign * counts.histograms[qid, report]
        if count > 0:
            result.append(
                NumericTally(id=random_key(), question_id=qid, report=report, count=count)
            )
    NumericTally.objects.filter(pk__in=[row.pk for row in rows]).delete()
    _shuffle(result)
    NumericTally.objects.bulk_create(result)
