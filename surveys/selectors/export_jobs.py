"""Reads of export jobs (``services.export_jobs`` writes them; ``exports.jobs`` writes their
files and their codebooks)."""

from pathlib import Path

from django.conf import settings
from django.db.models import Min, Sum
from django.http import Http404
from django.utils import timezone

from ..models import ExportJob


def export_path(job: ExportJob) -> Path:
    """Where a job's file is (or will be) on disk."""
    return Path(settings.EXPORT_DIR) / job.file_name


def export_job_for(*, survey, job_id) -> ExportJob:
    """The job of ``survey`` with ``job_id``, or 404: another survey's job is not found, so a
    member of one survey learns nothing of another's exports."""
    job = ExportJob.objects.filter(survey=survey, pk=job_id).first()
    if job is None:
        raise Http404("No such export.")
    return job


def export_job_open(job: ExportJob):
    """A finished job's file, open for reading, or 404: not written yet, failed, or expired
    and deleted."""
    if job.status != ExportJob.Status.DONE:
        raise Http404("This export is not ready.")
    try:
        return open(export_path(job), "rb")
    except FileNotFoundError:
        raise Http404("This export has expired.") from None


def export_job_progress(job: ExportJob) -> float | None:
    """The share of rows written, 0 to 1; None while nothing is known (no rows to write)."""
    if job.status == ExportJob.Status.DONE:
        return 1.0
    if not job.rows_total:
        return None
    return min(job.rows_written / job.rows_total, 1.0)


def export_disk_budget() -> int:
    """Bytes the export files may take together (``settings.EXPORT_DISK_BUDGET_MB``)."""
    return settings.EXPORT_DISK_BUDGET_MB * 2**20


def export_files_kept(*, now=None):
    """``(bytes, earliest expiry)`` of the finished files not yet expired (the earliest is
    ``None`` when there is none)."""
    kept = ExportJob.objects.filter(
        status=ExportJob.Status.DONE, expires_at__gt=now or timezone.now()
    ).aggregate(size=Sum("size"), earliest=Min("expires_at"))
    return kept["size"] or 0, kept["earliest"]
