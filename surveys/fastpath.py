"""The one hot write path in raw SQL: a respondent's submission on PostgreSQL.

Why the ORM is bypassed here, and only here: the public submission endpoint is the one
request every respondent makes. Through the ORM a submission is seven round trips (the survey,
its questions, BEGIN, INSERT the submission with its reports, SELECT and UPDATE the survey's
tallies, COMMIT) plus the ORM's work to build them. PostgreSQL runs a statement with
data-modifying CTEs as one atomic unit, so in autocommit the same checks and writes are ONE
round trip and still all or nothing; the statement is prepared once per connection, so it is
not planned again for every respondent. SQLite (no data-modifying CTEs) and submissions with
grouping answers (per-option tallies, created lazily) keep the ORM transaction in
``services``.
"""

import hashlib
import weakref
from contextlib import nullcontext

from django.db import DatabaseError, connection, transaction

from .models import Survey

# What the statement takes, in order: (name, PostgreSQL type).
_PARAMETERS = (
    ("slug", "text"),
    ("open", "text"),
    ("submission", "uuid"),
    ("received_on", "date"),
    ("questions", "bigint[]"),
    ("bits", "boolean[]"),
    ("fingerprint", "text"),
)

# Stores the submission only if it is valid, all or nothing, idempotent on (survey, id):
# - ``survey`` finds the survey by slug, only if it is open, already has responses, has no
#   grouping questions (their answers take the ORM path) and its questions are exactly the
#   answered ones (``questions`` sorted ascending), and, when the body names the design it was
#   randomized with (``fingerprint``), that is the survey's. Otherwise no row, and every later part
#   does nothing: the caller then reads the survey and explains what is wrong, or stores the
#   submission the ORM way (``services.submission_receive``).
#   "Already has responses" makes the question check exact: this statement sees the
#   questions as they were when it began, and a survey's questions change only while it has
#   no responses (under a lock on its row). Once a response is visible, they cannot change
#   any more; a survey's first response takes the ORM path, which holds the row while it
#   checks the questions and stores.
# - ``a`` pairs each answered question's key ("q<id>", ``models.question_key``) with its bit.
# - ``s`` inserts the submission with its reports unless this id is already stored for the
#   survey (a replay); then it returns no row, and again nothing else happens.
# - the final UPDATE counts the response and the reports on the survey's one row: one more
#   response, and per answered question one more report (and yes report for a yes) in
#   ``report_tallies``. It runs only when the submission was inserted and returns a row only
#   then, so "no row" means "nothing stored or counted". Under concurrent submissions it waits
#   for the row and computes from the row as the other left it, as ``x = x + 1`` does.
_RECORD_SQL = """
WITH survey AS (
    SELECT v.id FROM surveys_survey AS v
    WHERE v.slug = %(slug)s AND v.status = %(open)s AND v.response_count > 0
        AND (%(fingerprint)s IS NULL OR v.design_fingerprint = %(fingerprint)s)
        AND NOT EXISTS (SELECT 1 FROM surveys_groupingquestion AS g WHERE g.survey_id = v.id)
        AND ARRAY(SELECT q.id FROM surveys_question AS q WHERE q.survey_id = v.id ORDER BY q.id)
            = %(questions)s
), a AS (
    SELECT 'q' || question_id AS key, bit
    FROM unnest(%(questions)s, %(bits)s) AS a (question_id, bit)
), s AS (
    INSERT INTO surveys_submission (survey_id, submission_id, received_on, reports)
    SELECT survey.id, %(submission)s, %(received_on)s, (SELECT jsonb_object_agg(key, bit) FROM a)
    FROM survey
    ON CONFLICT (survey_id, submission_id) DO NOTHING
    RETURNING survey_id
)
UPDATE surveys_survey AS v
SET response_count = v.response_count + 1,
    report_tallies = v.report_tallies || (
        SELECT jsonb_object_agg(
            a.key,
            jsonb_build_array(
                COALESCE((v.report_tallies -> a.key ->> 0)::bigint, 0) + 1,
                COALESCE((v.report_tallies -> a.key ->> 1)::bigint, 0) + a.bit::int
            )
        )
        FROM a
    )
FROM s WHERE v.id = s.survey_id
RETURNING v.id
"""
# Named after its text: a server session that a pooler shares between app versions during a
# deploy never runs another version's statement under this version's name.
_STATEMENT = f"rrsurvey_submission_{hashlib.sha256(_RECORD_SQL.encode()).hexdigest()[:12]}"
_PREPARE_SQL = f"PREPARE {_STATEMENT} ({', '.join(kind for _, kind in _PARAMETERS)}) AS " + (
    _RECORD_SQL % {name: f"${position}" for position, (name, _) in enumerate(_PARAMETERS, start=1)}
)
_EXECUTE_SQL = f"EXECUTE {_STATEMENT} ({', '.join(f'%({name})s' for name, _ in _PARAMETERS)})"
# The unprepared form, typed as the prepared one is.
_PLAIN_SQL = _RECORD_SQL % {name: f"%({name})s::{kind}" for name, kind in _PARAMETERS}
# Database connections (psycopg's, which Django replaces when it reconnects) that hold the
# prepared statement. A prepared statement lives as long as its connection, whatever
# transaction it was prepared in.
_prepared = weakref.WeakSet()
# SQLSTATE of EXECUTE naming a statement the server does not have: a pooler in front of
# PostgreSQL handed this connection another server session, or reset it (DISCARD ALL).
_NO_SUCH_STATEMENT = "26000"
_ALREADY_PREPARED = "42P05"


def supported():
    """Whether the database runs the one-statement submission (PostgreSQL only)."""
    return connection.vendor == "postgresql"


def submission_insert(
    *, slug, submission_uuid, received_on, answers, design_fingerprint=None
) -> bool:
    """Store a submission to the survey at ``slug`` in one statement if it can be stored as is.

    ``answers`` maps question id to the randomized bit. True: stored. False: nothing stored,
    because this id was stored before (a replay) or the survey does not take these answers
    as they are (no such survey, not open, other questions, grouping questions to answer)
    or it is the survey's first response (see the statement).
    """
    questions = sorted(answers)
    params = {
        "slug": slug,
        "open": Survey.Status.OPEN.value,
        "submission": submission_uuid,
        "received_on": received_on,
        # As PostgreSQL array literals, which the statement's parameter types read: the
        # driver's own adaptation of Python lists costs more than the rest of the call.
        "questions": "{" + ",".join(str(question) for question in questions) + "}",
        "bits": "{" + ",".join("t" if answers[question] else "f" for question in questions) + "}",
        "fingerprint": design_fingerprint,
    }
    with connection.cursor() as cursor:
        session = connection.connection
        if session not in _prepared:
            _prepare(cursor)
            _prepared.add(session)
        try:
            with _statement_transaction():
                cursor.execute(_EXECUTE_SQL, params)
        except DatabaseError as exc:
            if _sqlstate(exc) != _NO_SUCH_STATEMENT:
                raise
            # Prepare again next time; this time run the statement as it is.
            _prepared.discard(session)
            with _statement_transaction():
                cursor.execute(_PLAIN_SQL, params)
        return cursor.fetchone() is not None


def _prepare(cursor):
    try:
        with _statement_transaction():
            cursor.execute(_PREPARE_SQL)
    except DatabaseError as exc:
        # Through a pooler, this server session may hold it from another client: same text.
        if _sqlstate(exc) != _ALREADY_PREPARED:
            raise


def _statement_transaction():
    """In autocommit a statement is its own transaction. Inside a caller's transaction (a
    test, a management command) a savepoint keeps a failure from poisoning the caller's."""
    return transaction.atomic() if connection.in_atomic_block else nullcontext()


def _sqlstate(exc):
    return getattr(exc.__cause__, "sqlstate", None)


# The survey by slug with its question ids and grouping options (2-element arrays of
# grouping question id, option id), in one round trip.
_INPUTS_SQL = """
SELECT s.id, s.status, s.response_count, s.design_fingerprint,
    ARRAY(SELECT q.id FROM surveys_question AS q WHERE q.survey_id = s.id),
    ARRAY(
        SELECT ARRAY[o.grouping_question_id, o.id]
        FROM surveys_groupingoption AS o
        JOIN surveys_groupingquestion AS g ON g.id = o.grouping_question_id
        WHERE g.survey_id = s.id
    )
FROM surveys_survey AS s
WHERE s.slug = %s
"""


def submission_inputs(*, slug):
    """``((survey id, status, response count, design fingerprint), question ids, grouping
    options)`` or None.

    The options are ``{grouping question id: {option ids}}``, as ``services`` validates them.
    """
    with connection.cursor() as cursor:
        cursor.execute(_INPUTS_SQL, [slug])
        row = cursor.fetchone()
    if row is None:
        return None
    survey_id, status, response_count, fingerprint, question_ids, pairs = row
    options = {}
    for grouping_id, option_id in pairs:
        options.setdefault(grouping_id, set()).add(option_id)
    return (survey_id, status, response_count, fingerprint), set(question_ids), options
