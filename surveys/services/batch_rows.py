"""A batch's rows, taken out of hold and rewritten in random order (services/batches.py,
``batch_release``; docs/invitations.md, "Batches").

On PostgreSQL one statement (``_release_sql``, data-modifying CTEs): it picks the batch's held
submissions (``FOR UPDATE``; whole batches, chosen by a keyed hash when more are held), as many
held spent tokens, and the invitations that obtained a token since the last batch; deletes them
with the picked submissions' grouping answers, by key; and stores each again, released, in the
order of a keyed hash (``sha256(salt || ...)``) of what identifies it among them (a submission's
id as its client drew it, a spent token's rank by place, an invitation's rank by key), the
submissions, grouping answers and spent tokens under new keys drawn from another keyed hash of
the same, the invitations under their own (pages link to them by it). ``salt`` is 16 random
bytes the caller draws for this release and keeps nowhere, so neither order nor keys can be
computed again, and every rewritten row carries the release's transaction number (``xmin``) and
a place (``ctid``) given by the hash, not by arrival. It returns the released submissions with
their grouping answers, which the caller adds to the tallies. One round trip, whatever the
batch's size.

On SQLite (no ``xmin``; the key is the rowid) the same rows are read, deleted and stored again
through the ORM in the order ``shuffle`` leaves them, under keys ``key()`` draws.
"""

import functools
import json

from django.db import connection
from psycopg import sql

from ..models import GroupAnswer, Invitation, SpentToken, Submission
from . import spent_tokens
from .session_statements import SessionStatement


def rows_release(*, survey_id, size, salt, shuffle, key, released_on):
    """Release the survey's held submissions (the largest multiple of ``size`` held; every one
    if ``size`` is None), their grouping answers and as many spent tokens, and rewrite the
    invitations marked ``reshuffle``, in the caller's transaction (the survey's batch lock
    held). ``(rows, answers)``: the released submissions as ``(key, reports, received on)``
    and their grouping answers as ``(submission key, grouping question id, option id)``.

    Each released submission is stored as received on ``released_on`` (the release's day):
    the day each came in would tell, within the batch, who answered early and who late, which
    the batch exists to hide (an export shows the day); the tallies count the batch on that
    day too (``batch_tallies``)."""
    if connection.vendor == "postgresql":
        return _release_postgresql(survey_id, size, salt, released_on)
    return _release_orm(survey_id, size, shuffle, key, released_on)


# The composed statement's text is formatted by ``psycopg.sql``: ``{survey}`` and the like are
# its parameters (``_PARAMETERS``), and a brace of the SQL itself is written twice.


def _order(value):
    """A keyed hash of ``value`` (bytea): rows sorted by it are in a random order."""
    return f"sha256({{salt}} || {value})"


def _key(value):
    # 63 bits of another keyed hash of ``value``: a new key as random as ``random_key``'s.
    return (
        f"(('x' || encode(substr(sha256({value} || {{salt}}), 1, 8), 'hex'))"
        "::bit(64)::bigint & 9223372036854775807)"
    )


# What each row is hashed by: a value unique among the rows rewritten (a submission's id as
# its client drew it, a spent token's rank by place, an invitation's rank by key), so that with
# the salt alone (seeded, in a test) the order and keys are fixed. Under a secret salt any such
# value, arrival order included, gives a random order.
_SUBMISSION = "uuid_send(submission_id)"
_ANSWER = "uuid_send(s.submission_id) || int8send(a.grouping_question_id::bigint)"


def _invitation_columns():
    columns = [field.column for field in Invitation._meta.concrete_fields]
    names = ", ".join(connection.ops.quote_name(column) for column in columns)
    reshuffle = Invitation._meta.get_field("reshuffle").column
    values = ", ".join(
        "FALSE" if column == reshuffle else connection.ops.quote_name(column) for column in columns
    )
    return names, values


# The statement's parameters: ``size`` NULL releases every held submission (the last batch).
_PARAMETERS = (("survey", "bigint"), ("size", "bigint"), ("salt", "bytea"), ("released_on", "date"))


def _release_sql(p):
    """The release statement, ``p`` mapping each of ``_PARAMETERS`` to its placeholder."""
    names, values = _invitation_columns()
    submission, answer = Submission._meta.db_table, GroupAnswer._meta.db_table
    token, invitation = SpentToken._meta.db_table, Invitation._meta.db_table
    # Every CTE reads one snapshot, and each INSERT reads the rows its DELETE returned: the
    # old row is gone before its copy is stored (the unique keys hold). The foreign keys
    # (grouping answer to submission) are checked at commit.
    text = f"""
WITH picked AS (
    SELECT id FROM {submission} WHERE survey_id = {{survey}} AND held
    ORDER BY {_order(_SUBMISSION)}
    LIMIT (
        SELECT count(*) - mod(count(*), {{size}}) FROM {submission}
        WHERE survey_id = {{survey}} AND held
    )
    FOR UPDATE
), tokens_picked AS (
    SELECT id FROM {token} WHERE survey_id = {{survey}} AND held
    ORDER BY {_order("digest")} LIMIT (SELECT count(*) FROM picked)
    FOR UPDATE
), submissions AS (
    DELETE FROM {submission} s USING picked p WHERE s.id = p.id
    RETURNING s.id AS old_id, {_key("uuid_send(s.submission_id)")} AS id, s.submission_id,
        s.received_on, s.reports, s.positions
), answers AS (
    DELETE FROM {answer} a USING picked p WHERE a.submission_id = p.id
    RETURNING a.id, a.submission_id, a.grouping_question_id, a.option_id
), tokens AS (
    DELETE FROM {token} t USING tokens_picked p WHERE t.id = p.id RETURNING t.ctid, t.digest
), invitations AS (
    DELETE FROM {invitation}
    WHERE survey_id = {{survey}} AND reshuffle AND EXISTS (SELECT FROM picked)
    RETURNING {names}
), submissions_stored AS (
    INSERT INTO {submission} (id, survey_id, submission_id, received_on, reports, positions, held)
    SELECT id, {{survey}}, submission_id, {{released_on}}, reports, positions, FALSE
    FROM submissions ORDER BY {_order(_SUBMISSION)}
), answers_stored AS (
    INSERT INTO {answer} (id, submission_id, grouping_question_id, option_id)
    SELECT {_key(_ANSWER)}, s.id, a.grouping_question_id, a.option_id
    FROM answers a JOIN submissions s ON s.old_id = a.submission_id ORDER BY {_order(_ANSWER)}
), tokens_stored AS (
    INSERT INTO {token} (id, survey_id, digest, held)
    SELECT {_key("int8send(rank)")}, {{survey}}, digest, FALSE
    FROM (SELECT digest, row_number() OVER (ORDER BY ctid) AS rank FROM tokens) t
    ORDER BY {_order("int8send(rank)")}
), invitations_stored AS (
    INSERT INTO {invitation} ({names})
    SELECT {values}
    FROM (SELECT *, row_number() OVER (ORDER BY id) AS rank FROM invitations) i
    ORDER BY {_order("int8send(rank)")}
)
SELECT s.id, s.reports::text, {{released_on}}, a.questions, a.options
FROM submissions s LEFT JOIN (
    SELECT submission_id, array_agg(grouping_question_id) AS questions,
        array_agg(option_id) AS options
    FROM answers GROUP BY submission_id
) a ON a.submission_id = s.old_id
"""
    return sql.SQL(text).format(**p)


@functools.cache
def _release_statement():
    # Prepared once per session: planning the statement cost more than running it.
    return SessionStatement(purpose="batch_release", parameters=_PARAMETERS, compose=_release_sql)


def _release_postgresql(survey_id, size, salt, released_on):
    fetched = _release_statement().rows(
        {"survey": survey_id, "size": size, "salt": salt, "released_on": released_on}
    )
    rows, answers = [], []
    for pk, reports, received_on, questions, options in fetched:
        rows.append((pk, json.loads(reports), received_on))
        answers += [(pk, gid, oid) for gid, oid in zip(questions or (), options or (), strict=True)]
    return rows, answers


def _release_orm(survey_id, size, shuffle, key, released_on):
    """SQLite's: every row read once and rewritten by its key; as many spent tokens released
    as submissions, of those read first (a token is spent with its submission, but nothing
    says which: any of them may go)."""
    tokens = spent_tokens.tokens_held(survey_id=survey_id)
    held = list(
        Submission.all_objects.filter(survey_id=survey_id, held=True).values_list(
            "pk", "submission_id", "received_on", "reports", "positions"
        )
    )
    whole = len(held) if size is None else len(held) // size * size
    if not whole:
        return [], []
    for rows in (held, tokens):
        if len(rows) > whole:
            shuffle(rows)
            del rows[whole:]
    pks = [row[0] for row in held]
    answers = list(
        GroupAnswer.objects.filter(submission_id__in=pks).values_list(
            "submission_id", "grouping_question_id", "option_id"
        )
    )
    marks = ", ".join(["%s"] * len(pks))
    with connection.cursor() as cursor:
        # Plain DELETEs: the ORM's would look for rows that cascade, one query more each.
        if answers:
            cursor.execute(
                f"DELETE FROM {GroupAnswer._meta.db_table} WHERE submission_id IN ({marks})", pks
            )
        cursor.execute(f"DELETE FROM {Submission._meta.db_table} WHERE id IN ({marks})", pks)
    shuffle(held)
    new_keys = {row[0]: key() for row in held}
    Submission.all_objects.bulk_create(
        Submission(
            id=new_keys[pk],
            survey_id=survey_id,
            submission_id=submission_id,
            received_on=released_on,
            reports=reports,
            positions=positions,
            held=False,
        )
        for pk, submission_id, _received_on, reports, positions in held
    )
    if answers:
        stored = list(answers)
        shuffle(stored)
        GroupAnswer.objects.bulk_create(
            GroupAnswer(
                id=key(), submission_id=new_keys[pk], grouping_question_id=gid, option_id=oid
            )
            for pk, gid, oid in stored
        )
    spent_tokens.tokens_rewrite(survey_id=survey_id, tokens=tokens, shuffle=shuffle, key=key)
    rows = [(pk, reports, released_on) for pk, _sid, _received_on, reports, _at in held]
    return rows, answers
