"""Account settings read from the environment: sign-up's default, email, token lifetime."""

import json

from tests.production.test_deploy_settings import PRODUCTION, run

# Reads the settings module alone (Django imports it on the first setting read): django.setup()
# would also import every app, about 1 s of CPU a run, and no setting read here depends on it.
SHOW = """
import json
from django.conf import settings
print(json.dumps({name: getattr(settings, name, None) for name in (
    "SIGNUP_ENABLED", "EMAIL_BACKEND", "EMAIL_HOST", "EMAIL_PORT", "EMAIL_HOST_USER",
    "EMAIL_HOST_PASSWORD", "EMAIL_USE_TLS", "EMAIL_USE_SSL", "PASSWORD_RESET_ENABLED",
    "API_TOKEN_TTL_DAYS", "LOGIN_FAILURE_LIMIT",
)}))
"""


def settings_with(**env):
    result = run(["-c", SHOW], **env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_sign_up_is_off_by_default_in_production_and_on_in_development():
    assert settings_with(**PRODUCTION)["SIGNUP_ENABLED"] is False
    assert settings_with(DEBUG="1")["SIGNUP_ENABLED"] is True
    assert settings_with(**PRODUCTION, SIGNUP_ENABLED="on")["SIGNUP_ENABLED"] is True


def test_without_email_url_mail_goes_to_the_console_and_reset_is_off_in_production():
    production = settings_with(**PRODUCTION)
    assert production["EMAIL_BACKEND"] == "django.core.mail.backends.console.EmailBackend"
    assert production["PASSWORD_RESET_ENABLED"] is False
    assert settings_with(DEBUG="1")["PASSWORD_RESET_ENABLED"] is True


def test_email_url_configures_smtp():
    got = settings_with(
        **PRODUCTION, EMAIL_URL="smtp+tls://mailer%40example.org:p%2Fss@smtp.example.org"
    )
    assert got["EMAIL_BACKEND"] == "django.core.mail.backends.smtp.EmailBackend"
    assert (got["EMAIL_HOST"], got["EMAIL_PORT"]) == ("smtp.example.org", 587)
    assert (got["EMAIL_HOST_USER"], got["EMAIL_HOST_PASSWORD"]) == ("mailer@example.org", "p/ss")
    assert (got["EMAIL_USE_TLS"], got["EMAIL_USE_SSL"]) == (True, False)
    assert got["PASSWORD_RESET_ENABLED"] is True
    implicit = settings_with(**PRODUCTION, EMAIL_URL="smtps://smtp.example.org:2465")
    assert (implicit["EMAIL_PORT"], implicit["EMAIL_USE_SSL"]) == (2465, True)


def test_a_bad_email_url_stops_start_up_naming_it():
    result = run(["-c", SHOW], **PRODUCTION, EMAIL_URL="http://smtp.example.org")
    assert result.returncode != 0
    assert "EMAIL_URL must look like" in result.stderr


def test_token_lifetime_and_login_limit_come_from_the_environment():
    got = settings_with(**PRODUCTION, API_TOKEN_TTL_DAYS="7", LOGIN_FAILURE_LIMIT="3/min")
    assert (got["API_TOKEN_TTL_DAYS"], got["LOGIN_FAILURE_LIMIT"]) == (7, "3/min")
    assert settings_with(**PRODUCTION)["API_TOKEN_TTL_DAYS"] == 30
