"""Django's database cache with an atomic ``incr``, so a counter in it is exact across workers.

The rate limits no longer count here: without Redis they count in a table of their own
(``models.RateCounter``, surveys/rate_limits.py), one statement per hit where ``add`` and this
``incr`` took about ten round trips. The cache stays the configured one, and its ``incr``
exact, for whatever counts in it.

The stock ``incr`` is a read followed by a write: two workers counting the same client at the
same moment can both read 7 and both write 8, letting a burst through. Here the read and the
write share one transaction that holds the row (``SELECT ... FOR UPDATE`` where the database
has it; SQLite's IMMEDIATE transactions, see settings, take the write lock at BEGIN). The
entry keeps its expiry, so a counter still disappears with its window.
"""

import base64
import pickle

from django.core.cache.backends.db import DatabaseCache as DjangoDatabaseCache
from django.db import connections, router, transaction


class DatabaseCache(DjangoDatabaseCache):
    def incr(self, key, delta=1, version=None):
        alias = router.db_for_write(self.cache_model_class)
        connection = connections[alias]
        quote_name = connection.ops.quote_name
        table = quote_name(self._table)
        cache_key = self.make_and_validate_key(key, version=version)
        with transaction.atomic(using=alias):
            if connection.features.has_select_for_update:
                with connection.cursor() as cursor:
                    cursor.execute(
                        f"SELECT 1 FROM {table} WHERE {quote_name('cache_key')} = %s FOR UPDATE",
                        [cache_key],
                    )
            value = self.get(key, version=version)  # None when missing or expired
            if value is None:
                raise ValueError(f"Key '{key}' not found")
            value += delta
            encoded = base64.b64encode(pickle.dumps(value, self.pickle_protocol)).decode("latin1")
            with connection.cursor() as cursor:
                cursor.execute(
                    f"UPDATE {table} SET {quote_name('value')} = %s "
                    f"WHERE {quote_name('cache_key')} = %s",
                    [encoded, cache_key],
                )
        return value

    def decr(self, key, delta=1, version=None):
        return self.incr(key, -delta, version=version)
