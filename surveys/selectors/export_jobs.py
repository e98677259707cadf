"""Reads of export jobs (``services.export_jobs`` writes them)."""

from dataclasses import replace

from django.http import Http404

from ..exports.codebook import RawFileFacts, survey_codebook
from ..models import ExportJob


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
    from ..services.export_jobs import export_path

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


def export_job_codebook(job: ExportJob):
    """The codebook of a finished job's CSV file, with its rows and checksum."""
    facts = RawFileFacts(name=job.download_name, rows=job.rows or 0, sha256=job.sha256)
    codebook = survey_codebook(
        survey=job.survey,
        method=job.options.get("method"),
        confidence=job.options.get("confidence"),
    )

    return replace(codebook, raw_file=facts)
