"""Export jobs at two sizes: rows/s and the worker's peak memory of every export (the responses
CSV, the ZIP, the Excel workbook, SPSS, Stata) at BENCH_SCALE / 10 and BENCH_SCALE responses,
so that "flat" is read from one run; the CSV against a bare COPY of the same rows; and
respondents' submission latency while two exports run (issues 28, 34).

    .venv/bin/python bench/bench_export_jobs.py                  # 10,000 and 100,000
    BENCH_SCALE=1000000 .venv/bin/python bench/bench_export_jobs.py   # 100,000 and 1,000,000
    BENCH_XLSX=on ...     # also the workbook at 1,048,575 rows (many minutes more)

For each database (BENCH_DATABASES, default PostgreSQL then SQLite): a child process stores
BENCH_SCALE / 10 submissions of a 10-question survey with one grouping question (3 options,
every submission answering it), as ``_common.populate`` does, inside the database; each export
job runs in a fresh child process (``_scale_jobs.child_job``: ``exports.jobs.export_job_run``,
what the worker runs), its rows checked, and for the CSV its lines and SHA-256; its time,
rows/s, rows per CPU second of its own process and its peak RSS (``ru_maxrss``: the worker's
memory, Django included). The survey then grows to BENCH_SCALE and every job runs again.
Then:

- baseline (PostgreSQL): ``COPY (SELECT id FROM surveys_submission WHERE survey_id = ...) TO
  STDOUT`` into a file through psycopg, the least any export of these rows can cost;
- xlsx job (BENCH_XLSX=on): the survey topped up to 1,048,575 responses, the workbook job;
- submissions: gunicorn with the production configuration (2 sync workers) and two
  ``manage.py db_worker`` processes (as docs/deploying.md runs them: beside the web workers,
  never in them); the median and 95th percentile latency of sequential submissions (one
  respondent) while idle, then while both workers write an export of the survey (a CSV and a
  ZIP, requested through the API: 202), until they finish
  (``_scale_jobs.submissions_under_exports``). Target: median ≤ 2× idle.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import _common
import _scale_jobs

TARGET_ROWS_PER_SECOND = 100_000
XLSX_ROWS = 1_048_575  # an Excel sheet's rows, less the header
# Every export a worker writes: the responses CSV (the one for R is the same file), the ZIP,
# the workbook, SPSS and Stata.
KINDS = ("reports", "zip", "xlsx", "sav", "dta")
OPTIONS = ("North", "South", "=East")  # one label that the CSV escapes


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
    print(json.dumps({"survey": survey.pk, "token": token, "slug": survey.slug}))


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


def _check_csv(job, path):
    """The CSV's lines and SHA-256 are the job's."""
    digest = hashlib.sha256()
    lines = 0
    with open(path, "rb") as handle:
        while block := handle.read(2**20):
            digest.update(block)
            lines += block.count(b"\n")
    assert lines - 1 == job.rows, (lines, job.rows)
    assert digest.hexdigest() == job.sha256


def child_job(kind, survey_id, scale):
    """One export job of ``kind`` as the worker runs it (``_scale_jobs.child_job``); a survey
    first topped up to a full sheet for the workbook at ``XLSX_ROWS``."""
    _common.django_setup(migrate=False)
    if kind == "xlsx" and scale == XLSX_ROWS:
        from surveys.models import Survey

        top_up(Survey.objects.get(pk=survey_id), XLSX_ROWS)
    check = _check_csv if kind == "reports" else None
    print(json.dumps(_scale_jobs.child_job(kind, int(survey_id), scale, check=check)))


def child_grow(survey_id, scale):
    _common.django_setup(migrate=False)
    from surveys.models import Survey

    top_up(Survey.objects.get(pk=survey_id), scale)
    print(json.dumps({"rows": scale}))


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


def _on(name):
    return os.environ.get(name, "off").lower() in {"on", "1", "yes", "true"}


def main():
    import tempfile

    scale = _common.bench_scale()
    small = scale // 10
    print(
        f"Export jobs: 10-question survey with a grouping question, {small:,} then {scale:,} "
        "submissions"
    )
    print(f"Machine: {_common.machine()}")
    wanted = [e for e in ("postgresql", "sqlite") if e in _common.engines()]
    for engine in wanted:
        with (
            _common.scratch_database(engine) as url,
            tempfile.TemporaryDirectory(prefix="rrsurvey-bench-exports-") as directory,
        ):
            env = _common.production_env(url, EXPORT_DIR=directory)
            made = _common.run_child(__file__, "--populate", str(small), env=env)
            survey = str(made["survey"])
            jobs = {}
            for size in (small, scale):
                if size != small:
                    _common.run_child(__file__, "--grow", survey, str(size), env=env)
                jobs[size] = {
                    kind: _common.run_child(
                        __file__, "--job", kind, survey, str(size), env=env, timeout=7200
                    )
                    for kind in KINDS
                }
            print(f"\n{engine}:\n")
            print(_scale_jobs.jobs_table(jobs, small, scale))
            print(
                "\nPeak MiB: the job process's peak RSS (Django and the app included). Rows per "
                "CPU s: rows over the job process's own CPU time (the database works in its own "
                f"processes). Target: csv job ≥ {TARGET_ROWS_PER_SECOND:,} rows/s at "
                f"{scale:,}; every job's memory flat.\n"
            )
            if engine == "postgresql":
                copy = _common.run_child(__file__, "--copy", survey, str(scale), directory, env=env)
                rate = copy["rows"] / copy["seconds"]
                csv_rate = scale / jobs[scale]["reports"]["seconds"]
                print(
                    f"Bare COPY of the ids at {scale:,}: {copy['seconds']:.2f} s, {rate:,.0f} "
                    f"rows/s; the csv job is {csv_rate / rate:.2f}x of it. Baseline: `COPY "
                    "(SELECT id FROM surveys_submission WHERE survey_id = ...) TO STDOUT` into a "
                    "file, the least any export of these rows can cost.\n"
                )
            ids = {**made, "survey": int(survey)}
            under = _scale_jobs.submissions_under_exports(url, ids, directory)
            print(_scale_jobs.under_exports_table(under, scale))
            print("\nSubmissions one at a time; target: median during exports ≤ 2× idle.\n")
            if _on("BENCH_XLSX"):
                xlsx = _common.run_child(
                    __file__, "--job", "xlsx", survey, str(XLSX_ROWS), env=env, timeout=7200
                )
                print(
                    f"xlsx job, a full sheet ({XLSX_ROWS:,} rows): {xlsx['seconds']:.1f} s, "
                    f"{XLSX_ROWS / xlsx['seconds']:,.0f} rows/s, peak {xlsx['rss']:.0f} MiB\n"
                )


if __name__ == "__main__":
    command = sys.argv[1:2]
    if command == ["--populate"]:
        child_populate(int(sys.argv[2]))
    elif command == ["--grow"]:
        child_grow(sys.argv[2], int(sys.argv[3]))
    elif command == ["--job"]:
        child_job(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif command == ["--copy"]:
        child_copy_baseline(sys.argv[2], int(sys.argv[3]), sys.argv[4])
    else:
        main()
