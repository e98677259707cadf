"""Rewrite the stored responses in the order of their random keys, so that where a row lies in
the database's files says nothing about when it arrived.

The keys are random (``models.random_key``), so no column and no export follows the order in
which people answered. The files still do, until they are rewritten: PostgreSQL appends each
new row to the end of its table's heap (and stamps it with the number of the transaction that
wrote it, the ``xmin`` system column); SQLite's pages are allocated as the table grows. Run
daily (``manage.py reorder_responses``, docs/deploying.md), it leaves the rows stored before
the run in key order and with one shared transaction number; rows stored since the last run
still lie in arrival order among themselves (docs/respondent-page.md, "Threat model").
"""

from django.db import connection, transaction

from ..models import GroupAnswer, GroupCell, Invitation, NumericTally, SpentToken, Submission

# The numeric histograms and regression cells too: a row is created when its value (its
# combination) is first reported, and rewritten by each report of it, so its place and
# transaction number follow arrivals. The invitations and spent tokens: an invitation's row is
# rewritten when it obtains its token and a spent token is written with its submission, so
# the two sides' transaction numbers and places would follow each other (issue 32).
TABLES = (
    Submission._meta.db_table,
    GroupAnswer._meta.db_table,
    NumericTally._meta.db_table,
    GroupCell._meta.db_table,
    Invitation._meta.db_table,
    SpentToken._meta.db_table,
)


def stored_rows_reorder() -> None:
    """Rewrite the submissions, grouping answers, numeric histograms, regression cells,
    invitations and spent tokens in key order
    (PostgreSQL: new row versions in one transaction, then CLUSTER on the primary key; SQLite:
    VACUUM, then the write-ahead log truncated). Takes each table's exclusive lock while it is
    rewritten: submissions wait for it (seconds for a million rows), so run it at a quiet
    hour."""
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # One transaction writes a new version of every row: all of them then carry its
            # number as xmin, and CLUSTER (run after the commit, when the old versions are
            # dead) copies only those, in primary-key order, into a new file.
            with transaction.atomic():
                for table in TABLES:
                    cursor.execute(f"UPDATE {quote(table)} SET id = id")
            for table in TABLES:
                cursor.execute(
                    "SELECT indexrelid::regclass::text FROM pg_index"
                    " WHERE indrelid = %s::regclass AND indisprimary",
                    [table],
                )
                (index,) = cursor.fetchone()
                cursor.execute(f"CLUSTER {quote(table)} USING {index}")
        else:
            # The whole file is rebuilt, each table's rows in rowid order: the random keys.
            cursor.execute("VACUUM")
            cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)")
