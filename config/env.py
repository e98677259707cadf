"""Reading settings from the environment (config/settings.py uses these).

Every helper fails loudly on a value it cannot read, so a typo in a deployment's
environment stops start-up instead of silently falling back to a default.
"""

import math
import os
import re
from urllib.parse import unquote, urlsplit

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_bool(name, default):
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be one of on/off/true/false/1/0, got {raw!r}")


def env_int(name, default, *, minimum=0):
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer, got {raw!r}") from None
    if value < minimum:
        raise ImproperlyConfigured(f"{name} must be >= {minimum}, got {value}")
    return value


def env_list(name, default):
    raw = os.environ.get(name)
    if raw is None:
        return list(default)
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_rate(name, default):
    """A DRF throttle rate such as ``120/min``; ``off`` disables (returns None)."""
    raw = os.environ.get(name, default).strip().lower()
    if raw in {"off", "none", "0"}:
        return None
    if not re.fullmatch(r"[1-9][0-9]*/(s|sec|second|m|min|minute|h|hour|d|day)", raw):
        raise ImproperlyConfigured(f"{name} must look like '120/min' or be 'off', got {raw!r}")
    return raw


def env_epsilon(name, default):
    """A privacy loss: a positive number (``2.2``) or a natural log (``ln 9``, ``ln(9)``)."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    text = raw.strip().lower().replace(" ", "")
    log_of = re.fullmatch(r"ln\(?([0-9.]+)\)?", text)
    try:
        value = math.log(float(log_of.group(1))) if log_of else float(text)
    except (ValueError, OverflowError):
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise ImproperlyConfigured(
            f"{name} must be a positive number or 'ln X' with X > 1, got {raw!r}"
        )
    return value


_EMAIL_SCHEMES = {
    "smtp": (25, False, False),
    "smtp+tls": (587, True, False),
    "smtps": (465, False, True),
}


def env_email_url(name):
    """``smtp://user:pass@host:port`` (``smtp+tls://`` STARTTLS, ``smtps://`` TLS) -> settings."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return None
    parts = urlsplit(raw)
    if parts.scheme not in _EMAIL_SCHEMES or not parts.hostname:
        raise ImproperlyConfigured(
            f"{name} must look like smtp+tls://user:password@host:587 "
            f"(schemes: {', '.join(sorted(_EMAIL_SCHEMES))}), got scheme {parts.scheme!r}"
        )
    default_port, use_tls, use_ssl = _EMAIL_SCHEMES[parts.scheme]
    try:
        port = parts.port or default_port
    except ValueError:
        raise ImproperlyConfigured(f"{name} has a port that is not a number") from None
    return {
        "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "EMAIL_HOST": parts.hostname,
        "EMAIL_PORT": port,
        "EMAIL_HOST_USER": unquote(parts.username or ""),
        "EMAIL_HOST_PASSWORD": unquote(parts.password or ""),
        "EMAIL_USE_TLS": use_tls,
        "EMAIL_USE_SSL": use_ssl,
    }
