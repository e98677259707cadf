"""A real gunicorn serving config.wsgi:application against a real database, for tests that need
more than one process (shared-cache throttling, concurrency).

    with gunicorn_server(workers=2, env={"RESPONSE_RATE_LIMIT": "20/min"}) as server:
        status, headers, body = server.request("GET", "/api/v1/public/surveys/x/")

The database is prepared for the server alone: a temporary SQLite file, or, when the suite
runs with DATABASE_URL pointing at PostgreSQL, a fresh database on the same server that is
dropped afterwards. Both are copies of a template migrated by ``manage.py migrate`` in a
subprocess (which also creates the cache table), exactly as a deployment would, once per process
of the suite (tests/live_databases.py).
"""

import csv
import http.client
import io
import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path

from tests.live_databases import ROOT, migrated_copy
from tests.live_databases import manage as _manage
from tests.live_databases import server_env as _server_env

READY_TIMEOUT = 30.0


def free_port(host="127.0.0.1"):
    with socket.socket() as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


@contextmanager
def migrated_database():
    """A fresh database migrated as a deployment does it (``manage.py migrate``), for several
    servers to share (``gunicorn_server(database_url=...)``); its URL."""
    with (
        tempfile.TemporaryDirectory(prefix="rrsurvey-db-") as tmp,
        migrated_copy(Path(tmp)) as database_url,
    ):
        yield database_url


class _Http:
    """Requests to ``self.host``:``self.port``, one connection each."""

    host: str
    port: int

    def request(self, method, path, *, body=None, headers=None, source=None, timeout=30):
        """One HTTP request on a fresh connection; ``source`` picks the client address
        (any 127.x.y.z), so a test can play several clients. JSON bodies may be dicts."""
        headers = dict(headers or {})
        if isinstance(body, dict | list):
            body = json.dumps(body).encode()
            headers.setdefault("Content-Type", "application/json")
        conn = http.client.HTTPConnection(
            self.host,
            self.port,
            timeout=timeout,
            source_address=(source, 0) if source else None,
        )
        try:
            conn.request(method, path, body=body, headers=headers)
            response = conn.getresponse()
            return response.status, dict(response.getheaders()), response.read()
        finally:
            conn.close()

    def json(self, method, path, **kwargs):
        status, _headers, body = self.request(method, path, **kwargs)
        return status, (json.loads(body) if body else None)


@dataclass
class GunicornServer(_Http):
    url: str
    host: str
    port: int
    env: dict
    access_log: Path
    error_log: Path
    process: subprocess.Popen = field(repr=False)

    def manage(self, *args, input=None):
        """Run ``manage.py`` against the server's database; returns stdout."""
        return _manage(self.env, *args, input=input)

    def stop_all(self, signum):
        """Send ``signum`` to the master and every worker at once (SIGKILL: the machine
        died; SIGSTOP: it hangs, connections accepted and never answered)."""
        for pid in [self.process.pid, *self.worker_processes()]:
            os.kill(pid, signum)

    def worker_processes(self):
        """Process ids of the workers alive now (the master's children), e.g. to kill one."""
        pid = self.process.pid
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text()
        return [int(child) for child in children.split()]

    def worker_pids(self):
        """Process id that served each request so far, from the access log, in order."""
        return re.findall(r"<(\d+)>", self.access_log.read_text())


def _wait_until_ready(server):
    deadline = time.monotonic() + READY_TIMEOUT
    while True:
        if server.process.poll() is not None:
            raise RuntimeError(f"gunicorn exited early:\n{server.error_log.read_text()}")
        try:
            status, _headers, _body = server.request(
                "GET", f"/api/v1/public/surveys/{uuid.uuid4().hex}/", timeout=5
            )
        except OSError:
            status = None
        if status == 404:
            return
        if time.monotonic() > deadline:
            raise RuntimeError(
                f"gunicorn not ready after {READY_TIMEOUT}s (last status {status}):\n"
                f"{server.error_log.read_text()}"
            )
        time.sleep(0.1)  # polling for readiness, not timing a behaviour


@contextmanager
def gunicorn_server(
    *, workers=2, env=None, debug=True, args=(), host="127.0.0.1", database_url=None
):
    """Start ``gunicorn config.wsgi:application --workers N`` on a free port of ``host``
    (any 127.x.y.z; add it to ALLOWED_HOSTS in ``env`` when it is not 127.0.0.1).

    ``env`` adds settings (RESPONSE_RATE_LIMIT, TRUSTED_PROXIES, ...). With ``debug=False``
    the server runs with a random SECRET_KEY and plain HTTP (SECURE_SSL_REDIRECT=off); pages
    then need collected static files (set STATIC_ROOT in ``env``), the API does not.
    ``args`` go to gunicorn after the fixture's own, e.g. ``("-c", "deploy/gunicorn.conf.py")``
    for the production configuration or ``("--log-level", "debug")``.
    ``database_url`` serves that database (from ``migrated_database``, e.g. shared with another
    server) instead of a fresh one of its own.
    """
    shared = database_url
    with tempfile.TemporaryDirectory(prefix="rrsurvey-live-") as tmp:
        workdir = Path(tmp)
        with nullcontext(shared) if shared else migrated_copy(workdir) as database_url:
            server_env = _server_env(database_url)
            if debug:
                server_env["DEBUG"] = "1"
            else:
                server_env.update(
                    DEBUG="0", SECRET_KEY=secrets.token_urlsafe(50), SECURE_SSL_REDIRECT="off"
                )
            server_env.update(env or {})
            port = free_port(host)
            access_log = workdir / "access.log"
            error_log = workdir / "error.log"
            command = [
                sys.executable,
                "-m",
                "gunicorn",
                "config.wsgi:application",
                "--workers",
                str(workers),
                "--bind",
                f"{host}:{port}",
                # Which worker served a request, and nothing about the client.
                "--access-logfile",
                str(access_log),
                "--access-logformat",
                "%(p)s %(m)s %(U)s %(s)s",
                "--error-logfile",
                str(error_log),
                "--graceful-timeout",
                "5",
                *args,
            ]
            with _serving(
                command,
                server_env,
                host=host,
                port=port,
                access_log=access_log,
                error_log=error_log,
            ) as server:
                yield server


@contextmanager
def development_server(*, env=None):
    """``manage.py runserver`` (what ``make run`` serves), DEBUG on, on a free port.

    It yields the same handle as ``gunicorn_server`` (requests, ``manage``); the error log
    holds runserver's output, and there are no workers or access log to read.
    """
    with tempfile.TemporaryDirectory(prefix="rrsurvey-dev-") as tmp:
        workdir = Path(tmp)
        with migrated_copy(workdir) as database_url:
            server_env = _server_env(database_url)
            server_env.update(DEBUG="1")
            server_env.update(env or {})
            port = free_port()
            command = [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"]
            with _serving(
                command,
                server_env,
                host="127.0.0.1",
                port=port,
                access_log=workdir / "no-access.log",
                error_log=workdir / "error.log",
            ) as server:
                yield server


@contextmanager
def _serving(command, server_env, *, host, port, access_log, error_log):
    """Run ``command`` (a server) until it answers, yield its handle, then stop it."""
    # Append mode, like gunicorn's own handle on the same file: with "wb" the two write at
    # separate offsets and overwrite each other's lines.
    with open(error_log, "ab") as errors:
        process = subprocess.Popen(
            command, cwd=ROOT, env=server_env, stdout=errors, stderr=subprocess.STDOUT
        )
    server = GunicornServer(
        url=f"http://{host}:{port}",
        host=host,
        port=port,
        env=server_env,
        access_log=access_log,
        error_log=error_log,
        process=process,
    )
    try:
        _wait_until_ready(server)
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


# Debian's package of that name; `make test` installs it when missing (test-proxy-deps).
HAPROXY = shutil.which("haproxy") or "/usr/sbin/haproxy"

HAPROXY_CONFIG = """
global
    maxconn 1024
defaults
    mode http
    timeout connect 2s
    timeout client 60s
    timeout server 60s
    # A connection a server refused (it is down) goes to another server: the request never
    # reached the first, so retrying it there is safe whatever it was.
    retries 3
    option redispatch 1
    retry-on conn-failure
    # Keep the whole (small) request before picking a server: sync workers never wait on a
    # slow client (docs/deploying.md, "The proxy in front").
    option http-buffer-request
frontend app
    bind {host}:{port}
    option forwardfor
    http-request set-header X-Forwarded-Proto http
    default_backend servers
backend servers
    balance roundrobin
{servers}
listen stats
    bind {host}:{stats_port}
    stats enable
    stats uri /stats
"""


@dataclass
class Proxy(_Http):
    url: str
    host: str
    port: int
    stats_port: int
    process: subprocess.Popen = field(repr=False)

    def stats(self):
        """Per backend server name: HAProxy's counters (``scur`` connections open now,
        ``hrsp_2xx``, ``hrsp_4xx``, ``hrsp_5xx`` responses, ``status`` UP/DOWN, ...)."""
        conn = http.client.HTTPConnection(self.host, self.stats_port, timeout=10)
        try:
            conn.request("GET", "/stats;csv")
            text = conn.getresponse().read().decode()
        finally:
            conn.close()
        rows = csv.DictReader(io.StringIO(text.removeprefix("# ")))
        return {
            row["svname"]: row
            for row in rows
            if row["pxname"] == "servers" and row["svname"] not in ("FRONTEND", "BACKEND")
        }


@contextmanager
def haproxy(servers, *, host="127.0.0.1"):
    """HAProxy in front of ``servers`` (``{name: GunicornServer}``), round robin, with the
    health checks and retries docs/deploying.md describes, on a free port; no log at all."""
    if not os.access(HAPROXY, os.X_OK):
        raise RuntimeError("haproxy is not installed: `make test` installs it (test-proxy-deps)")
    with tempfile.TemporaryDirectory(prefix="rrsurvey-proxy-") as tmp:
        port, stats_port = free_port(host), free_port(host)
        lines = "\n".join(
            f"    server {name} {server.host}:{server.port} check inter 200ms fall 2 rise 2"
            for name, server in servers.items()
        )
        config = Path(tmp) / "haproxy.cfg"
        config.write_text(
            HAPROXY_CONFIG.format(host=host, port=port, stats_port=stats_port, servers=lines)
        )
        check = subprocess.run(
            [HAPROXY, "-c", "-f", str(config)], capture_output=True, text=True, timeout=30
        )
        if check.returncode != 0:
            raise RuntimeError(f"haproxy refused its configuration:\n{check.stdout}{check.stderr}")
        output = Path(tmp) / "haproxy.out"
        with open(output, "ab") as out:
            process = subprocess.Popen(
                [HAPROXY, "-db", "-f", str(config)], stdout=out, stderr=subprocess.STDOUT
            )
        proxy = Proxy(
            url=f"http://{host}:{port}",
            host=host,
            port=port,
            stats_port=stats_port,
            process=process,
        )
        try:
            deadline = time.monotonic() + READY_TIMEOUT
            while True:
                if process.poll() is not None:
                    raise RuntimeError(f"haproxy exited early:\n{output.read_text()}")
                try:
                    if all(row["status"] == "UP" for row in proxy.stats().values()):
                        break
                except OSError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError(f"haproxy not ready:\n{output.read_text()}")
                time.sleep(0.1)  # polling for readiness, not timing a behaviour
            yield proxy
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
