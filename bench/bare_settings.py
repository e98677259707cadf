"""Settings for the benchmark's bare app: the project's database configuration, no middleware.

The floor without this project's stack: Django's handler, one URL and the INSERT view of
``bench/urls.py``. The installed apps stay only so that ``migrate`` creates the table the view
writes to; they cost nothing per request.
"""

from config.settings import *  # noqa: F403

MIDDLEWARE = []
ROOT_URLCONF = "bench.bare_urls"
# The admin requires the session and auth middleware; nothing here serves it.
INSTALLED_APPS = [app for app in INSTALLED_APPS if app != "django.contrib.admin"]  # noqa: F405
# Django's own PostgreSQL backend, as a bare app has it (its health check a round trip before
# each request's first query): the floor stays the same whatever the project's backend does.
if DATABASES["default"]["ENGINE"] == "config.postgresql":  # noqa: F405
    DATABASES["default"]["ENGINE"] = "django.db.backends.postgresql"  # noqa: F405
