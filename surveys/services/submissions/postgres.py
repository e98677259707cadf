"""A submission checked and stored by ONE PostgreSQL statement.

Why raw SQL here, and only here: every respondent makes this request. Through the ORM it is a
read of the survey, then a transaction of several round trips holding the rows it counts on
locked. A statement with data-modifying CTEs is atomic, so in autocommit the same checks and
writes are ONE round trip, all or nothing, and a tally row is locked only until that
statement commits. It is prepared once per connection, and composed from named parts
(``statement``: one check per rule of the contract, keyed by ``contract.Rule``, and the
writes); this module prepares and runs it. The rules read the design, frozen once a survey
has been open, so a check made in the statement's snapshot holds at its commit. No row: a
rule failed or the id is stored already; ``submission_receive`` then explains why.

A submission to an invitation survey spends its token in the same statement (the tokened
form), so it is one round trip too, and the token is spent exactly when the submission is
stored.
"""

import hashlib
import weakref
from contextlib import nullcontext
from dataclasses import dataclass

from django.db import DatabaseError, IntegrityError, connection, transaction
from psycopg import sql

from ...models import Survey, random_key
from ..batches import HELD_COUNT_SQL, rows_of_each
from ..tallies import group_tallies_rebuild, tally_shard_pick
from .statement import PARAMETERS, TYPED_PARAMETERS, statement_text


class _Prepared:
    """One form of the statement, prepared once per database connection that runs it."""

    def __init__(self, *, typed, grouped, held, tokened):
        self.parameters = TYPED_PARAMETERS if typed else PARAMETERS
        positional = {
            name: sql.SQL(f"${position}") for position, (name, _) in enumerate(self.parameters, 1)
        }
        # The unprepared form, typed as the prepared one is.
        self.plain_sql = statement_text(
            typed=typed,
            grouped=grouped,
            held=held,
            tokened=tokened,
            p={
                name: sql.SQL("{}::{}").format(sql.Placeholder(name), sql.SQL(kind))
                for name, kind in self.parameters
            },
        )
        text = statement_text(
            typed=typed, grouped=grouped, held=held, tokened=tokened, p=positional
        )
        # Named after its text: a server session that a pooler shares between app versions
        # during a deploy never runs another version's statement under this version's name.
        self.name = f"rrsurvey_submission_{hashlib.sha256(text.encode()).hexdigest()[:12]}"
        kinds = ", ".join(kind for _, kind in self.parameters)
        self.prepare_sql = f"PREPARE {self.name} ({kinds}) AS {text}"
        self.execute_sql = (
            f"EXECUTE {self.name} ({', '.join(f'%({name})s' for name, _ in self.parameters)})"
        )
        # Database connections (psycopg's, which Django replaces when it reconnects) that hold
        # it. A prepared statement lives as long as its connection, whatever transaction it
        # was prepared in.
        self.sessions = weakref.WeakSet()


_STATEMENTS = {
    (typed, grouped, held, tokened): _Prepared(
        typed=typed, grouped=grouped, held=held, tokened=tokened
    )
    for typed in (False, True)
    for grouped in (False, True)
    for held in (False, True)
    for tokened in (False, True)
}
# Run every EXECUTE with the statement's generic plan, made once per connection. Left to
# choose, PostgreSQL may plan it anew at each EXECUTE (a custom plan: the two costs are close,
# and the choice flips with statistics and small changes to the text), and planning it costs
# more than running it (about 0.6 ms against 0.4), so a flip doubled its database time. Every
# lookup is by key, so the generic plan fits any values. Set for the session in the PREPARE's
# round trip; the app prepares no other statement, so nothing else is affected.
_GENERIC_PLANS = "SET plan_cache_mode = force_generic_plan"
# SQLSTATE of EXECUTE naming a statement the server does not have: a pooler in front of
# PostgreSQL handed this connection another server session, or reset it (DISCARD ALL).
_NO_SUCH_STATEMENT = "26000"
_ALREADY_PREPARED = "42P05"
_KEY_DRAWS = 3
# The constraint a token spent before fails the tokened form on (``statement._SPENT``).
_TOKEN_ONCE = "spent_token_once"


@dataclass(frozen=True)
class Stored:
    """A submission the statement stored: its survey, and whether some of its per-(question,
    option) tally rows were missing (they are created when a survey opens), so that the
    survey's tallies need a recount."""

    survey_id: int
    group_tallies_incomplete: bool
    # A held submission stored in autocommit: the survey's held submissions, counted in a
    # snapshot taken after its commit, in the statement's round trip (``_insert``); else None.
    held: int | None = None


def _array(values):
    return "{" + ",".join(values) + "}"


def _bit(report):
    if isinstance(report, bool):
        return "t" if report else "f"
    return "NULL"


def _text(report):
    """A text answer as an element of an array literal (quoted, ``\\`` and ``"`` escaped);
    NULL for any other report."""
    if not isinstance(report, str):
        return "NULL"
    return '"' + report.replace("\\", "\\\\").replace('"', '\\"') + '"'


def write(prepared) -> bool:
    """Store ``prepared`` (``contract.PreparedSubmission``) if every rule of the contract holds
    at its time, spending its token in the same statement; whether it was stored. False:
    nothing stored, nothing spent (a rule failed, a replay, or a token spent before); the
    entry explains why."""
    return written(prepared) is not None


def written(prepared) -> Stored | None:
    """``write``, saying what it stored (None: nothing), and for a held submission the
    survey's held submissions counted after its commit when it could count them in the same
    round trip (``Stored.held``)."""
    stored = _stored(prepared)
    if stored is not None and stored.group_tallies_incomplete:
        recount(stored)
    return stored


def recount(stored):
    """Tally rows are created when the survey opens; some were missing (a survey opened before
    that, or rows removed): recount from the stored rows, this submission included."""
    group_tallies_rebuild(survey=Survey.objects.get(pk=stored.survey_id))


def _stored(prepared) -> Stored | None:
    # The rows' keys are random (models.random_key). Should one meet a key already taken
    # (about n²/2⁶⁴ for n rows), nothing was stored and a new draw is stored instead.
    for attempt in range(_KEY_DRAWS):
        try:
            return _insert(prepared, shard=tally_shard_pick())
        except IntegrityError as exc:
            if _constraint(exc) == _TOKEN_ONCE:
                return None  # the token was spent before: the statement stored nothing
            if attempt == _KEY_DRAWS - 1:
                raise
    raise AssertionError("unreachable")


def _insert(prepared, *, shard):
    clean, now, token = prepared.clean, prepared.received, prepared.token
    answers, groups = clean.answers, clean.groups
    questions = sorted(answers)
    groupings = sorted(groups)
    typed = not all(isinstance(answers[question], bool) for question in questions)
    params = {
        "slug": prepared.slug,
        "open": Survey.Status.OPEN.value,
        "pilot": Survey.Status.PILOT.value,
        "now": now,
        "submission_id": clean.submission_uuid,
        "received_on": now.date(),
        "questions": _array(str(question) for question in questions),
        # Typed: NULL where a report is.
        "bits": _array(_bit(answers[question]) for question in questions),
        "groupings": _array(str(grouping) for grouping in groupings),
        "options": _array(
            "NULL" if groups[grouping] is None else str(groups[grouping]) for grouping in groupings
        ),
        "fingerprint": clean.fingerprint,
        "shard": shard,
        "key": random_key(),
        "answer_keys": _array(str(random_key()) for _grouping in groupings),
        "tokened": token is not None,
        "order": _array(str(question) for question in clean.order),
        "digest": None if token is None else token.digest,
        "token_key": None if token is None else random_key(),
    }
    if typed:
        params["reports"] = _array(
            "NULL" if isinstance(answers[question], bool | str) else str(answers[question])
            for question in questions
        )
        params["texts"] = _array(_text(answers[question]) for question in questions)
        params["tally_keys"] = _array(
            "NULL" if isinstance(answers[question], bool | str) else str(random_key())
            for question in questions
        )
    statement = _STATEMENTS[typed, bool(groups), prepared.held, token is not None]
    # A held submission in autocommit: its transaction made explicit, so that one round trip
    # stores it, commits, and counts the survey's held submissions in a statement (its own
    # transaction) whose snapshot is taken after that commit: what batches.batch_settle counts
    # first, saving it a round trip.
    counting = prepared.held and not connection.in_atomic_block
    held = None
    with connection.cursor() as cursor:
        session = connection.connection
        if session not in statement.sessions:
            _prepare(cursor, statement)
            statement.sessions.add(session)
        try:
            with _statement_transaction():
                if counting:
                    cursor.execute(
                        f"BEGIN; {statement.execute_sql}; COMMIT; {HELD_COUNT_SQL}", params
                    )
                else:
                    cursor.execute(statement.execute_sql, params)
        except DatabaseError as exc:
            if counting:
                # The explicit transaction failed and is left aborted: end it, as the
                # implicit one of a single statement would have been.
                cursor.execute("ROLLBACK")
                counting = False
            if _sqlstate(exc) != _NO_SUCH_STATEMENT:
                raise
            # Prepare again next time; this time run the statement as it is.
            statement.sessions.discard(session)
            with _statement_transaction():
                cursor.execute(statement.plain_sql, params)
        if counting:
            row, (held,) = rows_of_each(cursor)
        else:
            row = cursor.fetchone()
    if row is None:
        return None
    survey_id, created = row
    return Stored(survey_id=survey_id, group_tallies_incomplete=created > 0, held=held)


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


def _constraint(exc):
    return getattr(getattr(exc.__cause__, "diag", None), "constraint_name", None)
