"""Raw downloads as files or as jobs: the job's page with its progress bar, its status (polled
by static/js/export-job.js), its file and, for a CSV, the codebook with the file's checksum.

A download link (``analysis.responses_csv``...) calls ``deliver``: the whole file when it was
built in the request, else a redirect to the page of the job writing it.
"""

from django.http import Http404, HttpResponseRedirect, JsonResponse
from django.shortcuts import render
from django.urls import reverse

from ..exports import csv as csv_export
from ..exports import jobs as export_files
from ..exports.delivery import delivery_file_response, export_deliver, job_file_response
from ..models import ExportJob
from ..selectors import export_jobs as job_reads
from ..services.errors import ExportJobsBusy, ExportRefused
from .common import VIEWER, member_view


def deliver(request, survey, *, kind, options, headers=None):
    """``kind`` of ``survey`` for this request: the file, a 303 to its job's page, or why no
    job may start now (429 or 503, with ``Retry-After``)."""
    try:
        delivery = export_deliver(survey=survey, user=request.user, kind=kind, options=options)
    except ExportRefused as refused:
        context = {"survey": survey, "message": refused.message}
        status = 429 if isinstance(refused, ExportJobsBusy) else 503
        response = render(request, "surveys/export_refused.html", context, status=status)
        response["Retry-After"] = str(refused.retry_after)
        return response
    if delivery.job is not None:
        # 303: the job's page is to be fetched with GET, whatever asked for the download.
        response = HttpResponseRedirect(job_url(delivery.job))
        response.status_code = 303
        return response
    return delivery_file_response(delivery, survey=survey, headers=headers)


def job_url(job, name="export-job"):
    return reverse(f"surveys:{name}", kwargs={"pk": job.survey_id, "job_id": job.pk})


def job_state(job: ExportJob) -> dict:
    """What the page shows and the script polls: status, progress, and the file when ready."""
    done = job.status == ExportJob.Status.DONE
    return {
        "id": str(job.pk),
        "kind": job.kind,
        "status": job.status,
        "rows_written": job.rows_written,
        "rows_total": job.rows_total,
        "progress": job_reads.export_job_progress(job),
        "file_url": job_url(job, "export-job-file") if done else None,
        "file_name": job.download_name if done else None,
        "rows": job.rows,
        "sha256": job.sha256 or None,
        "size": job.size,
        "expires_at": job.expires_at.isoformat() if job.expires_at else None,
    }


@member_view(GET=VIEWER)
def export_job_page(request, survey, job_id):
    job = job_reads.export_job_for(survey=survey, job_id=job_id)
    state = job_state(job)
    context = {
        "survey": survey,
        "job": job,
        "state": state,
        "percent": round(100 * state["progress"]) if state["progress"] is not None else None,
        "has_codebook": job.kind in CODEBOOK_KINDS,
        "over_budget": job.error == export_files.BUDGET_EXCEEDED,
    }
    return render(request, "surveys/export_job.html", context)


@member_view(GET=VIEWER)
def export_job_status(request, survey, job_id):
    job = job_reads.export_job_for(survey=survey, job_id=job_id)
    response = JsonResponse(job_state(job))
    response["Cache-Control"] = "no-store"
    return response


@member_view(GET=VIEWER)
def export_job_file(request, survey, job_id):
    job = job_reads.export_job_for(survey=survey, job_id=job_id)
    return job_file_response(job)


# The kinds whose file is the raw reports CSV itself, so that its codebook can name it.
CODEBOOK_KINDS = {"reports", "for-r"}


@member_view(GET=VIEWER)
def export_job_codebook(request, survey, job_id):
    job = job_reads.export_job_for(survey=survey, job_id=job_id)
    if job.status != ExportJob.Status.DONE or job.kind not in CODEBOOK_KINDS:
        raise Http404("This export has no codebook of its own.")
    return csv_export.codebook_csv_response(export_files.export_job_codebook(job))
