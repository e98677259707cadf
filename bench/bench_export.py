"""Raw-reports CSV export of a survey with a million submissions: streamed, rows/s, peak memory.

    .venv/bin/python bench/bench_export.py          # or: make bench
    BENCH_SCALE=1000000 .venv/bin/python bench/bench_export.py   # the documented figures

For each database (SQLite, and PostgreSQL when reachable): one child process stores
BENCH_SCALE simulated submissions of a 10-question survey (default 100,000; not timed). Then
two fresh child processes, so that nothing of the population counts against their memory:

- export: the researcher API's ``responses.csv`` through Django's whole stack in-process,
  reading the streamed body chunk by chunk as a client would (time to the first data row,
  rows/s, peak RSS of the process);
- zip: the results page's download, ``export.zip`` (codebook, estimates and the same rows,
  compressed as they stream), written chunk by chunk to a temporary file, then its
  ``reports.csv`` counted (time to the first chunk, rows/s, peak RSS);
- baseline: the same rows read with one raw SQL query through a chunked cursor and thrown
  away (the floor: what the database and driver cost without Django, CSV or HTTP).

Target: peak RSS below 150 MB for the export.
"""

from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common

TARGET_RSS_MB = 150


def _peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB


def _rss_mb():
    status = Path("/proc/self/status").read_text()
    return int(status.split("VmRSS:")[1].split()[0]) / 1024


def child_populate(scale):
    _common.django_setup()
    survey, _owner, token = _common.make_survey()
    _common.populate(survey, total=scale)
    print(json.dumps({"survey": survey.pk, "token": token}))


def _start_download(survey_id, token, name):
    """The researcher API's streamed ``name`` download, requested in this process after a
    warm-up: ``(response, idle RSS in MB, start time)``, the body not read yet."""
    _common.django_setup(migrate=False)
    from django.test import Client

    client = Client()
    auth = {"Authorization": f"Token {token}"}
    # Warm up: the first request imports the views and with them NumPy (SciPy is imported only
    # by the intervals that need it, not by the default Wilson estimates), as in any server
    # worker; "before" is measured after that.
    assert client.get(f"/api/v1/surveys/{survey_id}/estimates/", headers=auth).status_code == 200
    idle = _rss_mb()
    started = time.perf_counter()
    response = client.get(f"/api/v1/surveys/{survey_id}/{name}", headers=auth)
    assert response.status_code == 200 and response.streaming, response.status_code
    return response, idle, started


def child_export(survey_id, token, scale):
    response, idle, started = _start_download(survey_id, token, "responses.csv")
    first_row = None
    lines = size = 0
    for chunk in response.streaming_content:
        lines += chunk.count(b"\n")
        size += len(chunk)
        if first_row is None and lines >= 2:  # the header line comes before any query
            first_row = time.perf_counter() - started
    elapsed = time.perf_counter() - started
    response.close()
    assert lines - 1 == scale, (lines, scale)  # a header line, then one line per submission
    print(
        json.dumps(
            {
                "seconds": elapsed,
                "first_row_ms": first_row * 1000,
                "rows": lines - 1,
                "megabytes": size / 2**20,
                "idle_rss_mb": idle,
                "peak_rss_mb": _peak_rss_mb(),
            }
        )
    )


def child_zip(survey_id, token, scale):
    import tempfile
    import zipfile

    response, idle, started = _start_download(survey_id, token, "export.zip")
    first_chunk = None
    size = 0
    with tempfile.TemporaryFile() as handle:
        for chunk in response.streaming_content:
            if first_chunk is None:
                first_chunk = time.perf_counter() - started
            size += len(chunk)
            handle.write(chunk)
        elapsed = time.perf_counter() - started
        response.close()
        peak = _peak_rss_mb()  # before reading the archive back
        handle.seek(0)
        with zipfile.ZipFile(handle) as archive, archive.open("reports.csv") as member:
            lines = sum(1 for _line in member)
    assert lines - 1 == scale, (lines, scale)
    print(
        json.dumps(
            {
                "seconds": elapsed,
                "first_chunk_ms": first_chunk * 1000,
                "rows": lines - 1,
                "megabytes": size / 2**20,
                "idle_rss_mb": idle,
                "peak_rss_mb": peak,
            }
        )
    )


def child_baseline(survey_id, scale):
    _common.django_setup(migrate=False)
    from django.db import connection

    idle = _rss_mb()
    started = time.perf_counter()
    submissions = 0
    with connection.chunked_cursor() as cursor:
        cursor.execute(
            "SELECT submission_id, received_on, reports FROM surveys_submission "
            "WHERE survey_id = %s ORDER BY id",
            [survey_id],
        )
        while rows := cursor.fetchmany(10_000):
            submissions += len(rows)
    elapsed = time.perf_counter() - started
    assert submissions == scale, submissions
    print(
        json.dumps(
            {
                "seconds": elapsed,
                "rows": submissions,
                "idle_rss_mb": idle,
                "peak_rss_mb": _peak_rss_mb(),
            }
        )
    )


def main():
    scale = _common.bench_scale()
    print(f"Raw CSV export, 10-question survey with {scale:,} stored submissions")
    print(f"Machine: {_common.machine()}")
    rows, zip_rows = [], []
    for engine in _common.engines():
        with _common.scratch_database(engine) as url:
            # The in-request download (large ones are export jobs: bench_export_jobs.py).
            env = _common.production_env(
                url, EXPORT_JOB_THRESHOLD=str(10**12), EXPORT_DIRECT_SECONDS=str(10**6)
            )
            made = _common.run_child(__file__, "--populate", str(scale), env=env)
            survey, token = str(made["survey"]), made["token"]
            export = _common.run_child(__file__, "--export", survey, token, str(scale), env=env)
            bundle = _common.run_child(__file__, "--zip", survey, token, str(scale), env=env)
            floor = _common.run_child(__file__, "--baseline", survey, str(scale), env=env)
        export_rate = export["rows"] / export["seconds"]
        floor_rate = floor["rows"] / floor["seconds"]
        rows.append(
            [
                engine,
                f"{export['seconds']:.1f}",
                f"{export_rate:,.0f}",
                f"{export['first_row_ms']:.0f}",
                f"{export['megabytes']:.0f}",
                f"{export['idle_rss_mb']:.0f}",
                f"{export['peak_rss_mb']:.0f}",
                f"{export['peak_rss_mb'] - export['idle_rss_mb']:.0f}",
                f"{floor_rate:,.0f}",
                f"{floor['peak_rss_mb']:.0f}",
                f"{export_rate / floor_rate:.2f}",
            ]
        )
        zip_rows.append(
            [
                engine,
                f"{bundle['seconds']:.1f}",
                f"{bundle['rows'] / bundle['seconds']:,.0f}",
                f"{bundle['first_chunk_ms']:.0f}",
                f"{bundle['megabytes']:.0f}",
                f"{bundle['idle_rss_mb']:.0f}",
                f"{bundle['peak_rss_mb']:.0f}",
                f"{bundle['peak_rss_mb'] - bundle['idle_rss_mb']:.0f}",
                f"{(bundle['rows'] / bundle['seconds']) / export_rate:.2f}",
            ]
        )
    print()
    print(
        _common.table(
            [
                "database",
                "export s",
                "export rows/s",
                "first row ms",
                "CSV MB",
                "RSS before MB",
                "peak RSS MB",
                "growth MB",
                "raw SQL rows/s",
                "raw SQL peak RSS MB",
                "export / raw SQL",
            ],
            rows,
        )
    )
    print(
        f"\nRows are submissions (one CSV line each, {_common.QUESTIONS} reports). "
        "RSS before: the process after a warm-up estimates request (Django, NumPy loaded); "
        f"growth: what the export added. Target: export peak RSS < {TARGET_RSS_MB} MB."
    )
    print("\nZIP download (codebook, estimates, reports; compressed as it streams)\n")
    print(
        _common.table(
            [
                "database",
                "zip s",
                "zip rows/s",
                "first chunk ms",
                "ZIP MB",
                "RSS before MB",
                "peak RSS MB",
                "growth MB",
                "zip / CSV rows/s",
            ],
            zip_rows,
        )
    )


if __name__ == "__main__":
    command = sys.argv[1:2]
    if command == ["--populate"]:
        child_populate(int(sys.argv[2]))
    elif command == ["--export"]:
        child_export(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif command == ["--zip"]:
        child_zip(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif command == ["--baseline"]:
        child_baseline(sys.argv[2], int(sys.argv[3]))
    else:
        main()
