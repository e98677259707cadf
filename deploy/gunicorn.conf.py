"""gunicorn settings for rrsurvey: ``gunicorn -c deploy/gunicorn.conf.py config.wsgi:application``.

Respondents' privacy (SPEC §2): no client address, user agent or request time may reach a log.
So the access log is off unless ``GUNICORN_ACCESS_LOG`` names a file (or ``-``), and even then
``PrivateLogger`` only ever formats request facts (method, path, status, size, duration,
worker), whatever ``access_log_format`` asks for. gunicorn's one error-log line that names a
client ("Invalid request from ip=...") is rewritten without the address or the request text.

Environment (all optional): ``WEB_CONCURRENCY`` (workers, read by gunicorn itself; default
2 x cores + 1), ``GUNICORN_BIND``, ``GUNICORN_ACCESS_LOG``, ``LOG_LEVEL`` (shared with
Django's logging; default ``info``), ``GUNICORN_TIMEOUT``.
"""

import multiprocessing
import os
import re

from gunicorn.glogging import Logger

wsgi_app = "config.wsgi:application"
bind = [os.environ.get("GUNICORN_BIND", "127.0.0.1:8000")]
workers = int(os.environ.get("WEB_CONCURRENCY") or multiprocessing.cpu_count() * 2 + 1)
# Synchronous workers: one request at a time per process, behind a buffering proxy. A crashed
# worker loses only its in-flight request, which the client may retry (submissions are
# idempotent on their id).
worker_class = "sync"
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
graceful_timeout = 30
# Recycle workers now and then so a slow leak can never grow without bound; the jitter keeps
# them from restarting all at once.
max_requests = 10000
max_requests_jitter = 1000
# gunicorn's runtime control socket is unused here, and its default path is one per user: two
# servers on one host (tests, benchmarks, blue/green) would fight over it.
control_socket_disable = True

accesslog = os.environ.get("GUNICORN_ACCESS_LOG") or None
# No %(h)s (address), %(a)s (user agent), %(t)s (time), %(f)s (referer) or request headers.
access_log_format = "%(m)s %(U)s %(s)s %(B)s %(M)sms %(p)s"
errorlog = "-"
loglevel = os.environ.get("LOG_LEVEL", "info").lower()

# Request facts a log line may carry; everything else (client address, user agent, referer,
# the time of the request, any request header or environ value) is replaced by "-".
_SAFE_ATOMS = frozenset({"m", "U", "q", "H", "r", "s", "b", "B", "T", "D", "M", "L", "p"})
_CLIENT_NAMED = re.compile(r"^Invalid request from ip=.*?: ")


class PrivateLogger(Logger):
    """gunicorn's logger without anything that identifies the client."""

    def atoms(self, resp, req, environ, request_time):
        atoms = super().atoms(resp, req, environ, request_time)
        return {key: value for key, value in atoms.items() if key in _SAFE_ATOMS}

    def warning(self, msg, *args, **kwargs):
        if isinstance(msg, str) and _CLIENT_NAMED.match(msg):
            # The error text can quote the malformed request line or header (a user agent,
            # say); keep only its kind, e.g. "Invalid HTTP Header".
            kind = _CLIENT_NAMED.sub("", msg).split(":", 1)[0].split("'", 1)[0].strip()
            msg, args = "Invalid request refused (400): %s", (kind,)
        super().warning(msg, *args, **kwargs)


logger_class = PrivateLogger
