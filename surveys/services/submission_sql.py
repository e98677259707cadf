"""A respondent's submission stored by SQL that checks as it writes: one PostgreSQL statement
(or, on SQLite, a few statements in one short transaction).

Why raw SQL here, and only here: the public submission endpoint is the one request every
respondent makes. Through the ORM a submission is a read of the survey, its questions and
grouping options, then a transaction of several round trips (the submission, its grouping
answers, the tallies) during which the rows it counts on stay locked. PostgreSQL runs a
statement with data-modifying CTEs as one atomic unit, so in autocommit the same checks and
writes are ONE round trip and still all or nothing, and a tally row is locked only from its
update to the commit of that same statement. The statement is prepared once per connection.

This module only runs the statement; ``services.submission_receive`` decides when, and
explains a refusal. The rules the statement checks are those of ``services`` (see
``services.submission_validate``); both read the design, which is frozen once a survey has been
open (``Survey.is_frozen``), so a check made in the statement's snapshot holds at its commit.
"""

import hashlib
import json
import weakref
from contextlib import nullcontext
from dataclasses import dataclass

from django.db import DatabaseError, IntegrityError, connection, transaction
from django.utils import timezone

import dpengine

from .. import selectors
from ..models import (
    GroupAnswer,
    GroupingOption,
    GroupingQuestion,
    GroupTally,
    Question,
    Submission,
    Survey,
    TallyShard,
    random_key,
)
from .tallies import tally_increment

YES_NO = Question.Kind.YES_NO

# Table names from the models, so a renamed table cannot leave the statement behind.
_TABLES = {
    "survey": Survey._meta.db_table,
    "question": Question._meta.db_table,
    "grouping": GroupingQuestion._meta.db_table,
    "option": GroupingOption._meta.db_table,
    "submission": Submission._meta.db_table,
    "answer": GroupAnswer._meta.db_table,
    "group_tally": GroupTally._meta.db_table,
    "tally": TallyShard._meta.db_table,
}
# What the statement takes, in order: (name, PostgreSQL type).
_PARAMETERS = (
    ("slug", "text"),
    ("open", "text"),
    ("pilot", "text"),
    ("now", "timestamptz"),
    ("submission", "uuid"),
    ("received_on", "date"),
    ("questions", "bigint[]"),
    ("bits", "boolean[]"),
    ("groupings", "bigint[]"),
    ("options", "bigint[]"),
    ("fingerprint", "text"),
    ("shard", "smallint"),
    ("key", "bigint"),
    ("answer_keys", "bigint[]"),
    ("tokened", "boolean"),
)
# The typed form (a submission with multiple-choice or numeric reports) takes one more array,
# aligned with ``questions``: the integer report of each choice or numeric question, NULL for
# a yes/no one (whose ``bits`` entry is then the one that is not NULL).
_TYPED_PARAMETERS = (*_PARAMETERS, ("reports", "bigint[]"))

# Stores the submission only if it is valid, all or nothing, idempotent on (survey, id):
# - ``survey`` finds the survey by slug, only if it takes responses now (a pilot, or open
#   and within its window [opens_at, closes_at) at ``now``, see surveys/schedule.py); every
#   answered question is one of its yes/no questions (``questions``, distinct; a report for
#   a multiple-choice or numeric question is no bit, and the ORM stores those) and every
#   required one is answered; every answered grouping question is one of its grouping questions
#   (``groupings``, distinct) and every required one is answered, each with one of that
#   grouping question's options or NULL ("Prefer not to say"; ``options``, aligned with
#   ``groupings``); and, when the body names the design it was randomized with
#   (``fingerprint``), that is the survey's; and an invitation-only survey takes it only when
#   the caller spent a token in the same transaction (``tokened``). Otherwise no row, and
#   every later part does nothing: the caller then explains what is wrong.
# - ``s`` inserts the submission with its reports unless this id is already stored for the
#   survey (a replay); then it returns no row, and again nothing else happens. Its key
#   (``key``) and its grouping answers' (``answer_keys``, aligned with ``groupings``) are
#   drawn at random by the caller (``models.random_key``): a counted key would record the
#   order in which submissions arrived.
# - ``chosen`` stores the grouping answers, ``counted`` counts the respondent on each chosen
#   option, ``declined`` on each grouping question answered "Prefer not to say", and
#   ``grouped`` adds the reports to the per-(question, option) tallies (a declined answer is
#   in none), creating a row that is missing (``created``: the caller then has the tallies
#   recounted, see ``services``). A submission without grouping answers runs the statement
#   without these parts (``_UNGROUPED``): they would do nothing for it, and opening their
#   tables for nothing was a tenth of the statement's database time.
# - the final INSERT counts the response and its reports in the survey's tally shard
#   ``shard`` (``models.TallyShard``), creating it if missing. It runs only when the submission
#   was inserted and returns a row only then, so "no row" means "nothing stored or counted".
#   A submission may answer no yes/no question at all (all optional): it still counts.
#   Under concurrent submissions each tally row is updated from its latest version, as
#   ``x = x + 1`` is; the shard, chosen at random per submission, spreads them over several
#   rows, so they rarely wait for one another's lock.
_CHECK_AND_STORE_SQL = """
WITH survey AS (
    SELECT v.id FROM {survey} AS v
    WHERE v.slug = %(slug)s
        AND (
            v.status = %(pilot)s
            OR (
                v.status = %(open)s
                AND (v.opens_at IS NULL OR v.opens_at <= %(now)s)
                AND (v.closes_at IS NULL OR v.closes_at > %(now)s)
            )
        )
        AND (%(fingerprint)s IS NULL OR v.design_fingerprint = %(fingerprint)s)
        AND (%(tokened)s OR v.access <> 'invitation')
        AND (
            SELECT count(*) FILTER (WHERE q.id = ANY(%(questions)s) AND q.kind = 'yes_no')
                    = cardinality(%(questions)s)
                AND NOT COALESCE(bool_or(q.required AND q.id <> ALL(%(questions)s)), false)
            FROM {question} AS q WHERE q.survey_id = v.id
        )
        AND NOT EXISTS (
            SELECT FROM {grouping} AS g
            WHERE g.survey_id = v.id AND g.required AND g.id <> ALL(%(groupings)s)
        )
        AND (
            SELECT count(*) FROM {grouping} AS g
            JOIN unnest(%(groupings)s, %(options)s) AS c (grouping_id, option_id)
                ON g.id = c.grouping_id AND g.survey_id = v.id
            WHERE c.option_id IS NULL OR EXISTS (
                SELECT FROM {option} AS o
                WHERE o.id = c.option_id AND o.grouping_question_id = g.id
            )
        ) = cardinality(%(groupings)s)
), a AS (
    SELECT question_id, 'q' || question_id AS key, bit
    FROM unnest(%(questions)s, %(bits)s) AS a (question_id, bit)
), s AS (
    INSERT INTO {submission} (id, survey_id, submission_id, received_on, reports)
    SELECT %(key)s, survey.id, %(submission)s, %(received_on)s,
        COALESCE((SELECT jsonb_object_agg(key, bit) FROM a), '{{}}')
    FROM survey
    ON CONFLICT (survey_id, submission_id) DO NOTHING
    RETURNING id, survey_id
"""
_GROUPING_WRITES_SQL = """
), chosen AS (
    INSERT INTO {answer} (id, submission_id, grouping_question_id, option_id)
    SELECT c.answer_key, s.id, c.grouping_id, c.option_id
    FROM s, unnest(%(groupings)s, %(options)s, %(answer_keys)s)
        AS c (grouping_id, option_id, answer_key)
    RETURNING grouping_question_id, option_id
), counted AS (
    UPDATE {option} AS o SET respondent_count = o.respondent_count + 1
    FROM chosen WHERE o.id = chosen.option_id
    RETURNING o.id
), declined AS (
    UPDATE {grouping} AS g SET declined_count = g.declined_count + 1
    FROM chosen WHERE g.id = chosen.grouping_question_id AND chosen.option_id IS NULL
    RETURNING g.id
), grouped AS (
    INSERT INTO {group_tally} AS t (question_id, option_id, report_count, yes_count)
    SELECT a.question_id, chosen.option_id, 1, a.bit::int
    FROM a, chosen WHERE chosen.option_id IS NOT NULL
    ON CONFLICT (question_id, option_id) DO UPDATE
        SET report_count = t.report_count + 1, yes_count = t.yes_count + excluded.yes_count
    RETURNING xmax = 0 AS created
"""
_COUNT_SQL = """
)
INSERT INTO {tally} AS t (survey_id, shard, responses, reports)
SELECT s.survey_id, %(shard)s, 1,
    COALESCE((SELECT jsonb_object_agg(a.key, jsonb_build_array(1, a.bit::int)) FROM a), '{{}}')
FROM s
ON CONFLICT (survey_id, shard) DO UPDATE
SET responses = t.responses + 1,
    reports = t.reports || COALESCE((
        SELECT jsonb_object_agg(
            a.key,
            jsonb_build_array(
                COALESCE((t.reports -> a.key ->> 0)::bigint, 0) + 1,
                COALESCE((t.reports -> a.key ->> 1)::bigint, 0) + a.bit::int
            )
        )
        FROM a
    ), '{{}}')
RETURNING t.survey_id, {created}
"""
_RECORD_SQL = (
    _CHECK_AND_STORE_SQL
    + _GROUPING_WRITES_SQL
    + _COUNT_SQL.replace("{created}", "(SELECT count(*) FROM grouped WHERE created)")
).format(**_TABLES)
_RECORD_UNGROUPED_SQL = (_CHECK_AND_STORE_SQL + _COUNT_SQL.replace("{created}", "0")).format(
    **_TABLES
)

# --- the typed form: multiple-choice and numeric reports too (docs/statistics.md, "Question
# types"). The same statement with three parts changed, so the checks and writes are those of
# ``services.submission_validate`` for every type:
# - the questions check: each answered question is the survey's and its report fits its type:
#   a boolean for yes/no, an option index (0 to k - 1) for choice, and for numeric an integer
#   within dpengine.report_bounds of its range (selectors.mechanisms.report_range,
#   computed in the same floating-point order so the bounds agree to the unit);
# - ``a`` carries each report with its question's type; the submission stores booleans and
#   integers as sent, and the per-(question, option) tallies count the yes/no reports only;
# - the tally shard adds each question's vector (services.tallies.tally_increment: yes/no
#   [1, yes], choice [1, 0, ..., 1], numeric [1, report, report²]) element by element, in
#   numeric (a sum of squares can outgrow bigint).
# A numeric question q's slack, dpengine.report_bounds in SQL: the same doubles in the same
# order (hi - lo, divided by ε, times REPORT_SCALES, rounded up), so the two agree to the unit.
NUMERIC_SLACK_SQL = (
    f"ceil({dpengine.REPORT_SCALES!r}::float8 * ((q.max_value - q.min_value)::float8 / q.epsilon))"
)
_TYPED_QUESTIONS_CHECK = """
        AND (
            SELECT count(a.question_id) FILTER (WHERE
                    (q.kind = 'yes_no' AND a.bit IS NOT NULL AND a.report IS NULL)
                    OR (q.kind = 'choice' AND a.bit IS NULL
                        AND a.report >= 0 AND a.report < jsonb_array_length(q.options))
                    OR (q.kind = 'numeric' AND a.bit IS NULL
                        AND a.report >= q.min_value - {slack}
                        AND a.report <= q.max_value + {slack})
                ) = cardinality(%(questions)s)
                AND NOT COALESCE(bool_or(q.required AND a.question_id IS NULL), false)
            FROM {question} AS q
            LEFT JOIN unnest(%(questions)s, %(bits)s, %(reports)s) AS a (question_id, bit, report)
                ON a.question_id = q.id
            WHERE q.survey_id = v.id
        )
"""
_TYPED_A = """
), a AS (
    SELECT a.question_id, 'q' || a.question_id AS key, a.bit, a.report, q.kind,
        CASE q.kind
            WHEN 'numeric' THEN jsonb_build_array(1, a.report, a.report::numeric * a.report)
            WHEN 'choice' THEN (
                SELECT jsonb_agg((n = 0 OR n = a.report + 1)::int ORDER BY n)
                FROM generate_series(0, a.report + 1) AS n
            )
            ELSE jsonb_build_array(1, a.bit::int)
        END AS added
    FROM unnest(%(questions)s, %(bits)s, %(reports)s) AS a (question_id, bit, report)
    JOIN {question} AS q ON q.id = a.question_id
), s AS (
    INSERT INTO {submission} (id, survey_id, submission_id, received_on, reports)
    SELECT %(key)s, survey.id, %(submission)s, %(received_on)s,
        COALESCE((
            SELECT jsonb_object_agg(key, COALESCE(to_jsonb(bit), to_jsonb(report))) FROM a
        ), '{{}}')
    FROM survey
    ON CONFLICT (survey_id, submission_id) DO NOTHING
    RETURNING id, survey_id
"""
_TYPED_COUNT_SQL = """
)
INSERT INTO {tally} AS t (survey_id, shard, responses, reports)
SELECT s.survey_id, %(shard)s, 1,
    COALESCE((SELECT jsonb_object_agg(a.key, a.added) FROM a), '{{}}')
FROM s
ON CONFLICT (survey_id, shard) DO UPDATE
SET responses = t.responses + 1,
    reports = t.reports || COALESCE((
        SELECT jsonb_object_agg(a.key, (
            SELECT jsonb_agg(
                COALESCE((t.reports -> a.key ->> n)::numeric, 0)
                    + COALESCE((a.added ->> n)::numeric, 0)
                ORDER BY n
            )
            FROM generate_series(
                0,
                GREATEST(jsonb_array_length(a.added),
                    COALESCE(jsonb_array_length(t.reports -> a.key), 0)) - 1
            ) AS n
        ))
        FROM a
    ), '{{}}')
RETURNING t.survey_id, {created}
"""


def _typed(sql):
    """The statement ``sql`` (the checks and store part) in its typed form."""
    head, rest = sql.split("), a AS (", 1)
    _a_and_s, grouped = rest.split("RETURNING id, survey_id\n", 1)
    check_start = head.index("        AND (\n            SELECT count(*) FILTER")
    check_end = head.index("        AND NOT EXISTS (", check_start)
    head = (
        head[:check_start]
        + _TYPED_QUESTIONS_CHECK.replace("{slack}", NUMERIC_SLACK_SQL)
        + head[check_end:]
    )
    return head + _TYPED_A.rstrip("\n") + "\n" + grouped


_TYPED_GROUPING_WRITES_SQL = _GROUPING_WRITES_SQL.replace(
    "FROM a, chosen WHERE chosen.option_id IS NOT NULL",
    "FROM a, chosen WHERE chosen.option_id IS NOT NULL AND a.kind = 'yes_no'",
)
_RECORD_TYPED_SQL = (
    _typed(_CHECK_AND_STORE_SQL)
    + _TYPED_GROUPING_WRITES_SQL
    + _TYPED_COUNT_SQL.replace("{created}", "(SELECT count(*) FROM grouped WHERE created)")
).format(**_TABLES)
_RECORD_TYPED_UNGROUPED_SQL = (
    _typed(_CHECK_AND_STORE_SQL) + _TYPED_COUNT_SQL.replace("{created}", "0")
).format(**_TABLES)


class _Prepared:
    """One form of the statement, prepared once per database connection that runs it."""

    def __init__(self, sql, parameters=_PARAMETERS):
        self.sql = sql
        self.parameters = parameters
        # Named after its text: a server session that a pooler shares between app versions
        # during a deploy never runs another version's statement under this version's name.
        self.name = f"rrsurvey_submission_{hashlib.sha256(sql.encode()).hexdigest()[:12]}"
        self.prepare_sql = (
            f"PREPARE {self.name} ({', '.join(kind for _, kind in parameters)}) AS "
            + (sql % {name: f"${position}" for position, (name, _) in enumerate(parameters, 1)})
        )
        self.execute_sql = (
            f"EXECUTE {self.name} ({', '.join(f'%({name})s' for name, _ in parameters)})"
        )
        # The unprepared form, typed as the prepared one is.
        self.plain_sql = sql % {name: f"%({name})s::{kind}" for name, kind in parameters}
        # Database connections (psycopg's, which Django replaces when it reconnects) that hold
        # it. A prepared statement lives as long as its connection, whatever transaction it
        # was prepared in.
        self.sessions = weakref.WeakSet()


_GROUPED = _Prepared(_RECORD_SQL)
_UNGROUPED = _Prepared(_RECORD_UNGROUPED_SQL)
_TYPED_GROUPED = _Prepared(_RECORD_TYPED_SQL, _TYPED_PARAMETERS)
_TYPED_UNGROUPED = _Prepared(_RECORD_TYPED_UNGROUPED_SQL, _TYPED_PARAMETERS)
# Run every EXECUTE with the statement's generic plan, made once per connection. Left to
# choose (plan_cache_mode "auto"), PostgreSQL plans the statement anew at each EXECUTE (a
# custom plan) whenever the generic plan's estimated cost exceeds the custom plans': for
# this statement the two are close, and the choice flips with the tables' statistics and small
# changes to its text (rewording the grouping checks did). Planning it costs the database more
# than running it (about 0.6 ms against 0.4 ms), so a flip doubled its database time per
# submission. Its generic plan fits any values: every lookup is by key. Set for the session,
# in the same round trip as PREPARE (EXECUTE reads it): the app prepares no other statement
# (Django binds
# parameters client-side, with the simple query protocol), so nothing else is affected. (In a
# caller's transaction that rolls back, a test's, the setting goes with it: same results.)
_GENERIC_PLANS = "SET plan_cache_mode = force_generic_plan"
# SQLSTATE of EXECUTE naming a statement the server does not have: a pooler in front of
# PostgreSQL handed this connection another server session, or reset it (DISCARD ALL).
_NO_SUCH_STATEMENT = "26000"
_ALREADY_PREPARED = "42P05"


@dataclass(frozen=True)
class Stored:
    """A submission the statement stored: its survey, and whether some of its per-(question,
    option) tally rows were missing (they are created when a survey opens), so that the
    survey's tallies need a recount."""

    survey_id: int
    group_tallies_incomplete: bool


def supported():
    """Whether this module can store submissions on this database."""
    return connection.vendor in ("postgresql", "sqlite")


def _bit_or_null(report):
    if isinstance(report, bool):
        return "t" if report else "f"
    return "NULL"


def _array(values):
    # As PostgreSQL array literals, which the statement's parameter types read: the driver's
    # own adaptation of Python lists costs more than the rest of the call.
    return "{" + ",".join(values) + "}"


def submission_insert(
    *,
    slug,
    submission_uuid,
    received_on,
    answers,
    groups,
    shard,
    design_fingerprint=None,
    now=None,
    tokened=False,
) -> Stored | None:
    """Store a submission to the survey at ``slug`` if the survey takes it as it is.

    ``answers`` maps question id to the randomized report (a bit for a yes/no question, an
    integer for a multiple-choice or numeric one), ``groups`` grouping question id to the
    chosen option id (None: "Prefer not to say"); optional questions left out are absent.
    None: nothing stored, because this id was stored before (a replay) or the survey does not
    take these answers (no such survey, not open, other questions, another design,
    outside its schedule at ``now``, by default the current time, invitation-only while not
    ``tokened``). ``shard`` is the tally shard to count it in. ``tokened``: the caller spent a
    valid token in the transaction this runs in (``services.spent_tokens``).
    """
    now = now or timezone.now()
    # The rows' keys are random (models.random_key). Should one meet a key already taken
    # (about n²/2⁶⁴ for n rows), nothing was stored and a new draw is stored instead.
    for attempt in range(_KEY_DRAWS):
        try:
            return _insert(
                slug=slug,
                submission_uuid=submission_uuid,
                received_on=received_on,
                answers=answers,
                groups=groups,
                shard=shard,
                design_fingerprint=design_fingerprint,
                now=now,
                tokened=tokened,
            )
        except IntegrityError:
            if attempt == _KEY_DRAWS - 1:
                raise
    raise AssertionError("unreachable")


_KEY_DRAWS = 3


def _insert(
    *, slug, submission_uuid, received_on, answers, groups, shard, design_fingerprint, now, tokened
):
    if connection.vendor == "sqlite":
        return _sqlite_insert(
            slug=slug,
            submission_uuid=submission_uuid,
            received_on=received_on,
            answers=answers,
            groups=groups,
            design_fingerprint=design_fingerprint,
            now=now,
            tokened=tokened,
        )
    questions = sorted(answers)
    groupings = sorted(groups)
    params = {
        "slug": slug,
        "open": Survey.Status.OPEN.value,
        "pilot": Survey.Status.PILOT.value,
        "now": now,
        "submission": submission_uuid,
        "received_on": received_on,
        "questions": _array(str(question) for question in questions),
        "bits": _array("t" if answers[question] else "f" for question in questions),
        "groupings": _array(str(grouping) for grouping in groupings),
        "options": _array(
            "NULL" if groups[grouping] is None else str(groups[grouping]) for grouping in groupings
        ),
        "fingerprint": design_fingerprint,
        "shard": shard,
        "key": random_key(),
        "answer_keys": _array(str(random_key()) for _grouping in groupings),
        "tokened": tokened,
    }
    statement = _GROUPED if groups else _UNGROUPED
    if not all(isinstance(answers[question], bool) for question in questions):
        # Multiple-choice or numeric reports: the typed form (bits NULL where a report is).
        statement = _TYPED_GROUPED if groups else _TYPED_UNGROUPED
        params["bits"] = _array(_bit_or_null(answers[question]) for question in questions)
        params["reports"] = _array(
            "NULL" if isinstance(answers[question], bool) else str(answers[question])
            for question in questions
        )
    with connection.cursor() as cursor:
        session = connection.connection
        if session not in statement.sessions:
            _prepare(cursor, statement)
            statement.sessions.add(session)
        try:
            with _statement_transaction():
                cursor.execute(statement.execute_sql, params)
        except DatabaseError as exc:
            if _sqlstate(exc) != _NO_SUCH_STATEMENT:
                raise
            # Prepare again next time; this time run the statement as it is.
            statement.sessions.discard(session)
            with _statement_transaction():
                cursor.execute(statement.plain_sql, params)
        row = cursor.fetchone()
    if row is None:
        return None
    survey_id, created = row
    return Stored(survey_id=survey_id, group_tallies_incomplete=created > 0)


def _prepare(cursor, statement):
    try:
        with _statement_transaction():
            cursor.execute(f"{statement.prepare_sql}; {_GENERIC_PLANS}")
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


# --- SQLite: the same checks and writes, a few statements in one short transaction ---------
# SQLite has no data-modifying CTEs. Its transactions are IMMEDIATE (config/settings.py): the
# database's write lock is held from BEGIN, so a check made inside the transaction still holds
# at its commit. Plain SQL, not the ORM, so that the lock is held for as short a time as can be:
# the other workers wait for it.


def _marks(count):
    return ", ".join(["%s"] * count)


def _sqlite_insert(
    *, slug, submission_uuid, received_on, answers, groups, design_fingerprint, now, tokened
):
    questions = sorted(answers)
    # Multiple-choice or numeric reports: each report's type is checked against its question
    # inside the transaction, and the tally vectors are added in Python (the transaction holds
    # the database's write lock from BEGIN, so the read-modify-write of the row is safe).
    typed = not all(isinstance(answers[question], bool) for question in questions)
    t = _TABLES
    groupings = sorted(groups)
    chosen = {gid: oid for gid, oid in groups.items() if oid is not None}
    declined = [gid for gid, oid in groups.items() if oid is None]
    # Every answered question is the survey's, and no required one is left out; the same for
    # the grouping questions. (An empty IN () list is valid SQLite.)
    # Stored as Django stores datetimes on SQLite (UTC text), so the text compares as the time.
    moment = connection.ops.adapt_datetimefield_value(now)
    check = (
        f"SELECT v.id FROM {t['survey']} AS v"
        " WHERE v.slug = %s"
        " AND (v.status = %s OR (v.status = %s"
        " AND (v.opens_at IS NULL OR v.opens_at <= %s)"
        " AND (v.closes_at IS NULL OR v.closes_at > %s)))"
        " AND (%s IS NULL OR v.design_fingerprint = %s)"
        " AND (%s OR v.access <> 'invitation')"
        f" AND (SELECT count(*) FROM {t['question']} WHERE survey_id = v.id"
        f"{'' if typed else ' AND kind = %s'} AND id IN ({_marks(len(questions))})) = %s"
        f" AND NOT EXISTS (SELECT 1 FROM {t['question']} WHERE survey_id = v.id AND required"
        f" AND id NOT IN ({_marks(len(questions))}))"
        f" AND (SELECT count(*) FROM {t['grouping']} WHERE survey_id = v.id"
        f" AND id IN ({_marks(len(groupings))})) = %s"
        f" AND NOT EXISTS (SELECT 1 FROM {t['grouping']} WHERE survey_id = v.id AND required"
        f" AND id NOT IN ({_marks(len(groupings))}))"
    )
    params = [
        slug,
        Survey.Status.PILOT.value,
        Survey.Status.OPEN.value,
        moment,
        moment,
        design_fingerprint,
        design_fingerprint,
        tokened,
        *([] if typed else [Question.Kind.YES_NO.value]),
        *questions,
        len(questions),
        *questions,
        *groupings,
        len(groupings),
        *groupings,
    ]
    if chosen:
        # Each chosen option is one of its grouping question's ("Prefer not to say" has none).
        pairs = ", ".join(["(%s, %s)"] * len(chosen))
        check += (
            f" AND (SELECT count(*) FROM {t['option']} AS o"
            f" WHERE (o.grouping_question_id, o.id) IN (VALUES {pairs})) = %s"
        )
        params += [value for pair in chosen.items() for value in pair] + [len(chosen)]
    keys = [f"q{question}" for question in questions]
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(check, params)
        row = cursor.fetchone()
        if row is None:
            return None
        survey_id = row[0]
        kinds = _sqlite_report_kinds(cursor, answers) if typed else {}
        if kinds is None:
            return None
        # The per-(question, option) tallies count yes/no reports only.
        bits = [question for question in questions if kinds.get(question, YES_NO) == YES_NO]
        yes = [question for question in bits if answers[question]]
        # Random keys (models.random_key), the rowids on SQLite (see models.RandomKeyField).
        cursor.execute(
            f"INSERT INTO {t['submission']} (id, survey_id, submission_id, received_on, reports)"
            " VALUES (%s, %s, %s, %s, %s) ON CONFLICT (survey_id, submission_id) DO NOTHING"
            " RETURNING id",
            [
                random_key(),
                survey_id,
                submission_uuid.hex,
                received_on.isoformat(),
                json.dumps(dict(zip(keys, (answers[q] for q in questions), strict=True))),
            ],
        )
        row = cursor.fetchone()
        if row is None:  # a replay
            return None
        submission_pk = row[0]
        incomplete = False
        if groups:
            cursor.execute(
                f"INSERT INTO {t['answer']} (id, submission_id, grouping_question_id, option_id)"
                f" VALUES {', '.join(['(%s, %s, %s, %s)'] * len(groups))}",
                [
                    value
                    for gid, oid in groups.items()
                    for value in (random_key(), submission_pk, gid, oid)
                ],
            )
        if declined:
            cursor.execute(
                f"UPDATE {t['grouping']} SET declined_count = declined_count + 1"
                f" WHERE id IN ({_marks(len(declined))})",
                declined,
            )
        options = list(chosen.values())
        if options:
            cursor.execute(
                f"UPDATE {t['option']} SET respondent_count = respondent_count + 1"
                f" WHERE id IN ({_marks(len(options))})",
                options,
            )
        if options and bits:
            cursor.execute(
                f"UPDATE {t['group_tally']} SET report_count = report_count + 1,"
                f" yes_count = yes_count + (question_id IN ({_marks(len(yes)) or '-1'}))"
                f" WHERE option_id IN ({_marks(len(options))})"
                f" AND question_id IN ({_marks(len(bits))})",
                [*yes, *options, *bits],
            )
            incomplete = cursor.rowcount != len(options) * len(bits)
        if typed:
            _sqlite_count_typed(cursor, survey_id=survey_id, answers=answers, kinds=kinds)
            return Stored(survey_id=survey_id, group_tallies_incomplete=incomplete)
        counts = "".join(
            f", '$.{key}', json_array("
            f"coalesce(json_extract(reports, '$.{key}[0]'), 0) + 1, "
            f"coalesce(json_extract(reports, '$.{key}[1]'), 0) + %s)"
            for key in keys
        )
        # One shard: SQLite takes one write at a time anyway, so more rows would spread nothing.
        cursor.execute(
            f"INSERT INTO {t['tally']} (survey_id, shard, responses, reports)"
            " VALUES (%s, 0, 1, %s) ON CONFLICT (survey_id, shard) DO UPDATE"
            f" SET responses = responses + 1, reports = json_set(reports{counts})",
            [
                survey_id,
                json.dumps(
                    {key: [1, int(answers[q])] for key, q in zip(keys, questions, strict=True)}
                ),
                *(int(answers[q]) for q in questions),
            ],
        )
    return Stored(survey_id=survey_id, group_tallies_incomplete=incomplete)


def _sqlite_report_kinds(cursor, answers):
    """``{question id: type}`` of the answered questions, or None when a report does not fit
    its question's type (a boolean for yes/no; an index or an integer within
    ``selectors.mechanisms.report_range`` for choice and numeric). The check of the survey's
    questions has already run."""
    t = _TABLES
    cursor.execute(
        f"SELECT id, kind, json_array_length(options), min_value, max_value, epsilon"
        f" FROM {t['question']} WHERE id IN ({_marks(len(answers))})",
        list(answers),
    )
    kinds = {}
    for question_id, kind, options, low, high, epsilon in cursor.fetchall():
        report = answers[question_id]
        if kind == YES_NO:
            fits = isinstance(report, bool)
        else:
            shape = Question(
                kind=kind,
                options=[None] * (options or 0),
                min_value=low,
                max_value=high,
                epsilon=epsilon,
            )
            _kind, lowest, highest = selectors.report_range(shape)
            fits = not isinstance(report, bool) and lowest <= report <= highest
        if not fits:
            return None
        kinds[question_id] = kind
    return kinds if len(kinds) == len(answers) else None


def _sqlite_count_typed(cursor, *, survey_id, answers, kinds):
    """Count the response and add each report's tally vector (``tallies.tally_increment``) to
    the survey's tally row, read and written inside the caller's transaction."""
    t = _TABLES
    cursor.execute(
        f"INSERT INTO {t['tally']} (survey_id, shard, responses, reports) VALUES (%s, 0, 0, '{{}}')"
        " ON CONFLICT (survey_id, shard) DO NOTHING",
        [survey_id],
    )
    cursor.execute(
        f"SELECT reports FROM {t['tally']} WHERE survey_id = %s AND shard = 0", [survey_id]
    )
    reports = json.loads(cursor.fetchone()[0])
    for question_id, report in answers.items():
        key = f"q{question_id}"
        added = tally_increment(kinds[question_id], report)
        reports[key] = selectors.add_counts(reports.get(key, ()), added)
    cursor.execute(
        f"UPDATE {t['tally']} SET responses = responses + 1, reports = %s"
        " WHERE survey_id = %s AND shard = 0",
        [json.dumps(reports), survey_id],
    )
