"""Surveys, their questions and the randomized reports respondents send.

What is stored about a respondent is deliberately small: a client-generated submission id,
the coarse date it arrived and one randomized bit per question. No address, user agent,
precise time, cookie or account ties a report to a person.
"""

import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

CI_METHODS = [
    ("wilson", _("Wilson score")),
    ("exact", _("Clopper–Pearson (exact)")),
    ("jeffreys", _("Jeffreys")),
    ("wald", _("Wald")),
]


def new_slug():
    # 96 random bits: unguessable, so a survey link cannot be found by enumeration.
    return secrets.token_urlsafe(12)


class Survey(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", _("Draft")
        OPEN = "open", _("Open")
        CLOSED = "closed", _("Closed")

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="surveys"
    )
    title = models.CharField(max_length=200)
    intro = models.TextField(blank=True, max_length=5000)
    language = models.CharField(
        max_length=10, choices=settings.LANGUAGES, default=settings.LANGUAGE_CODE
    )
    slug = models.CharField(max_length=32, unique=True, default=new_slug, editable=False)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT)
    p_truth = models.FloatField(default=0.5)
    p_forced_yes = models.FloatField(default=0.5)
    confidence = models.FloatField(default=0.95)
    ci_method = models.CharField(max_length=10, choices=CI_METHODS, default="wilson")
    min_n = models.PositiveIntegerField(default=30)
    # Kept in the same transaction as each submission so reads never count rows.
    response_count = models.PositiveIntegerField(default=0, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(p_truth__gt=0) & Q(p_truth__lt=1), name="survey_p_truth_open_unit"
            ),
            models.CheckConstraint(
                condition=Q(p_forced_yes__gt=0) & Q(p_forced_yes__lt=1),
                name="survey_p_forced_yes_open_unit",
            ),
            models.CheckConstraint(
                condition=Q(confidence__gt=0) & Q(confidence__lt=1),
                name="survey_confidence_open_unit",
            ),
            models.CheckConstraint(
                condition=Q(status__in=["draft", "open", "closed"]), name="survey_status_valid"
            ),
        ]

    def __str__(self):
        return self.title

    @property
    def is_open(self):
        return self.status == self.Status.OPEN

    @property
    def is_frozen(self):
        """Questions and design cannot change once reports exist: estimates would be corrupted."""
        return self.response_count > 0


class Question(models.Model):
    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="questions")
    position = models.PositiveIntegerField()
    text = models.TextField(max_length=1000)
    # Running tallies of randomized reports, updated in the submission's transaction, so the
    # estimates page costs the same at a thousand or a million responses.
    report_count = models.PositiveIntegerField(default=0, editable=False)
    yes_count = models.PositiveIntegerField(default=0, editable=False)

    class Meta:
        ordering = ["position", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(yes_count__lte=models.F("report_count")), name="question_yes_le_n"
            ),
        ]

    def __str__(self):
        return self.text


class Submission(models.Model):
    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="submissions")
    submission_id = models.UUIDField()
    # A date, not a time: precise timestamps could be joined with other logs to re-identify.
    received_on = models.DateField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["survey", "submission_id"], name="submission_id_unique_per_survey"
            ),
        ]

    def __str__(self):
        return str(self.submission_id)


class Report(models.Model):
    """One randomized answer: what the respondent's browser sent, never the true answer."""

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="reports")
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="reports")
    reported_yes = models.BooleanField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["submission", "question"], name="one_report_per_question_per_submission"
            ),
        ]

    def __str__(self):
        return f"{self.question_id}: {'yes' if self.reported_yes else 'no'} (randomized)"
