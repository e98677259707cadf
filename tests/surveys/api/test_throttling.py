"""Public submissions are throttled per client in shared counters that hold no address."""

import re
import uuid
from datetime import UTC, datetime

import pytest
from django.core.cache import cache
from django.db import connection

from surveys import rate_limits
from surveys.models import RateCounter, Submission

pytestmark = pytest.mark.django_db

CACHE_TABLE = "rrsurvey_cache"
NOON = 1_800_000_000.0 - 1_800_000_000.0 % 86400 + 43200  # 12:00:00 UTC on some day


@pytest.fixture
def rate_limit(settings, monkeypatch):
    """Three submissions per minute, with the throttle's clock standing at noon."""
    settings.RESPONSE_RATE_LIMIT = "3/min"
    monkeypatch.setattr(rate_limits, "clock", lambda: NOON)
    return 3


@pytest.fixture
def send(respondent, open_survey):
    ids = list(open_survey.questions.values_list("id", flat=True))

    def post(**meta):
        body = {"submission_id": str(uuid.uuid4()), "answers": {str(i): True for i in ids}}
        return respondent.post(
            f"/api/v1/public/surveys/{open_survey.slug}/responses/", body, **meta
        )

    return post


def statuses(send, count, **meta):
    return [send(**meta).status_code for _ in range(count)]


def test_submissions_beyond_the_rate_are_429_and_not_stored(send, rate_limit):
    assert statuses(send, 5) == [201, 201, 201, 429, 429]
    refused = send()
    assert refused.json() == {
        "detail": "Request was throttled. Expected available in 60 seconds.",
        "errors": {},
    }
    assert refused["Retry-After"] == "60"
    assert Submission.objects.count() == rate_limit


def test_the_budget_returns_with_the_next_window(send, rate_limit, monkeypatch):
    assert statuses(send, 4) == [201, 201, 201, 429]
    monkeypatch.setattr(rate_limits, "clock", lambda: NOON + 60)
    assert statuses(send, 1) == [201]


def test_retry_after_counts_down_to_the_end_of_the_window(send, rate_limit, monkeypatch):
    statuses(send, 3)
    monkeypatch.setattr(rate_limits, "clock", lambda: NOON + 45.5)
    assert send()["Retry-After"] == "15"


def test_clients_are_counted_separately(send, rate_limit):
    assert statuses(send, 4, REMOTE_ADDR="192.0.2.1") == [201, 201, 201, 429]
    assert statuses(send, 1, REMOTE_ADDR="192.0.2.2") == [201]


def test_spoofed_forwarded_for_is_ignored_without_trusted_proxies(send, rate_limit, settings):
    settings.TRUSTED_PROXIES = 0
    assert statuses(send, 3) == [201, 201, 201]
    for fake in ("203.0.113.1", "203.0.113.2", "198.51.100.7, 203.0.113.3"):
        assert send(HTTP_X_FORWARDED_FOR=fake).status_code == 429


def test_behind_one_trusted_proxy_the_last_forwarded_hop_is_the_client(send, rate_limit, settings):
    settings.TRUSTED_PROXIES = 1
    proxy = {"REMOTE_ADDR": "10.0.0.1"}
    client = "203.0.113.9"
    assert statuses(send, 3, HTTP_X_FORWARDED_FOR=client, **proxy) == [201] * 3
    # What the client writes to the left of what the proxy appended does not help it.
    assert send(HTTP_X_FORWARDED_FOR=f"1.2.3.4, {client}", **proxy).status_code == 429
    # Another client behind the same proxy has its own budget.
    assert send(HTTP_X_FORWARDED_FOR="203.0.113.10", **proxy).status_code == 201


def test_ipv6_clients_are_counted_per_64_block(send, rate_limit):
    assert statuses(send, 3, REMOTE_ADDR="2001:db8:1:2::1") == [201] * 3
    assert send(REMOTE_ADDR="2001:db8:1:2:ffff::9").status_code == 429
    assert send(REMOTE_ADDR="2001:db8:1:3::1").status_code == 201


def test_off_disables_the_throttle(send, settings):
    settings.RESPONSE_RATE_LIMIT = None
    assert set(statuses(send, 30)) == {201}


def test_the_default_rate_lets_a_classroom_through(send, settings, monkeypatch):
    monkeypatch.setattr(rate_limits, "clock", lambda: NOON)
    assert settings.RESPONSE_RATE_LIMIT == "120/min"
    assert set(statuses(send, 40)) == {201}


def _cache_rows():
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT cache_key, value, expires FROM {CACHE_TABLE}")
        return cursor.fetchall()


def _counter_rows():
    return list(RateCounter.objects.values_list("key", "hits", "expires"))


def test_the_counters_hold_no_address_and_forget_with_the_window(send, rate_limit):
    address = "198.51.100.23"
    statuses(send, 4, REMOTE_ADDR=address)
    rows = _counter_rows()
    assert len(rows) == 1
    key, hits, expires = rows[0]
    assert address not in key
    assert re.fullmatch(r"throttle:responses:[0-9a-f]{32}", key)  # an HMAC, nothing else
    assert hits == 4  # a count, nothing else
    # The clock stands at noon: the counter ends with the minute's window.
    assert expires == datetime.fromtimestamp(NOON + 60, tz=UTC)
    assert _cache_rows() == []  # the counters are not in the cache


def test_the_key_changes_with_the_window(send, rate_limit, monkeypatch):
    send()
    monkeypatch.setattr(rate_limits, "clock", lambda: NOON + 60)
    send()
    assert len({row[0] for row in _counter_rows()}) == 2


def test_database_cache_incr_keeps_the_expiry_and_refuses_missing_keys():
    cache.add("counter", 1, timeout=30)
    before = _cache_rows()[0][2]
    assert cache.incr("counter") == 2
    assert cache.incr("counter", 5) == 7
    assert _cache_rows()[0][2] == before
    with pytest.raises(ValueError):
        cache.incr("missing")
