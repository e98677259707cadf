"""A statement prepared once per database session (surveys/services/session_statements.py):
run by name once prepared, and still run, the caller's transaction going on, when the session
lost it or had it already."""

import contextlib

import pytest
from django.db import DatabaseError, connection, transaction
from psycopg import sql

from surveys.services.session_statements import SessionStatement
from tests.helpers import postgresql_outside_a_transaction

pytestmark = postgresql_outside_a_transaction("PREPARE and EXECUTE are PostgreSQL's")


def _statement():
    return SessionStatement(
        purpose="test_next",
        parameters=(("n", "bigint"),),
        compose=lambda p: sql.SQL("SELECT {n} + 1, pg_typeof({n})::text").format(**p),
    )


def _prepared_here(statement):
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_prepared_statements WHERE name = %s", [statement.name]
        )
        return cursor.fetchone()[0] == 1


@contextlib.contextmanager
def _inside(kind):
    """None: autocommit; "django": ``transaction.atomic``; "by hand": BEGIN and COMMIT sent
    in autocommit, as ``batches.batch_settle`` does."""
    if kind == "django":
        with transaction.atomic():
            yield
    elif kind == "by hand":
        with connection.cursor() as cursor:
            cursor.execute("BEGIN")
            yield
            cursor.execute("COMMIT")
    else:
        yield


TRANSACTIONS = [None, "django", "by hand"]


def _transaction_usable():
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        return cursor.fetchone() == (1,)


@pytest.mark.parametrize("in_transaction", TRANSACTIONS)
def test_prepared_once_then_run_by_name(in_transaction):
    statement = _statement()
    with _inside(in_transaction):
        assert statement.rows({"n": 41}) == [(42, "bigint")]
        assert _prepared_here(statement)
        assert connection.connection in statement.sessions
        assert statement.rows({"n": 1}) == [(2, "bigint")]
        assert _transaction_usable()


@pytest.mark.parametrize("in_transaction", TRANSACTIONS)
def test_a_session_that_lost_it_runs_it_unprepared_and_prepares_it_next_time(in_transaction):
    statement = _statement()
    statement.rows({"n": 0})
    with connection.cursor() as cursor:
        cursor.execute("DEALLOCATE ALL")  # as a pooler's reset does
    with _inside(in_transaction):
        assert statement.rows({"n": 6}) == [(7, "bigint")]
        assert _transaction_usable()  # the failed EXECUTE left the caller's transaction usable
    assert connection.connection not in statement.sessions
    assert statement.rows({"n": 9}) == [(10, "bigint")]
    assert _prepared_here(statement)


@pytest.mark.parametrize("in_transaction", TRANSACTIONS)
def test_a_session_that_has_it_already_runs_it(in_transaction):
    statement = _statement()
    statement.rows({"n": 0})
    statement.sessions.clear()  # as when a pooler hands over a session another client prepared
    with _inside(in_transaction):
        assert statement.rows({"n": 2}) == [(3, "bigint")]
        assert _transaction_usable()
    assert connection.connection in statement.sessions


def test_an_error_of_the_statement_itself_is_raised():
    statement = SessionStatement(
        purpose="test_divide",
        parameters=(("n", "bigint"),),
        compose=lambda p: sql.SQL("SELECT 1 / {n}").format(**p),
    )
    with pytest.raises(DatabaseError), transaction.atomic():
        statement.rows({"n": 0})
