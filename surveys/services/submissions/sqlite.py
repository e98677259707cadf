"""A submission's writer on SQLite (``write``): plain SQL in one transaction.

SQLite has no data-modifying CTEs, so there is no one statement: ``write`` checks the
contract (``contract.submission_validate``) inside a transaction that holds the database's
write lock from BEGIN (IMMEDIATE, config/settings.py), so what it checked still holds when
these writes commit; the token is spent in it too. Plain SQL, not the ORM, so that the lock
is held for as short a time as can be: the other workers wait for it.
"""

import json

from django.db import IntegrityError, connection, transaction

import dpengine

from ...models import (
    GroupAnswer,
    GroupCell,
    GroupingTally,
    GroupTally,
    NumericTally,
    Question,
    Submission,
    TallyShard,
    group_cell_key,
    group_cells_kept,
    question_key,
    random_key,
)
from .. import spent_tokens
from ..answers import order_positions
from ..tallies import day_counts, day_tally_add
from .contract import submission_check
from .postgres import Stored, recount

YES_NO = Question.Kind.YES_NO.value
NUMERIC = Question.Kind.NUMERIC.value
_KEY_DRAWS = 3


def _marks(count):
    return ", ".join(["%s"] * count)


class _NothingStored(Exception):
    """Raised inside the write transaction to undo the token's spend when nothing was stored."""


def write(prepared) -> bool:
    """Store ``prepared`` (``contract.PreparedSubmission``) if every rule of the contract holds
    at its time, its token spent in the same transaction; whether it was stored."""
    try:
        with transaction.atomic():
            # IMMEDIATE (config/settings.py): the write lock is held from here, so what the
            # contract checks still holds when the writes commit.
            target, clean = submission_check(prepared)
            if clean is None:
                return False
            if prepared.token is not None and not spent_tokens.token_spend(
                survey_id=target.survey_id, token=prepared.token, held=prepared.held
            ):
                return False  # spent before
            stored = _stored(target=target, clean=clean, prepared=prepared)
            if stored is None:
                raise _NothingStored  # a replay: undo the spend
    except _NothingStored:
        return False
    if stored.group_tallies_incomplete:
        recount(stored)
    return True


def _stored(*, target, clean, prepared) -> Stored | None:
    # The rows' keys are random (models.random_key). Should one meet a key already taken
    # (about n²/2⁶⁴ for n rows), nothing was stored and a new draw is stored instead.
    for attempt in range(_KEY_DRAWS):
        try:
            with transaction.atomic():
                return _insert(
                    target=target,
                    clean=clean,
                    received_on=prepared.received.date(),
                    held=prepared.held,
                )
        except IntegrityError:
            if attempt == _KEY_DRAWS - 1:
                raise
    raise AssertionError("unreachable")


def _insert(*, target, clean, received_on, held):
    answers, groups = clean.answers, clean.groups
    kinds = {qid: target.report_ranges.get(qid, (YES_NO,))[0] for qid in answers}
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {Submission._meta.db_table}"
            " (id, survey_id, submission_id, received_on, reports, positions, held)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s)"
            " ON CONFLICT (survey_id, submission_id) DO NOTHING RETURNING id",
            [
                random_key(),
                target.survey_id,
                clean.submission_uuid.hex,
                received_on.isoformat(),
                json.dumps({question_key(qid): report for qid, report in answers.items()}),
                json.dumps(order_positions(clean.order)),
                held,
            ],
        )
        row = cursor.fetchone()
        if row is None:  # a replay
            return None
        if held:
            # Counted nowhere until its batch is released (services/batches.py).
            if groups:
                _group_answers_insert(cursor, submission_pk=row[0], groups=groups)
            return Stored(survey_id=target.survey_id, group_tallies_incomplete=False)
        incomplete = bool(groups) and _group_writes(
            cursor,
            submission_pk=row[0],
            answers=answers,
            kinds=kinds,
            groups=groups,
            cells=group_cells_kept(len(target.options)),
        )
        _tally_add(cursor, survey_id=target.survey_id, answers=answers, kinds=kinds)
        _histograms_add(cursor, answers=answers, kinds=kinds)
    day_tally_add(target.survey_id, day=received_on, counts=day_counts(answers, groups))
    return Stored(survey_id=target.survey_id, group_tallies_incomplete=incomplete)


def _group_writes(cursor, *, submission_pk, answers, kinds, groups, cells):
    """Store the grouping answers, count them on their options (or as declined) and add the
    yes/no reports to the chosen options' tallies and, if the survey keeps them
    (``cells``, ``models.group_cells_kept``), to the regression's cells. True: some tally rows
    were missing."""
    _group_answers_insert(cursor, submission_pk=submission_pk, groups=groups)
    for declined, target in ((False, "option_id"), (True, "grouping_question_id")):
        chosen = [(gid, oid) for gid, oid in groups.items() if (oid is None) == declined]
        if chosen:
            cursor.execute(
                f"INSERT INTO {GroupingTally._meta.db_table}"
                " (grouping_question_id, option_id, shard, count)"
                f" VALUES {', '.join(['(%s, %s, 0, 1)'] * len(chosen))}"
                f" ON CONFLICT ({target}, shard)"
                f" WHERE option_id IS {'' if declined else 'NOT '}NULL"
                " DO UPDATE SET count = count + 1",
                [value for pair in chosen for value in pair],
            )
    options = [oid for oid in groups.values() if oid is not None]
    bits = [qid for qid in sorted(answers) if kinds[qid] == YES_NO]
    if not bits:
        return False
    if cells:
        key = group_cell_key(groups)
        cursor.execute(
            f"INSERT INTO {GroupCell._meta.db_table}"
            " (question_id, key, shard, report_count, yes_count)"
            f" VALUES {', '.join(['(%s, %s, 0, 1, %s)'] * len(bits))}"
            " ON CONFLICT (question_id, key, shard) DO UPDATE"
            " SET report_count = report_count + 1, yes_count = yes_count + excluded.yes_count",
            [value for qid in bits for value in (qid, key, int(answers[qid]))],
        )
    if not options:
        return False
    return _group_tallies_add(cursor, options=options, bits={qid: answers[qid] for qid in bits})


def _group_tallies_add(cursor, *, options, bits):
    """Add the yes/no reports ``bits`` ({question id: bit}) to each chosen option's tally row
    (``GroupTally``, shard 0), read and written inside the caller's transaction. True: a row
    was missing (they are created when the survey opens), so the tallies need a recount."""
    table = GroupTally._meta.db_table
    cursor.execute(
        f"SELECT id, reports FROM {table} WHERE option_id IN ({_marks(len(options))})"
        " AND shard = 0",
        options,
    )
    rows = cursor.fetchall()
    for pk, stored in rows:
        reports = json.loads(stored)
        for qid, bit in bits.items():
            key = question_key(qid)
            reports[key] = dpengine.tally_sum(reports.get(key, ()), (1, int(bit)))
        cursor.execute(f"UPDATE {table} SET reports = %s WHERE id = %s", [json.dumps(reports), pk])
    return len(rows) != len(options)


def _group_answers_insert(cursor, *, submission_pk, groups):
    cursor.execute(
        f"INSERT INTO {GroupAnswer._meta.db_table}"
        " (id, submission_id, grouping_question_id, option_id)"
        f" VALUES {', '.join(['(%s, %s, %s, %s)'] * len(groups))}",
        [value for gid, oid in groups.items() for value in (random_key(), submission_pk, gid, oid)],
    )


def _tally_add(cursor, *, survey_id, answers, kinds):
    """Count the response and add each report's tally vector (``dpengine.report_tally``) to
    the survey's tally row, read and written inside the caller's transaction. One shard:
    SQLite takes one write at a time anyway, so more rows would spread nothing."""
    table = TallyShard._meta.db_table
    cursor.execute(f"SELECT reports FROM {table} WHERE survey_id = %s AND shard = 0", [survey_id])
    row = cursor.fetchone()
    reports = json.loads(row[0]) if row else {}
    for qid, report in answers.items():
        key = question_key(qid)
        added = dpengine.report_tally(kinds[qid], report)
        reports[key] = dpengine.tally_sum(reports.get(key, ()), added)
    cursor.execute(
        f"INSERT INTO {table} (survey_id, shard, responses, reports) VALUES (%s, 0, 1, %s)"
        " ON CONFLICT (survey_id, shard) DO UPDATE"
        " SET responses = responses + 1, reports = excluded.reports",
        [survey_id, json.dumps(reports)],
    )


def _histograms_add(cursor, *, answers, kinds):
    """Add each randomized numeric report to its question's histogram (``NumericTally``),
    creating the row of a value not reported before under a random key. Which numeric
    questions are randomized, the question rows say (a direct one keeps no histogram)."""
    numeric = [qid for qid in sorted(answers) if kinds[qid] == NUMERIC]
    if not numeric:
        return
    cursor.execute(
        f"INSERT INTO {NumericTally._meta.db_table} AS h (id, question_id, report, shard, count)"
        " SELECT a.column1, a.column2, a.column3, 0, 1"
        f" FROM (VALUES {', '.join(['(%s, %s, %s)'] * len(numeric))}) AS a"
        f" JOIN {Question._meta.db_table} AS q ON q.id = a.column2"
        " WHERE q.randomized ORDER BY a.column2"
        " ON CONFLICT (question_id, report, shard) DO UPDATE SET count = h.count + 1",
        [value for qid in numeric for value in (random_key(), qid, answers[qid])],
    )
