"""Helpers for the production checks on the live gunicorn of tests/live.py: a survey on its
database, a text dump of that database. (Browser checks live in tests/e2e, next to the one
session-wide Chromium.)"""

import json
import os
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.live import ROOT

CREATE_SURVEY = """
import json
from django.contrib.auth import get_user_model
from surveys import services, tokens
owner, _ = get_user_model().objects.get_or_create(username="live-owner")
survey = services.survey_create(
    owner=owner, title="Live survey", questions=[f"Question {{i}}?" for i in range({questions})]
)
survey = services.survey_open(survey=survey)
key = tokens.token_issue(user=owner, name="live tests").key
print(json.dumps({{
    "id": survey.pk,
    "slug": survey.slug,
    "question_ids": list(survey.questions.values_list("id", flat=True)),
    "token": key,
}}))
"""


def live_survey(server, *, questions=3):
    """An open survey on ``server``'s database: id, slug, question_ids and its owner's token."""
    out = server.manage("shell", "-c", CREATE_SURVEY.format(questions=questions))
    return json.loads(out.strip().splitlines()[-1])


def database_dump(server):
    """Every row of every table of ``server``'s database, as text (SQLite: ``iterdump``)."""
    url = server.env["DATABASE_URL"]
    if url.startswith("sqlite:///"):
        with sqlite3.connect(url.removeprefix("sqlite:///")) as conn:
            return "\n".join(conn.iterdump())
    import psycopg

    lines = []
    with psycopg.connect(url) as conn:
        tables = conn.execute(
            "SELECT table_name FROM information_schema.tables "
            "WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name"
        ).fetchall()
        for (table,) in tables:
            rows = conn.execute(f'SELECT t::text FROM "{table}" t').fetchall()
            lines.extend(f"{table} {row}" for (row,) in rows)
    return "\n".join(lines)


def database_rows(server, sql, params=()):
    """Rows of one query on ``server``'s database (``%s`` placeholders, portable SQL)."""
    url = server.env["DATABASE_URL"]
    if url.startswith("sqlite:///"):
        with sqlite3.connect(url.removeprefix("sqlite:///")) as conn:
            return conn.execute(sql.replace("%s", "?"), params).fetchall()
    import psycopg

    with psycopg.connect(url) as conn:
        return conn.execute(sql, params).fetchall()


@pytest.fixture(scope="session")
def collected_static():
    """STATIC_ROOT with the hashed, compressed files (``make serve`` does the same), for a live
    server with production settings."""
    with tempfile.TemporaryDirectory(prefix="rrsurvey-static-") as static_root:
        subprocess.run(
            [sys.executable, "manage.py", "collectstatic", "--noinput", "--verbosity", "0"],
            cwd=ROOT,
            env={
                **os.environ,
                "DEBUG": "0",
                "SECRET_KEY": "collectstatic-only-" + "x" * 40,
                "STATIC_ROOT": static_root,
            },
            check=True,
            timeout=300,
        )
        assert (Path(static_root) / "staticfiles.json").exists()
        yield static_root
