"""Mail sent beside the request, never inside it.

Whether a mail goes out must not show in how long the answer takes: a password reset for a
known address, or an invitation by email, would otherwise answer slower than one for an
unknown address (sending is hundreds of milliseconds of SMTP). A job is started on a thread
once the request's transaction commits (so it sees what the request stored), and the view
answers without waiting for it. Whatever the job needs to decide (is there an account? is
its address verified?) it reads itself, on the thread.

Threads are not daemons, so a worker that exits finishes its mail first. A job that fails
is logged (the addressee is not: only the job's name) and dropped; nothing retries it.
"""

import logging
import threading

from django.db import connections, transaction

logger = logging.getLogger(__name__)

_running: set[threading.Thread] = set()
_lock = threading.Lock()


def send_after_commit(job, /):
    """Run ``job()`` on a thread of its own once the current transaction commits."""
    transaction.on_commit(lambda: _start(job))


def _start(job):
    thread = threading.Thread(target=_run, args=(job,), name="rrsurvey-mail")
    with _lock:
        _running.add(thread)
    thread.start()


def _run(job):
    try:
        job()
    except Exception:  # a mail that cannot go must not take the worker down
        logger.exception("A mail job failed: %s", getattr(job, "__name__", "job"))
    finally:
        # The thread opened its own database connections; nothing else will close them.
        connections.close_all()
        with _lock:
            _running.discard(threading.current_thread())


def wait_for_mail(*, timeout=10.0) -> bool:
    """Wait for the mail jobs started so far; True when all have finished (tests use it)."""
    with _lock:
        threads = list(_running)
    for thread in threads:
        thread.join(timeout)
    return not any(thread.is_alive() for thread in threads)
