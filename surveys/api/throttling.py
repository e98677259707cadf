"""The API's throttles (Django REST framework's ``BaseThrottle``), on the counters of
surveys/rate_limits.py: per client for submissions and token requests, per account for
co-researcher invitations."""

import math

from django.conf import settings
from rest_framework.throttling import BaseThrottle

from ..rate_limits import client_ident, member_invite_window, window_for


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
