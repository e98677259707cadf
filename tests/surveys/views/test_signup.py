"""Sign-up: throttled per client, an optional email for password reset."""

import pytest
from django.contrib.auth import get_user_model

from surveys import rate_limits

pytestmark = pytest.mark.django_db

NOON = 1_800_000_000.0 - 1_800_000_000.0 % 86400 + 43200


def sign_up(client, username, **meta):
    password = "a-long-new-passphrase-31"
    return client.post(
        "/accounts/signup/",
        {"username": username, "password1": password, "password2": password},
        **meta,
    )


def test_sign_ups_beyond_the_rate_are_429_and_create_no_account(client, settings, monkeypatch):
    settings.SIGNUP_ENABLED = True
    settings.SIGNUP_RATE_LIMIT = "2/h"
    monkeypatch.setattr(rate_limits, "clock", lambda: NOON)
    statuses = []
    for i in range(3):
        client.cookies.clear()  # signed out again, as a script would be
        statuses.append(sign_up(client, f"new-{i}").status_code)
    assert statuses == [302, 302, 429]
    assert not get_user_model().objects.filter(username="new-2").exists()
    client.cookies.clear()
    assert sign_up(client, "new-3", REMOTE_ADDR="192.0.2.50").status_code == 302
    monkeypatch.setattr(rate_limits, "clock", lambda: NOON + 3600)
    client.cookies.clear()
    assert sign_up(client, "new-4").status_code == 302


def test_sign_up_keeps_an_optional_email_for_password_reset(client, settings):
    settings.SIGNUP_ENABLED = True
    password = "a-long-new-passphrase-31"
    client.post(
        "/accounts/signup/",
        {
            "username": "withmail",
            "email": "r@example.org",
            "password1": password,
            "password2": password,
        },
    )
    assert get_user_model().objects.get(username="withmail").email == "r@example.org"
