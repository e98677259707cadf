"""The one hot write path in raw SQL: a respondent's submission on PostgreSQL.

Why the ORM is bypassed here, and only here: the public submission endpoint is the one
request every respondent makes, and through the ORM a submission is a transaction of six
round trips (BEGIN; INSERT submission; INSERT reports; UPDATE question tallies; UPDATE the
survey's count; COMMIT) plus the ORM's work to build them. PostgreSQL runs a statement with
data-modifying CTEs as one atomic unit, so in autocommit the same writes are ONE round trip
and still all or nothing. Validation stays in ``services.submission_record``; this module
only writes what it was given. SQLite (no data-modifying CTEs) and surveys with grouping
questions (per-option tallies, created lazily) keep the ORM transaction in the service.
"""

from django.db import connection, transaction

# All or nothing, idempotent on (survey, submission id):
# - ``s`` inserts the submission unless this id is already stored for the survey (a replay);
#   then it returns no row and every later part does nothing (``FROM s`` / ``EXISTS s``).
# - ``r`` inserts one report per answer; ``t`` adds one to each answered question's
#   tallies (and to yes_count for a yes). A question deleted concurrently makes the report
#   INSERT violate its foreign key: the whole statement fails, nothing is stored.
# - the final UPDATE counts the response on the survey and returns a row only when the
#   submission was inserted, so "no row" means "replay, nothing stored or counted".
_RECORD_SQL = """
WITH s AS (
    INSERT INTO surveys_submission (survey_id, submission_id, received_on)
    VALUES (%(survey)s, %(submission)s, %(received_on)s)
    ON CONFLICT (survey_id, submission_id) DO NOTHING
    RETURNING id
), a AS (
    SELECT * FROM unnest(%(questions)s::bigint[], %(bits)s::boolean[]) AS a (question_id, bit)
), r AS (
    INSERT INTO surveys_report (submission_id, question_id, reported_yes)
    SELECT s.id, a.question_id, a.bit FROM s CROSS JOIN a
), t AS (
    UPDATE surveys_question AS q
    SET report_count = q.report_count + 1, yes_count = q.yes_count + a.bit::int
    FROM a
    WHERE q.id = a.question_id AND EXISTS (SELECT 1 FROM s)
)
UPDATE surveys_survey SET response_count = response_count + 1
WHERE id = %(survey)s AND EXISTS (SELECT 1 FROM s)
RETURNING id
"""


def supported():
    """Whether the database runs the one-statement submission (PostgreSQL only)."""
    return connection.vendor == "postgresql"


def submission_insert(*, survey_id, submission_uuid, received_on, answers) -> bool:
    """Store a validated submission in one statement; False if the id was stored before.

    ``answers`` maps question id to the randomized bit. Raises ``IntegrityError`` (nothing
    stored) when a question disappeared since validation.
    """
    params = {
        "survey": survey_id,
        "submission": submission_uuid,
        "received_on": received_on,
        "questions": list(answers),
        "bits": list(answers.values()),
    }
    # In autocommit the statement is its own transaction. Inside a caller's transaction (a
    # test, a management command) a savepoint keeps a failure from poisoning the caller's.
    if connection.in_atomic_block:
        with transaction.atomic():
            return _execute(params)
    return _execute(params)


def _execute(params) -> bool:
    with connection.cursor() as cursor:
        cursor.execute(_RECORD_SQL, params)
        return cursor.fetchone() is not None


# The survey by slug with its question ids and grouping options (2-element arrays of
# grouping question id, option id), in one round trip.
_INPUTS_SQL = """
SELECT s.id, s.status, s.response_count,
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
    """``((survey id, status, response count), question ids, grouping options)`` or None.

    The options are ``{grouping question id: {option ids}}``, as ``services`` validates them.
    """
    with connection.cursor() as cursor:
        cursor.execute(_INPUTS_SQL, [slug])
        row = cursor.fetchone()
    if row is None:
        return None
    survey_id, status, response_count, question_ids, pairs = row
    options = {}
    for grouping_id, option_id in pairs:
        options.setdefault(grouping_id, set()).add(option_id)
    return (survey_id, status, response_count), set(question_ids), options
