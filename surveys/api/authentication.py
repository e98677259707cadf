"""``Authorization: Token <key>`` against the hashed, expiring API tokens.

The key is looked up by surveys/selectors/tokens.py.
"""

from django.utils.translation import gettext as _
from rest_framework.authentication import TokenAuthentication
from rest_framework.exceptions import AuthenticationFailed

from ..selectors import tokens


class ApiTokenAuthentication(TokenAuthentication):
    """DRF's header parsing (and its messages); the look-up is by digest and unexpired only.

    An unknown, revoked and expired key get the same answer, so a caller learns nothing about
    keys that are not theirs.
    """

    keyword = "Token"

    def authenticate_credentials(self, key):
        token = tokens.token_for_key(key)
        if token is None:
            raise AuthenticationFailed(_("Invalid token."))
        if not token.user.is_active:
            raise AuthenticationFailed(_("User inactive or deleted."))
        return token.user, token
