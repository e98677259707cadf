"""Bytes as the API and the browser spell them: base64url without padding (RFC 4648 §5)."""

import base64
import binascii
import re

from .errors import BlindSignatureError, ErrorCode

BASE64URL = re.compile(r"[A-Za-z0-9_-]*={0,2}")


def b64url_encode(data: bytes) -> str:
    """Base64url without padding (RFC 4648 §5), as the API and the browser spell bytes."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    """The bytes of a base64url text, with or without padding; anything else is MALFORMED
    (the standard library would skip foreign characters silently)."""
    if not isinstance(text, str) or not BASE64URL.fullmatch(text):
        raise BlindSignatureError("expected base64url text", code=ErrorCode.MALFORMED)
    stripped = text.rstrip("=")
    if len(stripped) % 4 == 1:
        raise BlindSignatureError("expected base64url text", code=ErrorCode.MALFORMED)
    try:
        return base64.urlsafe_b64decode(stripped + "=" * (-len(stripped) % 4))
    except (binascii.Error, ValueError) as error:
        raise BlindSignatureError("expected base64url text", code=ErrorCode.MALFORMED) from error
