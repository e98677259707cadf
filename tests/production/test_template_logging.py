"""At LOG_LEVEL=DEBUG the logs still hold no page context (CSRF token, user, form values)."""

import os
import subprocess
import sys

import pytest

from tests.live import ROOT

# A fresh SQLite file whatever the suite's database: the PostgreSQL pass would repeat it exactly.
pytestmark = [pytest.mark.slow, pytest.mark.own_sqlite]

# Renders the new-survey page for a signed-in researcher (its form widgets make the template
# engine log failed lookups at DEBUG, with the page context in the exception text), with
# logging as configured. The database is a fresh SQLite file, migrated quietly first.
RENDER = """
import logging, sys, django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
if sys.argv[1] == "force":
    logging.getLogger("django.template").setLevel(logging.DEBUG)
from django.contrib.auth import get_user_model
from django.test import Client
client = Client(HTTP_HOST="127.0.0.1")
client.force_login(get_user_model().objects.create_user("r", password="x-long-passphrase-1"))
response = client.get("/surveys/new/")
assert response.status_code == 200, response.status_code
print("rendered", file=sys.stderr)
"""


def render_log(mode, tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "LOG_LEVEL", "DEBUG"}}
    env.update(
        DEBUG="1",
        LOG_LEVEL="DEBUG",
        DJANGO_SETTINGS_MODULE="config.settings",
        DATABASE_URL=f"sqlite:///{tmp_path / 'log.sqlite3'}",
    )
    result = subprocess.run(
        [sys.executable, "-c", RENDER, mode],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return result.stderr


def test_debug_logging_keeps_page_contexts_out_of_the_log(tmp_path):
    log = render_log("configured", tmp_path)
    assert "rendered" in log
    assert "csrf_token" not in log
    assert "Failed lookup for key" not in log


def test_the_check_above_would_see_a_context_if_the_template_logger_were_at_debug(tmp_path):
    log = render_log("force", tmp_path)
    assert "csrf_token" in log
