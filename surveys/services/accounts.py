"""Writes about accounts: changing the email address and proving it (docs/researchers.md,
"Accounts and access").

An address is trusted (for invitations by email and for password reset) only once its owner
followed a link mailed to it. The link carries a signed token naming the account and the
address; it expires, and it stops working once the account's address changes.
"""

from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import signing
from django.core.exceptions import ValidationError
from django.core.mail import EmailMessage
from django.core.validators import validate_email
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from .. import limits, mail
from ..models import VerifiedEmail
from ..selectors.accounts import normalized_email

VERIFICATION_SALT = "rrsurvey.email-verification"
VERIFICATION_MAX_AGE = 3 * 86400  # seconds a verification link works


@dataclass(frozen=True)
class VerificationLink:
    """Who and which address a valid verification link stands for."""

    user_id: int
    email: str


def verification_token(*, user) -> str:
    return signing.dumps(
        {"u": user.pk, "e": normalized_email(user.email)}, salt=VERIFICATION_SALT, compress=True
    )


def verification_read(*, token) -> VerificationLink | None:
    """The account and address of a valid, unexpired link whose address is still the
    account's own; None otherwise (forged, expired, or the address changed since)."""
    try:
        data = signing.loads(token, salt=VERIFICATION_SALT, max_age=VERIFICATION_MAX_AGE)
        user_id, email = int(data["u"]), str(data["e"])
    except (signing.BadSignature, KeyError, TypeError, ValueError):
        return None
    user = get_user_model().objects.filter(pk=user_id, is_active=True).first()
    if user is None or not email or normalized_email(user.email) != email:
        return None
    return VerificationLink(user_id=user_id, email=email)


@transaction.atomic
def email_verify(*, link: VerificationLink) -> None:
    VerifiedEmail.objects.update_or_create(
        user_id=link.user_id, defaults={"email": link.email, "verified_at": timezone.now()}
    )


def verification_send(*, user, base_url) -> bool:
    """Mail ``user`` a link that verifies their current address, after the request commits;
    False when there is nothing to send to or mail cannot leave the server."""
    address = (user.email or "").strip()
    if not address or not settings.MAIL_ENABLED:
        return False
    path = reverse("email_verify", kwargs={"token": verification_token(user=user)})
    context = {
        "username": user.get_username(),
        "link": base_url.rstrip("/") + path,
        "days": VERIFICATION_MAX_AGE // 86400,
    }
    message = EmailMessage(
        subject=_("Verify your email address for rrsurvey"),
        body=render_to_string("accounts/verify_email.txt", context),
        to=[address],
    )
    mail.send_after_commit(message.send)
    return True


@transaction.atomic
def email_change(*, user, email) -> str:
    """Give ``user`` the address ``email`` (blank: none); a new address starts unverified.
    Returns the address as stored."""
    email = (email or "").strip()
    if email:
        try:
            validate_email(email)
        except ValidationError:
            raise ValidationError({"email": [_("Enter a valid email address.")]}) from None
    if len(email) > limits.EMAIL_MAX_LENGTH:
        raise ValidationError({"email": [_("An email address has at most 254 characters.")]})
    user.email = email
    user.save(update_fields=["email"])
    return email
