"""The rate limits' counter row (surveys/models/rate_limits.py)."""

from datetime import UTC, datetime

from surveys.models import RateCounter


def test_a_counter_reads_as_its_key_count_and_end():
    counter = RateCounter(
        key="throttle:responses:" + "0" * 32,
        hits=7,
        expires=datetime(2027, 1, 15, 12, 1, tzinfo=UTC),
    )
    assert str(counter) == f"throttle:responses:{'0' * 32}: 7 until 2027-01-15 12:01:00 UTC"
