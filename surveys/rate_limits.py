"""Rate limits that never store a client address or a username: fixed-window counters in the
shared cache, read by the API's throttles (surveys/api/throttling.py), the sign-in limits
(surveys/login_throttle.py) and the pages that limit sign-ups and invitations.

Each client gets a counter per fixed window in the shared cache (database or Redis, so every
worker process counts against the same number). The counter's key is an HMAC of the window
and the client, keyed with SECRET_KEY: what sits in the cache cannot be turned back into an
address, the key changes with every window, and the entry expires when its window ends.

The client is REMOTE_ADDR, or with ``TRUSTED_PROXIES = n`` the address the n-th proxy from
the right saw in X-Forwarded-For; a client cannot spoof more entries than that. IPv6
clients are counted per /64, the block one subscriber usually controls.
"""

import hashlib
import hmac
import ipaddress
import math
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache

_PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
clock = time.time  # replaced by tests that need to stand at a given moment


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


def count_hit(key, *, ttl):
    """Add one to the counter at ``key`` (created with ``ttl`` seconds to live); return it."""
    for _attempt in range(3):
        if cache.add(key, 1, timeout=ttl):
            return 1
        try:
            return cache.incr(key)
        except ValueError:
            continue  # expired between add and incr: start the new window's counter
    return 1


@dataclass(frozen=True)
class Window:
    """One fixed-window counter: its cache key, the limit and the seconds left in the window."""

    key: str
    limit: int
    retry_after: float

    @property
    def ttl(self):
        return math.ceil(self.retry_after)

    def hit(self):
        """Count one event; the count including it."""
        return count_hit(self.key, ttl=self.ttl)

    def count(self):
        """Events counted so far in this window, without counting one."""
        return cache.get(self.key, 0)


def window_for(*, scope, ident, rate):
    """The current window's counter for ``ident`` (an address, a username...) under ``scope``.

    The key is an HMAC of scope, window and ident keyed with SECRET_KEY: the cache never holds
    the ident itself.
    """
    limit, duration = parse_rate(rate)
    now = clock()
    window = int(now // duration)
    digest = hmac.new(
        settings.SECRET_KEY.encode(), f"{scope}:{window}:{ident}".encode(), hashlib.sha256
    ).hexdigest()[:32]
    return Window(
        key=f"throttle:{scope}:{digest}", limit=limit, retry_after=(window + 1) * duration - now
    )


def member_invite_window(*, user):
    """The counter of co-researcher invitations ``user`` sends (page and API share it); None
    when the limit is off. Per account: an inviter is always signed in."""
    rate = settings.MEMBER_INVITE_RATE_LIMIT
    if rate is None:
        return None
    return window_for(scope="member-invite", ident=f"user:{user.pk}", rate=rate)
