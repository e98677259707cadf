"""The export jobs, the submissions while two exports run, and the tables of
``bench/bench_scale.py`` (issue 34 item 5): kept apart so that the script stays readable.

Each export job runs in a fresh child process as the worker runs it
(``exports.jobs.export_job_run``), its rows checked against the survey's, its time, rows/s and
the process's peak memory (``ru_maxrss``: the worker's memory at that size).
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import time
import uuid

import _common

LATENCY_SAMPLES_IDLE = int(os.environ.get("BENCH_LATENCY_SAMPLES", "40"))


def kinds():
    """The export jobs measured: the responses CSV, the ZIP, SPSS and Stata; the workbook with
    BENCH_XLSX=on (a full sheet takes minutes: docs/benchmarks.md). BENCH_JOBS=off: none;
    BENCH_JOBS=reports,zip: those (at ten million each job takes minutes)."""
    out = ["reports", "zip", "sav", "dta"]
    out = [*out, "xlsx"] if os.environ.get("BENCH_XLSX", "off") == "on" else out
    chosen = os.environ.get("BENCH_JOBS", "on")
    if chosen == "on":
        return out
    if chosen == "off":
        return []
    picked = chosen.split(",")
    unknown = sorted(set(picked) - set(out))
    if unknown:
        raise SystemExit(f"BENCH_JOBS: no export job {unknown}; choose from {out}, on or off")
    return picked


def child_job(kind, survey_id, size, check=None):
    """One export job of ``kind`` of the survey, as the worker runs it; ``check(job, path)``
    called on its file, then the file removed."""
    from surveys.exports import jobs as export_files
    from surveys.models import Survey
    from surveys.selectors.export_jobs import export_path
    from surveys.services import export_jobs

    survey = Survey.objects.get(pk=survey_id)
    job = export_jobs.export_job_start(survey=survey, user=survey.owner, kind=kind, options={})
    started, cpu = time.perf_counter(), time.process_time()
    done = export_files.export_job_run(job_id=job.pk)
    seconds = time.perf_counter() - started
    assert done.status == "done", (kind, done.status, getattr(done, "error", ""))
    assert done.rows == size, (kind, done.rows, size)
    path = export_path(done)
    if check is not None:
        check(done, path)
    megabytes = path.stat().st_size / 2**20
    path.unlink()
    return {
        "seconds": seconds,
        "cpu": time.process_time() - cpu,
        "rows": size,
        "mb": megabytes,
        "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def _body(definition, n):
    """The body a browser sends for the ``n``-th respondent of the public ``definition``."""
    answers = {}
    for i, question in enumerate(definition["questions"]):
        if question["type"] == "choice":
            answers[str(question["id"])] = n % len(question["options"])
        elif question["type"] == "numeric":
            answers[str(question["id"])] = n % 7 - 1  # a noisy number near the range 0-5
        else:
            answers[str(question["id"])] = (n >> i) & 1 == 1
    payload = {
        "submission_id": str(uuid.uuid4()),
        "answers": answers,
        "design_fingerprint": definition["design_fingerprint"],
        "groups": {
            str(group["id"]): str(group["options"][n % len(group["options"])]["id"])
            for group in definition["grouping_questions"]
        },
    }
    missing = definition["submission_length"] - len(
        json.dumps({**payload, "padding": ""}, separators=(",", ":"))
    )
    return json.dumps({**payload, "padding": " " * max(missing, 0)}, separators=(",", ":"))


def submissions_under_exports(url, ids, directory):
    """Submissions to the large survey idle, then while the worker writes its CSV and ZIP
    (gunicorn with the production configuration, two ``db_worker`` processes)."""
    sys.path.insert(0, str(_common.ROOT))
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
        workers = [
            subprocess.Popen(
                [sys.executable, "manage.py", "db_worker", "--no-reload", "--interval", "0.2"],
                cwd=_common.ROOT,
                env={**server.env, **env},
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            for _worker in range(2)
        ]
        try:
            return _latencies(server, ids)
        finally:
            for worker in workers:
                worker.terminate()
            for worker in workers:
                worker.wait(timeout=60)


def _latencies(server, ids):
    auth = {"Authorization": f"Token {ids['token']}"}
    slug = ids["slug"]
    definition = json.loads(server.request("GET", f"/api/v1/public/surveys/{slug}/")[2])
    counter = iter(range(10**9))

    def submit():
        started = time.perf_counter()
        status, _headers, body = server.request(
            "POST",
            f"/api/v1/public/surveys/{slug}/responses/",
            body=_body(definition, next(counter)).encode(),
            headers={"Content-Type": "application/json"},
        )
        assert status == 201, (status, body[:300])
        return time.perf_counter() - started

    for _warm in range(10):
        submit()
    idle = [submit() for _sample in range(LATENCY_SAMPLES_IDLE)]
    jobs = []
    for name in ("responses.csv", "export.zip"):
        status, _headers, body = server.request(
            "GET", f"/api/v1/surveys/{ids['survey']}/{name}", headers=auth, timeout=60
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
    return {"idle": idle, "busy": busy, "exports_seconds": time.perf_counter() - started}


def request_table(measured, sizes):
    """Each request's median at each size and its ratio to the 1,000's of the same run."""
    small, larger = sizes[0], sizes[1:]
    headers = ["request", f"ms @ {small:,}"]
    for size in larger:
        headers += [f"ms @ {size:,}", f"x 1k @ {size:,}"]
    rows = []
    for name, first in measured[small].items():
        if name == "memory":
            continue
        row = [name, _ms(first)]
        for size in larger:
            there = measured[size].get(name)
            if there is None:
                row += ["", ""]
                continue
            ratio = (
                there["median"] / first["median"]
                if "median" in there and "median" in first
                else None
            )
            row += [_ms(there), f"{ratio:.2f}" if ratio is not None else "–"]
        rows.append(row)
    return _common.table(headers, rows)


def _ms(result):
    return f"{result['median']:.1f}" if "median" in result else f"answered {result['status']}"


def memory_table(measured, sizes):
    rows = [
        [
            f"{size:,}",
            f"{measured[size]['memory']['peak']:.0f}",
            f"{measured[size]['memory']['peak'] - measured[size]['memory']['loaded']:.0f}",
        ]
        for size in sizes
    ]
    return _common.table(["responses", "worker peak MiB", "MiB added by the requests"], rows)


def jobs_table(jobs, small, scale):
    rows = []
    for kind, big in jobs[scale].items():
        little = jobs[small][kind]
        rows.append(
            [
                kind,
                f"{little['seconds']:.2f}",
                f"{little['rss']:.0f}",
                f"{big['seconds']:.1f}",
                f"{big['rows'] / big['seconds']:,.0f}",
                f"{big['rows'] / big['cpu']:,.0f}",
                f"{big['mb']:.0f}",
                f"{big['rss']:.0f}",
            ]
        )
    headers = [
        "export job",
        f"s @ {small:,}",
        f"peak MiB @ {small:,}",
        f"s @ {scale:,}",
        "rows/s",
        "rows per CPU s (job)",
        "file MiB",
        f"peak MiB @ {scale:,}",
    ]
    return _common.table(headers, rows)


def under_exports_table(under, scale):
    idle, busy = under["idle"], under["busy"]

    def p95(samples):
        return 1000 * sorted(samples)[int(0.95 * (len(samples) - 1))]

    row = [
        f"{1000 * statistics.median(idle):.1f}",
        f"{p95(idle):.1f}",
        f"{1000 * statistics.median(busy):.1f}" if busy else "–",
        f"{p95(busy):.1f}" if busy else "–",
        str(len(busy)),
        f"{statistics.median(busy) / statistics.median(idle):.2f}" if busy else "–",
        f"{under['exports_seconds']:.1f}",
    ]
    headers = [
        "idle median ms",
        "idle p95 ms",
        f"during two {scale:,} exports: median ms",
        "p95 ms",
        "samples",
        "ratio",
        "exports s",
    ]
    return _common.table(headers, [row])
