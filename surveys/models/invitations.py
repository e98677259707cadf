"""Respondents' invitations, the survey's key that signs their tokens, and the tokens spent."""

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from .. import limits
from .keys import RandomKeyField
from .surveys import Survey


class SurveyTokenKey(models.Model):
    """A survey's RSA key pair for invitation tokens (RFC 9474 blind signatures), made when
    invitations are first enabled and never replaced once the survey has opened: every
    invitee's token must be signed with the one key the frozen definition publishes, or the
    key would tell them apart (a pilot's discarded tokens take the pilot's key with them:
    ``services.pilot.pilot_tokens_discard``).

    The private key is sealed (``blindrsa.private_key_encrypt``: AES-256-GCM under a key
    derived from ``SECRET_KEY``, the survey's id as associated data), so a copy of the
    database alone cannot sign.
    """

    survey = models.OneToOneField(
        Survey, on_delete=models.CASCADE, primary_key=True, related_name="token_key"
    )
    public_key = models.TextField()  # SubjectPublicKeyInfo DER, base64url: ``token_key``
    sealed_private_key = models.BinaryField()

    def __str__(self):
        return f"token key of survey {self.survey_id}"


class Invitation(models.Model):
    """One person's invitation to answer an invitation-only survey: a random code that can
    obtain one token, once (``surveys/services/invitations.py``).

    The code is stored sealed (AES-GCM under a key derived from ``SECRET_KEY``) because
    editors and the owner must be able to read it again (to resend a link, to print a
    sheet), and found by ``code_digest``, an HMAC of the code under another key derived from
    ``SECRET_KEY``: a copy of the database alone yields no code that could obtain a token.
    Nothing here records when a token was obtained, and nothing joins an invitation to a
    submission: a token is spent by a digest of its message (``SpentToken``), which the
    server never saw when it signed.
    """

    class Status(models.TextChoices):
        UNUSED = "unused", _("Not used yet")
        ISSUED = "issued", _("Token obtained")
        REVOKED = "revoked", _("Revoked")

    class Mail(models.TextChoices):
        NONE = "", _("Nothing to send")
        INVITATION = "invitation", _("Invitation to send")
        REMINDER = "reminder", _("Reminder to send")

    survey = models.ForeignKey(
        Survey, on_delete=models.CASCADE, related_name="respondent_invitations"
    )
    email = models.CharField(max_length=limits.EMAIL_MAX_LENGTH, blank=True)  # "": anonymous
    code_digest = models.CharField(max_length=64, unique=True)
    sealed_code = models.BinaryField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.UNUSED)
    # Email: what waits to be sent by ``manage.py send_invitations``, its failed attempts and
    # the last error (shown on the page), emails sent, and whether the invitee opted out.
    mail_pending = models.CharField(max_length=12, choices=Mail.choices, blank=True, default="")
    mail_attempts = models.PositiveSmallIntegerField(default=0)
    mail_error = models.CharField(max_length=500, blank=True)
    mails_sent = models.PositiveSmallIntegerField(default=0)
    unsubscribed = models.BooleanField(default=False)
    # Made while the survey was a pilot: shown apart, never counted or printed with the real
    # study's, and revoked (or re-issued with new codes) when it opens (services/pilot.py).
    pilot = models.BooleanField(default=False)
    # The language the email and the slip are written in (one of the survey's); blank: the
    # survey's own language.
    language = models.CharField(max_length=limits.LANGUAGE_TAG_MAX_LENGTH, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # Its status changed (a token obtained) since the survey's last batch: the batch's release
    # rewrites it among the others, so its row's transaction number and place say nothing.
    reshuffle = models.BooleanField(db_default=False, editable=False)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["survey", "email", "pilot"],
                condition=~Q(email=""),
                name="invitation_one_per_email",
            ),
            models.CheckConstraint(
                condition=Q(status__in=["unused", "issued", "revoked"]),
                name="invitation_status_valid",
            ),
        ]
        # A batch's release rewrites the invitations marked ``reshuffle``: without it, every
        # release read every invitation of the survey, a cost growing with the invited.
        indexes = [
            models.Index(
                fields=["survey"], condition=Q(reshuffle=True), name="invitation_reshuffle"
            ),
        ]

    def __str__(self):
        return f"{self.email or 'anonymous'} ({self.status})"


class SpentToken(models.Model):
    """A token that was spent on a submission: the SHA-256 of its prepared message, and
    nothing else (no time, no code, no submission), stored in the submission's transaction.
    The key is random (``random_key``) so that row order says nothing about arrival order."""

    id = RandomKeyField()
    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="spent_tokens")
    digest = models.BinaryField(max_length=32)
    # Spent on a submission still held for its batch: rewritten with it when it is released.
    held = models.BooleanField(db_default=False, editable=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["survey", "digest"], name="spent_token_once"),
        ]
        # A batch's release picks the survey's held tokens: without it, every token the
        # survey ever spent is read at each release, a cost growing with the survey.
        indexes = [
            models.Index(fields=["survey"], condition=Q(held=True), name="spent_token_held"),
        ]

    def __str__(self):
        return f"spent token of survey {self.survey_id}"
