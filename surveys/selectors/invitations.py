"""Reads of a survey's invitations: the list as editors see it, and the counts.

Counts only: invited, opened (a token obtained), answered (tokens spent). Nothing here, or
anywhere, joins an invitation to a submission: "answered" counts the spent-token table,
which holds digests of messages the server never saw when it signed.
"""

from dataclasses import dataclass

from django.db.models import Count, Q

from ..models import Invitation, SpentToken


@dataclass(frozen=True)
class InvitationCounts:
    invited: int  # not revoked
    opened: int  # a token obtained with the code
    answered: int  # tokens spent on a submission
    revoked: int
    resets: int  # codes replaced (each lets one person answer twice)
    mail_waiting: int  # emails waiting for ``send_invitations``
    mail_failed: int  # emails whose last attempt failed


def invitation_counts(*, survey) -> InvitationCounts:
    counts = Invitation.objects.filter(survey=survey).aggregate(
        invited=Count("pk", filter=~Q(status=Invitation.Status.REVOKED)),
        opened=Count("pk", filter=Q(status=Invitation.Status.ISSUED)),
        revoked=Count("pk", filter=Q(status=Invitation.Status.REVOKED)),
        mail_waiting=Count("pk", filter=~Q(mail_pending="")),
        mail_failed=Count("pk", filter=~Q(mail_pending="") & ~Q(mail_error="")),
    )
    return InvitationCounts(
        answered=SpentToken.objects.filter(survey=survey).count(),
        resets=survey.invitation_resets,
        **counts,
    )


def survey_invitations(*, survey) -> list[Invitation]:
    return list(Invitation.objects.filter(survey=survey).order_by("created_at", "id"))


def survey_invitation(*, survey, invitation_id) -> Invitation:
    """One invitation of ``survey``; ``Invitation.DoesNotExist`` for another survey's."""
    return Invitation.objects.get(survey=survey, pk=invitation_id)


def invited_count(*, survey) -> int:
    """The invitations not revoked: ``invitation_counts().invited`` in one count."""
    return (
        Invitation.objects.filter(survey=survey).exclude(status=Invitation.Status.REVOKED).count()
    )
