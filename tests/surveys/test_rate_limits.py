"""The rate limits' counters (surveys/rate_limits.py): one round trip per hit, in the
database table or in Redis, expiring with their window and holding no address or username.
Concurrent hits from several connections: test_rate_limits_concurrency.py."""

import math
import re
import uuid
from datetime import UTC, datetime

import pytest
import redis
from django.db import connection
from django.test.utils import CaptureQueriesContext

from surveys import rate_limits
from surveys.models import RateCounter

pytestmark = pytest.mark.django_db

NOON = 1_800_000_000.0 - 1_800_000_000.0 % 86400 + 43200  # 12:00:00 UTC on some day
REDIS_URL = "redis://127.0.0.1:6379/0"


@pytest.fixture
def at(monkeypatch):
    """Stands the rate limits' clock at ``NOON + seconds``."""

    def stand(seconds):
        monkeypatch.setattr(rate_limits, "clock", lambda: NOON + seconds)

    stand(0)
    return stand


@pytest.fixture
def never_swept(monkeypatch):
    monkeypatch.setattr(rate_limits, "SWEEP_EVERY", math.inf)


def window(rate="3/min", ident="198.51.100.23"):
    return rate_limits.window_for(scope="responses", ident=ident, rate=rate)


def test_a_hit_is_one_statement_on_the_database(at, never_swept):
    counter = window()
    with CaptureQueriesContext(connection) as created:
        assert counter.hit() == 1
    with CaptureQueriesContext(connection) as added:
        assert counter.hit() == 2
    assert len(created) == 1
    assert len(added) == 1
    assert "ON CONFLICT" in added[0]["sql"]


def test_the_counter_counts_and_is_read_without_counting(at, never_swept):
    counter = window()
    assert counter.count() == 0
    assert [counter.hit() for _ in range(5)] == [1, 2, 3, 4, 5]
    assert counter.count() == 5
    assert window(ident="198.51.100.24").count() == 0


def test_the_row_holds_an_hmac_and_a_count_and_ends_with_the_window(at, never_swept):
    at(15)
    counter = window()
    for _ in range(3):
        counter.hit()
    (row,) = RateCounter.objects.all()
    assert re.fullmatch(r"throttle:responses:[0-9a-f]{32}", row.key)
    assert "198.51.100.23" not in str(row)
    assert row.hits == 3
    assert row.expires == datetime.fromtimestamp(NOON + 60, tz=UTC)


def test_a_counter_past_its_window_counts_nothing_and_restarts_at_one(at, never_swept):
    counter = window()
    counter.hit()
    counter.hit()
    # The same key after its window's end (a server whose clock runs behind the others'
    # would compute it): it has expired, so it starts again with the new end.
    at(61)
    assert counter.count() == 0
    later = rate_limits.Window(key=counter.key, limit=3, retry_after=59, ends_at=NOON + 120)
    assert later.hit() == 1
    assert later.hit() == 2
    (row,) = RateCounter.objects.all()
    assert row.expires == datetime.fromtimestamp(NOON + 120, tz=UTC)


def test_a_new_counter_sweeps_the_expired_ones_now_and_then(at, monkeypatch):
    monkeypatch.setattr(rate_limits, "SWEEP_EVERY", math.inf)
    for ident in ("192.0.2.1", "192.0.2.2"):
        window(ident=ident).hit()
    at(60)  # the next window: the two counters above have expired
    window(ident="192.0.2.1").hit()
    assert RateCounter.objects.count() == 3
    monkeypatch.setattr(rate_limits, "SWEEP_EVERY", 1)  # every new counter sweeps
    current = window(ident="192.0.2.2")
    current.hit()
    current.hit()  # not a new counter: no sweep, the same two rows
    assert sorted(RateCounter.objects.values_list("hits", flat=True)) == [1, 2]
    assert (
        RateCounter.objects.filter(expires__lte=datetime.fromtimestamp(NOON + 60, tz=UTC)).count()
        == 0
    )


def test_sweeping_is_drawn_for_about_one_new_counter_in_sweep_every(at, monkeypatch):
    sweeps = []
    monkeypatch.setattr(rate_limits, "_sweep_expired", sweeps.append)
    counter = window()
    for _ in range(200):
        counter.hit()  # one new counter, then hits on it: never a sweep after the first
    assert len(sweeps) <= 1
    sweeps.clear()
    for n in range(2000):
        rate_limits.count_hit(f"throttle:test:{n}", ends_at=NOON + 60)
    # Binomial(2000, 1/50): mean 40, standard deviation 6.3; 15 and 65 are four deviations.
    assert 15 <= len(sweeps) <= 65


# --- Redis ---------------------------------------------------------------------------------


def redis_answers():
    try:
        return bool(redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1).ping())
    except redis.RedisError:
        return False


@pytest.fixture
def in_redis(settings):
    """The cache (and so the counters) in Redis under a prefix of the test's own."""
    if not redis_answers():
        pytest.skip(f"Redis does not answer at {REDIS_URL}")
    prefix = f"rrsurvey-test-{uuid.uuid4().hex}"
    settings.CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": prefix,
        }
    }
    client = redis.Redis.from_url(REDIS_URL)
    yield client, prefix
    for key in client.scan_iter(f"{prefix}:*"):
        client.delete(key)


def test_redis_counts_in_one_round_trip_and_the_key_ends_with_the_window(in_redis, at, monkeypatch):
    client, prefix = in_redis
    sent = []
    send = redis.connection.Connection.send_packed_command
    monkeypatch.setattr(
        redis.connection.Connection,
        "send_packed_command",
        lambda self, command, *a, **kw: sent.append(command) or send(self, command, *a, **kw),
    )
    at(15)
    counter = window()
    assert counter.hit() == 1  # the connection's handshake, then the hit
    sent.clear()
    assert counter.hit() == 2
    assert len(sent) == 1  # MULTI, SET NX EX, INCR, EXEC in one write
    assert [counter.hit() for _ in range(2)] == [3, 4]
    assert counter.count() == 4
    assert RateCounter.objects.count() == 0
    (key,) = client.scan_iter(f"{prefix}:*")
    assert re.fullmatch(rf"{prefix}:1:throttle:responses:[0-9a-f]{{32}}", key.decode())
    assert client.get(key) == b"4"  # a count, nothing else
    assert 44 <= client.ttl(key) <= 45  # the window's 45 seconds left


def test_redis_counts_a_lapsed_key_from_one_with_an_expiry(in_redis, at):
    client, prefix = in_redis
    counter = window()
    counter.hit()
    client.delete(*client.scan_iter(f"{prefix}:*"))  # expired between two hits
    assert counter.hit() == 1
    (key,) = client.scan_iter(f"{prefix}:*")
    assert 0 < client.ttl(key) <= 60
