"""A raw export for a request: the whole file built in the request, or a job the worker writes
(enqueued here, ``tasks.export_job_task``); and the one way either file is sent, to a page or
to the API (``delivery_file_response``, ``job_file_response``). Not in ``jobs.py``: the task
runs that module's ``export_job_run``, and the services do not enqueue a task of the exports
layer (tests/test_layers.py checks both: no circle, no import up a layer).
"""

from dataclasses import dataclass

from django.conf import settings
from django.core.exceptions import ValidationError

from ..models import ExportJob
from ..selectors import export_jobs as job_reads
from ..services.export_jobs import export_job_start
from .kinds import EXPORT_KINDS, DirectExportTooSlow, ExportKind, build_direct, file_response
from .tasks import enqueue_after_commit, export_job_task


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
    job = export_job_start(
        survey=survey, user=user, kind=kind, options=options, enqueue=export_job_enqueue
    )
    return Delivery(kind=export_kind, job=job)


def export_job_enqueue(job: ExportJob) -> None:
    """The worker's task for a new job, enqueued once the request's transaction commits."""
    enqueue_after_commit(export_job_task, str(job.pk))


def delivery_file_response(delivery: Delivery, *, survey, headers=None):
    """The file of a delivery built whole in the request, named for ``survey``, with
    ``headers`` added (a codebook's checksum, say)."""
    response = file_response(
        delivery.handle,
        size=delivery.size,
        filename=delivery.kind.filename(survey),
        content_type=delivery.kind.content_type,
    )
    for name, value in (headers or {}).items():
        response[name] = value
    return response


def job_file_response(job: ExportJob):
    """The file a finished job wrote (404 until it is done, and once it has expired)."""
    handle = job_reads.export_job_open(job)
    return file_response(
        handle,
        size=job.size,
        filename=job.download_name,
        content_type=EXPORT_KINDS[job.kind].content_type,
    )
