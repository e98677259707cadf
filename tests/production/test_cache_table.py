"""``migrate`` alone leaves a working app: the database cache's table comes with it."""

import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.live_databases import ROOT, empty_database

# Signs a researcher in through the real sign-in page, which counts failures in the cache.
SIGN_IN = """
from django.contrib.auth import get_user_model
from django.test import Client
get_user_model().objects.create_user("r", password="correct-horse-battery-42")
response = Client(HTTP_HOST="127.0.0.1").post(
    "/accounts/login/", {"username": "r", "password": "correct-horse-battery-42"}
)
print(response.status_code)
"""


@pytest.mark.slow
def test_migrate_alone_creates_the_cache_table_and_sign_in_works():
    with tempfile.TemporaryDirectory() as tmp, empty_database(Path(tmp)) as url:
        env = {"DEBUG": "1", "DATABASE_URL": url, "PATH": "/usr/bin:/bin"}

        def manage(*args):
            return subprocess.run(
                [sys.executable, "manage.py", *args],
                cwd=ROOT,
                env=env,
                capture_output=True,
                text=True,
                check=True,
            ).stdout

        manage("migrate", "--noinput", "-v", "0")
        # --dry-run prints the CREATE TABLE only for a table that does not exist yet.
        assert "CREATE TABLE" not in manage("createcachetable", "--dry-run")
        assert manage("shell", "-c", SIGN_IN).splitlines()[-1] == "302"
