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
import sys
from pathlib import Path

from gunicorn.glogging import Logger

# The project's own log filter (surveys/log_filters.py) decides what names a respondent.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from surveys.log_filters import mentions_respondent_path, redact_respondent_paths

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
    """gunicorn's logger without anything that identifies the client or a respondent.

    Respondents' requests (their page, their submission, public results) get no access line
    at all: one timestamped line per submission would give their arrival order. Any other
    line naming such a path is dropped below error level and redacted at or above it.
    """

    def atoms(self, resp, req, environ, request_time):
        atoms = super().atoms(resp, req, environ, request_time)
        return {key: value for key, value in atoms.items() if key in _SAFE_ATOMS}

    def access(self, resp, req, environ, request_time):
        if mentions_respondent_path(getattr(req, "path", "")):
            return
        super().access(resp, req, environ, request_time)

    def debug(self, msg, *args, **kwargs):
        if not mentions_respondent_path(_formatted(msg, args)):
            super().debug(msg, *args, **kwargs)

    def info(self, msg, *args, **kwargs):
        if not mentions_respondent_path(_formatted(msg, args)):
            super().info(msg, *args, **kwargs)

    def error(self, msg, *args, **kwargs):
        super().error(redact_respondent_paths(_formatted(msg, args)), **kwargs)

    def exception(self, msg, *args, **kwargs):
        super().exception(redact_respondent_paths(_formatted(msg, args)), **kwargs)

    def warning(self, msg, *args, **kwargs):
        if isinstance(msg, str) and _CLIENT_NAMED.match(msg):
            # The error text can quote the malformed request line or header (a user agent,
            # say); keep only its kind, e.g. "Invalid HTTP Header".
            kind = _CLIENT_NAMED.sub("", msg).split(":", 1)[0].split("'", 1)[0].strip()
            msg, args = "Invalid request refused (400): %s", (kind,)
        if not mentions_respondent_path(_formatted(msg, args)):
            super().warning(msg, *args, **kwargs)


def _formatted(msg, args):
    try:
        return str(msg) % args if args else str(msg)
    except (TypeError, ValueError):
        return f"{msg} {args}"


logger_class = PrivateLogger
