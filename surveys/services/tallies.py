"""The counts a submission adds to: tally shards (responses and reports per question), its
day's tally (what a public release counts, per day), the histograms of randomized numeric
reports, the per-(question, grouping option) tallies, the
regression's cells (per question and whole combination of grouping answers) and the option
counts (simulated respondents, stored and counted in bulk, are in ``simulation``). Every one
sharded: a submission adds to the rows of one shard (``tally_shard_pick``), a count is the
sum of its shards' rows.

Reports read these counts instead of scanning submissions; ``group_tallies_rebuild``
recounts them from the stored rows whenever rows were missing.
"""

import json
import random

from django.db import IntegrityError, connection, transaction
from django.db.models import Case, Count, F, OuterRef, Q, Subquery, Value, When
from django.db.models.functions import Coalesce

from dpengine import (
    tally_sum,
)

from .. import selectors
from ..models import (
    TALLY_SHARDS,
    DayTally,
    GroupAnswer,
    GroupCell,
    GroupingOption,
    GroupingQuestion,
    GroupingTally,
    GroupTally,
    NumericTally,
    Question,
    Submission,
    Survey,
    TallyShard,
    group_cell_key,
    group_cells_kept,
    question_key,
    random_key,
)
from ..selectors.public_results import RESPONDENTS, option_key, reports_key
from .group_tallies import group_tallies_add, group_tally_rows_ensure, zero_reports


def tally_shard_pick():
    """The shard a submission adds to: any, at random (not a secret; spreads row locks)."""
    return random.randrange(TALLY_SHARDS)


def tally_add(survey_id, *, responses, reports, shard=0):
    """Add ``responses`` responses and, per question id, a tally vector (``(reports, yes
    reports)`` for yes/no, see ``dpengine.report_tally``), to one of the survey's tally shards,
    inside the caller's transaction.

    The row is read FOR UPDATE, so concurrent transactions on the same shard add up instead of
    overwriting each other's counts (on SQLite the transaction already holds the database's
    write lock). It is created first if missing, ignoring a concurrent creation.
    """
    TallyShard.objects.bulk_create(
        [TallyShard(survey_id=survey_id, shard=shard)], ignore_conflicts=True
    )
    tally = TallyShard.objects.select_for_update().get(survey_id=survey_id, shard=shard)
    for question_id, added in reports.items():
        key = question_key(question_id)
        tally.reports[key] = tally_sum(tally.reports.get(key, ()), added)
    tally.responses += responses
    tally.save(update_fields=["responses", "reports"])


def day_counts(answers, groups) -> dict:
    """What one submission adds to its day's tally (``DayTally.counts``): one respondent, each
    yes/no report (a bit: its question's yes count and report count) and each chosen option.
    The submission statement adds the same in SQL (``submissions/statement.py``)."""
    counts = {RESPONDENTS: 1}
    for qid, report in answers.items():
        if isinstance(report, bool):
            counts[question_key(qid)] = int(report)
            counts[reports_key(qid)] = 1
    for oid in groups.values():
        if oid is not None:
            counts[option_key(oid)] = 1
    return counts


def day_counts_sum(*counts) -> dict:
    total = {}
    for each in counts:
        for key, value in each.items():
            total[key] = total.get(key, 0) + value
    return total


def day_tally_add(survey_id, *, day, counts, shard=0):
    """Add ``counts`` (``day_counts``, or their sum) to the survey's tally of ``day`` in shard
    ``shard``, inside the caller's transaction. On PostgreSQL the row is created if missing
    (ignoring a concurrent creation), then read FOR UPDATE and written, so concurrent writers
    add up; on SQLite, whose transaction holds the database's write lock from BEGIN, it is read
    and written (two statements: the submission waits for nothing else)."""
    table = DayTally._meta.db_table
    key = [survey_id, day, shard]
    where = "survey_id = %s AND day = %s AND shard = %s"
    postgresql = connection.vendor == "postgresql"
    with connection.cursor() as cursor:
        if postgresql:
            cursor.execute(
                f"INSERT INTO {table} (survey_id, day, shard, counts) VALUES (%s, %s, %s, %s)"
                " ON CONFLICT (survey_id, day, shard) DO NOTHING",
                [*key, "{}"],
            )
        cursor.execute(
            f"SELECT counts FROM {table} WHERE {where}{' FOR UPDATE' if postgresql else ''}", key
        )
        row = cursor.fetchone()
        stored = {} if row is None else row[0]
        stored = json.loads(stored) if isinstance(stored, str) else stored
        cursor.execute(
            f"INSERT INTO {table} (survey_id, day, shard, counts) VALUES (%s, %s, %s, %s)"
            " ON CONFLICT (survey_id, day, shard) DO UPDATE SET counts = excluded.counts",
            [*key, json.dumps(day_counts_sum(stored, counts))],
        )


def numeric_tallies_add(counts, *, shard=0):
    """Add ``counts`` (``{(question id, report): reports}``) to the questions' histograms
    (``NumericTally``) in shard ``shard`` inside the caller's transaction, creating the missing
    rows (ignoring a concurrent creation). In (question, report) order, as the submission
    statement, so concurrent writers take the rows' locks in one order."""
    keys = sorted(counts)
    NumericTally.objects.bulk_create(
        [
            NumericTally(question_id=qid, report=report, shard=shard, count=0)
            for qid, report in keys
        ],
        ignore_conflicts=True,
    )
    for qid, report in keys:
        if not NumericTally.objects.filter(question_id=qid, report=report, shard=shard).update(
            count=F("count") + counts[qid, report]
        ):
            # Its random key met another row's (about n²/2⁶⁴): nothing stored, as a replay.
            raise IntegrityError(f"no histogram row for question {qid}, report {report}")


def numeric_tallies_bulk_add(counts, *, batch_size=2000):
    """``numeric_tallies_add`` for many values at once (simulated respondents): one upsert
    per batch that adds to the stored counts of shard 0, in the database."""
    table = NumericTally._meta.db_table
    keys = sorted(counts)
    with connection.cursor() as cursor:
        for start in range(0, len(keys), batch_size):
            batch = keys[start : start + batch_size]
            cursor.execute(
                f"INSERT INTO {table} AS h (id, question_id, report, shard, count)"
                f" VALUES {', '.join(['(%s, %s, %s, 0, %s)'] * len(batch))}"
                " ON CONFLICT (question_id, report, shard)"
                " DO UPDATE SET count = h.count + excluded.count",
                [
                    value
                    for qid, report in batch
                    for value in (random_key(), qid, report, counts[qid, report])
                ],
            )


def grouping_tallies_add(counts, *, shard=0):
    """Add ``counts`` (``{(grouping question id, option id or None): respondents}``, None:
    "Prefer not to say") to the grouping answers' counts (``GroupingTally``) in shard
    ``shard``, inside the caller's transaction, creating the missing rows (ignoring a concurrent
    creation)."""
    keys = sorted(counts, key=lambda pair: (pair[0], pair[1] or 0))
    GroupingTally.objects.bulk_create(
        [GroupingTally(grouping_question_id=gid, option_id=oid, shard=shard) for gid, oid in keys],
        ignore_conflicts=True,
    )
    for gid, oid in keys:
        answered = {"option_id": oid} if oid is not None else {"option__isnull": True}
        GroupingTally.objects.filter(grouping_question_id=gid, shard=shard, **answered).update(
            count=F("count") + counts[gid, oid]
        )


def group_answers_record(*, survey_id, submission, answers, chosen, shard=0):
    """Store the chosen options and add the submission, in shard ``shard``, to the counts of
    its answers, the per-(question, option) tallies and its regression cells (in a survey
    that keeps them, ``models.group_cells_kept``).

    A "Prefer not to say" (option None) is stored and counted on its grouping question, and
    is in no option's tallies: it is missing for breakdowns, not a group of its own. It is
    part of the cell's key (the regression leaves such cells out)."""
    GroupAnswer.objects.bulk_create(
        GroupAnswer(submission=submission, grouping_question_id=gid, option_id=oid)
        for gid, oid in chosen.items()
    )
    grouping_tallies_add({pair: 1 for pair in chosen.items()}, shard=shard)
    options = [oid for oid in chosen.values() if oid is not None]
    yes_ids = [qid for qid, bit in answers.items() if bit]
    groupings = GroupingQuestion.objects.filter(survey_id=survey_id).count()
    if answers and chosen and group_cells_kept(groupings):
        key = group_cell_key(chosen)
        GroupCell.objects.bulk_create(
            (GroupCell(question_id=qid, key=key, shard=shard) for qid in sorted(answers)),
            ignore_conflicts=True,
        )
        GroupCell.objects.filter(question_id__in=answers, key=key, shard=shard).update(
            report_count=F("report_count") + 1,
            yes_count=F("yes_count")
            + Case(When(question_id__in=yes_ids, then=Value(1)), default=Value(0)),
        )
    if (
        options
        and answers
        and not group_tallies_add(
            {(qid, oid): (1, int(bit)) for qid, bit in answers.items() for oid in options},
            shard=shard,
            create=False,
        )
    ):
        # Rows missing (created when the survey opens, so: a survey opened before they were,
        # or rows removed): recount from the stored rows, this submission included.
        group_tallies_rebuild(survey=Survey.objects.get(pk=survey_id))


def _bit_question_ids(survey):
    """The yes/no questions whose report is a bit (a cheating-detection one, and one compared
    with asking directly, send a code); the comprehension check's hidden ones too, as the
    submission's statement counts them."""
    return [
        question.pk
        for question in Question.all_objects.filter(
            survey=survey, kind=Question.Kind.YES_NO, compare_direct=False
        )
        if not selectors.is_cheating_detection(question)
    ]


def _grouping_answers(survey):
    """Every answer a grouping question of ``survey`` takes: (its id, an option id or None)."""
    return [
        *GroupingOption.objects.filter(grouping_question__survey=survey).values_list(
            "grouping_question_id", "id"
        ),
        *((gid, None) for gid in survey.grouping_questions.values_list("id", flat=True)),
    ]


def _grouping_tallies_create(survey, counts):
    """The rows of every shard of each grouping answer's count, ``counts`` in shard 0 (created
    up front, as the (question, option) tallies are: a first answer creates no row)."""
    GroupingTally.objects.bulk_create(
        (
            GroupingTally(
                grouping_question_id=gid,
                option_id=oid,
                shard=shard,
                count=counts.get((gid, oid), 0) if shard == 0 else 0,
            )
            for gid, oid in _grouping_answers(survey)
            for shard in range(TALLY_SHARDS)
        ),
        ignore_conflicts=True,
    )


def group_tallies_ensure(*, survey):
    """Create the zero tally rows (every shard's) of every grouping option and grouping answer
    that lacks them, each option's holding every yes/no question (breakdowns by group cover
    those); in the rows there already, add the questions they lack and drop those the survey
    no longer has (a pilot's design may change once its responses are discarded)."""
    question_ids = _bit_question_ids(survey)
    option_ids = list(
        GroupingOption.objects.filter(grouping_question__survey=survey).values_list("id", flat=True)
    )
    _grouping_tallies_create(survey, {})
    group_tally_rows_ensure(option_ids=option_ids, question_ids=question_ids)


@transaction.atomic
def group_tallies_rebuild(*, survey):
    """Recount every per-(yes/no question, option) tally and option count from the stored
    rows, into shard 0 (the other shards' tally rows at zero)."""
    question_ids = _bit_question_ids(survey)
    # Per option, one pair of counts per question (reports, yes reports), in one query.
    aggregates = {}
    for qid in question_ids:
        key = question_key(qid)
        aggregates[f"n_{qid}"] = Count("id", filter=Q(submission__reports__has_key=key))
        aggregates[f"yes_{qid}"] = Count("id", filter=Q(**{f"submission__reports__{key}": True}))
    # Released submissions only: a held one is in no tally until its batch (services/batches.py).
    answers = GroupAnswer.objects.filter(submission__survey=survey, submission__held=False)
    counts = answers.values("option_id").annotate(**aggregates)
    found = {
        (qid, row["option_id"]): (row[f"n_{qid}"], row[f"yes_{qid}"])
        for row in counts
        for qid in question_ids
    }
    options = list(GroupingOption.objects.filter(grouping_question__survey=survey))
    GroupTally.objects.filter(option__in=options).delete()
    zero = zero_reports(question_ids)
    GroupTally.objects.bulk_create(
        GroupTally(
            option=option,
            shard=shard,
            reports={
                question_key(qid): list(found.get((qid, option.pk), (0, 0))) for qid in question_ids
            }
            if shard == 0
            else zero,
        )
        for option in options
        for shard in range(TALLY_SHARDS)
    )
    GroupingTally.objects.filter(grouping_question__survey=survey).delete()
    respondents = answers.values_list("grouping_question_id", "option_id").annotate(n=Count("id"))
    _grouping_tallies_create(survey, {(gid, oid): n for gid, oid, n in respondents.order_by()})
    group_cells_rebuild(survey=survey, question_ids=question_ids)


# The option a declined grouping answer is recounted under (ids start at 1).
_DECLINED = 0


def group_cells_rebuild(*, survey, question_ids):
    """Recount the regression's cells of ``question_ids`` (the survey's yes/no questions)
    from the stored rows, in one grouped query: each submission's answer to every grouping
    question (a correlated subquery each), grouped by that combination. None in a survey
    that keeps no cells (``models.group_cells_kept``)."""
    grouping_ids = sorted(
        GroupingQuestion.objects.filter(survey=survey).values_list("id", flat=True)
    )
    GroupCell.objects.filter(question_id__in=question_ids).delete()
    if not group_cells_kept(len(grouping_ids)) or not question_ids:
        return
    names = {f"g{gid}": gid for gid in grouping_ids}
    per_submission = GroupAnswer.objects.filter(submission=OuterRef("pk"))
    aggregates = {}
    for qid in question_ids:
        key = question_key(qid)
        aggregates[f"n_{qid}"] = Count("id", filter=Q(reports__has_key=key))
        aggregates[f"yes_{qid}"] = Count("id", filter=Q(**{f"reports__{key}": True}))
    rows = (
        Submission.objects.filter(survey=survey)
        .annotate(
            **{
                name: Subquery(
                    per_submission.filter(grouping_question=gid).values(
                        chosen=Coalesce("option_id", Value(_DECLINED))
                    )[:1]
                )
                for name, gid in names.items()
            }
        )
        .values(*names)
        .annotate(**aggregates)
        .order_by()
    )
    cells = []
    for row in rows:
        chosen = {
            gid: None if row[name] == _DECLINED else row[name]
            for name, gid in names.items()
            if row[name] is not None
        }
        if not chosen:
            continue  # no grouping answer: in no cell
        key = group_cell_key(chosen)
        cells.extend(
            GroupCell(
                question_id=qid,
                key=key,
                report_count=row[f"n_{qid}"],
                yes_count=row[f"yes_{qid}"],
            )
            for qid in question_ids
            if row[f"n_{qid}"]
        )
    GroupCell.objects.bulk_create(cells)


def _upsert_added(table, *, columns, conflict, added, rows, batch_size=2000):
    """Add ``rows`` (tuples of ``columns``) to ``table``: a missing row (by ``conflict``) is
    created, a stored one gets each of the ``added`` columns summed. In the rows' sorted
    order, as the submission statement locks them."""
    rows = sorted(rows)
    sums = ", ".join(f"{column} = t.{column} + excluded.{column}" for column in added)
    with connection.cursor() as cursor:
        for start in range(0, len(rows), batch_size):
            batch = rows[start : start + batch_size]
            values = ", ".join([f"({', '.join(['%s'] * len(columns))})"] * len(batch))
            cursor.execute(
                f"INSERT INTO {table} AS t ({', '.join(columns)}) VALUES {values}"
                f" ON CONFLICT ({', '.join(conflict)}) DO UPDATE SET {sums}",
                [value for row in batch for value in row],
            )


def group_cells_bulk_add(counts):
    """Add ``{(question id, cell key): (reports, yes reports)}`` to the regression's cells
    (``GroupCell``) in shard 0, creating the missing ones."""
    _upsert_added(
        GroupCell._meta.db_table,
        columns=("question_id", "key", "shard", "report_count", "yes_count"),
        conflict=("question_id", "key", "shard"),
        added=("report_count", "yes_count"),
        rows=[(qid, key, 0, n, yes) for (qid, key), (n, yes) in counts.items()],
    )
