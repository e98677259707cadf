"""Brute force: failed sign-ins are limited per username and per client, on every way in."""

import pytest
from django.contrib.auth import SESSION_KEY
from django.db import connection
from rest_framework.test import APIClient

from surveys import rate_limits
from tests.helpers import PASSWORD

pytestmark = pytest.mark.django_db

NOON = 1_800_000_000.0 - 1_800_000_000.0 % 86400 + 43200  # 12:00:00 UTC on some day
LOGIN_URL = "/accounts/login/"
ADMIN_LOGIN_URL = "/admin/login/"
TOKEN_URL = "/api/v1/auth/token/"


@pytest.fixture
def limits(settings, monkeypatch):
    """Five failures per username, twenty per client, per hour; the clock stands at noon."""
    settings.LOGIN_FAILURE_LIMIT = "5/h"
    settings.LOGIN_CLIENT_FAILURE_LIMIT = "20/h"
    monkeypatch.setattr(rate_limits, "clock", lambda: NOON)
    return 5


def page_login(client, password, *, username="owner", **meta):
    return client.post(LOGIN_URL, {"username": username, "password": password}, **meta)


def signed_in(client):
    return SESSION_KEY in client.session


def test_wrong_passwords_then_the_right_one_is_refused_until_the_window_passes(
    client, owner, limits, monkeypatch
):
    statuses = [page_login(client, f"guess-{i}").status_code for i in range(limits)]
    assert statuses == [200] * limits  # the form again, with "wrong username or password"
    refused = page_login(client, PASSWORD)
    assert refused.status_code == 429
    assert "Too many failed sign-in attempts" in refused.content.decode()
    assert refused["Retry-After"] == "3600"
    assert not signed_in(client)

    monkeypatch.setattr(rate_limits, "clock", lambda: NOON + 3599)
    assert page_login(client, PASSWORD).status_code == 429
    assert not signed_in(client)

    monkeypatch.setattr(rate_limits, "clock", lambda: NOON + 3600)
    assert page_login(client, PASSWORD).status_code == 302
    assert signed_in(client)


@pytest.mark.slow
def test_fewer_failures_than_the_limit_do_not_block(client, owner, limits):
    for i in range(limits - 1):
        page_login(client, f"guess-{i}")
    assert page_login(client, PASSWORD).status_code == 302


def test_a_username_is_blocked_from_every_address(client, owner, limits):
    for i in range(limits):
        page_login(client, f"guess-{i}", REMOTE_ADDR=f"192.0.2.{i + 1}")
    assert page_login(client, PASSWORD, REMOTE_ADDR="198.51.100.9").status_code == 429


def test_one_address_is_blocked_for_every_username(client, owner, other_researcher, limits):
    for i in range(20):
        page_login(client, "wrong", username=f"nobody-{i}", REMOTE_ADDR="192.0.2.7")
    assert page_login(client, PASSWORD, username="other", REMOTE_ADDR="192.0.2.7").status_code == (
        429
    )
    assert page_login(client, PASSWORD, username="other", REMOTE_ADDR="192.0.2.8").status_code == (
        302
    )


def test_the_blocked_username_does_not_block_other_accounts(
    client, owner, other_researcher, limits
):
    for i in range(limits):
        page_login(client, f"guess-{i}")
    assert page_login(client, PASSWORD, username="other").status_code == 302


def test_the_admin_login_counts_against_the_same_limit(client, owner, limits):
    owner.is_staff = True
    owner.save()
    for i in range(limits):
        client.post(ADMIN_LOGIN_URL, {"username": "owner", "password": f"guess-{i}"})
    refused = client.post(ADMIN_LOGIN_URL, {"username": "owner", "password": PASSWORD})
    assert "Too many failed sign-in attempts" in refused.content.decode()
    assert not signed_in(client)
    assert page_login(client, PASSWORD).status_code == 429


def test_the_token_endpoint_is_refused_with_429_after_the_failures(owner, limits, monkeypatch):
    api = APIClient()
    for i in range(limits):
        response = api.post(TOKEN_URL, {"username": "owner", "password": f"guess-{i}"})
        assert response.status_code == 400
    refused = api.post(TOKEN_URL, {"username": "owner", "password": PASSWORD})
    assert refused.status_code == 429
    assert refused.json()["detail"].startswith("Too many failed sign-in attempts")
    assert refused["Retry-After"] == "3600"
    monkeypatch.setattr(rate_limits, "clock", lambda: NOON + 3600)
    assert api.post(TOKEN_URL, {"username": "owner", "password": PASSWORD}).status_code == 200


def test_failures_on_the_page_block_the_api_too(client, owner, limits):
    for i in range(limits):
        page_login(client, f"guess-{i}")
    refused = APIClient().post(TOKEN_URL, {"username": "owner", "password": PASSWORD})
    assert refused.status_code == 429


def test_the_counters_hold_neither_address_nor_username(client, owner, limits):
    page_login(client, "wrong", REMOTE_ADDR="203.0.113.77")
    with connection.cursor() as cursor:
        cursor.execute("SELECT key FROM surveys_ratecounter")
        stored = " ".join(row[0] for row in cursor.fetchall())
    assert "throttle:login-user:" in stored
    assert "throttle:login-client:" in stored
    assert "203.0.113.77" not in stored
    assert "owner" not in stored
