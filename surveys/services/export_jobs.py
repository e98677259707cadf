"""Export jobs' rows: a large raw export written by the background worker, then kept a while.

``export_job_start`` records the job, and ``exports.delivery`` enqueues
``tasks.export_job_task`` once the transaction commits; the worker (``manage.py db_worker``)
calls ``exports.jobs.export_job_run``, which writes the file under ``settings.EXPORT_DIR`` with
a random name and records its state here (claimed, progress, done or failed);
``export_jobs_purge`` deletes what has expired. The files themselves, and the task that writes
them, are the exports layer's (``exports.jobs``, ``exports.kinds``, ``tasks``): a write never
depends on a file (tests/test_layers.py).
"""

from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from .. import limits
from ..models import ExportJob, Survey
from ..selectors.export_jobs import export_disk_budget, export_files_kept, export_path
from .errors import ExportJobsBusy, ExportStorageFull

# The jobs that may still write: a request for the same export joins one of them.
ACTIVE = (ExportJob.Status.QUEUED, ExportJob.Status.RUNNING)


def export_job_start(*, survey, user, kind: str, options: dict, enqueue=None) -> ExportJob:
    """The job writing ``kind`` of ``survey`` with ``options``: a waiting or running job of
    the same user, kind and options when there is one (a reload or double click does not
    queue the export twice), else a new one, passed to ``enqueue`` (the requests' way in,
    ``exports.delivery.export_deliver``, enqueues the worker's task once this transaction
    commits: the task is the exports layer's). ``kind`` is a name of
    ``exports.kinds.EXPORT_KINDS``, checked by ``export_deliver`` before this is called.
    ``ExportJobsBusy`` when the user already has ``limits.EXPORT_JOBS_ACTIVE_MAX`` jobs waiting
    or running for the survey; ``ExportStorageFull`` while the kept files fill the disk budget."""
    with transaction.atomic():
        # The survey's row serializes its job starts: two requests cannot both pass the cap.
        # FOR NO KEY UPDATE: submissions (whose foreign key takes KEY SHARE) do not wait.
        Survey.objects.select_for_update(no_key=True).filter(pk=survey.pk).first()
        active = list(
            ExportJob.objects.filter(survey=survey, requested_by=user, status__in=ACTIVE)
            .only("kind", "options")
            .order_by("-created_at")
        )
        for job in active:
            if job.kind == kind and job.options == options:
                return ExportJob.objects.get(pk=job.pk)
        if len(active) >= limits.EXPORT_JOBS_ACTIVE_MAX:
            raise ExportJobsBusy(
                _(
                    "You already have %(n)d exports of this survey being prepared; wait for "
                    "one to finish, then ask again."
                )
                % {"n": len(active)},
                retry_after=limits.EXPORT_JOBS_RETRY_SECONDS,
            )
        now = timezone.now()
        used, earliest = export_files_kept(now=now)
        if used >= export_disk_budget():
            wait = (
                (earliest - now).total_seconds() if earliest else limits.EXPORT_JOBS_RETRY_SECONDS
            )
            raise ExportStorageFull(
                _(
                    "The space for export files on this server is full; exports can be "
                    "prepared again once older files expire."
                ),
                retry_after=wait,
            )
        job = ExportJob.objects.create(
            survey=survey,
            requested_by=user,
            kind=kind,
            options=options,
            rows_total=survey.response_count,
        )
        if enqueue is not None:
            enqueue(job)
    return job


def export_job_claim(*, job_id) -> ExportJob | None:
    """Mark a waiting job running and return it (with its survey), for the worker to write;
    ``None`` when it is not waiting (already run, or its survey deleted), so a task run twice
    writes once."""
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
    return job


# Updates, not saves, below: a job deleted meanwhile (its survey purged) is not recreated.


def export_job_named(job: ExportJob, *, file_name: str) -> None:
    """Record the file's name before the file exists, so a purge never takes it for an
    orphan."""
    ExportJob.objects.filter(pk=job.pk).update(file_name=file_name)


def export_job_progressed(job: ExportJob, *, rows: int) -> None:
    ExportJob.objects.filter(pk=job.pk).update(rows_written=rows)


def export_job_failed(job: ExportJob, *, error: str) -> None:
    ExportJob.objects.filter(pk=job.pk).update(
        status=ExportJob.Status.FAILED, finished_at=timezone.now(), error=error
    )


def export_job_done(
    job: ExportJob, *, file_name: str, download_name: str, size: int, rows, sha256: str
) -> ExportJob | None:
    """Record a whole file written, kept ``settings.EXPORT_RETENTION_HOURS``; the job as it
    is now, or ``None`` when it was deleted meanwhile."""
    now = timezone.now()
    ExportJob.objects.filter(pk=job.pk).update(
        status=ExportJob.Status.DONE,
        file_name=file_name,
        download_name=download_name,
        size=size,
        rows=rows,
        rows_written=rows or 0,
        sha256=sha256,
        finished_at=now,
        expires_at=now + timedelta(hours=settings.EXPORT_RETENTION_HOURS),
    )
    return ExportJob.objects.filter(pk=job.pk).first()


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
