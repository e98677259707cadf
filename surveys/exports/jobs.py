"""Export jobs, the file side: the worker's writing of a job's file and a finished job's
codebook (a request's choice between a whole file and a job: ``exports.delivery``).

What each export writes is ``exports.kinds``; the job's row (queued, running, done, failed,
purged) is written by ``services.export_jobs``, and read by ``selectors.export_jobs``. Here,
not in the services: a write never depends on a file (tests/test_layers.py).
"""

import hashlib
import logging
import os
import secrets
import threading
from dataclasses import replace
from pathlib import Path

from django.conf import settings
from django.db import DatabaseError, connection

from ..models import ExportJob
from ..selectors.export_jobs import export_disk_budget, export_files_kept
from ..services.export_jobs import (
    export_job_claim,
    export_job_done,
    export_job_failed,
    export_job_named,
    export_job_progressed,
    export_jobs_purge,
)
from .codebook import RawFileFacts, survey_codebook
from .kinds import EXPORT_KINDS

logger = logging.getLogger(__name__)


def export_job_run(*, job_id) -> ExportJob | None:
    """Write the job's file (the worker's side, ``tasks.export_job_task``). The file appears
    complete or not at all: it is written under a temporary name and renamed when whole. A job
    that is not waiting (already run, or its survey deleted) is left alone: ``None``."""
    job = export_job_claim(job_id=job_id)
    if job is None:
        return None
    export_jobs_purge()
    kind = EXPORT_KINDS[job.kind]
    directory = export_directory()
    name = f"{secrets.token_urlsafe(24)}.{kind.extension}"
    partial = directory / f"{name}.partial"
    # Recorded before the file exists, so another worker's purge never takes it for an orphan.
    export_job_named(job, file_name=name)

    progress = job_progress(job)
    room = export_disk_budget() - export_files_kept()[0]
    try:
        # 0600 from its creation: only the application's user reads what a survey holds.
        descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with BudgetedFile(open(descriptor, "wb", buffering=2**20), room=room) as handle:
            written = kind.write(handle, survey=job.survey, options=job.options, progress=progress)
        # Every progress written before the job is done: a late one would undo its count.
        progress.close()
        digest = _file_sha256(partial)
        size = partial.stat().st_size
        partial.rename(directory / name)
    except ExportBudgetExceeded:
        progress.close()
        logger.warning("export job %s: the export disk budget would be exceeded", job.pk)
        partial.unlink(missing_ok=True)
        export_job_failed(job, error=BUDGET_EXCEEDED)
        return ExportJob.objects.filter(pk=job.pk).first()
    except Exception:
        progress.close()
        # The researcher sees that it failed and may ask again; the details go to the log.
        logger.exception("export job %s failed", job.pk)
        partial.unlink(missing_ok=True)
        export_job_failed(job, error="export failed")
        raise
    return export_job_done(
        job,
        file_name=name,
        download_name=kind.filename(job.survey),
        size=size,
        rows=written.rows,
        sha256=digest,
    )


# A failed job's error when its file would have passed settings.EXPORT_DISK_BUDGET_MB.
BUDGET_EXCEEDED = "disk budget exceeded"


def export_directory() -> Path:
    """``settings.EXPORT_DIR``, made when missing, readable by the application's user only
    (0700, whatever it was made with before)."""
    directory = Path(settings.EXPORT_DIR)
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    if directory.stat().st_mode & 0o077:
        try:
            directory.chmod(0o700)
        except PermissionError:
            # Another user's folder (a mount): the files themselves are still 0600.
            logger.warning("EXPORT_DIR %s is open to others and not ours to close", directory)
    return directory


class ExportBudgetExceeded(Exception):
    """The file being written would pass the room left in the export disk budget."""


class BudgetedFile:
    """A binary file that refuses to grow past ``room`` bytes (``ExportBudgetExceeded``);
    everything else is the file's own (seek and tell too, for ZIP and workbook writers)."""

    def __init__(self, handle, *, room: int):
        self._handle = handle
        self._room = room

    def write(self, data) -> int:
        if self._handle.tell() + len(data) > self._room:
            raise ExportBudgetExceeded(self._room)
        return self._handle.write(data)

    def __getattr__(self, name):
        return getattr(self._handle, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._handle.close()


class ProgressWriter:
    """A running job's progress, recorded at once (``export_job_progressed``)."""

    def __init__(self, job: ExportJob):
        self.job = job

    def __call__(self, rows: int) -> None:
        try:
            export_job_progressed(self.job, rows=rows)
        except DatabaseError:
            # SQLite: this connection is still reading the rows (one snapshot), and may not
            # write once a submission has written since ("database is locked"). A progress
            # bar that stops is no reason to fail the file; the job's end writes the count.
            logger.warning("export job %s: progress not recorded", self.job.pk)

    def close(self) -> None:
        """Nothing left to write."""


class ThreadedProgressWriter(ProgressWriter):
    """A running job's progress, recorded by a thread of its own on its own database
    connection: on PostgreSQL the job's connection is busy sending the file's rows (one
    ``COPY``, ``exports.csv_postgres``) while they are counted. The file never waits for a
    progress write: the latest count waits while one is written, and replaces any older one."""

    def __init__(self, job: ExportJob):
        super().__init__(job)
        self._pending = None
        self._closed = False
        self._changed = threading.Condition()
        self._thread = threading.Thread(target=self._record, name=f"export-progress-{job.pk}")
        self._thread.start()

    def __call__(self, rows: int) -> None:
        with self._changed:
            self._pending = rows
            self._changed.notify()

    def close(self) -> None:
        """Write the last count, then stop (waits for the thread; may be called twice)."""
        with self._changed:
            self._closed = True
            self._changed.notify()
        self._thread.join()

    def _record(self) -> None:
        try:
            while True:
                with self._changed:
                    while self._pending is None and not self._closed:
                        self._changed.wait()
                    rows, self._pending = self._pending, None
                if rows is None:
                    return
                export_job_progressed(self.job, rows=rows)
        except Exception:
            # A progress bar that stops is no reason to fail the file.
            logger.exception("export job %s: progress not recorded", self.job.pk)
        finally:
            connection.close()  # this thread's own


def job_progress(job: ExportJob) -> ProgressWriter:
    """How ``job`` records its progress: from a thread on PostgreSQL (whose connection may be
    in a COPY), at once on SQLite (whose file takes one writer at a time, and whose rows come
    through Python between the counts)."""
    if connection.vendor == "postgresql":
        return ThreadedProgressWriter(job)
    return ProgressWriter(job)


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(2**20):
            digest.update(block)
    return digest.hexdigest()


def export_job_codebook(job: ExportJob):
    """The codebook of a finished job's CSV file, with its rows and checksum."""
    facts = RawFileFacts(name=job.download_name, rows=job.rows or 0, sha256=job.sha256)
    codebook = survey_codebook(
        survey=job.survey,
        method=job.options.get("method"),
        confidence=job.options.get("confidence"),
    )
    return replace(codebook, raw_file=facts)
