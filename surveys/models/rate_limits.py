"""The rate limits' counters (surveys/rate_limits.py) when they live in the database."""

from django.db import models


class RateCounter(models.Model):
    """One fixed window's count for one client or account: ``key`` is an HMAC of the scope,
    the window and the ident (never the address or the username itself), so it changes with
    every window; ``expires`` is the window's end, after which the row counts nothing and is
    swept (``rate_limits.count_hit``). Counted by one ``INSERT ... ON CONFLICT ... RETURNING``:
    a round trip per hit, exact across workers and servers."""

    key = models.CharField(primary_key=True, max_length=100)
    hits = models.PositiveIntegerField()
    expires = models.DateTimeField(db_index=True)

    def __str__(self):
        return f"{self.key}: {self.hits} until {self.expires:%Y-%m-%d %H:%M:%S} UTC"
