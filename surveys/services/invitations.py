"""Invitations to an invitation-only survey, and the one token each code can obtain
(docs/invitations.md).

An invitation is a random code (160 bits) in a personal link. The invitee's page trades the
code for an RSA blind signature (RFC 9474) on a message the server never sees
(``token_issue``), and later submits with that token, never the code
(``services.tokens``). The code is stored sealed under a key derived from ``SECRET_KEY``
(editors must be able to read it again, to resend or print it) and found by an HMAC digest
under another derived key, so a copy of the database alone holds no usable code
(``services.invitation_codes``).

Nothing here records when a token was obtained: the invitation's status changes from
``unused`` to ``issued``, and that is all. Nor does anything a researcher reads show that
status for one invitation (``InvitationView`` has none): the survey's counts only.
"""

from dataclasses import dataclass

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext as _

import blindrsa

from .. import limits
from ..models import Invitation, Survey, is_slug
from . import schedule
from .errors import Reason, SurveyConflict, SurveyNotAcceptingResponses
from .invitation_codes import (  # noqa: F401  (re-exported: the codes' public names)
    INVITATION_FRAGMENT,
    code_digest,
    code_open,
    code_seal,
    invitation_link,
    new_code,
    normalize_code,
    secrets_in_use,
)
from .invitation_mail import mail_soon
from .token_keys import token_key_ensure

TOKEN_SCHEME = "RSABSSA-SHA384-PSS-Randomized"


# --- the survey's key -----------------------------------------------------------------------


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
    """An invitation as the survey's members see it (``code`` None for a viewer).

    Whether its code obtained a token, or a reminder went to it, is not here: a researcher
    who could see it change would see who answered when the response count moved. The
    invitation email's own state (``mail``: ``waiting``, ``sent``, ``failed`` or "") is,
    since it is sent whatever the invitee does."""

    id: int
    email: str | None
    code: str | None
    revoked: bool
    pilot: bool
    language: str
    mail: str
    mail_attempts: int
    mail_error: str
    unsubscribed: bool


def _invitation_mail_state(invitation) -> str:
    if not invitation.email:
        return ""
    if invitation.mail_pending == Invitation.Mail.INVITATION:
        return "failed" if invitation.mail_attempts >= limits.MAIL_ATTEMPTS_MAX else "waiting"
    # A reminder only ever follows a sent invitation, so either way the invitation went.
    return "sent" if invitation.mails_sent else ""


def invitation_view(invitation, *, with_code) -> InvitationView:
    invitation_waiting = invitation.mail_pending == Invitation.Mail.INVITATION
    return InvitationView(
        id=invitation.pk,
        email=invitation.email or None,
        code=code_open(invitation.sealed_code, survey_id=invitation.survey_id)
        if with_code
        else None,
        revoked=invitation.status == Invitation.Status.REVOKED,
        pilot=invitation.pilot,
        language=invitation.language,
        mail=_invitation_mail_state(invitation),
        # A reminder's attempts and errors would tell whose code has obtained no token.
        mail_attempts=invitation.mail_attempts if invitation_waiting else 0,
        mail_error=invitation.mail_error if invitation_waiting else "",
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


def clean_invitation_language(language) -> str:
    """The language an invitee's email and slip are written in: one of the site's languages,
    or "" for the survey's own."""
    if language in (None, ""):
        return ""
    codes = [code for code, _name in settings.LANGUAGES]
    if not isinstance(language, str) or language not in codes:
        raise ValidationError(
            {
                "language": [
                    _("Must be one of %(codes)s, got %(value)s.")
                    % {"codes": ", ".join(codes), "value": repr(language)[:40]}
                ]
            }
        )
    return language


@transaction.atomic
def invitations_create(
    *, survey, emails=None, count=None, lines=None, language=None
) -> list[InvitationView]:
    """New invitations: one per address in ``emails`` (cleaned; an address the survey has
    invited before is not invited again) or ``count`` anonymous ones (printed slips), their
    email and slip in ``language`` (else the survey's own). Each email invitation waits for
    the worker (``invitation_mail.invitations_send_task``, or ``send_invitations``) to mail it. Made
    while the survey is a pilot, they are pilot invitations (``services.pilot``)."""
    if (emails is None) == (count is None):
        raise ValidationError(
            {"non_field_errors": [_("Send either emails or count, not both and not neither.")]}
        )
    addresses = clean_emails(emails, lines=lines) if emails is not None else None
    number = _clean_count(count) if count is not None else len(addresses)
    language = clean_invitation_language(language)
    survey = Survey.objects.select_for_update().get(pk=survey.pk)
    _ensure_takes_invitations(survey)
    token_key_ensure(survey=survey)
    pilot = survey.status == Survey.Status.PILOT
    if addresses is not None:
        known = set(
            Invitation.objects.filter(survey=survey, pilot=pilot, email__in=addresses).values_list(
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
            pilot=pilot,
            language=language,
        )
        made.append(invitation_view(invitation, with_code=True))
    if addresses:
        mail_soon()
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
    """Revoke an invitation: its code obtains nothing from now on. Refused for none that is
    not revoked, so the answer says nothing of whether its code obtained a token (a token
    obtained before stays valid, as after a reset)."""
    invitation = _invitation_locked(survey=survey, invitation_id=invitation_id)
    invitation.status = Invitation.Status.REVOKED
    invitation.mail_pending = Invitation.Mail.NONE
    invitation.save(update_fields=["status", "mail_pending"])


@transaction.atomic
def reminders_queue(*, survey) -> int:
    """Queue a reminder for every emailed invitation whose code has not obtained a token yet
    (and whose invitee has not opted out), of the pilot while it runs and of the real study
    after; the number queued. Who they are is shown nowhere: the worker sends them."""
    _ensure_takes_invitations(survey)
    queued = (
        Invitation.objects.filter(
            survey=survey,
            status=Invitation.Status.UNUSED,
            unsubscribed=False,
            pilot=survey.status == Survey.Status.PILOT,
        )
        .exclude(email="")
        .exclude(mail_pending=Invitation.Mail.INVITATION)
        .update(mail_pending=Invitation.Mail.REMINDER, mail_attempts=0, mail_error="")
    )
    if queued:
        mail_soon()
    return queued


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
    digests = [code_digest(normalized, secret=secret) for secret in secrets_in_use()]
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
    # The invitation email, if it still waits, is sent anyway: a mail held back would show
    # whose code obtained a token. A waiting reminder is dropped by the sender.
    updated = Invitation.objects.filter(pk=invitation.pk, status=Invitation.Status.UNUSED).update(
        status=Invitation.Status.ISSUED,
        # Rewritten in random order with the next batch (services/batches.py).
        reshuffle=True,
    )
    if updated != 1:
        raise _invitation_used()
    return signature
