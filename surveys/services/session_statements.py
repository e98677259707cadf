"""A PostgreSQL statement prepared once per database session, then run by name: for statements
a process runs often whose planning costs about as much as their work (a batch's release,
services/batch_rows.py). The submission statement has its own (``submissions/postgres.py``).

Each run is one round trip. The first in a session prepares the statement in it; should the
server not have it after all (a pooler handed the connection another server session, or reset
it), or have it already (a pooler's session that another client prepared it in, same text,
same name), the statement is run unprepared that time, inside a savepoint when the caller is in
a transaction (Django's, or one begun by hand), so that the caller's transaction goes on.
"""

import hashlib
import weakref

from django.db import DatabaseError, connection
from psycopg import pq, sql

# SQLSTATEs: EXECUTE of a statement the server does not have; PREPARE of one it has.
_NO_SUCH_STATEMENT = "26000"
_ALREADY_PREPARED = "42P05"
_SAVEPOINT = "rrsurvey_session_statement"


class SessionStatement:
    """``compose(p)`` (a ``psycopg.sql`` composable, ``p`` mapping each parameter's name to its
    placeholder) prepared under a name drawn from its text, its parameters ``(name, type)``
    typed as declared in both forms."""

    def __init__(self, *, purpose, parameters, compose):
        self.parameters = tuple(parameters)
        positional = {
            name: sql.SQL(f"${place}::{kind}")
            for place, (name, kind) in enumerate(self.parameters, 1)
        }
        text = compose(positional).as_string()
        self.plain_sql = compose(
            {
                name: sql.SQL("{}::{}").format(sql.Placeholder(name), sql.SQL(kind))
                for name, kind in self.parameters
            }
        ).as_string()
        # Named after its text: a server session that a pooler shares between app versions
        # during a deploy never runs another version's statement under this version's name.
        self.name = f"rrsurvey_{purpose}_{hashlib.sha256(text.encode()).hexdigest()[:12]}"
        kinds = ", ".join(kind for _name, kind in self.parameters)
        self.prepare_sql = f"PREPARE {self.name} ({kinds}) AS {text}"
        names = ", ".join(f"%({name})s" for name, _kind in self.parameters)
        self.execute_sql = f"EXECUTE {self.name} ({names})"
        # The database connections (psycopg's: Django replaces it when it reconnects) whose
        # session holds it.
        self.sessions = weakref.WeakSet()

    def rows(self, params) -> list[tuple]:
        """Run it with ``params`` (``{name: value}``); every row it returns."""
        with connection.cursor() as cursor:
            session = connection.connection  # connected by the cursor
            prepared = session in self.sessions
            run = self.execute_sql if prepared else f"{self.prepare_sql}; {self.execute_sql}"
            # In a transaction, Django's or one begun by hand (services/batches.py): a failed
            # EXECUTE would leave it aborted.
            guarded = (
                connection.in_atomic_block
                or session.info.transaction_status != pq.TransactionStatus.IDLE
            )
            if guarded:
                run = f"SAVEPOINT {_SAVEPOINT}; {run}; RELEASE SAVEPOINT {_SAVEPOINT}"
            try:
                cursor.execute(run, params)
            except DatabaseError as exc:
                state = getattr(exc.__cause__, "sqlstate", None)
                if state not in (_NO_SUCH_STATEMENT, _ALREADY_PREPARED):
                    raise
                if guarded:
                    cursor.execute(
                        f"ROLLBACK TO SAVEPOINT {_SAVEPOINT}; RELEASE SAVEPOINT {_SAVEPOINT}"
                    )
                if state == _NO_SUCH_STATEMENT:
                    self.sessions.discard(session)
                else:
                    self.sessions.add(session)  # this session has it: EXECUTE it next time
                cursor.execute(self.plain_sql, params)
                return cursor.fetchall()
            self.sessions.add(session)
            return _rows_returned(cursor)


def _rows_returned(cursor):
    """The rows of the one statement of several sent at once that returns rows (EXECUTE's, not
    SAVEPOINT's or PREPARE's)."""
    # The driver's own cursor: every result has arrived, nothing here talks to the server.
    results = getattr(cursor, "cursor", cursor)
    while results.description is None:
        if not results.nextset():
            return []
    return results.fetchall()
