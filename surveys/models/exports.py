"""Export files written by the worker."""

import uuid

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from .surveys import Survey


class ExportJob(models.Model):
    """A raw export written by the background worker into a file kept for a while.

    The file lives under ``settings.EXPORT_DIR`` with a random name (``file_name``) and is
    served only through the application to members of the survey; it appears there complete
    or not at all (written under a temporary name, then renamed). ``rows`` and ``sha256`` are
    computed while writing, so a researcher can check that the file is whole.
    """

    class Status(models.TextChoices):
        QUEUED = "queued", _("Waiting")
        RUNNING = "running", _("Writing")
        DONE = "done", _("Ready")
        FAILED = "failed", _("Failed")

    # Random: a job's address reveals nothing of how many exports anyone made.
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="export_jobs")
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    kind = models.CharField(max_length=20)  # a name of surveys.exports.kinds.EXPORT_KINDS
    options = models.JSONField(default=dict)  # the kind's options (interval, thresholds)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    rows_total = models.PositiveBigIntegerField(default=0)  # responses when it was requested
    rows_written = models.PositiveBigIntegerField(default=0)  # progress, while running
    file_name = models.CharField(max_length=80, blank=True)  # under EXPORT_DIR, random
    download_name = models.CharField(max_length=200, blank=True)
    size = models.PositiveBigIntegerField(null=True, blank=True)
    rows = models.PositiveBigIntegerField(null=True, blank=True)  # data rows in the raw file
    sha256 = models.CharField(max_length=64, blank=True)  # of the raw reports, as written
    error = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)

    def __str__(self):
        return f"{self.kind} export of survey {self.survey_id} ({self.status})"
