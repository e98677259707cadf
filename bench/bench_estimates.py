"""Estimates latency at a thousand vs a million stored submissions of a 10-question survey.

    .venv/bin/python bench/bench_estimates.py          # or: make bench
    BENCH_SCALE=1000000 .venv/bin/python bench/bench_estimates.py   # the documented figures

For each database (SQLite, and PostgreSQL when reachable) one child process creates the survey,
stores 1,000 simulated submissions, times the researcher's estimates requests, grows the same
survey to BENCH_SCALE submissions (default 100,000; setup is not timed) and times them again.
Requests go through Django's whole stack in-process (middleware, auth, view, JSON or HTML),
without a network in between. Targets: ratio (large / 1k) <= 2, median <= 50 ms at 1 million.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common

SMALL = 1000
WARMUP = 20
REQUESTS = 200


def _latencies(client, path, headers):
    for _ in range(WARMUP):
        assert client.get(path, headers=headers).status_code == 200
    samples = []
    for _ in range(REQUESTS):
        start = time.perf_counter()
        response = client.get(path, headers=headers)
        samples.append((time.perf_counter() - start) * 1000)
        assert response.status_code == 200, response.status_code
    samples.sort()
    return {
        "median": statistics.median(samples),
        "p95": samples[int(0.95 * len(samples)) - 1],
    }


def child(scale):
    _common.django_setup()
    from django.test import Client

    survey, owner, token = _common.make_survey()
    api = Client()
    pages = Client()
    pages.force_login(owner)
    targets = {
        "API estimates (JSON)": (api, f"/api/v1/surveys/{survey.pk}/estimates/", token),
        "results page (HTML)": (pages, f"/surveys/{survey.pk}/results/", None),
    }
    results = {}
    for size in (SMALL, scale):
        started = time.perf_counter()
        survey = _common.populate(survey, total=size)
        print(f"populated {size:,} in {time.perf_counter() - started:.1f} s", file=sys.stderr)
        for name, (client, path, key) in targets.items():
            headers = {"Authorization": f"Token {key}"} if key else {}
            results.setdefault(name, {})[size] = _latencies(client, path, headers)
    print(json.dumps(results))


def main():
    scale = _common.bench_scale()
    print(f"Estimates latency, 10-question survey, {SMALL:,} vs {scale:,} stored submissions")
    print(f"Machine: {_common.machine()}; {REQUESTS} timed requests each after {WARMUP} warm-up")
    rows = []
    for engine, measured in _common.measured_on_each_database(__file__, "--child", str(scale)):
        for name, by_size in measured.items():
            small, large = by_size[str(SMALL)], by_size[str(scale)]
            rows.append(
                [
                    engine,
                    name,
                    f"{small['median']:.1f}",
                    f"{small['p95']:.1f}",
                    f"{large['median']:.1f}",
                    f"{large['p95']:.1f}",
                    f"{large['median'] / small['median']:.2f}",
                ]
            )
    print()
    print(
        _common.table(
            [
                "database",
                "request",
                f"median ms @ {SMALL:,}",
                f"p95 ms @ {SMALL:,}",
                f"median ms @ {scale:,}",
                f"p95 ms @ {scale:,}",
                "ratio (median)",
            ],
            rows,
        )
    )
    print("\nTargets: ratio <= 2 and median <= 50 ms at 1,000,000 submissions.")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(int(sys.argv[2]))
    else:
        main()
