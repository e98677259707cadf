"""Every researcher page and API, the export jobs and a release at 1,000 vs BENCH_SCALE
responses (issues 28 and 34).

    .venv/bin/python bench/bench_scale.py                       # 1,000 vs 100,000
    BENCH_SCALE=1000000 .venv/bin/python bench/bench_scale.py   # 1,000, 200,000 and 1,000,000
    BENCH_SCALE=10000000 ...                                    # and 10,000,000
    BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/h_scale ...   # a database kept

On PostgreSQL (the production case), by default on a scratch database; with
BENCH_DATABASE_URL on a database kept between runs (created when missing), so that a large
load is made once and measured again. At each size, one survey shaped like the demo
(``manage.py seed_demo``: four yes/no questions under the classic design, one under Warner's,
one multiple-choice and one numeric question; ONE grouping question of three options, the
shape where the regression shows each coefficient's exact interval, issue 34), owned by a
researcher of its own (so each size's dashboard lists its own survey), its public page on,
releasing every 7 days. Its responses are drawn from the demo's population and stored through
the simulation service (``services.simulated_submissions_record``, received over the last 20
days), by BENCH_LOADERS processes at once (default 1), in chunks of 100,000 rows (on PostgreSQL by
COPY, ``simulation_bulk``); the load rate is printed as it goes.
Loading is not timed below.

At each size a fresh child process (nothing loaded before) times each request through
Django's whole stack in-process (middleware, sign-in, view, template or JSON; the test
client, no network): one untimed warm-up, then the median of BENCH_REQUESTS (default 5); each
time is printed as a ratio to the 1,000's of the same run. "release made" is the public
page's releases made from scratch (what a page view does once per release period), timed the
same way. The
worker's peak memory is the child's ``ru_maxrss`` after its requests, and what the requests
added to what Django and the app take once loaded. Then each export job (``_scale_jobs``) in a
fresh process at 1,000 and at the scale: seconds, rows/s, peak memory; and submissions to the
large survey idle and while the worker writes its CSV and ZIP (gunicorn, two ``db_worker``).
BENCH_JOBS=off and BENCH_UNDER_EXPORTS=off skip those; BENCH_JOBS=reports,zip runs those jobs
only. Targets (issue 34): every page and API ratio <= 2 and < 1 s; worker memory flat; CSV job
>= 100,000 rows/s.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common
import _scale_jobs

SMALL = 1000
# Loader processes at once (BENCH_LOADERS): on a shared machine each gets a share of the cores.
LOADERS = int(os.environ.get("BENCH_LOADERS", "1"))
REGRESSION_SIZE = 200_000  # issue 34: the regression at 200k and 1M, one grouping question
MILLION = 1_000_000
REQUESTS = int(os.environ.get("BENCH_REQUESTS", "5"))
DAYS = 20  # responses are spread over the last DAYS days
YEARS = ("Under 1 year", "1 to 5 years", "5 to 10 years", "Over 10 years")


def _rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _owner(size):
    """The researcher owning the surveys of ``size`` responses (one per size, so that each
    size's dashboard lists its own survey)."""
    from django.contrib.auth import get_user_model

    user, _made = get_user_model().objects.get_or_create(username=f"bench-scale-{size}")
    return user


def _grow(survey, size, *, have, part=0, parts=1):
    """Add to ``survey`` (which had ``have`` responses) its share of the ``size - have``
    missing: one call of the simulation service per day of the last DAYS, this loader's days
    those with ``day % parts == part``; the load rate on stderr, day by day."""
    import numpy as np
    from django.utils import timezone

    from surveys import services
    from surveys.management.commands import seed_demo

    rng = np.random.default_rng(size * parts + part + 1)
    options = [o.pk for o in survey.grouping_questions.get().options.all()]
    missing, today = size - have, timezone.now().date()
    for day in range(part, DAYS, parts):
        n = missing // DAYS + (missing % DAYS if day == 0 else 0)
        if n <= 0:
            continue
        started = time.perf_counter()
        services.simulated_submissions_record(
            survey=survey,
            reports=services.simulated_reports_draw(
                survey=survey, shares=seed_demo.true_values(), n=n, rng=rng
            ),
            options=rng.choice(options, size=(n, 1)).tolist(),
            received_on=today - timedelta(days=DAYS - day),
        )
        seconds = time.perf_counter() - started
        print(
            f"{survey.title}: day {day + 1} of {DAYS}, {n:,} ({n / seconds:,.0f} rows/s)",
            file=sys.stderr,
            flush=True,
        )


def _grow_in_parallel(survey, size):
    """BENCH_LOADERS processes at once, each ``_grow`` of its days (on a busy machine one
    process gets a share of the cores, several get more). Each chunk adds to the tallies in
    its own transaction, taking the rows' locks in one order (``simulation_bulk``)."""
    have = survey.response_count
    loaders = [
        subprocess.Popen(
            [sys.executable, __file__, "--child", "load-part", str(size), json.dumps(part)],
            cwd=_common.ROOT,
        )
        for part in (
            {"survey": survey.pk, "have": have, "part": k, "parts": LOADERS} for k in range(LOADERS)
        )
    ]
    failed = [loader.args for loader in loaders if loader.wait() != 0]
    assert not failed, failed


def _load_part(size, part):
    from surveys.models import Survey

    survey = Survey.objects.get(pk=part["survey"])
    _grow(survey, size, have=part["have"], part=part["part"], parts=part["parts"])


def _load(size):
    """The demo-shaped survey of ``size`` responses, made on the first call and grown after;
    its public page on, releasing every 7 days from DAYS days ago. Its ids."""
    from django.utils import timezone

    from surveys import services
    from surveys.management.commands import seed_demo
    from surveys.models import Survey
    from surveys.services import grouping, public_release, tokens

    title = f"{seed_demo.DEMO_TITLE} (one grouping question), {size:,}"
    survey = Survey.objects.filter(title=title).first()
    if survey is None:
        survey = services.survey_create(
            owner=_owner(size), title=title, questions=list(seed_demo.DEMO_QUESTIONS), min_n=30
        )
        grouping.grouping_question_add(
            survey=survey,
            text=seed_demo.DEMO_GROUPING_QUESTION,
            options=[label for label, _n, _truths in seed_demo.DEMO_DEPARTMENTS],
        )
        survey = services.survey_open(survey=survey)
    if not survey.public_results:
        public_release.public_results_update(
            survey=survey,
            enabled=True,
            epsilon=1.0,
            release_days=7,
            releases=20,
            today=timezone.now().date() - timedelta(days=DAYS),
        )
        survey.refresh_from_db()
    if survey.response_count < size:
        if LOADERS > 1:
            _grow_in_parallel(survey, size)
        else:
            _grow(survey, size, have=survey.response_count)
        survey.refresh_from_db()
        assert survey.response_count == size, (survey.response_count, size)
    key = tokens.token_issue(user=survey.owner, name=f"bench {size}").key
    return {"survey": survey.pk, "slug": survey.slug, "token": key}


def _timed(client, path, headers):
    start = time.perf_counter()
    response = client.get(path, **headers)
    if response.streaming:
        b"".join(response.streaming_content)
    return response.status_code, (time.perf_counter() - start) * 1000


def _measure(ids):
    from django.test import Client

    from surveys.models import PublicRelease, Survey
    from surveys.services import public_release
    from tests.routes import response_routes

    survey = Survey.objects.get(pk=ids["survey"])
    # The releases remade from the day counts stored now: one warm-up, then the median of
    # REQUESTS (the first is this process's first read of the database, whatever the size).
    samples = []
    for _ in range(REQUESTS + 1):
        PublicRelease.objects.filter(survey=survey).delete()
        started = time.perf_counter()
        public_release.make_due_releases(survey=Survey.objects.get(pk=survey.pk))
        samples.append((time.perf_counter() - started) * 1000)
    results = {"release made": {"median": statistics.median(samples[1:])}}
    pages, api = Client(), Client()
    pages.force_login(survey.owner)
    token = {"HTTP_AUTHORIZATION": f"Token {ids['token']}"}
    loaded = _rss_mib()
    routes = response_routes(survey_id=ids["survey"], slug=ids["slug"])
    for name, (path, is_api) in routes.items():
        client, headers = (api, token) if is_api else (pages, {})
        status, _ms = _timed(client, path, headers)  # the warm-up
        if status != 200:
            results[name] = {"status": status}
            continue
        samples = []
        for _ in range(REQUESTS):
            status, ms = _timed(client, path, headers)
            assert status == 200, (path, status)
            samples.append(ms)
        results[name] = {"median": statistics.median(samples)}
    results["memory"] = {"loaded": loaded, "peak": _rss_mib()}
    return results


def child(step, size, arg):
    _common.django_setup(migrate=step == "load")
    if step == "load":
        print(json.dumps(_load(size)))
    elif step == "load-part":
        _load_part(size, json.loads(arg))
    elif step == "measure":
        print(json.dumps(_measure(json.loads(arg))))
    else:
        print(json.dumps(_scale_jobs.child_job(step.removeprefix("job-"), int(arg), size)))


def _run(*args, env, passthrough=False):
    """A child of this script; its last stdout line as JSON (stderr shown when
    ``passthrough``: the load's progress)."""
    if not passthrough:
        return _common.run_child(__file__, *args, env=env, timeout=6 * 3600)
    result = subprocess.run(
        [sys.executable, __file__, *args],
        cwd=_common.ROOT,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
        check=True,
        timeout=6 * 3600,
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


@contextmanager
def _database():
    """BENCH_DATABASE_URL: a PostgreSQL database kept between runs (created when missing), so
    that a large load is made once and measured again; else a scratch database."""
    url = os.environ.get("BENCH_DATABASE_URL")
    if not url:
        with _common.scratch_database("postgresql") as scratch:
            yield scratch
        return
    import psycopg

    name = urlsplit(url).path.lstrip("/")
    with psycopg.connect(_common.POSTGRES_URL, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')
    yield url


def _sizes(scale):
    """1,000, then 200,000 and 1,000,000 where the scale is above them (the regression at 200k
    and 1M, issue 34), the scale."""
    return [SMALL, *(size for size in (REGRESSION_SIZE, MILLION) if SMALL < size < scale), scale]


def main():
    scale = _common.bench_scale()
    sizes = _sizes(scale)
    if not os.environ.get("BENCH_DATABASE_URL") and not _common.postgres_available():
        print("(PostgreSQL not reachable at BENCH_POSTGRES_URL: bench_scale.py skipped)")
        return
    print(f"Researcher pages and APIs, demo-shaped surveys, {SMALL:,} vs {scale:,} responses")
    print(f"Machine: {_common.machine()}; median of {REQUESTS} requests after one warm-up")
    print(f"Load average at the start: {os.getloadavg()}")
    measured, jobs, loads = {}, {}, []
    with _common.collected_static() as static_root, _database() as url:
        env = _common.production_env(url, STATIC_ROOT=static_root)
        ids = {}
        for size in sizes:
            started = time.perf_counter()
            ids[size] = _run("--child", "load", str(size), "", env=env, passthrough=True)
            loads.append([f"{size:,}", f"{time.perf_counter() - started:.0f}"])
        for size in sizes:
            measured[size] = _run("--child", "measure", str(size), json.dumps(ids[size]), env=env)
        if _scale_jobs.kinds():
            for size in (SMALL, scale):
                jobs[size] = {
                    kind: _run(
                        "--child", f"job-{kind}", str(size), str(ids[size]["survey"]), env=env
                    )
                    for kind in _scale_jobs.kinds()
                }
        under = None
        if os.environ.get("BENCH_UNDER_EXPORTS", "on") != "off":
            with tempfile.TemporaryDirectory(prefix="rrsurvey-bench-exports-") as directory:
                under = _scale_jobs.submissions_under_exports(url, ids[scale], directory)
    # Kept whole, so that the numbers outlive a table's formatting.
    saved = Path(tempfile.gettempdir()) / f"bench_scale_{scale}.json"
    saved.write_text(json.dumps({"measured": measured, "jobs": jobs, "under": under}))
    print(f"\n(every figure in {saved})")
    print(_common.table(["responses", "load s (not timed below)"], loads))
    print()
    print(_scale_jobs.request_table(measured, sizes))
    print()
    print(_scale_jobs.memory_table(measured, sizes))
    if jobs:
        print()
        print(_scale_jobs.jobs_table(jobs, SMALL, scale))
    if under:
        print()
        print(_scale_jobs.under_exports_table(under, scale))
    print(f"\nLoad average at the end: {os.getloadavg()}")
    print("Targets: every page and API ratio <= 2 and < 1 s; worker memory flat; CSV job >= ")
    print("100,000 rows/s; submissions while two exports run <= 2x idle.")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2], int(sys.argv[3]), sys.argv[4])
    else:
        main()
