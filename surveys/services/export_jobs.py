"""Export jobs: a large raw export written by the background worker, then kept for a while.

``export_job_start`` records the job and enqueues ``tasks.export_job_task`` once the
transaction commits; the worker (``manage.py db_worker``) calls ``export_job_run``, which
writes the file under ``settings.EXPORT_DIR`` with a random name, reporting progress in the
job's row; ``export_jobs_purge`` deletes what has expired. What each export writes is
``exports.kinds``.
"""

import hashlib
import logging
import secrets
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from ..exports.kinds import EXPORT_KINDS, DirectExportTooSlow, ExportKind, build_direct
from ..models import ExportJob

logger = logging.getLogger(__name__)

# The jobs that may still write: a request for the same export joins one of them.
ACTIVE = (ExportJob.Status.QUEUED, ExportJob.Status.RUNNING)


def export_path(job: ExportJob) -> Path:
    return Path(settings.EXPORT_DIR) / job.file_name


def export_job_start(*, survey, user, kind: str, options: dict) -> ExportJob:
    """The job writing ``kind`` of ``survey`` with ``options``: a waiting or running job of
    the same user, kind and options when there is one (a reload or double click does not
    queue the export twice), else a new one, enqueued once this transaction commits."""
    if kind not in EXPORT_KINDS:
        raise ValidationError({"kind": [f"Unknown export kind {kind!r}."]})
    with transaction.atomic():
        existing = (
            ExportJob.objects.select_for_update()
            .filter(survey=survey, requested_by=user, kind=kind, status__in=ACTIVE)
            .order_by("-created_at")
        )
        for job in existing:
            if job.options == options:
                return job
        job = ExportJob.objects.create(
            survey=survey,
            requested_by=user,
            kind=kind,
            options=options,
            rows_total=survey.response_count,
        )
        from ..tasks import enqueue_after_commit, export_job_task

        enqueue_after_commit(export_job_task, str(job.pk))
    return job


def export_job_run(*, job_id) -> ExportJob | None:
    """Write the job's file (the worker's side). The file appears complete or not at all:
    it is written under a temporary name and renamed when whole. A job that is not waiting
    (already run, or its survey deleted) is left alone: ``None``."""
    with transaction.atomic():
        job = (
            ExportJob.objects.select_for_update()
            .select_related("survey")
            .filter(pk=job_id, status=ExportJob.Status.QUEUED)
            .first()
        )
        if job is None:
            return None
        job.status = ExportJob.Status.RUNNING
        job.save(update_fields=["status"])
    export_jobs_purge()
    kind = EXPORT_KINDS[job.kind]
    directory = Path(settings.EXPORT_DIR)
    directory.mkdir(parents=True, exist_ok=True)
    name = f"{secrets.token_urlsafe(24)}.{kind.extension}"
    partial = directory / f"{name}.partial"
    # Recorded before the file exists, so another worker's purge never takes it for an orphan.
    ExportJob.objects.filter(pk=job.pk).update(file_name=name)

    def progress(rows):
        ExportJob.objects.filter(pk=job.pk).update(rows_written=rows)

    try:
        with open(partial, "wb", buffering=2**20) as handle:
            written = kind.write(handle, survey=job.survey, options=job.options, progress=progress)
        digest = _file_sha256(partial)
        size = partial.stat().st_size
        partial.rename(directory / name)
    except Exception:
        # The researcher sees that it failed and may ask again; the details go to the log.
        logger.exception("export job %s failed", job.pk)
        partial.unlink(missing_ok=True)
        ExportJob.objects.filter(pk=job.pk).update(
            status=ExportJob.Status.FAILED, finished_at=timezone.now(), error="export failed"
        )
        raise
    now = timezone.now()
    # An update, not a save: a job deleted meanwhile (its survey purged) is not recreated.
    ExportJob.objects.filter(pk=job.pk).update(
        status=ExportJob.Status.DONE,
        file_name=name,
        download_name=kind.filename(job.survey),
        size=size,
        rows=written.rows,
        rows_written=written.rows or 0,
        sha256=digest,
        finished_at=now,
        expires_at=now + timedelta(hours=settings.EXPORT_RETENTION_HOURS),
    )
    return ExportJob.objects.filter(pk=job.pk).first()


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(2**20):
            digest.update(block)
    return digest.hexdigest()


def export_jobs_purge(*, now=None) -> int:
    """Delete the files and records of finished jobs whose time is up (failed ones and ones
    a stopped worker left running, after the same retention), returning how many; and any file
    whose job is gone."""
    now = now or timezone.now()
    stale = now - timedelta(hours=settings.EXPORT_RETENTION_HOURS)
    expired = ExportJob.objects.filter(status=ExportJob.Status.DONE, expires_at__lte=now) | (
        ExportJob.objects.exclude(status=ExportJob.Status.DONE).filter(created_at__lte=stale)
    )
    count = 0
    for job in expired:
        if job.file_name:
            export_path(job).unlink(missing_ok=True)
        job.delete()
        count += 1
    directory = Path(settings.EXPORT_DIR)
    if not directory.is_dir():
        return count
    # Files whose job is gone (its survey deleted for good), and what a worker stopped mid-file
    # left behind: a survey's data must not outlive it on disk.
    kept = set(ExportJob.objects.exclude(file_name="").values_list("file_name", flat=True))
    for path in directory.iterdir():
        if path.suffix == ".partial":
            if path.stat().st_mtime <= stale.timestamp():
                path.unlink(missing_ok=True)
        elif path.name not in kept:
            path.unlink(missing_ok=True)
    return count


@dataclass(frozen=True)
class Delivery:
    """A raw export as the request gets it: the whole file built in the request (``handle``
    at its start, ``size`` bytes) or the job that writes it (``job``)."""

    kind: ExportKind
    handle: object = None
    size: int = 0
    job: ExportJob | None = None


def export_deliver(*, survey, user, kind: str, options: dict) -> Delivery:
    """A raw export for a request: built whole in the request below
    ``settings.EXPORT_JOB_THRESHOLD`` responses, unless that takes longer than
    ``settings.EXPORT_DIRECT_SECONDS``; otherwise (and then) a job. Never a part of a file."""
    if kind not in EXPORT_KINDS:
        raise ValidationError({"kind": [f"Unknown export kind {kind!r}."]})
    export_kind = EXPORT_KINDS[kind]
    if survey.response_count < settings.EXPORT_JOB_THRESHOLD:
        try:
            handle, size = build_direct(kind=export_kind, survey=survey, options=options)
        except DirectExportTooSlow:
            pass
        else:
            return Delivery(kind=export_kind, handle=handle, size=size)
    job = export_job_start(survey=survey, user=user, kind=kind, options=options)
    return Delivery(kind=export_kind, job=job)
