"""Per-client throttles that never store a client address.

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
from rest_framework.throttling import BaseThrottle

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


class ClientRateThrottle(BaseThrottle):
    """Fixed-window count per client; ``rate_setting`` names a setting like ``"120/min"``."""

    scope = ""
    rate_setting = ""

    def allow_request(self, request, view):
        rate = getattr(settings, self.rate_setting)
        if rate is None:
            return True
        window = window_for(scope=self.scope, ident=client_ident(request), rate=rate)
        self.retry_after = window.retry_after
        return window.hit() <= window.limit

    def wait(self):
        return math.ceil(self.retry_after)


class ResponseSubmissionThrottle(ClientRateThrottle):
    scope = "responses"
    rate_setting = "RESPONSE_RATE_LIMIT"


class TokenRequestThrottle(ClientRateThrottle):
    """Slows password guessing through the token endpoint."""

    scope = "token"
    rate_setting = "TOKEN_RATE_LIMIT"


def member_invite_window(*, user):
    """The counter of co-researcher invitations ``user`` sends (page and API share it); None
    when the limit is off. Per account: an inviter is always signed in."""
    rate = settings.MEMBER_INVITE_RATE_LIMIT
    if rate is None:
        return None
    return window_for(scope="member-invite", ident=f"user:{user.pk}", rate=rate)


class MemberInviteThrottle(BaseThrottle):
    """Limits POSTs (invitations), so adding by email cannot test addresses in bulk."""

    retry_after = None

    def allow_request(self, request, view):
        if request.method != "POST":
            return True
        window = member_invite_window(user=request.user)
        if window is None:
            return True
        self.retry_after = window.retry_after
        return window.hit() <= window.limit

    def wait(self):
        return math.ceil(self.retry_after) if self.retry_after is not None else None
