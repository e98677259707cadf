"""Reads of a survey's invitations: the list as its members see it, and the counts.

Counts only: invited, opened (a token obtained), answered (tokens spent), for the survey as a
whole. Nothing here, or anywhere a researcher looks, says whether one invitation's code
obtained or spent a token, or who was reminded: "answered" counts the spent-token table,
which holds digests of messages the server never saw when it signed.

A pilot's invitations are kept apart: while the survey is a pilot the counts are the pilot's
(every invitation takes part in it), and once it has opened they are the real study's, the
pilot's invitations (made while piloting) not among them.
"""

from dataclasses import dataclass

from django.db.models import Count, Q

from ..models import Invitation, SpentToken, Survey


@dataclass(frozen=True)
class InvitationCounts:
    pilot: bool  # the counts are the pilot's (the survey is a pilot)
    invited: int  # not revoked
    opened: int  # a token obtained with the code
    answered: int  # tokens spent on a submission
    revoked: int
    resets: int  # codes replaced (each lets one person answer twice)
    mail_waiting: int  # emails waiting for the worker (or ``send_invitations``)
    mail_failed: int  # emails whose last attempt failed
    reminders_sent: int  # reminder emails sent, to the list as a whole
    set_apart: int  # pilot invitations, not counted in the real study (0 while piloting)


def invitation_counts(*, survey) -> InvitationCounts:
    piloting = survey.status == Survey.Status.PILOT
    counted = Q() if piloting else Q(pilot=False)
    counts = Invitation.objects.filter(survey=survey).aggregate(
        invited=Count("pk", filter=counted & ~Q(status=Invitation.Status.REVOKED)),
        opened=Count("pk", filter=counted & Q(status=Invitation.Status.ISSUED)),
        revoked=Count("pk", filter=counted & Q(status=Invitation.Status.REVOKED)),
        mail_waiting=Count("pk", filter=~Q(mail_pending="")),
        mail_failed=Count("pk", filter=~Q(mail_pending="") & ~Q(mail_error="")),
    )
    return InvitationCounts(
        pilot=piloting,
        # Released with their batch only (services/batches.py), as the responses are.
        answered=SpentToken.objects.filter(survey=survey, held=False).count(),
        resets=survey.invitation_resets,
        reminders_sent=survey.reminders_sent,
        set_apart=0 if piloting else Invitation.objects.filter(survey=survey, pilot=True).count(),
        **counts,
    )


def survey_invitations(*, survey) -> list[Invitation]:
    """Every invitation, the pilot's last."""
    return list(Invitation.objects.filter(survey=survey).order_by("pilot", "created_at", "id"))


def survey_invitation(*, survey, invitation_id) -> Invitation:
    """One invitation of ``survey``; ``Invitation.DoesNotExist`` for another survey's."""
    return Invitation.objects.get(survey=survey, pk=invitation_id)


def invited_count(*, survey) -> int:
    """How many are invited, as ``invitation_counts().invited`` counts them."""
    return invitation_counts(survey=survey).invited
