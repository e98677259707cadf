"""Invitation and reminder emails, sent in the background, never inside a request
(docs/deploying.md, "Invitation emails").

``invitations_send`` sends what waits (``Invitation.mail_pending``), one invitation at a time:
the worker runs it (``invitations_send_task``, queued by ``mail_soon`` when invitations or reminders
are made, and again later while a failed mail waits for another try), and
``manage.py send_invitations`` runs it from cron. Each attempt is
claimed first by a conditional update of the invitation's attempt counter, so two runners
never send the same mail at once; a failed send keeps the mail waiting, with its error
shown on the invitations page, and is tried again on the next run, up to
``limits.MAIL_ATTEMPTS_MAX`` attempts. Running it again sends nothing twice: a sent mail is
no longer waiting.

An email names the researcher as the survey's ``contact_name`` and ``contact_email`` say
(``invitation_sender_update``), never by their username, and is written in the invitee's
language when the survey is offered in it, else in the survey's own.
"""

import logging
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.core import signing
from django.core.exceptions import ValidationError
from django.core.mail import EmailMessage, get_connection
from django.core.validators import validate_email
from django.db import transaction
from django.db.models import F, Q
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django_tasks import task

from .. import limits
from ..models import Invitation, Survey
from ..selectors.languages import survey_for_respondent
from .invitation_codes import code_open, invitation_link
from .validation import clean_text

logger = logging.getLogger(__name__)

_UNSUBSCRIBE_SALT = "rrsurvey.invitation.unsubscribe"


@dataclass(frozen=True)
class SendReport:
    sent: int
    failed: int
    waiting: int = 0  # mails still waiting for another try


@transaction.atomic
def invitation_sender_update(*, survey, contact_name, contact_email) -> Survey:
    """How invitation emails and slips name the researcher: a display name and a contact
    address (either may be blank), as they choose to be shown, instead of their username."""
    name = clean_text(
        "contact_name", contact_name, max_length=limits.CONTACT_NAME_MAX_LENGTH, required=False
    )
    if not isinstance(contact_email, str):
        raise ValidationError({"contact_email": [_("Must be text.")]})
    address = contact_email.strip()
    if address:
        try:
            if len(address) > limits.EMAIL_MAX_LENGTH:
                raise ValidationError("too long")
            validate_email(address)
        except ValidationError:
            raise ValidationError(
                {
                    "contact_email": [
                        _("%(value)s is not an email address.") % {"value": repr(address)[:80]}
                    ]
                }
            ) from None
    survey = Survey.objects.select_for_update().get(pk=survey.pk)
    survey.contact_name, survey.contact_email = name, address
    survey.save(update_fields=["contact_name", "contact_email", "updated_at"])
    return survey


def unsubscribe_token(invitation_id) -> str:
    return signing.dumps(int(invitation_id), salt=_UNSUBSCRIBE_SALT, compress=True)


def unsubscribe_read(token) -> int | None:
    """The invitation id an unsubscribe link names, or None for a link that is not one."""
    try:
        return int(signing.loads(token, salt=_UNSUBSCRIBE_SALT))
    except (signing.BadSignature, TypeError, ValueError):
        return None


def invitation_unsubscribe(*, invitation_id) -> bool:
    """No more reminders for this invitation (its link still works)."""
    return bool(
        Invitation.objects.filter(pk=invitation_id).update(
            unsubscribed=True, mail_pending=Invitation.Mail.NONE
        )
    )


def _waiting():
    return (
        Invitation.objects.exclude(mail_pending=Invitation.Mail.NONE)
        .exclude(email="")
        .filter(mail_attempts__lt=limits.MAIL_ATTEMPTS_MAX)
    )


def invitation_survey(invitation) -> Survey:
    """The invitation's survey with its texts in the invitee's language when the survey is
    offered in it, else in its own (``survey.language`` says which), for display only."""
    return survey_for_respondent(
        survey=invitation.survey, preferences=[invitation.language] if invitation.language else []
    )


def _message(invitation, *, base_url):
    survey = invitation_survey(invitation)
    code = code_open(invitation.sealed_code, survey_id=survey.pk)
    if code is None:
        raise ValueError("the invitation's code cannot be opened with this SECRET_KEY")
    base = base_url.rstrip("/")
    context = {
        "survey": survey,
        "link": invitation_link(slug=survey.slug, code=code, base_url=base),
        "contact": survey.contact_email,
        "researcher": survey.contact_name,
        "unsubscribe": base
        + reverse(
            "surveys:invitation-unsubscribe", kwargs={"token": unsubscribe_token(invitation.pk)}
        ),
        "reminder": invitation.mail_pending == Invitation.Mail.REMINDER,
    }
    with translation.override(survey.language):
        subject = (
            _("Reminder: %(title)s") if context["reminder"] else _("You are invited: %(title)s")
        ) % {"title": survey.title}
        body = render_to_string("surveys/invitation_email.txt", context)
    return EmailMessage(
        subject=subject,
        body=body,
        to=[invitation.email],
        reply_to=[survey.contact_email] if survey.contact_email else None,
    )


def invitations_send(*, base_url, limit=None, connection=None) -> SendReport:
    """Send every invitation and reminder email that waits (at most ``limit``); links start
    with ``base_url`` (the site's address, e.g. ``https://surveys.example.org``)."""
    sent = failed = 0
    candidates = _waiting().order_by("pk").values_list("pk", "mail_attempts")
    if limit is not None:
        candidates = candidates[:limit]
    connection = connection or get_connection(fail_silently=False)
    # The invitation email goes whatever the invitee did meanwhile (holding it back would
    # show whose code obtained a token); a reminder only to a code that has obtained none.
    sendable = Q(mail_pending=Invitation.Mail.INVITATION) | Q(status=Invitation.Status.UNUSED)
    for pk, attempts in list(candidates):
        # Claimed by moving its counter on: a concurrent runner's update then matches nothing.
        claimed = (
            Invitation.objects.filter(sendable, pk=pk, mail_attempts=attempts, unsubscribed=False)
            .exclude(status=Invitation.Status.REVOKED)
            .exclude(mail_pending=Invitation.Mail.NONE)
        )
        if not claimed.update(mail_attempts=F("mail_attempts") + 1):
            # Taken by another runner, or revoked, unsubscribed or (a reminder) used meanwhile.
            Invitation.objects.filter(pk=pk).exclude(sendable).update(
                mail_pending=Invitation.Mail.NONE
            )
            Invitation.objects.filter(pk=pk, status=Invitation.Status.REVOKED).update(
                mail_pending=Invitation.Mail.NONE
            )
            continue
        invitation = Invitation.objects.select_related("survey").get(pk=pk)
        try:
            message = _message(invitation, base_url=base_url)
            message.connection = connection
            message.send()
        except Exception as error:  # any SMTP or network failure: kept, shown, retried
            failed += 1
            Invitation.objects.filter(pk=pk).update(mail_error=str(error)[:500] or repr(error))
            logger.warning("An invitation email could not be sent (attempt %d).", attempts + 1)
            continue
        sent += 1
        Invitation.objects.filter(pk=pk).update(
            mail_pending=Invitation.Mail.NONE,
            mail_attempts=0,
            mail_error="",
            mails_sent=F("mails_sent") + 1,
        )
        if invitation.mail_pending == Invitation.Mail.REMINDER:
            Survey.objects.filter(pk=invitation.survey_id).update(
                reminders_sent=F("reminders_sent") + 1
            )
    return SendReport(sent=sent, failed=failed, waiting=_waiting().count())


def mail_configured() -> bool:
    return bool(settings.MAIL_ENABLED)


@task()
def invitations_send_task() -> None:
    """Send the invitation and reminder emails that wait (``invitations_send``), links
    starting with ``settings.SITE_URL``; queued by ``mail_soon``, and again
    ``MAIL_RETRY_SECONDS`` later while a failed mail waits for another try."""
    if not settings.SITE_URL:
        logger.warning("SITE_URL is not set: invitation emails wait for send_invitations.")
        return
    report = invitations_send(base_url=settings.SITE_URL)
    if report.failed and report.waiting:
        later = timezone.now() + timedelta(seconds=settings.MAIL_RETRY_SECONDS)
        invitations_send_task.using(run_after=later).enqueue()


def mail_soon() -> None:
    """Have the worker send what waits once the current transaction commits (at once outside
    one): a rolled-back request queues nothing, and the worker never looks before the rows
    it is to send are there."""
    transaction.on_commit(invitations_send_task.enqueue)
