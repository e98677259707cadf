"""Shared pieces of the benchmarks: the databases to run on, a Django process per database, a
fast population of simulated submissions, and plain-text tables.

Settings are process-wide in Django, so every benchmark runs its measurements in a child
process per database (``run_child``), with production settings (DEBUG off: no query log).
"""

from __future__ import annotations

import json
import os
import platform
import re
import secrets
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
# Where PostgreSQL is, for the PostgreSQL half of every benchmark (a scratch database is created
# next to this one and dropped afterwards). BENCH_POSTGRES=off skips PostgreSQL.
POSTGRES_URL = os.environ.get("BENCH_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/postgres")
QUESTIONS = 10
# True prevalences of the ten simulated questions (the classic design randomizes them).
TRUE_SHARES = (0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.75, 0.9)


def bench_scale():
    """Stored submissions for the "large survey" measurements: BENCH_SCALE, default 100,000 so
    that ``make bench`` takes minutes; BENCH_SCALE=1000000 for the figures in the docs."""
    raw = os.environ.get("BENCH_SCALE", "100000").replace("_", "")
    value = int(raw)
    if value < 2000:
        raise SystemExit(f"BENCH_SCALE must be at least 2000, got {value}")
    return value


def postgres_available():
    if os.environ.get("BENCH_POSTGRES", "on").lower() in {"off", "0", "no", "false"}:
        return False
    try:
        import psycopg

        with psycopg.connect(POSTGRES_URL, connect_timeout=3):
            return True
    except Exception:  # any failure means "not here": the SQLite half still runs
        return False


@contextmanager
def scratch_database(engine):
    """A fresh, empty database URL for ``engine`` ("sqlite" or "postgresql"), removed afterwards."""
    if engine == "sqlite":
        with tempfile.TemporaryDirectory(prefix="rrsurvey-bench-") as tmp:
            yield f"sqlite:///{Path(tmp) / 'bench.sqlite3'}"
        return
    import psycopg

    parts = urlsplit(POSTGRES_URL)
    # BENCH_DATABASE_PREFIX: where several people share one server, each their own names.
    prefix = os.environ.get("BENCH_DATABASE_PREFIX", "rrsurvey_bench")
    name = f"{prefix}_{os.getpid()}_{secrets.token_hex(4)}"
    with psycopg.connect(POSTGRES_URL, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield urlunsplit(parts._replace(path=f"/{name}"))
    finally:
        with psycopg.connect(POSTGRES_URL, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def engines():
    """The databases to measure: BENCH_DATABASES (comma-separated), default both."""
    wanted = os.environ.get("BENCH_DATABASES", "sqlite,postgresql").replace(" ", "").split(",")
    found = [engine for engine in wanted if engine == "sqlite"]
    if "postgresql" in wanted:
        if postgres_available():
            found.append("postgresql")
        else:
            print("(PostgreSQL not reachable at BENCH_POSTGRES_URL: skipped)", file=sys.stderr)
    return found


def production_env(database_url, **extra):
    """Environment for a child process: production settings, plain HTTP on loopback."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DEBUG", "DJANGO_SETTINGS_MODULE", "REDIS_URL", "TRUSTED_PROXIES"}
    }
    env.update(
        DEBUG="0",
        SECRET_KEY=secrets.token_urlsafe(50),
        SECURE_SSL_REDIRECT="off",
        ALLOWED_HOSTS="testserver,localhost,127.0.0.1",
        DATABASE_URL=database_url,
        RESPONSE_RATE_LIMIT="off",
        LOG_LEVEL="ERROR",
        PYTHONUNBUFFERED="1",
    )
    env.update(extra)
    return env


@contextmanager
def collected_static():
    """Collect the hashed, compressed static files once (production pages need the manifest);
    yields the STATIC_ROOT for children's environments."""
    with tempfile.TemporaryDirectory(prefix="rrsurvey-bench-static-") as tmp:
        env = production_env("sqlite:///unused.sqlite3", STATIC_ROOT=tmp)
        subprocess.run(
            [sys.executable, "manage.py", "collectstatic", "--noinput", "--verbosity", "0"],
            cwd=ROOT,
            env=env,
            check=True,
            timeout=600,
        )
        yield tmp


def run_child(script, *args, env, timeout=3600):
    """Run ``python script args`` with ``env``; its last stdout line is a JSON result."""
    result = subprocess.run(
        [sys.executable, str(script), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if result.returncode != 0:
        raise SystemExit(f"{script} {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def measured_on_each_database(script, *args):
    """``(engine, what the child printed)`` for each database of ``engines()``: ``script``
    run as a child (``run_child``) on a scratch database of that engine, with the production
    settings and the static files collected once for all of them."""
    with collected_static() as static_root:
        for engine in engines():
            with scratch_database(engine) as url:
                env = production_env(url, STATIC_ROOT=static_root)
                measured = run_child(script, *args, env=env)
            yield engine, measured


def django_setup(*, migrate=True):
    """In a child process: set up Django against DATABASE_URL (and migrate it, unless a
    previous child did: a server process never runs migrations, nor carries their memory)."""
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    if migrate:
        from django.core.management import call_command

        call_command("migrate", verbosity=0, interactive=False)
        call_command("createcachetable", verbosity=0)


def make_survey(*, questions=QUESTIONS, username="bench-researcher"):
    """An open survey of ``questions`` questions, its owner, and the owner's API token."""
    from django.contrib.auth import get_user_model

    from surveys import services
    from surveys.services import tokens

    owner = get_user_model().objects.create_user(username, password=secrets.token_urlsafe(16))
    survey = services.survey_create(
        owner=owner,
        title="Benchmark survey",
        questions=[f"Sensitive question {i + 1}?" for i in range(questions)],
    )
    survey = services.survey_open(survey=survey)
    return survey, owner, tokens.token_issue(user=owner, name="benchmark").key


def populate(survey, *, total, chunk=100_000):
    """Grow ``survey`` to ``total`` stored submissions of randomized reports, fast.

    The rows are generated inside the database (INSERT ... SELECT over a number series), which
    is what a bulk COPY would load, only without shipping them through Python. Keys are random
    as the model's (``RandomKeyField``): the submission table has no counter. Each report bit
    is "yes" with the classic design's report probability b + (a - b) p for the question's
    true share p. The running tallies are then set from the stored rows, exactly.
    """
    from django.db import connection, transaction
    from django.db.models import Count, Q

    from surveys.models import Submission, TallyShard, question_key

    question_ids = list(survey.questions.values_list("id", flat=True))
    keys = [question_key(qid) for qid in question_ids]
    a, b = 0.75, 0.25  # classic forced response: P(report yes | yes), P(report yes | no)
    thresholds = [b + (a - b) * share for share in TRUE_SHARES[: len(question_ids)]]
    vendor = connection.vendor
    if vendor == "postgresql":
        pairs = ", ".join("%s, random() < %s" for _key in keys)
        reports = f"jsonb_build_object({pairs})"
        insert = (
            "INSERT INTO surveys_submission (id, survey_id, submission_id, received_on, reports) "
            "SELECT (random() * 9e18)::bigint, %s, gen_random_uuid(), current_date, "
            f"{reports} FROM generate_series(1, %s)"
        )
    else:
        # SQLite's random() is a signed 64-bit integer; JSON true/false, not 1/0.
        uniform = "((random() / 18446744073709551616.0) + 0.5)"
        pairs = ", ".join(
            f"%s, json(CASE WHEN {uniform} < %s THEN 'true' ELSE 'false' END)" for _key in keys
        )
        insert = (
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %s) "
            "INSERT INTO surveys_submission (id, survey_id, submission_id, received_on, reports) "
            "SELECT abs(random()), %s, lower(hex(randomblob(16))), date('now'), "
            f"json_object({pairs}) FROM n"
        )
    report_params = [value for pair in zip(keys, thresholds, strict=True) for value in pair]
    have = Submission.objects.filter(survey=survey).count()
    while have < total:
        batch = min(chunk, total - have)
        with transaction.atomic(), connection.cursor() as cursor:
            if vendor == "postgresql":
                cursor.execute(insert, [survey.pk, *report_params, batch])
            else:
                cursor.execute(insert, [batch, survey.pk, *report_params])
        have += batch
    yes = Submission.objects.filter(survey=survey).aggregate(
        **{key: Count("id", filter=Q(**{f"reports__{key}": True})) for key in keys}
    )
    TallyShard.objects.filter(survey=survey).delete()
    TallyShard.objects.create(
        survey=survey, shard=0, responses=have, reports={key: [have, yes[key]] for key in keys}
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    survey.refresh_from_db()
    return survey


def machine():
    """One line describing where the numbers came from."""
    cpu = platform.processor() or platform.machine()
    try:
        model = re.search(
            r"model name\s*:\s*(.+)", Path("/proc/cpuinfo").read_text(encoding="utf-8")
        )
        cpu = model.group(1).strip() if model else cpu
        mem_kib = int(re.search(r"MemTotal:\s*(\d+)", Path("/proc/meminfo").read_text()).group(1))
        memory = f"{mem_kib / 2**20:.0f} GiB"
    except (OSError, AttributeError):
        memory = "?"
    return f"{os.cpu_count()} cores ({cpu}), {memory} RAM, Python {platform.python_version()}"


def table(headers, rows):
    """A Markdown table, columns padded for reading in a terminal too."""
    cells = [[str(h) for h in headers], *[[str(c) for c in row] for row in rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = [
        "| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |"
        for row in cells
    ]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)
