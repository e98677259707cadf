"""What a released batch adds to the survey's tallies (services/batches.py, ``batch_release``;
docs/invitations.md, "Batches"), counted by ``batch_counting.batch_counts``:
``batch_tallies_add`` adds it, all at once, in the release's transaction. On PostgreSQL one
set-based statement per table, all sent in one round trip (``_tallies_add_sql``); elsewhere
the ORM (``_tallies_add_orm``), which the statements are tested against. Each row is written
in a random order; the histogram rows and regression cells touched are folded into shard 0 and
stored again under new keys.
"""

import functools
import json
import random
from collections import Counter, defaultdict

from django.db import connection

from dpengine import tally_sum

from .. import selectors
from ..models import (
    DayTally,
    GroupCell,
    GroupingTally,
    GroupTally,
    NumericTally,
    TallyShard,
    question_key,
    random_key,
)
from .batch_counting import BatchCounts
from .group_tallies import group_tallies_add
from .tallies import day_counts_sum, day_tally_add, grouping_tallies_add

_shuffle = random.SystemRandom().shuffle


def batch_tallies_add(survey_id, counts: BatchCounts):
    """Add ``counts`` to shard 0, each row in random order; the histogram rows and cells
    touched are folded into shard 0 and stored again under new keys. On PostgreSQL set-based
    statements sent in one round trip (``_tallies_add_sql``), whatever the batch touched;
    elsewhere through the ORM (``_tallies_add_orm``), which they are tested against."""
    if connection.vendor == "postgresql":
        _tallies_add_sql(survey_id, counts)
    else:
        _tallies_add_orm(survey_id, counts)


def _tallies_add_orm(survey_id, counts: BatchCounts):
    _shards_add(survey_id, counts)
    group_tallies_add(
        {
            (qid, oid): (counts.group_tallies[qid, oid, "n"], counts.group_tallies[qid, oid, "yes"])
            for qid, oid, _part in counts.group_tallies
        }
    )
    grouping_tallies_add(counts.groupings)
    _cells_add(counts)
    _histograms_add(counts)
    for day, added in _release_days(counts).items():
        day_tally_add(survey_id, day=day, counts=added)


def _release_days(counts):
    """{day: counts} the release adds to the day tallies: the whole batch on the day of its
    release, not on the days its submissions were received. A public release counts the days
    before its date and may already have been made for a day one of them came in; it never
    changes, the batch counts in the next. Nor does any tally keep the days the batch's
    submissions arrived."""
    if not counts.days:
        return {}
    return {selectors.utc_today(): day_counts_sum(*counts.days.values())}


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


def _tallies_add_sql(survey_id, counts: BatchCounts):
    """``_tallies_add_orm`` on PostgreSQL: the statements of ``tallies_add_statements``, all
    sent in one round trip."""
    statements, params = tallies_add_statements(survey_id, counts)
    if statements:
        with connection.cursor() as cursor:
            cursor.execute("; ".join(statements), params)


def tallies_add_statements(survey_id, counts: BatchCounts) -> tuple[list[str], list]:
    """What adds ``counts`` to the tallies on PostgreSQL, to be sent at once: the statements
    and their parameters (``%s``, in order). One statement per table, each adding every row of
    the batch at once (upserts from arrays, in the order of the arrays, shuffled here; the
    cells and histogram rows deleted in every shard and stored again in shard 0, added up)."""
    sql = _tallies_sql()
    statements, params = [], []

    def add(statement, *values):
        statements.append(statement)
        params.extend(values)

    if counts.responses:
        add(sql["shard"], survey_id, counts.responses, json.dumps(counts.reports))
    if counts.group_tallies:
        add(sql["group_tallies"], *_option_reports(counts.group_tallies))
    chosen = sorted(pair for pair in counts.groupings if pair[1] is not None)
    declined = sorted(pair for pair in counts.groupings if pair[1] is None)
    for name, keys in (("options", chosen), ("declined", declined)):
        if keys:
            _shuffle(keys)
            add(
                sql[name],
                *_columns(keys, lambda gid, oid: (gid, oid, counts.groupings[gid, oid])),
            )
    if counts.cells:
        add(sql["cells"], *_report_counts(counts.cells))
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
    days = _release_days(counts)
    if days:
        add(
            sql["days"],
            survey_id,
            *_columns(list(days), lambda day: (day, json.dumps(days[day]))),
        )
    return statements, params


def _report_counts(counter):
    """The columns (question id, option id or cell key, reports, yes) of a counter keyed
    ``(question id, option id or cell key, "n" | "yes")``, its rows in a random order."""
    keys = sorted({(qid, where) for qid, where, _part in counter})
    _shuffle(keys)
    return _columns(
        keys, lambda qid, where: (qid, where, counter[qid, where, "n"], counter[qid, where, "yes"])
    )


def _option_reports(counter):
    """The columns (option id, its questions' counts as ``GroupTally.reports``) of a counter
    keyed ``(question id, option id, "n" | "yes")``, the options in a random order."""
    reports = defaultdict(dict)
    for qid, oid, _part in sorted(counter):
        reports[oid][question_key(qid)] = [counter[qid, oid, "n"], counter[qid, oid, "yes"]]
    options = sorted(reports)
    _shuffle(options)
    return _columns(options, lambda oid: (oid, json.dumps(reports[oid])))


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
        # Each question's pair of counts added to the stored one (``_SUM_BITS`` of the
        # submission statement).
        "group_tallies": f"""
INSERT INTO {table["group_tally"]} AS t (option_id, shard, reports)
SELECT c.option_id, 0, c.reports
FROM unnest(%s::bigint[], %s::jsonb[]) WITH ORDINALITY AS c (option_id, reports, place)
ORDER BY c.place
ON CONFLICT (option_id, shard) DO UPDATE SET reports = t.reports || (
    SELECT jsonb_object_agg(e.key, jsonb_build_array(
        COALESCE((t.reports -> e.key ->> 0)::bigint, 0) + (e.value ->> 0)::bigint,
        COALESCE((t.reports -> e.key ->> 1)::bigint, 0) + (e.value ->> 1)::bigint
    ))
    FROM jsonb_each(excluded.reports) AS e
)""",
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
