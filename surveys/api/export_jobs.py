"""Raw downloads as jobs in the API: an export of a large survey answers ``202 Accepted`` with
the job (``Location``: its URL); the job's URL gives its status and progress, and ``file``
the file once written (docs/api.md, "Large exports").
"""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.reverse import reverse

from .. import selectors
from ..exports.delivery import delivery_file_response, export_deliver, job_file_response
from ..exports.kinds import EXPORT_KINDS
from ..models import ExportJob
from ..selectors import export_jobs as job_reads
from .common import CSVNegotiation, OwnedSurveyView
from .errors import error_responses

TAG = "researcher"

JOB_SCHEMA = inline_serializer(
    "ExportJob",
    {
        "id": serializers.UUIDField(),
        "kind": serializers.ChoiceField(choices=list(EXPORT_KINDS)),
        "status": serializers.ChoiceField(choices=ExportJob.Status.values),
        "rows_written": serializers.IntegerField(),
        "rows_total": serializers.IntegerField(),
        "progress": serializers.FloatField(allow_null=True),
        "url": serializers.URLField(),
        "file_url": serializers.URLField(allow_null=True),
        "file_name": serializers.CharField(allow_null=True),
        "rows": serializers.IntegerField(allow_null=True),
        "sha256": serializers.CharField(allow_null=True),
        "size": serializers.IntegerField(allow_null=True),
        "expires_at": serializers.DateTimeField(allow_null=True),
        "error": serializers.CharField(
            allow_null=True,
            help_text="Why a failed job failed: `disk budget exceeded` (its file would have "
            "passed EXPORT_DISK_BUDGET_MB) or `export failed`.",
        ),
    },
)
JOB_DESCRIPTION = (
    "Above EXPORT_JOB_THRESHOLD responses (or when building the file in the request would take "
    "longer than EXPORT_DIRECT_SECONDS) the answer is `202 Accepted` with an export job "
    "(`Location`: its URL) instead of the file: poll the job until `status` is `done`, then "
    "fetch `file_url`. A file is never sent cut short: a direct download carries its "
    "Content-Length."
)
ACCEPTED = {(202, "application/json"): OpenApiResponse(JOB_SCHEMA, description="Export job.")}


def job_url(request, job, name="api:survey-export-job"):
    return reverse(name, kwargs={"survey_id": job.survey_id, "job_id": job.pk}, request=request)


def job_body(request, job) -> dict:
    done = job.status == ExportJob.Status.DONE
    return {
        "id": str(job.pk),
        "kind": job.kind,
        "status": job.status,
        "rows_written": job.rows_written,
        "rows_total": job.rows_total,
        "progress": job_reads.export_job_progress(job),
        "url": job_url(request, job),
        "file_url": job_url(request, job, "api:survey-export-job-file") if done else None,
        "file_name": job.download_name if done else None,
        "rows": job.rows,
        "sha256": job.sha256 or None,
        "size": job.size,
        "expires_at": job.expires_at.isoformat() if job.expires_at else None,
        "error": job.error or None,
    }


def deliver(request, survey, *, kind, options, headers=None):
    """``kind`` of ``survey``: the whole file (200), or its job (202)."""
    delivery = export_deliver(survey=survey, user=request.user, kind=kind, options=options)
    if delivery.job is not None:
        body = job_body(request, delivery.job)
        return Response(body, status=status.HTTP_202_ACCEPTED, headers={"Location": body["url"]})
    return delivery_file_response(delivery, survey=survey, headers=headers)


def bundle_options(interval: dict) -> dict:
    """The interval choice of a ZIP or workbook as a job keeps it (JSON)."""
    options = {key: interval[key] for key in ("method", "confidence") if key in interval}
    if interval.get("thresholds") is not None:
        options["thresholds"] = {str(pk): value for pk, value in interval["thresholds"].items()}
    return options


@extend_schema(tags=[TAG])
class SurveyExportJobView(OwnedSurveyView):
    survey_roles = {"get": selectors.VIEWER}

    @extend_schema(
        operation_id="surveys_export_job",
        summary="An export job: status, progress and, when done, the file's URL and checksum",
        description=(
            "`status`: queued, running, done or failed. `progress`: rows written / rows "
            "total (0–1). When done: `file_url`, `rows` (data rows in the raw reports), "
            "`sha256` (of the file as downloaded), `size` and `expires_at` (after which the "
            "file is deleted: EXPORT_RETENTION_HOURS). Another survey's job is a 404."
        ),
        responses={200: JOB_SCHEMA, **error_responses(401, 404)},
    )
    def get(self, request, survey_id, job_id):
        job = job_reads.export_job_for(survey=self.survey, job_id=job_id)
        return Response(job_body(request, job), headers={"Cache-Control": "no-store"})


@extend_schema(tags=[TAG])
class SurveyExportJobFileView(OwnedSurveyView):
    survey_roles = {"get": selectors.VIEWER}
    content_negotiation_class = CSVNegotiation

    @extend_schema(
        operation_id="surveys_export_job_file",
        summary="The file an export job wrote (404 until it is done, and after it expires)",
        responses={
            (200, "application/octet-stream"): OpenApiResponse(
                OpenApiTypes.BINARY, description="The export, with its Content-Length."
            ),
            **error_responses(401, 404),
        },
    )
    def get(self, request, survey_id, job_id):
        job = job_reads.export_job_for(survey=self.survey, job_id=job_id)
        return job_file_response(job)
