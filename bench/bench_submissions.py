"""Submission throughput of the public endpoint against bare Django INSERTs, same run.

    .venv/bin/python bench/bench_submissions.py     # or: make bench
    BENCH_SECONDS=20 BENCH_CLIENTS=8 WEB_CONCURRENCY=2 .venv/bin/python bench/bench_submissions.py

For each database (SQLite, and PostgreSQL when reachable) two gunicorns run side by side
(tests/live.py's, with the production configuration deploy/gunicorn.conf.py, DEBUG off, no
rate limit, WEB_CONCURRENCY sync workers, default 2), each on its own scratch database:

- the project (``bench.settings``) serves
  - public: ``POST /api/v1/public/surveys/<slug>/responses/``, the real respondent path (10
    randomized bits for a 10-question survey, a fresh submission id each);
  - public, grouped: the same to a survey that also has one grouping question of four
    options (like the demo), each body naming one option;
  - public, spread: the plain requests cycling over 8 such surveys, so concurrent submissions
    never count on the same survey's rows: "8 surveys vs 1" (spread / public) is what those
    rows' locks cost;
  - public, typed: a survey of 8 yes/no questions, one multiple-choice question of four
    options and one numeric question (0-30), each body with bits, an option index and a
    number: the typed form of the one statement (services/submissions/postgres.py);
  - public, first response: each request is the first response to a survey opened and never
    answered (BENCH_FIRST_RESPONSES of them per round, default 300; this row runs for that
    count, not for BENCH_SECONDS);
  - ORM only (PostgreSQL): ``/bench/orm-only/...``, the public endpoint with the one-statement
    store switched off (settings.SUBMISSION_STATEMENT), plain and grouped;
  - in-stack floor: ``POST /bench/bare-insert/<id>/`` (bench/urls.py), a plain view that
    parses the same JSON body and INSERTs one submission row with it, unchecked, behind the
    project's middleware;
- the bare app (``bench.bare_settings``: no middleware, one URL) serves the same INSERT view:
  the least the job costs in Django outside this project, the floor the targets are set
  against.

A Python load generator on loopback (BENCH_CLIENTS threads, default 8, each with http.client;
the sync workers close every connection, so each request is a new connection for all) drives
each endpoint for BENCH_SECONDS (default 3) after a warm-up, in turn, for BENCH_ROUNDS rounds
(default 12). Ratios are taken within each round, where the endpoints ran back to back, and
summarised by the median and the range over the rounds: on a shared machine the speed of
everything drifts by tens of percent over minutes, which a ratio of whole-run means would mix
into the result. Targets (PostgreSQL): public and grouped >= 0.7 x the in-stack floor and
>= 0.5 x the bare app; 8 surveys vs 1 >= 0.9; SQLite: >= 0.5 x its in-stack floor.
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
PUBLIC = "public endpoint"
GROUPED = "public, grouped"
SPREAD = "public, spread over 8 surveys"
TYPED = "public, typed (choice + numeric)"
FIRST = "public, first response of a survey"
# Freshly opened surveys for the first-response row: each request answers one of them first,
# so that row runs for a count (this many per round), not for BENCH_SECONDS.
FIRST_PER_ROUND = int(os.environ.get("BENCH_FIRST_RESPONSES", "300"))
FLOOR = "in-stack floor (INSERT view)"
BARE = "bare app floor (no middleware)"

CREATE_SURVEYS = """
import json
from django.contrib.auth import get_user_model
from surveys import services
from surveys.services import grouping
owner = get_user_model().objects.create_user("bench-owner")
made = []
for n in range(10):
    questions = [f"Question {i}?" for i in range(10)]
    if n == 9:
        questions[8] = {"text": "Which?", "type": "choice", "options": ["a", "b", "c", "d"]}
        questions[9] = {"text": "How many?", "type": "numeric", "min": 0, "max": 30}
    survey = services.survey_create(owner=owner, title=f"Bench {n}", questions=questions)
    groups = {}
    if n == 8:
        gq = grouping.grouping_question_add(
            survey=survey, text="Age band?", options=["18-29", "30-49", "50-64", "65+"]
        )
        groups = {gq.pk: list(gq.options.values_list("id", flat=True))}
    survey = services.survey_open(survey=survey)
    made.append({"id": survey.pk, "slug": survey.slug, "groups": groups,
                 "question_ids": list(survey.questions.values_list("id", flat=True)),
                 "kinds": list(survey.questions.values_list("kind", flat=True))})
print(json.dumps(made))
"""

# Surveys opened and never answered (10 questions each, as the plain ones), for the
# first-response row; ``%d`` is how many.
CREATE_FRESH_SURVEYS = """
import json
from django.contrib.auth import get_user_model
from surveys import services
owner = get_user_model().objects.get(username="bench-owner")
made = []
for n in range(%d):
    survey = services.survey_create(
        owner=owner, title=f"Fresh {n}", questions=[f"Question {i}?" for i in range(10)]
    )
    survey = services.survey_open(survey=survey)
    made.append({"id": survey.pk, "slug": survey.slug, "groups": {},
                 "question_ids": list(survey.questions.values_list("id", flat=True))})
print(json.dumps(made))
"""


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
            request = make_request()
            if request is None:  # a row that runs for a count: this round's requests are done
                break
            path, body = request
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


def server(*, settings_module):
    return gunicorn_server(
        workers=WORKERS,
        debug=False,
        env={
            "DJANGO_SETTINGS_MODULE": settings_module,
            "RESPONSE_RATE_LIMIT": "off",
            "LOG_LEVEL": "WARNING",
            # The first-response row opens hundreds of surveys for one bench researcher.
            "MAX_SURVEYS_PER_USER": "1000000",
            "MAX_QUESTIONS_PER_USER": "100000000",
        },
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
    )


def measure(engine):
    if engine == "postgresql":
        os.environ["DATABASE_URL"] = _common.POSTGRES_URL
    else:
        os.environ.pop("DATABASE_URL", None)
    with (
        server(settings_module="bench.settings") as project,
        server(settings_module="bench.bare_settings") as bare,
    ):
        created = json.loads(project.manage("shell", "-c", CREATE_SURVEYS).strip().splitlines()[-1])
        plain, grouped, typed = created[:8], created[8], created[9]
        survey = plain[0]
        bare_survey = json.loads(
            bare.manage("shell", "-c", CREATE_SURVEYS).strip().splitlines()[-1]
        )[0]
        fresh_count = FIRST_PER_ROUND * (ROUNDS + 1)  # and the warm-up
        fresh = json.loads(
            project.manage("shell", "-c", CREATE_FRESH_SURVEYS % fresh_count)
            .strip()
            .splitlines()[-1]
        )
        counter = iter(range(10**12))

        def body_for(target):
            n = next(counter)
            ids = target["question_ids"]
            kinds = target.get("kinds") or ["yes_no"] * len(ids)
            report = {
                "yes_no": lambda i: (n >> i) & 1 == 1,
                "choice": lambda i: n % 4,  # an option index of four
                "numeric": lambda i: n % 31 - 5,  # a noisy number near 0-30
            }
            body = {
                "submission_id": str(uuid.uuid4()),
                "answers": {
                    str(qid): report[kind](i)
                    for i, (qid, kind) in enumerate(zip(ids, kinds, strict=True))
                },
            }
            if target["groups"]:
                body["groups"] = {
                    gid: options[n % len(options)] for gid, options in target["groups"].items()
                }
            return body

        class Spread:
            """Successive requests cycle through all the plain surveys (a different slug each)."""

            def __init__(self):
                self.turn = iter(range(10**12))

            def __call__(self):
                target = plain[next(self.turn) % len(plain)]
                return f"/api/v1/public/surveys/{target['slug']}/responses/", body_for(target)

        def public(target, prefix="/api/v1/public/surveys"):
            return lambda: (f"{prefix}/{target['slug']}/responses/", body_for(target))

        class FirstResponses:
            """Each request is the first response to a survey opened and never answered; a
            round ends after FIRST_PER_ROUND of them (the warm-up after as many)."""

            def __init__(self):
                self.pool = iter(fresh)
                self.lock = threading.Lock()
                self.left = 0

            def next_round(self):
                self.left = FIRST_PER_ROUND

            def __call__(self):
                with self.lock:
                    if self.left == 0:
                        return None
                    self.left -= 1
                    target = next(self.pool)
                return f"/api/v1/public/surveys/{target['slug']}/responses/", body_for(target)

        first_responses = FirstResponses()

        # Run in this order in every round: the ratios compare neighbours.
        targets = {
            PUBLIC: (project, public(survey)),
            GROUPED: (project, public(grouped)),
            TYPED: (project, public(typed)),
            # Same bytes on the wire; the view stores them unchecked.
            FLOOR: (project, lambda: (f"/bench/bare-insert/{survey['id']}/", body_for(survey))),
            BARE: (bare, lambda: (f"/bench/bare-insert/{bare_survey['id']}/", body_for(survey))),
            SPREAD: (project, Spread()),
            FIRST: (project, first_responses),
        }
        if engine == "postgresql":
            targets["ORM only"] = (project, public(survey, "/bench/orm-only"))
            targets["ORM only, grouped"] = (project, public(grouped, "/bench/orm-only"))
        results = {name: {"rates": [], "latencies": [], "errors": []} for name in targets}
        for target, make_request in targets.values():
            first_responses.next_round()
            drive(target, make_request, seconds=WARMUP_SECONDS)
        for _round in range(ROUNDS):
            first_responses.next_round()
            for name, (target, make_request) in targets.items():
                rate, latencies, errors = drive(target, make_request, seconds=SECONDS)
                results[name]["rates"].append(rate)
                results[name]["latencies"].extend(latencies)
                results[name]["errors"].extend(errors)
        return results


def ratio(rates, baseline):
    """Median and range of ``rates / baseline`` taken round by round."""
    ratios = sorted(rate / base for rate, base in zip(rates, baseline, strict=True))
    return f"{statistics.median(ratios):.2f} ({ratios[0]:.2f}–{ratios[-1]:.2f})"


def main():
    print(
        f"Submission throughput: {CLIENTS} client threads, gunicorn with {WORKERS} sync workers, "
        f"{ROUNDS} x {SECONDS:g} s per endpoint (alternating)"
    )
    print(f"Machine: {_common.machine()}")
    rows = []
    hot_rows = []
    failures = []
    for engine in _common.engines():
        results = measure(engine)
        for name, r in results.items():
            latencies = sorted(r["latencies"])
            rows.append(
                [
                    engine,
                    name,
                    f"{statistics.mean(r['rates']):,.0f}",
                    f"{statistics.median(latencies):.1f}",
                    f"{latencies[int(0.95 * len(latencies)) - 1]:.1f}",
                    len(r["errors"]),
                    ratio(r["rates"], results[FLOOR]["rates"]),
                    ratio(r["rates"], results[BARE]["rates"]),
                ]
            )
            if r["errors"]:
                failures.append(f"{engine} {name}: {r['errors'][:5]}")
        spread = ratio(results[SPREAD]["rates"], results[PUBLIC]["rates"])
        hot_rows.append(f"{engine}: 8 surveys vs 1 = {spread}")
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
                "x in-stack floor",
                "x bare app",
            ],
            rows,
        )
    )
    print()
    print("\n".join(hot_rows))
    print(
        f"\nx floor = requests/s relative to that floor in the same round, same database: median"
        f" (and range) over {ROUNDS} rounds. 8 surveys vs 1 = {SPREAD} / {PUBLIC}, the same way."
    )
    print(
        "Targets: PostgreSQL public and grouped >= 0.7 x in-stack floor and >= 0.5 x bare app;"
        " 8 surveys vs 1 >= 0.9; SQLite >= 0.5 x its in-stack floor."
    )
    if failures:
        raise SystemExit("Errors during the run:\n" + "\n".join(failures))


if __name__ == "__main__":
    main()
