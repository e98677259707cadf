"""The databases of the live servers (tests/live.py): a temporary SQLite file, or, when the suite
runs with DATABASE_URL pointing at PostgreSQL, a fresh database on the same server that is
dropped afterwards.

A server's database is a copy of one template that ``manage.py migrate`` migrated in a
subprocess (which also creates the cache table), exactly as a deployment would. A migration
costs about 4 s of CPU (a fresh interpreter, Django, every migration) and a copy a few
milliseconds, so each process of the suite migrates its template once, on its first server, and
removes it at the end of the session (``discard_template``, from tests/conftest.py).
"""

import atexit
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
# Environment the suite may carry that must not leak into the server's settings.
DROPPED = ("DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE", "TRUSTED_PROXIES")


def server_env(database_url):
    env = {k: v for k, v in os.environ.items() if k not in DROPPED}
    env.update(DATABASE_URL=database_url, PYTHONUNBUFFERED="1")
    return env


def manage(env, *args, input=None):
    """Run ``manage.py`` in a subprocess with ``env``; its stdout."""
    result = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        input=input,
        capture_output=True,
        text=True,
        timeout=300,
    )
    if result.returncode != 0:
        raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{result.stderr}")
    return result.stdout


@contextmanager
def _sqlite_database(workdir):
    yield f"sqlite:///{workdir / 'live.sqlite3'}"


@contextmanager
def _postgres_database(url, template=None):
    """A fresh database next to the suite's own (a copy of ``template``, a database name, if
    given), dropped (connections and all) afterwards."""
    import psycopg

    parts = urlsplit(url)
    name = f"rrsurvey_live_{os.getpid()}_{secrets.token_hex(4)}"
    admin = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else ""))
    try:
        yield urlunsplit(parts._replace(path=f"/{name}"))
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _suite_postgres_url():
    suite_url = os.environ.get("DATABASE_URL", "")
    return suite_url if re.match(r"postgres(ql)?://", suite_url) else None


def empty_database(workdir):
    """An empty database of the suite's kind for the duration (a context manager); its URL."""
    postgres = _suite_postgres_url()
    return _postgres_database(postgres) if postgres else _sqlite_database(workdir)


# This process's template: (its URL, what removes it), made on first use.
_template = None


def _migrated_template():
    global _template
    if _template is None:
        folder = tempfile.TemporaryDirectory(prefix="rrsurvey-template-")
        database = empty_database(Path(folder.name))
        url = database.__enter__()

        def remove():
            database.__exit__(None, None, None)
            folder.cleanup()

        try:
            manage({**server_env(url), "DEBUG": "1"}, "migrate", "--noinput")
        except BaseException:
            remove()
            raise
        _template = (url, remove)
        # A process that is not the suite (a benchmark starting live servers) removes it too,
        # before the interpreter starts to shut down and can no longer connect to drop it.
        atexit.register(discard_template)
    return _template[0]


def discard_template():
    """Remove this process's template, if it made one."""
    global _template
    if _template is not None:
        _url, remove = _template
        _template = None
        remove()


@contextmanager
def migrated_copy(workdir):
    """A fresh copy of the migrated template for the duration; its URL."""
    template = _migrated_template()
    if template.startswith("sqlite:///"):
        # migrate has exited, so the template's write-ahead log is folded into the file.
        copy = workdir / "live.sqlite3"
        shutil.copyfile(template.removeprefix("sqlite:///"), copy)
        yield f"sqlite:///{copy}"
    else:
        template_name = urlsplit(template).path.lstrip("/")
        with _postgres_database(template, template=template_name) as url:
            yield url
