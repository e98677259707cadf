"""Reads of API tokens: the token a key names, and a user's unexpired tokens.

A researcher may hold several (one per script or machine). The key is ``rrs_`` and 43
URL-safe characters (256 random bits) and is shown only when issued; the database keeps its
SHA-256 digest and its first characters for lists. Tokens end at ``expires_at``
(``API_TOKEN_TTL_DAYS`` after issue), when revoked, and all at once when the password changes
(the writes: ``surveys/services/tokens.py``). Signing out of the site leaves them alone: a
script's access is not a browser's session.
"""

import hashlib

from django.utils import timezone

from .. import limits
from ..models import ApiToken

KEY_PREFIX = "rrs_"
clock = timezone.now  # replaced by tests that need to stand at a given moment (writes read it too)


def key_digest(key) -> str:
    """What the database keeps of a key: its SHA-256, in hex."""
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def token_for_key(key) -> ApiToken | None:
    """The unexpired token with this key (and its user), or None."""
    if (
        not isinstance(key, str)
        or not key.startswith(KEY_PREFIX)
        or len(key) > limits.API_TOKEN_KEY_MAX_LENGTH
    ):
        return None
    return (
        ApiToken.objects.select_related("user")
        .filter(digest=key_digest(key), expires_at__gt=clock())
        .first()
    )


def tokens_of(*, user):
    """The user's unexpired tokens, newest first."""
    return list(ApiToken.objects.filter(user=user, expires_at__gt=clock()))
