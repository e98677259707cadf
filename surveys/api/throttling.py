"""Per-client throttle for public submissions that never stores a client address.

The cache (shared by all workers: database or Redis) is keyed by an HMAC of the address and
the current window, so what sits in the cache cannot be turned back into an address, and
the key itself changes with each window; entries expire with the window.
"""

import hashlib
import hmac
import time

from django.conf import settings
from rest_framework.throttling import SimpleRateThrottle


class ResponseSubmissionThrottle(SimpleRateThrottle):
    scope = "responses"

    def get_rate(self):
        return settings.RESPONSE_RATE_LIMIT

    def allow_request(self, request, view):
        if self.rate is None:
            return True
        return super().allow_request(request, view)

    def get_cache_key(self, request, view):
        # get_ident honours REST_FRAMEWORK["NUM_PROXIES"] (TRUSTED_PROXIES): with 0 proxies it
        # ignores X-Forwarded-For entirely, so a client cannot spoof it to dodge the limit.
        ident = self.get_ident(request)
        window = int(time.time() // self.duration) if self.duration else 0
        digest = hmac.new(
            settings.SECRET_KEY.encode(), f"{window}:{ident}".encode(), hashlib.sha256
        ).hexdigest()[:32]
        return f"throttle_{self.scope}_{digest}"
