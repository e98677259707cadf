"""The per-(question, option) tallies of yes/no reports (``models.GroupTally``): one row per
grouping option and shard, ``{"q<question id>": [reports, yes reports]}``, added to, created
with every question at zero and set back to zero. The submission statement adds to them in SQL
(``submissions/statement.py``), a batch's release set-based (``batch_tallies``); these are the
ORM's writes, which SQLite, the oracle, the bulk loader and the recount use.
"""

from dpengine import tally_sum

from ..models import TALLY_SHARDS, GroupTally, question_key


def zero_reports(question_ids) -> dict:
    """An option's tally row before any report: every question's counts at zero."""
    return {question_key(qid): [0, 0] for qid in question_ids}


def group_tallies_add(counts, *, shard=0, create=True) -> bool:
    """Add ``counts`` (``{(question id, option id): (reports, yes reports)}``) to the options'
    tally rows (``GroupTally``) in shard ``shard``, inside the caller's transaction: each row
    read FOR UPDATE (in option order, as the submission statement locks them) so that
    concurrent writers add up, and written once. A missing row is created first (ignoring a
    concurrent creation), unless not ``create``: then what it would have held is not added.
    Whether every option's row was there."""
    added = {}
    for (qid, oid), vector in counts.items():
        added.setdefault(oid, {})[question_key(qid)] = vector
    if create:
        GroupTally.objects.bulk_create(
            [GroupTally(option_id=oid, shard=shard) for oid in sorted(added)],
            ignore_conflicts=True,
        )
    rows = list(
        GroupTally.objects.select_for_update()
        .filter(option_id__in=added, shard=shard)
        .order_by("option_id")
    )
    for row in rows:
        for key, vector in added[row.option_id].items():
            row.reports[key] = tally_sum(row.reports.get(key, ()), vector)
    GroupTally.objects.bulk_update(rows, ["reports"])
    return len(rows) == len(added)


def group_tally_rows_ensure(*, option_ids, question_ids):
    """Every shard's row of each option in ``option_ids``, holding every question of
    ``question_ids``: the missing rows created at zero; in the rows there already, the questions
    they lack added at zero and those not in ``question_ids`` dropped (a pilot's design may
    change once its responses are discarded)."""
    zero = zero_reports(question_ids)
    stored = list(GroupTally.objects.filter(option_id__in=option_ids))
    for row in stored:
        row.reports = {**zero, **{key: row.reports[key] for key in zero if key in row.reports}}
    GroupTally.objects.bulk_update(stored, ["reports"])
    GroupTally.objects.bulk_create(
        (
            GroupTally(option_id=oid, shard=shard, reports=zero)
            for oid in option_ids
            for shard in range(TALLY_SHARDS)
        ),
        ignore_conflicts=True,
    )


def group_tallies_zero(*, survey):
    """Every count of the survey's option tallies back to zero, their rows and questions kept
    (a pilot's responses discarded: the real study's submissions add to the same rows)."""
    stored = list(GroupTally.objects.filter(option__grouping_question__survey=survey))
    for row in stored:
        row.reports = {key: [0] * len(vector) for key, vector in row.reports.items()}
    GroupTally.objects.bulk_update(stored, ["reports"])
