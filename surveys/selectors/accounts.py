"""Reads about accounts: which address an account has verified, and the invitations waiting
for it (docs/researchers.md, "Accounts and access" and "Co-researchers")."""

from django.db.models import Q
from django.http import Http404

from ..models import MemberInvitation, VerifiedEmail


def normalized_email(email) -> str:
    """How addresses are compared and stored for invitations: trimmed, lower-cased."""
    return (email or "").strip().lower()


def verified_address(*, user) -> str:
    """``user``'s email address if they proved they read it (and have not changed it since),
    else ``""``."""
    email = normalized_email(getattr(user, "email", ""))
    if not email or not VerifiedEmail.objects.filter(user=user, email=email).exists():
        return ""
    return email


def _addressed_to(user):
    address = verified_address(user=user)
    # An unverified address receives nothing: the invitations to it wait for whoever
    # verifies it.
    return Q(user=user) | Q(email=address) if address else Q(user=user)


def member_invitations_for(*, user) -> list[MemberInvitation]:
    """The invitations waiting for ``user``'s answer, oldest first; none for a survey in the
    trash or (for joining) one they own already."""
    return list(
        MemberInvitation.objects.filter(_addressed_to(user), survey__deleted_at__isnull=True)
        .exclude(Q(survey__owner=user) & ~Q(role=MemberInvitation.Role.OWNER))
        .select_related("survey", "survey__owner", "invited_by")
    )


def member_invitation_for(*, user, invitation_id) -> MemberInvitation:
    """One invitation waiting for ``user``; 404 for any other (someone else's, answered,
    withdrawn, or none), so an id tells nobody anything."""
    try:
        pk = int(invitation_id)
    except (TypeError, ValueError, OverflowError):
        raise Http404("No such invitation.") from None
    for invitation in member_invitations_for(user=user):
        if invitation.pk == pk:
            return invitation
    raise Http404("No such invitation.")


def member_invitations(*, survey) -> list[MemberInvitation]:
    """The survey's invitations still waiting for an answer, oldest first."""
    return list(MemberInvitation.objects.filter(survey=survey).select_related("user", "invited_by"))
