"""Export jobs at a million responses: rows/s of the CSV and ZIP jobs against a bare COPY of
the same rows, the xlsx at a full sheet, and respondents' submission latency while two exports
run (issue 28).

    .venv/bin/python bench/bench_export_jobs.py                  # BENCH_SCALE=100000
    BENCH_SCALE=1000000 .venv/bin/python bench/bench_export_jobs.py   # the documented figures
    BENCH_XLSX=on ...     # also the workbook at 1,048,575 rows (many minutes more)

For each database (BENCH_DATABASES, default PostgreSQL then SQLite): a child process stores
BENCH_SCALE submissions of a 10-question survey with one grouping question (3 options, every
submission answering it), as ``_common.populate`` does, inside the database. Then, each in a
fresh child process:

- baseline (PostgreSQL): ``COPY (SELECT id FROM surveys_submission WHERE survey_id = ...) TO
  STDOUT`` into a file through psycopg, the least any export of these rows can cost;
- csv job and zip job: ``exports.jobs.export_job_run`` (what the worker runs) writing the
  responses CSV, then the ZIP, into its file: rows/s, the ratio to the baseline, rows per CPU
  second of the job's own process, peak RSS; the CSV's lines and SHA-256 checked against the
  job;
- xlsx job (BENCH_XLSX=on): the survey topped up to 1,048,575 responses, the workbook job;
- submissions: gunicorn with the production configuration (2 sync workers) and two
  ``manage.py db_worker`` processes (as docs/deploying.md runs them: beside the web workers,
  never in them); the median and 95th percentile latency of sequential submissions (one
  respondent) while idle, then while both workers write an export of the survey (a CSV and a
  ZIP, requested through the API: 202), until they finish. Target: median ≤ 2× idle.
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import _common

TARGET_ROWS_PER_SECOND = 100_000
XLSX_ROWS = 1_048_575  # an Excel sheet's rows, less the header
LATENCY_SAMPLES_IDLE = int(os.environ.get("BENCH_LATENCY_SAMPLES", "40"))
OPTIONS = ("North", "South", "=East")  # one label that the CSV escapes


def _peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child_populate(scale):
    _common.django_setup()
    from django.contrib.auth import get_user_model

    from surveys import services
    from surveys.services import grouping, tokens

    owner = get_user_model().objects.create_user("bench-researcher")
    survey = services.survey_create(
        owner=owner,
        title="Benchmark survey",
        questions=[f"Sensitive question {i + 1}?" for i in range(_common.QUESTIONS)],
    )
    grouping.grouping_question_add(survey=survey, text="Region?", options=list(OPTIONS))
    survey = services.survey_open(survey=survey)
    top_up(survey, scale)
    token = tokens.token_issue(user=owner, name="benchmark").key
    print(json.dumps({"survey": survey.pk, "token": token}))


def top_up(survey, total):
    """``survey`` grown to ``total`` submissions, each with a grouping answer (in SQL)."""
    from django.db import connection, transaction

    _common.populate(survey, total=total)
    gq = survey.grouping_questions.get()
    options = list(gq.options.order_by("position").values_list("id", flat=True))
    if connection.vendor == "postgresql":
        pick = "(ARRAY[%s, %s, %s])[1 + floor(random() * 3)::int]"
        key = "(random() * 9e18)::bigint"
    else:
        pick = "CASE abs(random()) %% 3 WHEN 0 THEN %s WHEN 1 THEN %s ELSE %s END"
        key = "random()"
    with transaction.atomic(), connection.cursor() as cursor:
        # The submissions without an answer first, into a table of their own: reading the
        # answers' index while inserting into it is slow on PostgreSQL.
        cursor.execute(
            "CREATE TEMPORARY TABLE bench_pending AS SELECT s.id FROM surveys_submission s "
            "WHERE s.survey_id = %s AND NOT EXISTS (SELECT 1 FROM surveys_groupanswer a "
            "WHERE a.submission_id = s.id)",
            [survey.pk],
        )
        cursor.execute(
            "INSERT INTO surveys_groupanswer (id, submission_id, grouping_question_id, option_id) "
            f"SELECT {key}, p.id, %s, {pick} FROM bench_pending p",
            [gq.pk, *options],
        )
        cursor.execute("DROP TABLE bench_pending")
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    survey.refresh_from_db()


def _run_job(survey_id, kind):
    from surveys.exports import jobs as export_files
    from surveys.models import Survey
    from surveys.selectors.export_jobs import export_path
    from surveys.services import export_jobs

    survey = Survey.objects.get(pk=survey_id)
    owner = survey.owner
    job = export_jobs.export_job_start(survey=survey, user=owner, kind=kind, options={})
    started, cpu = time.perf_counter(), time.process_time()
    done = export_files.export_job_run(job_id=job.pk)
    seconds = time.perf_counter() - started
    # The job's own CPU time: on a loaded machine the wall time is mostly waiting for a core
    # (this process's, or the database's), and this says what the code itself costs.
    return done, seconds, time.process_time() - cpu, export_path(done)


def child_job(kind, survey_id, scale):
    """One export job of ``kind`` (``reports``: the responses CSV, ``zip``, ``xlsx``) as the
    worker runs it; the file checked against the job: its rows, and for the CSV its lines and
    SHA-256."""
    _common.django_setup(migrate=False)
    if kind == "xlsx" and scale == XLSX_ROWS:
        from surveys.models import Survey

        top_up(Survey.objects.get(pk=survey_id), XLSX_ROWS)
    job, seconds, cpu, path = _run_job(survey_id, kind)
    assert job.rows == scale, (job.rows, scale)
    if kind == "reports":
        digest = hashlib.sha256()
        lines = 0
        with open(path, "rb") as handle:
            while block := handle.read(2**20):
                digest.update(block)
                lines += block.count(b"\n")
        assert lines - 1 == scale, (lines, scale)
        assert digest.hexdigest() == job.sha256
    size = path.stat().st_size
    path.unlink()
    print(
        json.dumps(
            {
                "seconds": seconds,
                "cpu": cpu,
                "rows": job.rows,
                "mb": size / 2**20,
                "rss": _peak_rss_mb(),
            }
        )
    )


def child_copy_baseline(survey_id, scale, directory):
    """The least any export of these rows can cost: PostgreSQL sends each submission's id
    (``COPY (SELECT id ...) TO STDOUT``, nothing computed, no order) into a file, through the
    same psycopg COPY as the job."""
    _common.django_setup(migrate=False)
    import psycopg
    from django.conf import settings

    db = settings.DATABASES["default"]
    target = Path(directory) / f"copy-{uuid.uuid4().hex}.csv"
    query = f"SELECT id FROM surveys_submission WHERE survey_id = {int(survey_id)}"
    rows = 0
    started = time.perf_counter()
    with (
        psycopg.connect(
            host=db["HOST"], port=db["PORT"], user=db["USER"], dbname=db["NAME"]
        ) as conn,
        conn.cursor() as cursor,
        open(target, "wb", buffering=2**20) as handle,
        cursor.copy(f"COPY ({query}) TO STDOUT") as copy,
    ):
        for data in copy:
            handle.write(data)
            rows += 1
    seconds = time.perf_counter() - started
    target.unlink()
    assert rows == scale, (rows, scale)
    print(json.dumps({"seconds": seconds, "rows": rows}))


def submissions_under_exports(url, made, directory):
    """Median submission latency idle and while two export jobs run (seconds)."""
    from tests.live import gunicorn_server

    env = {
        "RESPONSE_RATE_LIMIT": "off",
        "LOG_LEVEL": "WARNING",
        "EXPORT_DIR": str(directory),
        "EXPORT_JOB_THRESHOLD": "1000",
    }
    with gunicorn_server(
        workers=2,
        debug=False,
        env=env,
        database_url=url,
        args=("-c", "deploy/gunicorn.conf.py", "--access-logfile", "/dev/null"),
    ) as server:
        worker_env = {**server.env, **env}
        workers = [
            subprocess.Popen(
                [sys.executable, "manage.py", "db_worker", "--no-reload", "--interval", "0.2"],
                cwd=_common.ROOT,
                env=worker_env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            for _worker in range(2)
        ]
        try:
            return _latencies(server, made)
        finally:
            for worker in workers:
                worker.terminate()
            for worker in workers:
                worker.wait(timeout=60)


def _latencies(server, made):
    survey_id, token = made["survey"], made["token"]
    auth = {"Authorization": f"Token {token}"}
    info = json.loads(server.request("GET", f"/api/v1/surveys/{survey_id}/", headers=auth)[2])
    slug = info["slug"]
    definition = json.loads(server.request("GET", f"/api/v1/public/surveys/{slug}/")[2])
    question_ids = [q["id"] for q in definition["questions"]]
    group = definition["grouping_questions"][0]
    counter = iter(range(10**9))

    def submit():
        n = next(counter)
        body = {
            "submission_id": str(uuid.uuid4()),
            "answers": {str(q): (n >> i) & 1 == 1 for i, q in enumerate(question_ids)},
            "groups": {str(group["id"]): str(group["options"][n % 3]["id"])},
        }
        started = time.perf_counter()
        status, _headers, _body = server.request(
            "POST",
            f"/api/v1/public/surveys/{slug}/responses/",
            body=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
        )
        assert status == 201, status
        return time.perf_counter() - started

    for _warm in range(10):
        submit()
    idle = [submit() for _sample in range(LATENCY_SAMPLES_IDLE)]
    jobs = []
    for name in ("responses.csv", "export.zip"):
        status, _headers, body = server.request(
            "GET", f"/api/v1/surveys/{survey_id}/{name}", headers=auth, timeout=60
        )
        assert status == 202, (name, status, body[:200])
        jobs.append(json.loads(body)["url"].split(server.url, 1)[-1])
    busy, running_seen = [], False
    started = time.perf_counter()
    while True:
        states = [
            json.loads(server.request("GET", path, headers=auth)[2])["status"] for path in jobs
        ]
        if all(state in {"done", "failed"} for state in states):
            break
        running_seen = running_seen or "running" in states
        if running_seen:
            busy.extend(submit() for _sample in range(5))
        else:
            time.sleep(0.1)
    assert states == ["done", "done"], states
    return {
        "idle_ms": 1000 * statistics.median(idle),
        "idle_p95_ms": 1000 * sorted(idle)[int(0.95 * (len(idle) - 1))],
        "busy_ms": 1000 * statistics.median(busy) if busy else None,
        "busy_p95_ms": 1000 * sorted(busy)[int(0.95 * (len(busy) - 1))] if busy else None,
        "busy_samples": len(busy),
        "exports_seconds": time.perf_counter() - started,
    }


def _job_row(engine, label, job, baseline):
    rate = job["rows"] / job["seconds"]
    return [
        engine,
        label,
        f"{job['seconds']:.1f}",
        f"{rate:,.0f}",
        f"{job['rows'] / job['cpu']:,.0f}",
        f"{job['rss']:.0f}",
        f"{rate / baseline:.2f}" if baseline else "–",
    ]


def _on(name):
    return os.environ.get(name, "off").lower() in {"on", "1", "yes", "true"}


def main():
    import tempfile

    scale = _common.bench_scale()
    print(f"Export jobs: 10-question survey with a grouping question, {scale:,} submissions")
    print(f"Machine: {_common.machine()}")
    wanted = [e for e in ("postgresql", "sqlite") if e in _common.engines()]
    job_rows, latency_rows, baselines = [], [], []
    for engine in wanted:
        with (
            _common.scratch_database(engine) as url,
            tempfile.TemporaryDirectory(prefix="rrsurvey-bench-exports-") as directory,
        ):
            env = _common.production_env(url, EXPORT_DIR=directory)
            made = _common.run_child(__file__, "--populate", str(scale), env=env)
            survey = str(made["survey"])
            baseline = None
            if engine == "postgresql":
                copy = _common.run_child(__file__, "--copy", survey, str(scale), directory, env=env)
                baseline = copy["rows"] / copy["seconds"]
                baselines.append([engine, f"{copy['seconds']:.2f}", f"{baseline:,.0f}"])
            for kind, label in (("reports", "csv job"), ("zip", "zip job")):
                job = _common.run_child(__file__, "--job", kind, survey, str(scale), env=env)
                job_rows.append(_job_row(engine, label, job, baseline))
            latency = submissions_under_exports(url, made, directory)
            busy = latency["busy_ms"]
            latency_rows.append(
                [
                    engine,
                    f"{latency['idle_ms']:.1f}",
                    f"{latency['idle_p95_ms']:.1f}",
                    f"{busy:.1f}" if busy else "–",
                    f"{latency['busy_p95_ms']:.1f}" if busy else "–",
                    latency["busy_samples"],
                    f"{busy / latency['idle_ms']:.2f}" if busy else "–",
                    f"{latency['exports_seconds']:.1f}",
                ]
            )
            if _on("BENCH_XLSX"):
                xlsx = _common.run_child(
                    __file__, "--job", "xlsx", survey, str(XLSX_ROWS), env=env, timeout=7200
                )
                job_rows.append(_job_row(engine, "xlsx job, a full sheet", xlsx, None))
    print()
    print(_common.table(["database", "bare COPY s", "bare COPY rows/s"], baselines))
    print(
        "\nBaseline: `COPY (SELECT id FROM surveys_submission WHERE survey_id = ...) TO STDOUT` "
        "into a file, the least any export of these rows can cost.\n"
    )
    print(
        _common.table(
            [
                "database",
                "export",
                "seconds",
                "rows/s",
                "rows per CPU s",
                "peak RSS MB",
                "job / bare COPY",
            ],
            job_rows,
        )
    )
    print(
        f"\nTarget: csv job ≥ {TARGET_ROWS_PER_SECOND:,} rows/s. Rows per CPU s: rows over "
        "the job process's own CPU time (the database's work is on its own processes).\n"
    )
    print(
        _common.table(
            [
                "database",
                "idle median ms",
                "idle p95 ms",
                "during exports median ms",
                "during p95 ms",
                "samples",
                "median ratio",
                "exports s",
            ],
            latency_rows,
        )
    )
    print("\nSubmissions one at a time; target: median during exports ≤ 2× idle.")


if __name__ == "__main__":
    command = sys.argv[1:2]
    if command == ["--populate"]:
        child_populate(int(sys.argv[2]))
    elif command == ["--job"]:
        child_job(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif command == ["--copy"]:
        child_copy_baseline(sys.argv[2], int(sys.argv[3]), sys.argv[4])
    else:
        main()
