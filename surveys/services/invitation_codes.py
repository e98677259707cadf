"""Invitation codes (docs/invitations.md): made, typed, linked, sealed for storage and found
by a keyed digest, so a copy of the database alone holds no usable code."""

import base64
import hashlib
import hmac
import secrets

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings

from .. import limits

_CODE_DIGEST_INFO = b"rrsurvey invitation code digest v1"
_CODE_SEAL_INFO = b"rrsurvey invitation code seal v1"
_NONCE_LENGTH = 12


def new_code() -> str:
    """A fresh invitation code: 160 random bits as 32 lower-case base32 characters (letters
    and the digits 2-7: nothing to confuse when typed from a printed slip)."""
    raw = secrets.token_bytes(limits.INVITATION_CODE_BYTES)
    return base64.b32encode(raw).decode().lower()


def normalize_code(text) -> str | None:
    """A code as typed or linked (any case, spaces or dashes between groups), or None when it
    cannot be one."""
    if not isinstance(text, str):
        return None
    code = "".join(text.split()).replace("-", "").lower()
    alphabet = "abcdefghijklmnopqrstuvwxyz234567"
    if len(code) != limits.INVITATION_CODE_LENGTH or any(char not in alphabet for char in code):
        return None
    return code


def _derived(secret, info) -> bytes:
    secret_bytes = secret.encode() if isinstance(secret, str) else bytes(secret)
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=info).derive(secret_bytes)


def secrets_in_use():
    return (settings.SECRET_KEY, *getattr(settings, "SECRET_KEY_FALLBACKS", ()))


def code_digest(code, *, secret=None) -> str:
    """What a code is looked up by: HMAC-SHA256 under a key derived from ``SECRET_KEY``."""
    key = _derived(secret or settings.SECRET_KEY, _CODE_DIGEST_INFO)
    return hmac.new(key, code.encode(), hashlib.sha256).hexdigest()


def code_seal(code, *, survey_id) -> bytes:
    """The code encrypted for storage (AES-256-GCM, the survey's id authenticated with it)."""
    nonce = secrets.token_bytes(_NONCE_LENGTH)
    key = AESGCM(_derived(settings.SECRET_KEY, _CODE_SEAL_INFO))
    return nonce + key.encrypt(nonce, code.encode(), str(survey_id).encode())


def code_open(sealed, *, survey_id) -> str | None:
    """The code ``code_seal`` sealed, or None when no secret opens it (a rotated
    ``SECRET_KEY`` without its old value among ``SECRET_KEY_FALLBACKS``)."""
    sealed = bytes(sealed)
    for secret in secrets_in_use():
        key = AESGCM(_derived(secret, _CODE_SEAL_INFO))
        try:
            plain = key.decrypt(
                sealed[:_NONCE_LENGTH], sealed[_NONCE_LENGTH:], str(survey_id).encode()
            )
        except InvalidTag:
            continue
        return plain.decode()
    return None


INVITATION_FRAGMENT = "invitation"


def invitation_link(*, slug, code, base_url) -> str:
    """The personal link: the survey's page with the code in the fragment (``#invitation=``).
    A fragment never leaves the browser: no request line, server or proxy log, or Referer
    holds it; the page reads it and removes it from the address bar."""
    return f"{base_url.rstrip('/')}/s/{slug}/#{INVITATION_FRAGMENT}={code}"
