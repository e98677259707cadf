"""Rate limits that never store a client address or a username: fixed-window counters shared
by every worker (a database table, or Redis), read by the API's throttles
(surveys/api/throttling.py), the sign-in limits (surveys/login_throttle.py) and the pages that
limit sign-ups and invitations.

Each client gets a counter per fixed window, shared by every worker process of every server:
in Redis when the cache is Redis (``REDIS_URL``), else in a table of the database
(``models.RateCounter``). The counter's key is an HMAC of the window and the client, keyed
with SECRET_KEY: what is stored cannot be turned back into an address, the key changes with
every window, and the entry expires when its window ends. A hit is one round trip either
way, exact across workers: one ``INSERT ... ON CONFLICT ... RETURNING`` in the database, one
MULTI/EXEC of ``SET NX EX`` and ``INCR`` in Redis.

The client is REMOTE_ADDR, or with ``TRUSTED_PROXIES = n`` the address the n-th proxy from
the right saw in X-Forwarded-For; a client cannot spoof more entries than that. IPv6
clients are counted per /64, the block one subscriber usually controls.
"""

import hashlib
import hmac
import ipaddress
import math
import random
import time
from dataclasses import dataclass
from datetime import UTC, datetime

from django.conf import settings
from django.core.cache import cache
from django.db import connections, router

from .models import RateCounter

_PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
clock = time.time  # replaced by tests that need to stand at a given moment
# One new counter in SWEEP_EVERY (drawn at random) deletes the expired ones from the table:
# the table holds the live windows' counters and about as many expired ones, whatever the
# traffic, for one DELETE per SWEEP_EVERY new counters (none for hits on a counter that
# already exists, as every hit from one address but the window's first).
SWEEP_EVERY = 50


def client_ident(request):
    """The address the throttle counts, honouring only ``settings.TRUSTED_PROXIES`` proxies."""
    remote = request.META.get("REMOTE_ADDR", "")
    proxies = settings.TRUSTED_PROXIES
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
    if proxies and forwarded:
        hops = [hop.strip() for hop in forwarded.split(",") if hop.strip()]
        if hops:
            remote = hops[-min(proxies, len(hops))]
    try:
        address = ipaddress.ip_address(remote)
    except ValueError:
        return remote[:64]
    if address.version == 6:
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


def parse_rate(rate):
    """``"120/min"`` -> ``(120, 60)``; the settings module has already checked the format."""
    number, period = rate.split("/")
    return int(number), _PERIODS[period.strip()[0]]


def _counts_in_redis():
    return settings.CACHES["default"]["BACKEND"].startswith("django_redis.")


def _moment(seconds):
    return datetime.fromtimestamp(seconds, tz=UTC)


def _count_in_redis(key, *, ttl):
    """SET NX EX then INCR in one MULTI/EXEC: the counter is created with its expiry and
    counted in one round trip, and never exists without an expiry (INCR alone would create
    one that never expires when the key lapsed just before it)."""
    from django_redis import get_redis_connection

    stored = cache.make_key(key)  # cache.get reads the same key (Window.count)
    pipeline = get_redis_connection("default").pipeline(transaction=True)
    pipeline.set(stored, 0, ex=max(ttl, 1), nx=True)
    pipeline.incr(stored)
    _created, hits = pipeline.execute()
    return hits


def _count_in_database(key, *, expires, now):
    """One statement: create the window's counter at 1, or add 1 to it (from 1 again if it
    has expired), and return the count. Concurrent hits on one key wait for each other's row
    lock (PostgreSQL) or the write lock (SQLite), so each gets its own count."""
    connection = connections[router.db_for_write(RateCounter)]
    quote = connection.ops.quote_name
    table = quote(RateCounter._meta.db_table)
    key_column, hits, ends = quote("key"), quote("hits"), quote("expires")
    live = f"{table}.{ends} > %s"
    adapt = connection.ops.adapt_datetimefield_value
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} ({key_column}, {hits}, {ends}) VALUES (%s, 1, %s) "
            f"ON CONFLICT ({key_column}) DO UPDATE SET "
            f"{hits} = CASE WHEN {live} THEN {table}.{hits} + 1 ELSE 1 END, "
            f"{ends} = CASE WHEN {live} THEN {table}.{ends} ELSE excluded.{ends} END "
            f"RETURNING {hits}",
            [key, adapt(expires), adapt(now), adapt(now)],
        )
        (count,) = cursor.fetchone()
    if count == 1 and random.random() * SWEEP_EVERY < 1:
        _sweep_expired(now)
    return count


def _sweep_expired(now):
    RateCounter.objects.filter(expires__lte=now).delete()


def count_hit(key, *, ends_at):
    """Add one to the counter at ``key``, which expires at ``ends_at`` (seconds since the
    epoch, on ``clock``); return the count including this hit."""
    now = clock()
    if _counts_in_redis():
        return _count_in_redis(key, ttl=math.ceil(ends_at - now))
    return _count_in_database(key, expires=_moment(ends_at), now=_moment(now))


def counted(key):
    """Hits counted so far at ``key`` in its window, without counting one."""
    if _counts_in_redis():
        return cache.get(key, 0)
    live = RateCounter.objects.filter(key=key, expires__gt=_moment(clock()))
    return live.values_list("hits", flat=True).first() or 0


@dataclass(frozen=True)
class Window:
    """One fixed-window counter: its key, the limit, the seconds left in the window and the
    moment it ends (seconds since the epoch)."""

    key: str
    limit: int
    retry_after: float
    ends_at: float

    @property
    def ttl(self):
        return math.ceil(self.retry_after)

    def hit(self):
        """Count one event; the count including it."""
        return count_hit(self.key, ends_at=self.ends_at)

    def count(self):
        """Events counted so far in this window, without counting one."""
        return counted(self.key)


def window_for(*, scope, ident, rate):
    """The current window's counter for ``ident`` (an address, a username...) under ``scope``.

    The key is an HMAC of scope, window and ident keyed with SECRET_KEY: the counter's store
    never holds the ident itself.
    """
    limit, duration = parse_rate(rate)
    now = clock()
    window = int(now // duration)
    digest = hmac.new(
        settings.SECRET_KEY.encode(), f"{scope}:{window}:{ident}".encode(), hashlib.sha256
    ).hexdigest()[:32]
    ends_at = (window + 1) * duration
    return Window(
        key=f"throttle:{scope}:{digest}", limit=limit, retry_after=ends_at - now, ends_at=ends_at
    )


def member_invite_window(*, user):
    """The counter of co-researcher invitations ``user`` sends (page and API share it); None
    when the limit is off. Per account: an inviter is always signed in."""
    rate = settings.MEMBER_INVITE_RATE_LIMIT
    if rate is None:
        return None
    return window_for(scope="member-invite", ident=f"user:{user.pk}", rate=rate)
