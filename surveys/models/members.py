"""Researchers: their API tokens, their places on others' surveys, the invitations to take
one, and the address they verified."""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from .. import limits
from .surveys import Survey


class ApiToken(models.Model):
    """A researcher's API token, stored as a SHA-256 digest: the key itself is shown once.

    A token is 256 random bits, so a fast hash is enough (nothing to brute-force, unlike a
    password); a copy of the database then holds nothing that signs anyone in.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(_("name"), max_length=limits.API_TOKEN_NAME_MAX_LENGTH)
    # The key's first characters, shown in lists so a researcher can tell tokens apart.
    prefix = models.CharField(max_length=limits.API_TOKEN_SHOWN_PREFIX_LENGTH)
    digest = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField()

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self):
        return f"{self.name} ({self.prefix}…)"


class SurveyMember(models.Model):
    """A co-researcher: another account invited to a survey as an editor or a viewer.

    The owner is never a member row (``Survey.owner`` says who owns it); what each role may do
    is decided in one place, ``selectors.survey_for`` (docs/researchers.md, "Co-researchers").
    """

    class Role(models.TextChoices):
        VIEWER = "viewer", _("Viewer")
        EDITOR = "editor", _("Editor")

    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="members")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="survey_memberships"
    )
    role = models.CharField(max_length=10, choices=Role.choices)
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["survey", "user"], name="survey_member_unique"),
            models.CheckConstraint(
                condition=Q(role__in=["viewer", "editor"]), name="survey_member_role_valid"
            ),
        ]

    def __str__(self):
        return f"{self.user} ({self.role})"

    def clean(self):
        # The admin's inline: the owner already has every right; a member row would be noise.
        if self.survey_id is not None and self.user_id == self.survey.owner_id:
            raise ValidationError({"user": _("The owner of a survey cannot also be a member.")})


class MemberInvitation(models.Model):
    """An offer waiting for its invitee's answer: to join a survey as a viewer or an editor,
    or (``role`` owner) to take it over. It grants nothing and counts towards no limit until
    accepted (docs/researchers.md, "Co-researchers").

    Addressed either to an account (by username; ownership offers always go to a member) or
    to an email address, stored lower-cased: whoever holds that address *verified* on their
    account may answer it, so nothing is looked up when it is made and the answer to the
    inviter cannot tell whether the address has an account.
    """

    class Role(models.TextChoices):
        VIEWER = "viewer", _("Viewer")
        EDITOR = "editor", _("Editor")
        OWNER = "owner", _("Owner")

    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="member_invitations")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="member_invitations",
    )
    email = models.CharField(max_length=limits.EMAIL_MAX_LENGTH, blank=True)
    role = models.CharField(max_length=10, choices=Role.choices)
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.CheckConstraint(
                condition=(Q(user__isnull=False) & Q(email=""))
                | (Q(user__isnull=True) & ~Q(email="")),
                name="member_invitation_one_addressee",
            ),
            models.CheckConstraint(
                condition=Q(role__in=["viewer", "editor"]) | Q(role="owner", user__isnull=False),
                name="member_invitation_role_valid",
            ),
            models.UniqueConstraint(
                fields=["survey", "user"],
                condition=Q(user__isnull=False),
                name="member_invitation_one_per_user",
            ),
            models.UniqueConstraint(
                fields=["survey", "email"],
                condition=~Q(email=""),
                name="member_invitation_one_per_email",
            ),
        ]

    def __str__(self):
        return f"{self.user or self.email} ({self.role}, pending)"


class VerifiedEmail(models.Model):
    """The address an account proved it reads, by following a link mailed to it.

    An account's address is verified while ``User.email`` still equals the one stored here
    (compared lower-cased): changing the address makes it unverified without touching this row.
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="verified_email"
    )
    email = models.CharField(max_length=limits.EMAIL_MAX_LENGTH)
    verified_at = models.DateTimeField()

    def __str__(self):
        return f"{self.email} (verified)"
