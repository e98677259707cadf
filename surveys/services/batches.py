"""Responses that become visible in batches (docs/invitations.md, "Batches").

A survey is batched when its ``Survey.batch_size`` is above 1 and it is not a pilot (by default
a survey that takes invitations: ``limits.RELEASE_BATCH_INVITATION``). Its submission is stored
at once, by the same path as every other (``services.submissions``: on PostgreSQL the held
form of the one statement, its token spent in it), but held (``Submission.held``:
``Submission.objects``, which every reader uses, leaves it out) and counted in no tally: no
tally row is written, nor locked, until its batch is released. Once that transaction has
committed, ``batch_settle`` counts the held submissions, and when ``batch_size`` of them are
held, ``batch_release`` takes whole batches of them (as many as make a multiple of
``batch_size``, chosen at random when more are held) and rewrites the batch's rows in a
random order (``batch_rows``; on PostgreSQL one statement): its submissions and grouping
answers and spent tokens (deleted and stored again under new random keys) and the invitations
that obtained a token since the last batch (likewise, under their own keys). It then counts the
released submissions from the rows that statement returns (``_counts``: what the submission
statement would have added) and adds them to the tallies, all at once, in the same
transaction (on PostgreSQL one set-based statement per table, all in one round trip): the
histogram rows and regression cells it touched are stored again (new keys, random order), the
per-option counts and tallies it touched updated in a random order. On
PostgreSQL each rewritten row then carries the release's transaction number (``xmin``) and a
place (``ctid``) drawn by the shuffle, not by arrival. A closed survey's last, smaller batch
waits for its researcher (``batch_release_last``).

Who completes a batch: no submission waits for another. Each commits held, lock-free; then
``batch_settle`` counts the held submissions (a snapshot after its own commit; on PostgreSQL
taken in the round trip that stores and commits it) and, only if a
batch is complete, tries the survey's batch lock (``pg_try_advisory_xact_lock``: never waiting;
SQLite's write lock, held from BEGIN) in a short transaction of its own, counts again under it
and releases. A submission that finds the lock taken leaves: the holder, after letting go,
counts again from the top, and that count sees every submission committed while it held the
lock. So two submissions completing a batch at once release it once, one release never runs
twice over the same rows, and no batch stays complete and held once the requests that filled
it have answered. Should a process die between its commit and its count, the batch it completed
is released by the next submission's count, or, once the survey closes, with the last batch
by its researcher. What a release costs grows with the batch and the cells it touched, never
with the responses stored before.
"""

import functools
import json
import random
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from django.db import connection, transaction
from django.db.models import F
from django.utils.translation import gettext as _

from dpengine import report_tally, tally_sum

from .. import selectors
from ..models import (
    DayTally,
    GroupCell,
    GroupingTally,
    GroupTally,
    NumericTally,
    Question,
    Submission,
    Survey,
    TallyShard,
    group_cell_key,
    is_slug,
    random_key,
)
from . import batch_rows, schedule
from .errors import Reason, SurveyConflict
from .tallies import day_counts, day_counts_sum, day_tally_add, grouping_tallies_add

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


# The first key of the advisory lock (``batch_lock``): the batches' own class of lock, the
# survey's id the second key. 0x62617463 is "batc".
_BATCH_LOCK_CLASS = 0x62617463


def batch_lock(survey_id) -> None:
    """Take the survey's batch lock for the caller's transaction, waiting for it: on PostgreSQL
    an advisory lock (it locks no row: a survey's row stays free for the foreign-key checks of
    the submissions written meanwhile); on SQLite nothing, its transactions taking the
    database's write lock at BEGIN (IMMEDIATE, config/settings.py)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(_LOCK_SQL, lock_key(survey_id))


def batch_settle(batch: BatchTarget, *, held=None) -> int:
    """After a held submission's transaction has committed: release every complete batch of
    the survey; how many submissions this call released (0 when another request holds the
    lock: that one counts again before it lets go).

    Lock-free first: a count of the held submissions (a snapshot taken after this one's
    commit; ``held``, when the writer took it in the round trip of that commit). Only when a
    batch is complete, a short transaction tries the survey's batch lock, never waiting for
    it, and counts again under it (a statement of its own, after the lock is granted: it sees
    every held submission committed before) before releasing. Then again from the top, so that
    a submission which committed while this one held the lock, and found the lock taken, is
    counted by this one."""
    released = 0
    if held is None:
        held = _held(batch.survey_id)
    while held >= batch.size:
        with transaction.atomic():
            # On SQLite the transaction holds the write lock from BEGIN: always granted.
            locked, held = _locked_held(batch.survey_id)
            if not locked:
                return released
            if held >= batch.size:
                released += batch_release(survey_id=batch.survey_id, size=batch.size)
        held = _held(batch.survey_id)
    return released


def _held(survey_id):
    with connection.cursor() as cursor:
        cursor.execute(_HELD_SQL, [survey_id])
        return cursor.fetchone()[0]


def rows_of_each(cursor):
    """The first row of each result of several statements run at once that return rows (None
    for one that returned none), in order; the others (BEGIN, SET, COMMIT) skipped."""
    # The driver's own cursor: every result has arrived, so nothing here talks to the server,
    # and Django's wrapper would cost more than the walk itself.
    results = getattr(cursor, "cursor", cursor)
    rows = []
    while True:
        if results.description is not None:
            rows.append(results.fetchone())
        if not results.nextset():
            return rows


def _locked_held(survey_id):
    """Whether this transaction holds the survey's batch lock, tried without waiting, and the
    held submissions counted after it was granted."""
    if connection.vendor != "postgresql":
        return True, _held(survey_id)
    with connection.cursor() as cursor:
        # One round trip, two statements: the count is a statement of its own, after the
        # lock is granted, so it sees every held submission committed before it. The index
        # scans are for the rest of this transaction: the release's reads too.
        cursor.execute(
            f"{INDEX_SCAN}; {_TRY_LOCK_SQL}; {_HELD_SQL}", [*lock_key(survey_id), survey_id]
        )
        (locked,), (held,) = rows_of_each(cursor)
        return locked, held


_LOCK_SQL = "SELECT pg_advisory_xact_lock(%s, %s)"
_TRY_LOCK_SQL = "SELECT pg_try_advisory_xact_lock(%s, %s)"
# For the rest of a release's transaction, index scans rather than bitmap scans. A release
# deletes its held rows, whose entries stay in the indexes (the partial ``submission_held``,
# the spent tokens' by survey) until the table is vacuumed (seldom, for a table that keeps
# growing). A bitmap scan, which the planner prefers for the held count and the release's
# picks, visits the heap for every one of them, each time: counts and releases would cost more
# with every response released. An index scan marks each dead as it passes (once no
# transaction can see it), and every later scan, bitmap or not, skips them: each release
# clears what the ones before it left, and the counts between two releases pass over one
# batch's dead entries at most.
INDEX_SCAN = "SET LOCAL enable_bitmapscan = off"
_HELD_SQL = f"SELECT count(*) FROM {Submission._meta.db_table} WHERE survey_id = %s AND held"
# The same count for the survey at ``%(slug)s``: the PostgreSQL writer sends it in the round
# trip that stores and commits a held submission (services/submissions/postgres.py).
HELD_COUNT_SQL = (
    f"SELECT count(*) FROM {Submission._meta.db_table} WHERE held"
    f" AND survey_id = (SELECT id FROM {Survey._meta.db_table} WHERE slug = %(slug)s)"
)


def lock_key(survey_id):
    """The two keys of the survey's batch lock (PostgreSQL's advisory locks)."""
    return [_BATCH_LOCK_CLASS, survey_id % 2**31]


def batch_release(*, survey_id, size=None) -> int:
    """Make the survey's held submissions visible at once, their rows rewritten in random
    order, and add them to the tallies; how many there were. ``size``: whole batches only,
    the largest multiple of ``size`` held, chosen at random (the rest waits for the next
    batch); None: every one (the last batch). In the caller's transaction, the survey's batch
    lock held (``batch_lock``). Submissions (with their tokens) commit without the lock
    meanwhile: the rows are picked, deleted by key and stored again in one statement on
    PostgreSQL (``batch_rows``), as many spent tokens released as submissions (a token is
    spent with its submission, but nothing says which: any of them may go); then the
    released submissions are counted and added to the tallies."""
    # Drawn through ``random_key``: 16 bytes that seed this release's order and keys only.
    salt = random_key().to_bytes(8, "big") + random_key().to_bytes(8, "big")
    rows, answers = batch_rows.rows_release(
        survey_id=survey_id, size=size, salt=salt, shuffle=_shuffle, key=random_key
    )
    if not rows:
        return 0
    _tallies_add(survey_id, _counts(survey_id, rows, answers))
    return len(rows)


@transaction.atomic
def batch_release_last(*, survey, responses) -> int:
    """The researcher releases a closed survey's last batch, smaller than ``batch_size``,
    having been told how many responses it holds (``responses``, checked against the count:
    a 409 naming ``responses`` if it differs). How many were released."""
    # The batch lock first, as a submission's transaction takes it, then the survey's row.
    batch_lock(survey.pk)
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
    # {(grouping question id, option id or None for "Prefer not to say"): respondents}
    groupings: Counter = field(default_factory=Counter)
    days: dict = field(default_factory=dict)  # {received on: day counts (tallies.day_counts)}


def _kinds(survey_id):
    """{question id: (the kind its report is tallied as, randomized)}: a cheating-detection
    question and one compared with asking directly send a code, tallied as a choice.

    Kept in this process: only a survey that has opened holds submissions, and its design
    (questions, kinds, mechanisms) is frozen from then on, so each release saves the query."""
    kinds = _survey_kinds.get(survey_id)
    if kinds is None:
        kinds = _kinds_read(survey_id)
        if len(_survey_kinds) >= _TARGETS_MAX:
            _survey_kinds.clear()
        _survey_kinds[survey_id] = kinds
    return kinds


_survey_kinds: dict[int, dict] = {}


def _kinds_read(survey_id):
    kinds = {}
    for question in Question.all_objects.filter(survey_id=survey_id).only(
        "id", "kind", "randomized", "design", "compare_direct"
    ):
        kind = question.kind
        if selectors.is_cheating_detection(question) or question.compare_direct:
            kind = selectors.report_range(question)[0]
        kinds[question.pk] = (kind, question.randomized)
    return kinds


def _counts(survey_id, rows, answers) -> _Counts:
    """What the submissions ``rows`` (``(pk, reports, received on)``) with their grouping
    ``answers``
    (``(submission pk, grouping question id, option id)``) add to the tallies: what the
    submission statement adds for each, counted from the stored rows."""
    kinds = _kinds(survey_id)
    chosen = defaultdict(dict)
    for submission_id, gid, oid in answers:
        chosen[submission_id][gid] = oid
    counts = _Counts(responses=len(rows))
    for pk, reports, received_on in rows:
        answered = {int(key[1:]): report for key, report in reports.items()}
        counts.days[received_on] = day_counts_sum(
            counts.days.get(received_on, {}), day_counts(answered, chosen.get(pk, {}))
        )
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
            counts.groupings[gid, oid] += 1
            if oid is not None:
                for qid, bit in bits.items():
                    counts.group_tallies[qid, oid, "n"] += 1
                    counts.group_tallies[qid, oid, "yes"] += bit
        if groups:
            cell = group_cell_key(groups)
            for qid, bit in bits.items():
                counts.cells[qid, cell, "n"] += 1
                counts.cells[qid, cell, "yes"] += bit
    return counts


def _tallies_add(survey_id, counts: _Counts):
    """Add ``counts`` to shard 0, each row in random order; the histogram rows and cells
    touched are folded into shard 0 and stored again under new keys. On PostgreSQL set-based
    statements sent in one round trip (``_tallies_add_sql``), whatever the batch touched;
    elsewhere through the ORM (``_tallies_add_orm``), which they are tested against."""
    if connection.vendor == "postgresql":
        _tallies_add_sql(survey_id, counts)
    else:
        _tallies_add_orm(survey_id, counts)


def _tallies_add_orm(survey_id, counts: _Counts):
    _shards_add(survey_id, counts)
    pairs = sorted({(qid, oid) for qid, oid, _part in counts.group_tallies})
    _shuffle(pairs)
    for qid, oid in pairs:
        n, yes = counts.group_tallies[qid, oid, "n"], counts.group_tallies[qid, oid, "yes"]
        updated = GroupTally.objects.filter(question_id=qid, option_id=oid, shard=0).update(
            report_count=F("report_count") + n, yes_count=F("yes_count") + yes
        )
        if not updated:
            GroupTally.objects.create(
                question_id=qid, option_id=oid, shard=0, report_count=n, yes_count=yes
            )
    grouping_tallies_add(counts.groupings)
    _cells_add(counts)
    _histograms_add(counts)
    days = list(counts.days)
    _shuffle(days)
    for day in days:
        day_tally_add(survey_id, day=day, counts=counts.days[day])


def _shards_add(survey_id, counts):
    if not counts.responses:
        return
    shard = TallyShard.objects.select_for_update().filter(
        survey_id=survey_id, shard=0
    ).first() or TallyShard.objects.create(survey_id=survey_id, shard=0)
    for key, vector in counts.reports.items():
        shard.reports[key] = tally_sum(shard.reports.get(key, ()), vector)
    shard.responses += counts.responses
    shard.save(update_fields=["responses", "reports"])


def _cells_add(counts):
    wanted = sorted({(qid, key) for qid, key, _part in counts.cells})
    if not wanted:
        return
    by_question = defaultdict(list)
    for qid, key in wanted:
        by_question[qid].append(key)
    rows = []
    for qid, keys in by_question.items():
        rows += list(GroupCell.objects.filter(question_id=qid, key__in=keys))
    have = Counter()
    for row in rows:  # every shard's
        have[row.question_id, row.key, "n"] += row.report_count
        have[row.question_id, row.key, "yes"] += row.yes_count
    result = [
        GroupCell(
            question_id=qid,
            key=key,
            shard=0,
            report_count=have[qid, key, "n"] + counts.cells[qid, key, "n"],
            yes_count=have[qid, key, "yes"] + counts.cells[qid, key, "yes"],
        )
        for qid, key in wanted
    ]
    GroupCell.objects.filter(pk__in=[row.pk for row in rows]).delete()
    _shuffle(result)
    GroupCell.objects.bulk_create(result)


def _histograms_add(counts):
    wanted = sorted(counts.histograms)
    if not wanted:
        return
    by_question = defaultdict(list)
    for qid, report in wanted:
        by_question[qid].append(report)
    rows = []
    for qid, reports in by_question.items():
        rows += list(NumericTally.objects.filter(question_id=qid, report__in=reports))
    have = Counter()
    for row in rows:  # every shard's
        have[row.question_id, row.report] += row.count
    result = [
        NumericTally(
            id=random_key(),
            question_id=qid,
            report=report,
            shard=0,
            count=have[qid, report] + counts.histograms[qid, report],
        )
        for qid, report in wanted
    ]
    NumericTally.objects.filter(pk__in=[row.pk for row in rows]).delete()
    _shuffle(result)
    NumericTally.objects.bulk_create(result)


def _tallies_add_sql(survey_id, counts: _Counts):
    """``_tallies_add_orm`` on PostgreSQL: one statement per table, each adding every row of
    the batch at once (upserts from arrays, in the order of the arrays, shuffled here; the
    cells and histogram rows deleted in every shard and stored again in shard 0, added up),
    all sent in one round trip."""
    sql = _tallies_sql()
    statements, params = [], []

    def add(statement, *values):
        statements.append(statement)
        params.extend(values)

    if counts.responses:
        add(sql["shard"], survey_id, counts.responses, json.dumps(counts.reports))
    pairs = sorted({(qid, oid) for qid, oid, _part in counts.group_tallies})
    if pairs:
        _shuffle(pairs)
        add(
            sql["group_tallies"],
            *_columns(
                pairs,
                lambda qid, oid: (
                    qid,
                    oid,
                    counts.group_tallies[qid, oid, "n"],
                    counts.group_tallies[qid, oid, "yes"],
                ),
            ),
        )
    chosen = sorted(pair for pair in counts.groupings if pair[1] is not None)
    declined = sorted(pair for pair in counts.groupings if pair[1] is None)
    for name, keys in (("options", chosen), ("declined", declined)):
        if keys:
            _shuffle(keys)
            add(
                sql[name],
                *_columns(keys, lambda gid, oid: (gid, oid, counts.groupings[gid, oid])),
            )
    cells = sorted({(qid, key) for qid, key, _part in counts.cells})
    if cells:
        _shuffle(cells)
        add(
            sql["cells"],
            *_columns(
                cells,
                lambda qid, key: (
                    qid,
                    key,
                    counts.cells[qid, key, "n"],
                    counts.cells[qid, key, "yes"],
                ),
            ),
        )
    values = sorted(counts.histograms)
    if values:
        _shuffle(values)
        add(
            sql["histograms"],
            *_columns(
                values,
                lambda qid, report: (qid, report, counts.histograms[qid, report], random_key()),
            ),
        )
    days = sorted(counts.days)
    if days:
        _shuffle(days)
        add(
            sql["days"],
            survey_id,
            *_columns(days, lambda day: (day, json.dumps(counts.days[day]))),
        )
    if statements:
        with connection.cursor() as cursor:
            cursor.execute("; ".join(statements), params)


def _columns(keys, row):
    """The arrays (one per column) of ``row(*key)`` for each key, in the keys' order."""
    rows = [row(*key) if isinstance(key, tuple) else row(key) for key in keys]
    return [list(column) for column in zip(*rows, strict=True)]


@functools.cache
def _tallies_sql():
    table = {
        name: connection.ops.quote_name(model._meta.db_table)
        for name, model in (
            ("shard", TallyShard),
            ("group_tally", GroupTally),
            ("grouping_tally", GroupingTally),
            ("cell", GroupCell),
            ("histogram", NumericTally),
            ("day", DayTally),
        )
    }
    # Each array unnested WITH ORDINALITY and inserted in that order: the rows are written in
    # the order the caller shuffled them into.
    return {
        # dpengine.tally_sum in SQL (as the submission statement's): in numeric, the shorter
        # vector padded with zeros.
        "shard": f"""
INSERT INTO {table["shard"]} AS t (survey_id, shard, responses, reports)
VALUES (%s, 0, %s, %s::jsonb)
ON CONFLICT (survey_id, shard) DO UPDATE
SET responses = t.responses + excluded.responses, reports = t.reports || COALESCE((
    SELECT jsonb_object_agg(e.key, (
        SELECT jsonb_agg(
            COALESCE((t.reports -> e.key ->> n)::numeric, 0)
                + COALESCE((e.value ->> n)::numeric, 0)
            ORDER BY n
        )
        FROM generate_series(
            0,
            GREATEST(jsonb_array_length(e.value),
                COALESCE(jsonb_array_length(t.reports -> e.key), 0)) - 1
        ) AS n
    ))
    FROM jsonb_each(excluded.reports) AS e
), '{{}}')""",
        "group_tallies": f"""
INSERT INTO {table["group_tally"]} AS t (question_id, option_id, shard, report_count, yes_count)
SELECT c.question_id, c.option_id, 0, c.n, c.yes
FROM unnest(%s::bigint[], %s::bigint[], %s::bigint[], %s::bigint[])
    WITH ORDINALITY AS c (question_id, option_id, n, yes, place)
ORDER BY c.place
ON CONFLICT (question_id, option_id, shard) DO UPDATE
SET report_count = t.report_count + excluded.report_count,
    yes_count = t.yes_count + excluded.yes_count""",
        "options": f"""
INSERT INTO {table["grouping_tally"]} AS t (grouping_question_id, option_id, shard, count)
SELECT c.grouping_id, c.option_id, 0, c.n
FROM unnest(%s::bigint[], %s::bigint[], %s::bigint[])
    WITH ORDINALITY AS c (grouping_id, option_id, n, place)
ORDER BY c.place
ON CONFLICT (option_id, shard) WHERE option_id IS NOT NULL
DO UPDATE SET count = t.count + excluded.count""",
        "declined": f"""
INSERT INTO {table["grouping_tally"]} AS t (grouping_question_id, option_id, shard, count)
SELECT c.grouping_id, NULL, 0, c.n
FROM unnest(%s::bigint[], %s::bigint[], %s::bigint[])
    WITH ORDINALITY AS c (grouping_id, option_id, n, place)
ORDER BY c.place
ON CONFLICT (grouping_question_id, shard) WHERE option_id IS NULL
DO UPDATE SET count = t.count + excluded.count""",
        # The old rows (every shard's) deleted and added up into one new row in shard 0: the
        # INSERT reads what the DELETE returned, so the old row is gone before its copy is
        # stored.
        "cells": f"""
WITH added AS (
    SELECT * FROM unnest(%s::bigint[], %s::text[], %s::bigint[], %s::bigint[])
        WITH ORDINALITY AS c (question_id, key, n, yes, place)
), old AS (
    DELETE FROM {table["cell"]} AS c USING added AS a
    WHERE c.question_id = a.question_id AND c.key = a.key
    RETURNING c.question_id, c.key, c.report_count, c.yes_count
)
INSERT INTO {table["cell"]} (question_id, key, shard, report_count, yes_count)
SELECT a.question_id, a.key, 0, a.n + COALESCE(o.n, 0), a.yes + COALESCE(o.yes, 0)
FROM added AS a LEFT JOIN (
    SELECT question_id, key, sum(report_count) AS n, sum(yes_count) AS yes
    FROM old GROUP BY question_id, key
) AS o ON o.question_id = a.question_id AND o.key = a.key
ORDER BY a.place""",
        "histograms": f"""
WITH added AS (
    SELECT * FROM unnest(%s::bigint[], %s::bigint[], %s::bigint[], %s::bigint[])
        WITH ORDINALITY AS c (question_id, report, n, id, place)
), old AS (
    DELETE FROM {table["histogram"]} AS h USING added AS a
    WHERE h.question_id = a.question_id AND h.report = a.report
    RETURNING h.question_id, h.report, h.count
)
INSERT INTO {table["histogram"]} (id, question_id, report, shard, count)
SELECT a.id, a.question_id, a.report, 0, a.n + COALESCE(o.n, 0)
FROM added AS a LEFT JOIN (
    SELECT question_id, report, sum(count) AS n FROM old GROUP BY question_id, report
) AS o ON o.question_id = a.question_id AND o.report = a.report
ORDER BY a.place""",
        # services.tallies.day_tally_add in SQL: each count added to the stored one.
        "days": f"""
INSERT INTO {table["day"]} AS t (survey_id, day, shard, counts)
SELECT %s, d.day, 0, d.counts
FROM unnest(%s::date[], %s::jsonb[]) WITH ORDINALITY AS d (day, counts, place)
ORDER BY d.place
ON CONFLICT (survey_id, day, shard) DO UPDATE SET counts = t.counts || COALESCE((
    SELECT jsonb_object_agg(e.key, COALESCE((t.counts ->> e.key)::bigint, 0) + e.value::bigint)
    FROM jsonb_each_text(excluded.counts) AS e
), '{{}}')""",
    }
