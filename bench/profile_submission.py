"""Where one submission's time goes, per kind: the project's WSGI application called in-process
(no network, no client) under cProfile, on a scratch PostgreSQL database with
``pg_stat_statements``.

    .venv/bin/python bench/profile_submission.py
    BENCH_PROFILE_N=3000 BENCH_KINDS=plain,grouped .venv/bin/python bench/profile_submission.py

For each kind of ``bench_submissions`` (plain, grouped, typed, first response; BENCH_KINDS picks;
invitation and unbatched only when named),
BENCH_PROFILE_N requests (default 1500; the first-response kind one per fresh survey) after a
warm-up, each a fresh ``submission_id`` in the body the Lua script sends, through the whole
stack a gunicorn worker runs (``config.wsgi`` with the production settings, DEBUG off, no
rate limit). Printed per request, in microseconds of the worker's wall time:

- middleware and Django: the request outside the view (handler, URL resolving, every
  middleware on the way in and out);
- parsing: the body read, JSON-decoded and shaped (``json_body``, ``submission_fields``);
- checks before the statement: the submission's shape (``submission_shape``) and the rest of
  ``submission_receive`` outside the statement;
- the token's check (``_token_verified``) and, after the commit, the batch's count and release
  (``batch_settle``): invitation kinds only;
- the statement: the one PostgreSQL statement, client side (``cursor.execute``); the server's
  own execution time of it from ``pg_stat_statements`` beside it, and every other statement's
  (when the server does not preload that module, a message says so and the table leaves those
  lines out: the cProfile split alone); the backend's CPU for every statement;
- commit (the statement runs in autocommit: its commit is inside it; 0 unless a transaction);
- response: the 201's JSON body.

One process and one connection: there is no lock to wait for here, so the time hot rows cost
under concurrency (two workers waiting for one row until commit) shows in the wrk bench
(``bench_submissions``), not here. Absolute times depend on the machine's load; the shares
are what the breakdown in docs/benchmarks.md reads.
"""

from __future__ import annotations

import contextlib
import cProfile
import io
import json
import os
import pstats
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import _common
from bench_submissions import ID, SETUP, _cpu_of, body_line

N = int(os.environ.get("BENCH_PROFILE_N", "1500"))
WARMUP = 100
CPU_CLOCK = os.environ.get("BENCH_PROFILE_CLOCK") == "cpu"
KINDS = ("plain", "grouped", "typed", "first")
# Run when BENCH_KINDS names them: each request spends a token signed beforehand (N + WARMUP
# of them, a few seconds of signing per thousand).
TOKENED = ("invitation", "unbatched")

# (part, the function whose cumulative time it is: (file ending, function name))
MARKERS = {
    "view": ("surveys/api/public.py", "response_create"),
    "parsing": ("surveys/api/limits.py", "json_body"),
    "fields": ("surveys/api/serializers/submissions.py", "submission_fields"),
    "receive": ("surveys/services/submissions/__init__.py", "submission_receive"),
    "statement": ("surveys/services/submissions/postgres.py", "_insert"),
    "token": ("surveys/services/submissions/__init__.py", "_token_verified"),
    "settle": ("surveys/services/batches.py", "batch_settle"),
    "execute": ("django/db/backends/utils.py", "execute"),
    "commit": ("django/db/backends/base/base.py", "commit"),
    "response": ("django/http/response.py", "__init__"),
}


def _cumulative(stats, *, path, name):
    """The cumulative seconds of every function named ``name`` in a file ending ``path``
    (outermost calls only: cProfile's cumulative time already holds the recursive ones)."""
    return sum(
        row[3]
        for (filename, _line, function), row in stats.stats.items()
        if function == name and filename.endswith(path)
    )


def _environ(path, body):
    data = body.encode()
    return {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": path,
        "SCRIPT_NAME": "",
        "QUERY_STRING": "",
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "8000",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "CONTENT_TYPE": "application/json",
        "CONTENT_LENGTH": str(len(data)),
        "HTTP_HOST": "127.0.0.1",
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(data),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": False,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }


def _call(app, line):
    path, body = line.split("\t", 1)
    statuses = []
    chunks = app(
        _environ(path, body.replace(ID, str(uuid.uuid4()))),
        lambda status, headers, exc_info=None: statuses.append(status),
    )
    b"".join(chunks)
    if hasattr(chunks, "close"):
        chunks.close()
    if not statuses[0].startswith("201"):
        raise RuntimeError(f"{path}: {statuses[0]}")


def _lines(setup, kind):
    if kind == "first":
        return [body_line(target, n) for n, target in enumerate(setup["fresh"])]
    if kind in TOKENED:
        tokens = setup[f"{kind}_tokens"]
        return [body_line(setup[kind], n, token=token) for n, token in enumerate(tokens)]
    target = setup["plain"][0] if kind == "plain" else setup[kind]
    return [body_line(target, n) for n in range(512)]


def _statements_readable(connection):
    """Whether ``pg_stat_statements`` can be read on this server (the extension created in the
    scratch database); otherwise, why not, printed once: the server's own time of the
    statement is then left out and the cProfile split alone is printed."""
    from django.db import DatabaseError

    try:
        with connection.cursor() as cursor:
            cursor.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
            cursor.execute("SELECT pg_stat_statements_reset()")
    except DatabaseError as error:  # not preloaded, or the extension not installed at all
        print(
            "pg_stat_statements cannot be read on this server, so PostgreSQL's own time of"
            " the statement is left out and only the cProfile split is printed. To have it,"
            " preload the module (ALTER SYSTEM SET shared_preload_libraries ="
            " 'pg_stat_statements', then restart PostgreSQL). The server said: "
            + str(error).strip().splitlines()[0],
            file=sys.stderr,
        )
        return False
    return True


def _profile(app, lines, connection, *, statements):
    for n in range(WARMUP):
        _call(app, lines[n % len(lines)])
    if statements:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_stat_statements_reset()")
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = cursor.fetchone()[0]
    # One server session for the whole run (CONN_MAX_AGE would end it after a minute), so that
    # its CPU is the run's.
    connection.settings_dict["CONN_MAX_AGE"] = None
    connection.close_at = None
    backend_cpu = _cpu_of(backend)  # the server is on this machine (BENCH_POSTGRES_URL)
    # BENCH_PROFILE_CLOCK=cpu: the process's CPU time, not the wall's (which a busy machine's
    # commits, waiting for the disk, fill).
    clock = time.process_time if CPU_CLOCK else time.perf_counter
    profile = cProfile.Profile(clock)
    start = clock()
    profile.enable()
    for n in range(N):
        _call(app, lines[(WARMUP + n) % len(lines)])
    profile.disable()
    wall = clock() - start
    backend_cpu = _cpu_of(backend) - backend_cpu
    stats = pstats.Stats(profile)
    parts = {
        name: _cumulative(stats, path=path, name=function) / N * 1e6
        for name, (path, function) in MARKERS.items()
    }
    per_request = wall / N * 1e6
    split = {
        f"total ({'CPU' if CPU_CLOCK else 'wall'}, under cProfile)": per_request,
        "middleware and Django (outside the view)": per_request - parts["view"],
        "parsing (json_body, submission_fields)": parts["parsing"] + parts["fields"],
        "checks and the rest of submission_receive": parts["receive"]
        - parts["statement"]
        - parts["token"]
        - parts["settle"],
        "the token verified (invitation)": parts["token"],
        "batches settled after the commit (invitation)": parts["settle"],
        "the statement, client side": parts["statement"] - parts["commit"],
    }
    listed = []
    if statements:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT sum(total_exec_time) FROM pg_stat_statements"
                " WHERE query LIKE '%%WITH survey AS%%' AND dbid = "
                "(SELECT oid FROM pg_database WHERE datname = current_database())"
            )
            server_ms = cursor.fetchone()[0] or 0.0
            cursor.execute(_STATEMENTS_SQL)
            listed = cursor.fetchall()
        other_ms = sum(total for _query, _calls, total in listed) - server_ms
        split["  of which PostgreSQL executing it"] = server_ms * 1e3 / N
        split["other statements, PostgreSQL executing them"] = other_ms * 1e3 / N
    split["PostgreSQL backend's CPU, every statement (parsing, planning, commits)"] = (
        backend_cpu * 1e6 / N
    )
    split["commit (outside the statement)"] = parts["commit"]
    split["response (JsonResponse)"] = parts["response"]
    return split, stats, listed


# Every statement of the run in this database, by server time (pg_stat_statements).
_STATEMENTS_SQL = (
    "SELECT query, calls, total_exec_time FROM pg_stat_statements WHERE dbid ="
    " (SELECT oid FROM pg_database WHERE datname = current_database())"
    " AND query NOT LIKE '%%pg_stat_statements%%' ORDER BY total_exec_time DESC"
)


def main():
    chosen = [k for k in os.environ.get("BENCH_KINDS", ",".join(KINDS)).split(",") if k]
    fresh = N + WARMUP if "first" in chosen else 0
    tokens = {kind: N + WARMUP if kind in chosen else 0 for kind in TOKENED}
    with _common.scratch_database("postgresql") as url:
        os.environ.update(
            _common.production_env(
                url,
                DJANGO_SETTINGS_MODULE="bench.settings",
                MAX_SURVEYS_PER_USER="1000000",
                MAX_QUESTIONS_PER_USER="100000000",
            )
        )
        import django

        django.setup()
        from django.core.management import call_command
        from django.core.wsgi import get_wsgi_application
        from django.db import connection

        call_command("migrate", verbosity=0)
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(
                SETUP
                % {
                    "fresh": fresh,
                    "tokens": tokens["invitation"],
                    "unbatched": tokens["unbatched"],
                },
                {},
            )
        setup = json.loads(printed.getvalue().split("SETUP", 1)[1].strip().splitlines()[0])
        statements = _statements_readable(connection)
        app = get_wsgi_application()
        results = {}
        for kind in chosen:
            results[kind], stats, listed = _profile(
                app, _lines(setup, kind), connection, statements=statements
            )
            if os.environ.get("BENCH_PROFILE_DUMP"):  # a folder: one pstats file per kind
                stats.dump_stats(Path(os.environ["BENCH_PROFILE_DUMP"]) / f"{kind}.prof")
            if os.environ.get("BENCH_PROFILE_TOP"):
                top = int(os.environ["BENCH_PROFILE_TOP"])
                print(f"--- {kind}: statements by server time (calls, µs per request)")
                for query, calls, total in listed[:top]:
                    text = " ".join(query.split())[:160]
                    print(f"{calls:>7} {total * 1e3 / N:>8.1f}  {text}")
                print(f"--- {kind}: top functions by own time")
                stats.sort_stats("tottime").print_stats(int(os.environ["BENCH_PROFILE_TOP"]))
        connection.close()
    print(f"One submission, µs per request ({N} requests per kind, in-process, cProfile on)")
    print("| part | " + " | ".join(chosen) + " |")
    print("| --- | " + " | ".join("---:" for _ in chosen) + " |")
    for part in results[chosen[0]]:
        print(f"| {part} | " + " | ".join(f"{results[k][part]:.0f}" for k in chosen) + " |")
    if not statements:
        print("(PostgreSQL's own time of the statement left out: pg_stat_statements not readable)")


if __name__ == "__main__":
    main()
