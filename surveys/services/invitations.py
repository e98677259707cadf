"""Invitations to an invitation-only survey, and the one token each code can obtain
(docs/invitations.md).

An invitation is a random code (160 bits) in a personal link. The invitee's page trades the
code for an RSA blind signature (RFC 9474) on a message the server never sees
(``token_issue``), and later submits with that token, never the code
(``services.tokens``). The code is stored sealed under a key derived from ``SECRET_KEY``
(editors must be able to read it again, to resend or print it) and found by an HMAC digest
under another derived key, so a copy of the database alone holds no usable code.

Nothing here records when a token was obtained: the invitation's status changes from
``unused`` to ``issued``, and that is all.
"""

import base64
import hashlib
import hmac
import secrets
from dataclasses import dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext as _

import blindrsa

from .. import limits
from ..models import Invitation, Survey, SurveyTokenKey, is_slug
from . import schedule
from .errors import Reason, SurveyConflict, SurveyNotAcceptingResponses

TOKEN_SCHEME = "RSABSSA-SHA384-PSS-Randomized"
_CODE_DIGEST_INFO = b"rrsurvey invitation code digest v1"
_CODE_SEAL_INFO = b"rrsurvey invitation code seal v1"
_NONCE_LENGTH = 12


# --- codes ----------------------------------------------------------------------------------


def new_code() -> str:
    """A fresh invitation code: 160 random bits as 32 lower-case base32 characters (letters
    and the digits 2-7: nothing to confuse when typed from a printed slip)."""
    raw = secrets.token_bytes(limits.INVITATION_CODE_BYTES)
    return base64.b32encode(raw).decode().lower()


def normalize_code(text) -> str | None:
    """A code as typed or linked (any case, spaces or dashes between groups), or None when it
    cannot be one."""
    if not isinstance(text, str):
        return None
    code = "".join(text.split()).replace("-", "").lower()
    alphabet = "abcdefghijklmnopqrstuvwxyz234567"
    if len(code) != limits.INVITATION_CODE_LENGTH or any(char not in alphabet for char in code):
        return None
    return code


def _derived(secret, info) -> bytes:
    secret_bytes = secret.encode() if isinstance(secret, str) else bytes(secret)
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=info).derive(secret_bytes)


def _secrets():
    return (settings.SECRET_KEY, *getattr(settings, "SECRET_KEY_FALLBACKS", ()))


def code_digest(code, *, secret=None) -> str:
    """What a code is looked up by: HMAC-SHA256 under a key derived from ``SECRET_KEY``."""
    key = _derived(secret or settings.SECRET_KEY, _CODE_DIGEST_INFO)
    return hmac.new(key, code.encode(), hashlib.sha256).hexdigest()


def code_seal(code, *, survey_id) -> bytes:
    """The code encrypted for storage (AES-256-GCM, the survey's id authenticated with it)."""
    nonce = secrets.token_bytes(_NONCE_LENGTH)
    key = AESGCM(_derived(settings.SECRET_KEY, _CODE_SEAL_INFO))
    return nonce + key.encrypt(nonce, code.encode(), str(survey_id).encode())


def code_open(sealed, *, survey_id) -> str | None:
    """The code ``code_seal`` sealed, or None when no secret opens it (a rotated
    ``SECRET_KEY`` without its old value among ``SECRET_KEY_FALLBACKS``)."""
    sealed = bytes(sealed)
    for secret in _secrets():
        key = AESGCM(_derived(secret, _CODE_SEAL_INFO))
        try:
            plain = key.decrypt(
                sealed[:_NONCE_LENGTH], sealed[_NONCE_LENGTH:], str(survey_id).encode()
            )
        except InvalidTag:
            continue
        return plain.decode()
    return None


INVITATION_FRAGMENT = "invitation"


def invitation_link(*, slug, code, base_url) -> str:
    """The personal link: the survey's page with the code in the fragment (``#invitation=``).
    A fragment never leaves the browser: no request line, server or proxy log, or Referer
    holds it; the page reads it and removes it from the address bar."""
    return f"{base_url.rstrip('/')}/s/{slug}/#{INVITATION_FRAGMENT}={code}"


# --- the survey's key -----------------------------------------------------------------------


def token_key_ensure(*, survey) -> SurveyTokenKey:
    """The survey's token key pair, made (2048 bits) the first time invitations are enabled
    and never replaced: the frozen definition publishes its public half."""
    existing = SurveyTokenKey.objects.filter(survey_id=survey.pk).first()
    if existing is not None:
        return existing
    private_key = blindrsa.generate_private_key(bits=blindrsa.DEFAULT_MODULUS_BITS)
    try:
        with transaction.atomic():
            return SurveyTokenKey.objects.create(
                survey_id=survey.pk,
                public_key=blindrsa.public_key_encode(private_key.public_key()),
                sealed_private_key=blindrsa.private_key_encrypt(
                    private_key, secret=settings.SECRET_KEY, context=str(survey.pk)
                ),
            )
    except IntegrityError:  # made meanwhile by a concurrent request: that one stands
        return SurveyTokenKey.objects.get(survey_id=survey.pk)


def _private_key(token_key):
    return blindrsa.private_key_decrypt(
        token_key.sealed_private_key,
        secret=settings.SECRET_KEY,
        context=str(token_key.survey_id),
        fallback_secrets=tuple(getattr(settings, "SECRET_KEY_FALLBACKS", ())),
    )


# --- the researcher's side ------------------------------------------------------------------


@dataclass(frozen=True)
class InvitationView:
    """An invitation as editors and the owner see it (``code`` None for a viewer)."""

    id: int
    email: str | None
    code: str | None
    status: str
    mail_pending: str
    mail_attempts: int
    mail_error: str
    mails_sent: int
    unsubscribed: bool


def invitation_view(invitation, *, with_code) -> InvitationView:
    return InvitationView(
        id=invitation.pk,
        email=invitation.email or None,
        code=code_open(invitation.sealed_code, survey_id=invitation.survey_id)
        if with_code
        else None,
        status=invitation.status,
        mail_pending=invitation.mail_pending,
        mail_attempts=invitation.mail_attempts,
        mail_error=invitation.mail_error,
        mails_sent=invitation.mails_sent,
        unsubscribed=invitation.unsubscribed,
    )


def _ensure_takes_invitations(survey):
    if survey.access == Survey.Access.LINK:
        raise SurveyConflict(
            _(
                "This survey is open to anyone with the link: set who may answer to "
                "“invitation only” or “the link and invitations” first."
            ),
            reason=Reason.NO_INVITATIONS,
            field="access",
        )
    if survey.status == Survey.Status.CLOSED:
        raise SurveyConflict(
            _("This survey is closed: it takes no new invitations."),
            reason=Reason.WRONG_STATUS,
        )


def clean_emails(emails, *, field="emails", lines=None) -> list[str]:
    """The addresses of a list (one per line as pasted or uploaded), lower-cased, each once
    in the order given; a bad one is refused naming its line (counted from 1, or the line
    numbers ``lines`` gives, aligned with ``emails``, for a file with blank lines)."""
    if not isinstance(emails, list) or not emails:
        raise ValidationError({field: [_("Must be a non-empty list of email addresses.")]})
    if len(emails) > limits.INVITATIONS_PER_REQUEST:
        raise ValidationError(
            {
                field: [
                    _("At most %(max)d addresses at a time, got %(n)d.")
                    % {"max": limits.INVITATIONS_PER_REQUEST, "n": len(emails)}
                ]
            }
        )
    seen, cleaned, problems = set(), [], []
    for line, value in zip(lines or range(1, len(emails) + 1), emails, strict=True):
        address = value.strip().lower() if isinstance(value, str) else None
        try:
            if not address or len(address) > limits.EMAIL_MAX_LENGTH:
                raise ValidationError("invalid")
            validate_email(address)
        except ValidationError:
            problems.append(
                _("Line %(line)d: %(value)s is not an email address.")
                % {"line": line, "value": repr(value)[:80]}
            )
            continue
        if address not in seen:
            seen.add(address)
            cleaned.append(address)
    if problems:
        raise ValidationError({field: problems})
    return cleaned


def _clean_count(count):
    if isinstance(count, bool) or not isinstance(count, int):
        raise ValidationError({"count": [_("Must be a whole number.")]})
    if not 1 <= count <= limits.INVITATIONS_PER_REQUEST:
        raise ValidationError(
            {
                "count": [
                    _("Must be between 1 and %(max)d, got %(n)d.")
                    % {"max": limits.INVITATIONS_PER_REQUEST, "n": count}
                ]
            }
        )
    return count


@transaction.atomic
def invitations_create(*, survey, emails=None, count=None, lines=None) -> list[InvitationView]:
    """New invitations: one per address in ``emails`` (cleaned; an address the survey has
    invited before is not invited again) or ``count`` anonymous ones (printed slips). Each
    email invitation waits for ``send_invitations`` to mail it."""
    if (emails is None) == (count is None):
        raise ValidationError(
            {"non_field_errors": [_("Send either emails or count, not both and not neither.")]}
        )
    addresses = clean_emails(emails, lines=lines) if emails is not None else None
    number = _clean_count(count) if count is not None else len(addresses)
    survey = Survey.objects.select_for_update().get(pk=survey.pk)
    _ensure_takes_invitations(survey)
    token_key_ensure(survey=survey)
    if addresses is not None:
        known = set(
            Invitation.objects.filter(survey=survey, email__in=addresses).values_list(
                "email", flat=True
            )
        )
        addresses = [address for address in addresses if address not in known]
        number = len(addresses)
    held = Invitation.objects.filter(survey=survey).count()
    if held + number > limits.MAX_INVITATIONS_PER_SURVEY:
        raise ValidationError(
            {
                "emails" if emails is not None else "count": [
                    _("A survey holds at most %(max)d invitations; this would make %(n)d.")
                    % {"max": limits.MAX_INVITATIONS_PER_SURVEY, "n": held + number}
                ]
            }
        )
    made = []
    for index in range(number):
        code = new_code()
        email = addresses[index] if addresses is not None else ""
        invitation = Invitation.objects.create(
            survey=survey,
            email=email,
            code_digest=code_digest(code),
            sealed_code=code_seal(code, survey_id=survey.pk),
            mail_pending=Invitation.Mail.INVITATION if email else Invitation.Mail.NONE,
        )
        made.append(invitation_view(invitation, with_code=True))
    return made


def _invitation_locked(*, survey, invitation_id):
    invitation = (
        Invitation.objects.select_for_update().filter(survey=survey, pk=invitation_id).first()
    )
    if invitation is None:
        raise Http404("No such invitation.")
    return invitation


@transaction.atomic
def invitation_reset(*, survey, invitation_id) -> InvitationView:
    """A new code for a lost invitation; the old code stops working. Counted on the survey
    (``invitation_resets``): if the old code had obtained a token, that token still counts,
    so a reset lets one person answer twice."""
    survey = Survey.objects.select_for_update().get(pk=survey.pk)
    invitation = _invitation_locked(survey=survey, invitation_id=invitation_id)
    if invitation.status == Invitation.Status.REVOKED:
        raise SurveyConflict(
            _("This invitation was revoked; make a new one instead."),
            reason=Reason.WRONG_STATUS,
        )
    code = new_code()
    invitation.code_digest = code_digest(code)
    invitation.sealed_code = code_seal(code, survey_id=survey.pk)
    invitation.status = Invitation.Status.UNUSED
    invitation.save(update_fields=["code_digest", "sealed_code", "status"])
    survey.invitation_resets += 1
    survey.save(update_fields=["invitation_resets"])
    return invitation_view(invitation, with_code=True)


@transaction.atomic
def invitation_revoke(*, survey, invitation_id) -> None:
    """Revoke an unused invitation: its code obtains nothing from now on."""
    invitation = _invitation_locked(survey=survey, invitation_id=invitation_id)
    if invitation.status == Invitation.Status.ISSUED:
        raise SurveyConflict(
            _(
                "This invitation's code has already obtained its token; it can no longer be "
                "revoked."
            ),
            reason=Reason.INVITATION_USED,
        )
    invitation.status = Invitation.Status.REVOKED
    invitation.mail_pending = Invitation.Mail.NONE
    invitation.save(update_fields=["status", "mail_pending"])


@transaction.atomic
def reminders_queue(*, survey) -> int:
    """Queue a reminder for every emailed invitation whose code has not obtained a token yet
    (and whose invitee has not opted out); the number queued."""
    _ensure_takes_invitations(survey)
    return (
        Invitation.objects.filter(
            survey=survey,
            status=Invitation.Status.UNUSED,
            unsubscribed=False,
        )
        .exclude(email="")
        .exclude(mail_pending=Invitation.Mail.INVITATION)
        .update(mail_pending=Invitation.Mail.REMINDER, mail_attempts=0, mail_error="")
    )


# --- the invitee's side ---------------------------------------------------------------------


def _invitation_used():
    return SurveyConflict(_("This invitation has been used."), reason=Reason.INVITATION_USED)


@transaction.atomic
def token_issue(*, slug, code, blinded_message) -> bytes:
    """Sign ``blinded_message`` (base64url) for the holder of ``code``, once per code.

    404 for no such survey, a survey without invitations, or a code it does not hold (or a
    revoked one); 409 once the code has obtained its token. The status changes in the same
    transaction as the signing: if signing fails, the code stays unused.
    """
    if not is_slug(slug):
        raise Http404("No such survey.")
    survey = (
        Survey.objects.filter(slug=slug)
        .exclude(access=Survey.Access.LINK)
        .select_related("token_key")
        .first()
    )
    if survey is None or not hasattr(survey, "token_key"):
        raise Http404("No such survey.")
    normalized = normalize_code(code)
    if normalized is None:
        raise Http404("No such invitation.")
    if not schedule.accepts_responses(survey, now=timezone.now()):
        raise SurveyNotAcceptingResponses(
            _("This survey is not taking responses now, so it issues no tokens.")
        )
    if not isinstance(blinded_message, str):
        raise ValidationError({"blinded_message": [_("Must be base64url text.")]})
    try:
        blinded = blindrsa.b64url_decode(blinded_message)
    except (ValueError, blindrsa.BlindSignatureError):
        raise ValidationError({"blinded_message": [_("Must be base64url text.")]}) from None
    digests = [code_digest(normalized, secret=secret) for secret in _secrets()]
    invitation = (
        Invitation.objects.select_for_update()
        .filter(survey=survey, code_digest__in=digests)
        .exclude(status=Invitation.Status.REVOKED)
        .first()
    )
    if invitation is None:
        raise Http404("No such invitation.")
    if invitation.status != Invitation.Status.UNUSED:
        raise _invitation_used()
    try:
        signature = blindrsa.blind_sign(
            private_key=_private_key(survey.token_key), blinded_message=blinded
        )
    except blindrsa.BlindSignatureError as error:
        if error.code in (blindrsa.ErrorCode.MALFORMED, blindrsa.ErrorCode.MESSAGE_OUT_OF_RANGE):
            raise ValidationError(
                {
                    "blinded_message": [
                        _("Must be %(n)d bytes below the key's modulus.")
                        % {
                            "n": blindrsa.modulus_length(
                                blindrsa.public_key_decode(survey.token_key.public_key)
                            )
                        }
                    ]
                }
            ) from None
        raise
    # Conditional, so that of two concurrent requests for one code only one signature leaves.
    updated = Invitation.objects.filter(pk=invitation.pk, status=Invitation.Status.UNUSED).update(
        status=Invitation.Status.ISSUED,
        mail_pending=Invitation.Mail.NONE,
        # Rewritten in random order with the next batch (services/batches.py).
        reshuffle=True,
    )
    if updated != 1:
        raise _invitation_used()
    return signature
