"""Production settings from the environment: Django's deployment check, and what it implies."""

import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# What a deployment behind one TLS-terminating proxy sets (docs/deploying.md, "Deploying rrsurvey").
PRODUCTION = {
    "SECRET_KEY": secrets.token_urlsafe(50),
    "ALLOWED_HOSTS": "survey.example.org",
    "TRUSTED_PROXIES": "1",
}
# Settings the test suite's own environment may carry (the browser tests relax async safety).
_SUITE_ONLY = (
    "DEBUG",
    "SECRET_KEY",
    "ALLOWED_HOSTS",
    "TRUSTED_PROXIES",
    "SECURE_SSL_REDIRECT",
    "DJANGO_ALLOW_ASYNC_UNSAFE",
)

# Reads the settings module alone (Django imports it on the first setting read): django.setup()
# would also import every app, about 1 s of CPU a run, and no setting read here depends on it.
SHOW_SETTINGS = """
import json
from django.conf import settings
print(json.dumps({name: getattr(settings, name, None) for name in (
    "DEBUG", "SECURE_SSL_REDIRECT", "SECURE_HSTS_SECONDS", "SECURE_HSTS_INCLUDE_SUBDOMAINS",
    "SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE", "SECURE_PROXY_SSL_HEADER",
    "SECURE_REFERRER_POLICY", "SECURE_CROSS_ORIGIN_OPENER_POLICY", "SECURE_CONTENT_TYPE_NOSNIFF",
    "X_FRAME_OPTIONS", "SESSION_COOKIE_HTTPONLY",
)} | {"staticfiles": settings.STORAGES["staticfiles"]["BACKEND"]}))
"""


def run(args, **env):
    base = {k: v for k, v in os.environ.items() if k not in _SUITE_ONLY}
    base["DJANGO_SETTINGS_MODULE"] = "config.settings"
    return subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env=base | {k: v for k, v in env.items() if v is not None},
        capture_output=True,
        text=True,
        timeout=120,
    )


def deploy_check(**env):
    return run(["manage.py", "check", "--deploy", "--fail-level", "WARNING"], **env)


def production_settings(**env):
    result = run(["-c", SHOW_SETTINGS], **env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.slow  # a fresh interpreter loads every app for the check: ~1.7 s
def test_deploy_check_passes_with_production_environment():
    result = deploy_check(**PRODUCTION)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


@pytest.mark.slow
def test_deploy_check_fails_when_https_is_switched_off():
    result = deploy_check(**(PRODUCTION | {"SECURE_SSL_REDIRECT": "off"}))
    assert result.returncode != 0
    assert "security.W008" in result.stderr  # SECURE_SSL_REDIRECT


@pytest.mark.slow  # as above
def test_deploy_check_fails_with_a_short_secret_key():
    result = deploy_check(**(PRODUCTION | {"SECRET_KEY": "short"}))
    assert result.returncode != 0
    assert "security.W009" in result.stderr


def test_missing_secret_key_stops_start_up_with_a_clear_message():
    result = deploy_check(**(PRODUCTION | {"SECRET_KEY": None}))
    assert result.returncode != 0
    assert "SECRET_KEY must be set when DEBUG is off" in result.stderr


def test_production_settings_are_https_only_with_hashed_compressed_static_files():
    settings = production_settings(**PRODUCTION)
    assert settings["DEBUG"] is False
    assert settings["SECURE_SSL_REDIRECT"] is True
    assert settings["SECURE_HSTS_SECONDS"] >= 31536000
    assert settings["SECURE_HSTS_INCLUDE_SUBDOMAINS"] is True
    assert settings["SESSION_COOKIE_SECURE"] is True
    assert settings["CSRF_COOKIE_SECURE"] is True
    assert settings["SESSION_COOKIE_HTTPONLY"] is True
    assert settings["SECURE_CONTENT_TYPE_NOSNIFF"] is True
    assert settings["SECURE_REFERRER_POLICY"] == "same-origin"
    assert settings["SECURE_CROSS_ORIGIN_OPENER_POLICY"] == "same-origin"
    assert settings["X_FRAME_OPTIONS"] == "DENY"
    assert settings["staticfiles"] == "whitenoise.storage.CompressedManifestStaticFilesStorage"


def test_proxy_ssl_header_is_trusted_only_behind_declared_proxies():
    behind_proxy = production_settings(**PRODUCTION)
    assert behind_proxy["SECURE_PROXY_SSL_HEADER"] == ["HTTP_X_FORWARDED_PROTO", "https"]
    direct = production_settings(**(PRODUCTION | {"TRUSTED_PROXIES": "0"}))
    # Without a proxy in front, a client could claim HTTPS by sending the header itself.
    assert direct["SECURE_PROXY_SSL_HEADER"] is None
