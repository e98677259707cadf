"""config/postgresql/base.py: Django's PostgreSQL backend, its health check made without a round
trip for a connection in use, with one after a quiet spell or when the server has said
something, and a connection whose server session ended replaced without failing the request."""

import time

import psycopg
import pytest
from django.db import connection, connections

from config.postgresql import base
from tests.helpers import postgresql_outside_a_transaction

pytestmark = postgresql_outside_a_transaction("the project's PostgreSQL backend")


@pytest.fixture
def round_trip_checks(monkeypatch):
    """The connections Django's own check (``SELECT 1``) was run on, in order."""
    checked = []
    own_check = base.DatabaseWrapper.is_usable

    def counted(wrapper):
        checked.append(wrapper)
        return own_check(wrapper)

    monkeypatch.setattr(base.DatabaseWrapper, "is_usable", counted)
    return checked


def next_request():
    """What Django does to a kept connection between two requests (``close_old_connections``),
    then the next request's first query; the server process that answered it."""
    connection.close_if_unusable_or_obsolete()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


def test_the_project_runs_its_backend_with_health_checks():
    assert isinstance(connections["default"], base.DatabaseWrapper)
    assert connection.health_check_enabled


def test_a_connection_in_use_is_checked_without_a_round_trip(round_trip_checks):
    server = next_request()
    assert [next_request() for _ in range(3)] == [server] * 3
    assert round_trip_checks == []


def test_a_connection_quiet_for_longer_is_checked_with_a_round_trip(round_trip_checks):
    server = next_request()
    connection._alive_at = time.monotonic() - base.QUIET_SECONDS - 1
    assert next_request() == server
    assert round_trip_checks == [connection]
    assert next_request() == server  # found alive just now: no round trip
    assert round_trip_checks == [connection]


def test_a_connection_whose_server_session_ended_is_replaced_without_failing_the_request(
    round_trip_checks,
):
    server = next_request()
    with psycopg.connect(**connection.get_connection_params(), autocommit=True) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [server])
        deadline = time.monotonic() + 10
        while other.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE pid = %s", [server]
        ).fetchone()[0]:
            assert time.monotonic() < deadline, "the server process did not end"
            time.sleep(0.05)  # waiting for the server process to end, not timing a behaviour
    # Its last message on the socket sends the check to the round trip, which fails: a new
    # connection answers, with no error for the request.
    assert next_request() != server
    assert round_trip_checks == [connection]
