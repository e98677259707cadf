"""A real two-worker gunicorn (see tests/live.py); the cast's API clients are in
tests/conftest.py."""

import pytest
from django.core.cache import cache

from tests.live import gunicorn_server

LIVE_USERNAME = "live-researcher"
LIVE_PASSWORD = "live-password-correct-horse-42"


@pytest.fixture(scope="module")
def gunicorn_env():
    """Settings for the module's gunicorn; override this fixture in a test module."""
    return {}


@pytest.fixture(scope="module")
def gunicorn(gunicorn_env):
    """A real ``gunicorn config.wsgi:application --workers 2`` on its own fresh database."""
    with gunicorn_server(workers=2, env=gunicorn_env) as server:
        yield server


@pytest.fixture(scope="module")
def live_researcher(gunicorn):
    """A researcher on the gunicorn's database; returns an Authorization header for them."""
    gunicorn.manage(
        "shell",
        "-c",
        "from django.contrib.auth import get_user_model; "
        f"get_user_model().objects.create_user({LIVE_USERNAME!r}, password={LIVE_PASSWORD!r})",
    )
    status, body = gunicorn.json(
        "POST",
        "/api/v1/auth/token/",
        body={"username": LIVE_USERNAME, "password": LIVE_PASSWORD},
    )
    assert status == 200, body
    return {"Authorization": f"Token {body['token']}"}


@pytest.fixture(autouse=True)
def fresh_throttle_counts(settings):
    """The database cache is rolled back with each test; Redis (REDIS_URL) is not, so a test's
    throttle counts would leak into the next one."""
    if settings.REDIS_URL:
        cache.clear()
