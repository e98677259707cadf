"""Concurrent hits on one counter from several database connections, outside a test
transaction: each hit gets a count of its own, none is lost (surveys/rate_limits.py)."""

import math
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

from django.db import connections

from surveys import rate_limits
from surveys.models import RateCounter
from tests.helpers import postgresql_outside_a_transaction

pytestmark = postgresql_outside_a_transaction(
    "concurrent writers on separate connections: PostgreSQL's row locks (SQLite's single "
    "writer is held by tests/surveys/api/test_live_gunicorn.py's two workers)"
)

NOON = 1_800_000_000.0 - 1_800_000_000.0 % 86400 + 43200  # 12:00:00 UTC on some day
THREADS = 6
HITS = 40  # per thread


def test_concurrent_hits_on_one_counter_are_each_counted_once(monkeypatch):
    monkeypatch.setattr(rate_limits, "clock", lambda: NOON)
    monkeypatch.setattr(rate_limits, "SWEEP_EVERY", math.inf)
    window = rate_limits.window_for(scope="responses", ident="203.0.113.5", rate="1000/min")
    start = threading.Barrier(THREADS)

    def hits(_thread):
        try:
            start.wait()
            return [window.hit() for _ in range(HITS)]
        finally:
            connections.close_all()  # this thread's connection, before the database is dropped

    with ThreadPoolExecutor(max_workers=THREADS) as pool:
        counts = [count for counted in pool.map(hits, range(THREADS)) for count in counted]
    # Every count from 1 to the total handed out exactly once: no two hits read the same value.
    assert Counter(counts) == Counter(range(1, THREADS * HITS + 1))
    assert window.count() == THREADS * HITS
    assert RateCounter.objects.get().hits == THREADS * HITS


def test_concurrent_first_hits_create_one_counter(monkeypatch):
    monkeypatch.setattr(rate_limits, "clock", lambda: NOON)
    windows = [
        rate_limits.window_for(scope="responses", ident=f"203.0.113.{n}", rate="1000/min")
        for n in range(20)
    ]
    start = threading.Barrier(THREADS)

    def first_hits(_thread):
        try:
            start.wait()
            return [window.hit() for window in windows]
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=THREADS) as pool:
        counts = list(pool.map(first_hits, range(THREADS)))
    # Each window's six first hits raced to create its row: one row each, counted 1 to 6.
    for n in range(len(windows)):
        assert sorted(thread[n] for thread in counts) == list(range(1, THREADS + 1))
    assert sorted(RateCounter.objects.values_list("hits", flat=True)) == [THREADS] * 20


def test_the_counters_table_writes_no_wal():
    """UNLOGGED (migration 0038): a hit's commit waits for no flush to disk."""
    with connections["default"].cursor() as cursor:
        cursor.execute("SELECT relpersistence FROM pg_class WHERE relname = 'surveys_ratecounter'")
        assert cursor.fetchone() == ("u",)
