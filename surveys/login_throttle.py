"""Brute-force limits on signing in: failed attempts counted per username and per client.

Every way in (the sign-in page, the admin's sign-in and ``POST /api/v1/auth/token/``) goes
through ``django.contrib.auth.authenticate``, so the backend below is where the limit holds:
once a username, or a client address, has used up its failures for the current window, no
password is even checked for it until the window ends, the right one included.

The counters are the submission throttle's (``surveys/rate_limits.py``): keyed hashes in the
shared cache that expire with their window, so neither an address nor a username is stored.
Only failures count, so a researcher who signs in correctly is never slowed down by their own
sessions; a shared office address gets a larger budget than one username.
"""

import math
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.core.exceptions import PermissionDenied
from django.utils.translation import ngettext

from .rate_limits import client_ident, window_for


@dataclass(frozen=True)
class LoginBlock:
    """Why sign-in is refused right now: the seconds until the blocking window ends."""

    retry_after: int

    def message(self):
        minutes = max(1, math.ceil(self.retry_after / 60))
        return ngettext(
            "Too many failed sign-in attempts for this account or from this network. "
            "Try again in %(minutes)d minute.",
            "Too many failed sign-in attempts for this account or from this network. "
            "Try again in %(minutes)d minutes.",
            minutes,
        ) % {"minutes": minutes}


class LoginThrottled(PermissionDenied):
    """Raised by the backend; ``authenticate`` then stops and returns None."""


def _windows(*, request, username):
    windows = []
    if settings.LOGIN_FAILURE_LIMIT and isinstance(username, str) and username.strip():
        windows.append(
            window_for(
                scope="login-user",
                ident=username.strip().casefold()[:150],
                rate=settings.LOGIN_FAILURE_LIMIT,
            )
        )
    if settings.LOGIN_CLIENT_FAILURE_LIMIT and request is not None:
        windows.append(
            window_for(
                scope="login-client",
                ident=client_ident(request),
                rate=settings.LOGIN_CLIENT_FAILURE_LIMIT,
            )
        )
    return windows


def login_block(*, request, username) -> LoginBlock | None:
    """A ``LoginBlock`` when ``username`` or the client has no failed attempts left, else None."""
    spent = [
        window
        for window in _windows(request=request, username=username)
        if window.count() >= window.limit
    ]
    if not spent:
        return None
    return LoginBlock(retry_after=max(window.ttl for window in spent))


def login_failure_record(*, request, username) -> None:
    for window in _windows(request=request, username=username):
        window.hit()


class ThrottledModelBackend(ModelBackend):
    """Django's username/password backend behind the failure limits above."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if username is None:
            username = kwargs.get(get_user_model().USERNAME_FIELD)
        if username is None or password is None:
            return None
        if login_block(request=request, username=username) is not None:
            raise LoginThrottled
        user = super().authenticate(request, username=username, password=password, **kwargs)
        if user is None:
            login_failure_record(request=request, username=username)
        return user
