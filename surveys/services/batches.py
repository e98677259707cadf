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
released submissions from the rows that statement returns and adds them to the tallies, all at
once, in the same transaction (``batch_tallies``; on PostgreSQL one set-based statement per
table, all in one round trip): the histogram rows and regression cells it touched are stored
again (new keys, random order), the per-option counts and tallies it touched updated in a
random order. On
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

import contextlib
import random
from dataclasses import dataclass

from django.db import DatabaseError, connection, transaction
from django.utils.translation import gettext as _

from .. import selectors
from ..models import (
    Submission,
    Survey,
    is_slug,
    random_key,
)
from . import batch_rows, schedule
from .batch_counting import batch_counts
from .batch_tallies import batch_tallies_add, tallies_add_statements
from .errors import Reason, SurveyConflict

RESPONSES_FIELD = "responses"
_shuffle = random.SystemRandom().shuffle


@dataclass(frozen=True)
class BatchTarget:
    """A batched survey: its id and how many submissions make a batch."""

    survey_id: int
    size: int


def batch_target(*, slug, guessed=False) -> BatchTarget | None:
    """The survey at ``slug`` if its submissions are held for batches now, else None.

    Kept in this process once the survey has opened: its access and batch size are frozen from
    then on, and it is never a pilot again, so a submission saves the query. ``guessed``: a
    survey this process has not kept is taken for one that is not batched, with no query, for
    a writer that checks the guess itself (the PostgreSQL statement stores nothing in a form
    that does not fit the survey; ``submission_receive`` then reads it and tries again).
    """
    if not is_slug(slug):
        return None  # no survey has it (and PostgreSQL refuses a NUL byte in a text)
    cached = _targets.get(slug)
    if cached is not None:
        return cached if cached.size > 1 else None
    if guessed:
        return None
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
        if connection.vendor == "postgresql" and not connection.in_atomic_block:
            now_released, held = _settle_postgresql(batch)
            if now_released is None:
                return released
            released += now_released
            continue
        with transaction.atomic():
            # On SQLite the transaction holds the write lock from BEGIN: always granted.
            locked, held = _locked_held(batch.survey_id)
            if not locked:
                return released
            if held >= batch.size:
                released += batch_release(survey_id=batch.survey_id, size=batch.size)
        held = _held(batch.survey_id)
    return released


def _settle_postgresql(batch: BatchTarget):
    """``batch_settle``'s try in autocommit on PostgreSQL: its transaction begun and ended by
    hand, so that it takes three round trips (BEGIN, the lock and the count; the release; the
    tallies, COMMIT and the count after it), not the six of ``transaction.atomic``'s. How many
    it released (None: the lock was taken), and the held submissions counted after its
    commit."""
    survey_id = batch.survey_id
    with connection.cursor() as cursor:
        try:
            cursor.execute(
                f"BEGIN; {INDEX_SCAN}; {_TRY_LOCK_SQL}; {_HELD_SQL}",
                [*lock_key(survey_id), survey_id],
            )
            (locked,), (held,) = rows_of_each(cursor)
            if not locked:
                cursor.execute("COMMIT")
                return None, held
            statements, params = [], []
            released = 0
            if held >= batch.size:
                released, counts = _released(survey_id, batch.size)
                if released:
                    statements, params = tallies_add_statements(survey_id, counts)
            # The count after the commit, which lets the lock go: it sees every submission
            # that committed while this one held it.
            cursor.execute("; ".join([*statements, "COMMIT", _HELD_SQL]), [*params, survey_id])
            (held,) = rows_of_each(cursor)[-1]
            return released, held
        except BaseException:
            with contextlib.suppress(DatabaseError):
                cursor.execute("ROLLBACK")
            raise


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
    released, counts = _released(survey_id, size)
    if released:
        batch_tallies_add(survey_id, counts)
    return released


def _released(survey_id, size):
    """``batch_release``'s rows: how many submissions it released, and what they add to the
    tallies (None when none)."""
    # Drawn through ``random_key``: 16 bytes that seed this release's order and keys only.
    salt = random_key().to_bytes(8, "big") + random_key().to_bytes(8, "big")
    rows, answers = batch_rows.rows_release(
        survey_id=survey_id,
        size=size,
        salt=salt,
        shuffle=_shuffle,
        key=random_key,
        released_on=selectors.utc_today(),
    )
    if not rows:
        return 0, None
    return len(rows), batch_counts(survey_id, rows, answers)


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
