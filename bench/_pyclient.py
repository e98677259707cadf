"""A Python load generator (threads of http.client on loopback) and the gunicorn the
benchmarks serve with, for the benchmarks that compare endpoints of one server with each other
(bench_invitations.py). Its figures are not throughput: on this machine the client's threads
share the two cores with the server and set much of the pace, which pulls every ratio toward
1. The submission throughput is measured with wrk (bench_submissions.py)."""

from __future__ import annotations

import http.client
import json
import os
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.live import gunicorn_server

SECONDS = float(os.environ.get("BENCH_SECONDS", "3"))
CLIENTS = int(os.environ.get("BENCH_CLIENTS", "8"))
WORKERS = int(os.environ.get("WEB_CONCURRENCY", "2"))
WARMUP_SECONDS = 2.0


def drive(server, make_request, *, seconds):
    """``CLIENTS`` threads POSTing for ``seconds``; returns (requests/s, latencies ms, errors).
    ``make_request()`` gives ``(path, body)``, or None when a row's requests are used up."""
    stop = time.monotonic() + seconds
    latencies = []
    errors = []
    lock = threading.Lock()

    def client():
        mine = []
        conn = None
        while time.monotonic() < stop:
            request = make_request()
            if request is None:
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


def server(*, settings_module, workers=WORKERS, extra_env=None):
    """gunicorn with the production configuration (deploy/gunicorn.conf.py), DEBUG off, no
    rate limit, ``workers`` sync workers, serving ``settings_module``."""
    return gunicorn_server(
        workers=workers,
        debug=False,
        env={
            "DJANGO_SETTINGS_MODULE": settings_module,
            "RESPONSE_RATE_LIMIT": "off",
            "LOG_LEVEL": "WARNING",
            # The first-response row opens hundreds of surveys for one bench researcher.
            "MAX_SURVEYS_PER_USER": "1000000",
            "MAX_QUESTIONS_PER_USER": "100000000",
            **(extra_env or {}),
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


def ratio(rates, baseline):
    """Median and range of ``rates / baseline`` taken round by round."""
    ratios = sorted(rate / base for rate, base in zip(rates, baseline, strict=True))
    return f"{statistics.median(ratios):.2f} ({ratios[0]:.2f}–{ratios[-1]:.2f})"
