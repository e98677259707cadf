"""Django's PostgreSQL backend, its health check made without a round trip for a connection in
use.

With ``CONN_HEALTH_CHECKS`` Django sends ``SELECT 1`` before the first query of every request
that reuses a connection: a round trip of its own, about a tenth of a submission's worker CPU
(docs/benchmarks.md, "Where the worker's CPU goes"), and work for the server as well. What the
check is for is a connection that died while it sat idle (a server restarted or a backend
terminated, an idle timeout somewhere between). Here a connection that was last found alive
less than ``QUIET_SECONDS`` ago is checked where it stands instead: the client's state of it
(open, no transaction left behind) and its socket, on which the server sends nothing to an
idle connection unless it is ending it (a terminated or restarting server's last message and
its close make the socket readable). Anything read there, or a connection quiet for longer,
gets Django's ``SELECT 1``. A request that then fails on the connection is handled as before:
Django's own check after an error (``is_usable``, unchanged) closes a dead connection at the
request's end.
"""

import select
import time

from django.db.backends.postgresql import base
from psycopg import pq

# A connection found alive within this many seconds is checked without a round trip; after
# a quieter spell (where a connection silently dropped on the way would be), with one.
QUIET_SECONDS = 5.0


class DatabaseWrapper(base.DatabaseWrapper):
    _alive_at = None

    def connect(self):
        super().connect()
        self._alive_at = time.monotonic()

    def close_if_health_check_failed(self):
        if self.connection is None or not self.health_check_enabled or self.health_check_done:
            return
        if self._alive_where_it_stands():
            self.health_check_done = True
        else:
            super().close_if_health_check_failed()  # SELECT 1; closed if that fails
        if self.connection is not None:
            self._alive_at = time.monotonic()

    def _alive_where_it_stands(self):
        """Whether the connection, found alive less than ``QUIET_SECONDS`` ago, is open and
        idle in the client's view and nothing has arrived on its socket since."""
        if self._alive_at is None or time.monotonic() - self._alive_at >= QUIET_SECONDS:
            return False
        if getattr(self, "pool", None):
            return False  # the pool checks its own connections (Django skips the check too)
        pgconn = self.connection.pgconn
        if (
            pgconn.status != pq.ConnStatus.OK
            or pgconn.transaction_status != pq.TransactionStatus.IDLE
        ):
            return False
        try:
            readable, _w, _x = select.select([pgconn.socket], [], [], 0)
        except (OSError, ValueError, base.Database.Error):
            return False
        return not readable
