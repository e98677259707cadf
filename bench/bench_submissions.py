"""Submission throughput of the public endpoint against a bare Django INSERT, same server.

    .venv/bin/python bench/bench_submissions.py     # or: make bench
    BENCH_SECONDS=20 BENCH_CLIENTS=8 WEB_CONCURRENCY=2 .venv/bin/python bench/bench_submissions.py

For each database (SQLite, and PostgreSQL when reachable) one gunicorn (tests/live.py's, with
the production configuration deploy/gunicorn.conf.py, DEBUG off, no rate limit, WEB_CONCURRENCY
sync workers, default 2) serves all the endpoints measured:

- public: ``POST /api/v1/public/surveys/<slug>/responses/``, the real respondent path (10
  randomized bits for a 10-question survey, a fresh submission id each);
- floor: ``POST /bench/bare-insert/<id>/`` (bench/urls.py, routed only by bench/settings.py):
  a plain Django view that parses the same JSON body and INSERTs one submission row with it,
  unchecked;
- public, spread: the same requests cycling over 8 such surveys, so concurrent submissions
  never update the same survey's tally row: the gap to "public" is what that row's lock
  costs (the case for sharded counters).

A Python load generator on loopback (BENCH_CLIENTS threads, default 8, each with http.client;
the sync workers close every connection, so each request is a new connection for all) drives
each endpoint for BENCH_SECONDS (default 3) after a warm-up, in turn (public, floor, spread),
for BENCH_ROUNDS rounds (default 12). The figure of merit is public / floor (target >= 0.7 on
PostgreSQL), taken within each round, where both ran back to back, and summarised by the
median and the range over the rounds: on a shared machine the speed of everything drifts by
tens of percent over minutes, which a ratio of whole-run means would mix into the result, and
many short rounds give a steadier median than a few long ones.
"""

from __future__ import annotations

import http.client
import json
import os
import statistics
import sys
import threading
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import _common

from tests.live import gunicorn_server

SECONDS = float(os.environ.get("BENCH_SECONDS", "3"))
CLIENTS = int(os.environ.get("BENCH_CLIENTS", "8"))
WORKERS = int(os.environ.get("WEB_CONCURRENCY", "2"))
WARMUP_SECONDS = 2.0
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "12"))
FLOOR = "bare INSERT view"

CREATE_SURVEYS = """
import json
from django.contrib.auth import get_user_model
from surveys import services
owner = get_user_model().objects.create_user("bench-owner")
made = []
for n in range(SPREAD):
    survey = services.survey_create(
        owner=owner, title=f"Bench {n}", questions=[f"Question {i}?" for i in range(10)]
    )
    survey = services.survey_open(survey=survey)
    made.append({"id": survey.pk, "slug": survey.slug,
                 "question_ids": list(survey.questions.values_list("id", flat=True))})
print(json.dumps(made))
""".replace("SPREAD", "8")


def drive(server, make_request, *, seconds):
    """``CLIENTS`` threads POSTing for ``seconds``; returns (requests/s, latencies ms, errors)."""
    stop = time.monotonic() + seconds
    latencies = []
    errors = []
    lock = threading.Lock()

    def client():
        mine = []
        conn = None
        while time.monotonic() < stop:
            path, body = make_request()
            body = json.dumps(body).encode()
            if conn is None:
                conn = http.client.HTTPConnection(server.host, server.port, timeout=30)
            started = time.perf_counter()
            try:
                conn.request("POST", path, body, {"Content-Type": "application/json"})
                response = conn.getresponse()
                response.read()
            except (OSError, http.client.HTTPException) as exc:
                with lock:
                    errors.append(repr(exc))
                conn.close()
                conn = None
                continue
            mine.append((time.perf_counter() - started) * 1000)
            if response.status != 201:
                with lock:
                    errors.append(response.status)
            if response.will_close:
                conn.close()
                conn = None
        with lock:
            latencies.extend(mine)

    began = time.monotonic()
    threads = [threading.Thread(target=client) for _ in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - began
    return len(latencies) / elapsed, latencies, errors


def measure(engine):
    if engine == "postgresql":
        os.environ["DATABASE_URL"] = _common.POSTGRES_URL
    else:
        os.environ.pop("DATABASE_URL", None)
    env = {
        "DJANGO_SETTINGS_MODULE": "bench.settings",
        "RESPONSE_RATE_LIMIT": "off",
        "LOG_LEVEL": "WARNING",
    }
    with gunicorn_server(
        workers=WORKERS,
        debug=False,
        env=env,
        # The production configuration, but workers are not recycled (max_requests): a new
        # worker serves nothing for a second or more while it loads Django, which lands in
        # whichever endpoint's round is running and swamps the difference being measured.
        args=(
            "-c",
            "deploy/gunicorn.conf.py",
            "--access-logfile",
            "/dev/null",
            "--max-requests",
            "0",
        ),
    ) as server:
        surveys = json.loads(server.manage("shell", "-c", CREATE_SURVEYS).strip().splitlines()[-1])
        survey = surveys[0]
        counter = iter(range(10**12))

        def body_for(target):
            n = next(counter)
            ids = target["question_ids"]
            return {
                "submission_id": str(uuid.uuid4()),
                "answers": {str(qid): (n >> i) & 1 == 1 for i, qid in enumerate(ids)},
            }

        class Spread:
            """Successive requests cycle through all the surveys (a different slug each)."""

            def __init__(self):
                self.turn = iter(range(10**12))

            def __call__(self):
                target = surveys[next(self.turn) % len(surveys)]
                return f"/api/v1/public/surveys/{target['slug']}/responses/", body_for(target)

        targets = {
            "public endpoint": lambda: (
                f"/api/v1/public/surveys/{survey['slug']}/responses/",
                body_for(survey),
            ),
            # Same bytes on the wire; the view stores them unchecked. Run right after the
            # public endpoint in every round: the ratio compares neighbours.
            FLOOR: lambda: (f"/bench/bare-insert/{survey['id']}/", body_for(survey)),
            # Same code, but no two concurrent submissions update the same survey's tally row:
            # the gap to "public endpoint" is what that row's lock costs.
            f"public, spread over {len(surveys)} surveys": Spread(),
        }
        results = {name: {"rates": [], "latencies": [], "errors": []} for name in targets}
        for make_request in targets.values():
            drive(server, make_request, seconds=WARMUP_SECONDS)
        for _round in range(ROUNDS):
            for name, make_request in targets.items():
                rate, latencies, errors = drive(server, make_request, seconds=SECONDS)
                results[name]["rates"].append(rate)
                results[name]["latencies"].extend(latencies)
                results[name]["errors"].extend(errors)
        return results


def main():
    print(
        f"Submission throughput: {CLIENTS} client threads, gunicorn with {WORKERS} sync workers, "
        f"{ROUNDS} x {SECONDS:g} s per endpoint (alternating)"
    )
    print(f"Machine: {_common.machine()}")
    rows = []
    failures = []
    for engine in _common.engines():
        results = measure(engine)
        floor_rates = results[FLOOR]["rates"]
        for name, r in results.items():
            latencies = sorted(r["latencies"])
            ratios = sorted(
                rate / floor for rate, floor in zip(r["rates"], floor_rates, strict=True)
            )
            rows.append(
                [
                    engine,
                    name,
                    f"{statistics.mean(r['rates']):,.0f}",
                    f"{statistics.median(latencies):.1f}",
                    f"{latencies[int(0.95 * len(latencies)) - 1]:.1f}",
                    len(r["errors"]),
                    f"{statistics.median(ratios):.2f}",
                    f"{ratios[0]:.2f}–{ratios[-1]:.2f}",
                ]
            )
            if r["errors"]:
                failures.append(f"{engine} {name}: {r['errors'][:5]}")
    print()
    print(
        _common.table(
            [
                "database",
                "endpoint",
                "requests/s",
                "median ms",
                "p95 ms",
                "errors",
                "ratio",
                "ratio range",
            ],
            rows,
        )
    )
    print(
        f"\nratio = requests/s relative to the {FLOOR} in the same round, same server and"
        f" database: median (and range) over {ROUNDS} rounds."
    )
    print("Target: public endpoint >= 0.7 x the bare INSERT on PostgreSQL.")
    if failures:
        raise SystemExit("Errors during the run:\n" + "\n".join(failures))


if __name__ == "__main__":
    main()
