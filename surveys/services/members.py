"""Co-researchers, by consent: the owner invites accounts to a survey as editors or viewers,
or offers it to a member; nothing changes until the invitee accepts.

Writes (invite, withdraw, accept, decline, change a role, remove, leave, offer ownership) and
the reads the members page needs. Who may call which is decided before, by
``selectors.survey_for`` (docs/researchers.md, "Co-researchers"): only the owner manages
members and offers the survey; any member may leave; an invitation is answered by its
addressee only (``selectors.accounts.member_invitation_for``).

An invitation by email address is stored for the address and looked up by nobody: whoever
has verified that address on their account sees it. So the answer to the inviter, and the
work done before it, are the same whether or not the address has an account.
"""

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.mail import EmailMessage
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.http import Http404
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import gettext as _

from .. import mail
from ..models import MemberInvitation, Survey, SurveyMember
from ..selectors.accounts import normalized_email
from .errors import Reason, SurveyConflict
from .validation import ensure_owner_room

ROLES = tuple(SurveyMember.Role.values)


def _clean_role(role):
    if role not in ROLES:
        raise ValidationError(
            {"role": [_("Must be “editor” or “viewer”, got “%(value)s”.") % {"value": role}]}
        )
    return role


def _addressee(who):
    """``("email", address)`` for anything with an @ (so no username can catch an invitation
    meant for an address), else ``("user", account)`` for an active account's username."""
    who = (who or "").strip() if isinstance(who, str) else ""
    if not who:
        raise ValidationError({"user": [_("Enter the username or email address of an account.")]})
    if "@" in who:
        try:
            validate_email(who)
        except ValidationError:
            raise ValidationError(
                {"user": [_("“%(value)s” is not a valid email address.") % {"value": who}]}
            ) from None
        return "email", normalized_email(who)
    found = get_user_model().objects.filter(is_active=True, username=who).first()
    if found is None:
        raise ValidationError(
            {"user": [_("No account has the username “%(value)s”.") % {"value": who}]}
        )
    return "user", found


def survey_members(*, survey) -> list[SurveyMember]:
    """The survey's members, first invited first, with their accounts."""
    return list(SurveyMember.objects.filter(survey=survey).select_related("user", "invited_by"))


def _member(*, survey, user_id):
    try:
        return SurveyMember.objects.select_related("user").get(survey=survey, user_id=int(user_id))
    except (SurveyMember.DoesNotExist, TypeError, ValueError, OverflowError):
        raise Http404("No such member of this survey.") from None


@transaction.atomic
def member_invite(*, survey, by, user, role, base_url="") -> MemberInvitation:
    """Invite ``user`` (a username, or an email address) to ``survey`` as ``role``.

    The invitation waits for the invitee; inviting the same addressee again changes the role
    it offers. By address, nothing is looked up: the row is stored for the address, and when
    mail can leave the server one invitation mail goes to it (after the answer), the same
    mail whether or not the address has an account.
    """
    role = _clean_role(role)
    kind, addressee = _addressee(user)
    if kind == "user":
        _ensure_can_join(survey=survey, account=addressee)
        lookup = {"survey": survey, "user": addressee}
    else:
        lookup = {"survey": survey, "email": addressee}
    try:
        with transaction.atomic():
            invitation, _created = MemberInvitation.objects.update_or_create(
                **lookup, defaults={"role": role, "invited_by": by}
            )
    except IntegrityError:  # the same addressee invited twice at the same moment
        invitation = MemberInvitation.objects.get(**lookup)
    if kind == "email":
        _mail_invitation(invitation=invitation, base_url=base_url)
    return invitation


def _ensure_can_join(*, survey, account):
    if account.pk == survey.owner_id:
        raise ValidationError(
            {"user": [_("“%(value)s” owns this survey.") % {"value": account.get_username()}]}
        )
    if SurveyMember.objects.filter(survey=survey, user=account).exists():
        raise ValidationError(
            {
                "user": [
                    _(
                        "“%(value)s” is already a member of this survey; change their role in "
                        "the list instead."
                    )
                    % {"value": account.get_username()}
                ]
            }
        )


def _mail_invitation(*, invitation, base_url):
    """One mail for every address: it cannot say whether the address has an account, since
    nothing here knows (and finding out would take longer for some addresses than others)."""
    if not settings.MAIL_ENABLED:
        return
    base = base_url.rstrip("/")
    context = {
        "inviter": invitation.invited_by.get_username(),
        "title": invitation.survey.title,
        "role": invitation.get_role_display().lower(),
        "sign_in": base + reverse("login"),
        "account": base + reverse("account"),
        "sign_up": base + reverse("signup") if settings.SIGNUP_ENABLED else "",
    }
    message = EmailMessage(
        subject=_("An invitation to a survey on rrsurvey"),
        body=render_to_string("accounts/invitation_email.txt", context),
        to=[invitation.email],
    )
    mail.send_after_commit(message.send)


def invitation_withdraw(*, survey, invitation_id) -> None:
    """The owner takes back an invitation (or an ownership offer) not yet answered."""
    try:
        pk = int(invitation_id)
    except (TypeError, ValueError, OverflowError):
        raise Http404("No such invitation.") from None
    deleted, _rows = MemberInvitation.objects.filter(survey=survey, pk=pk).delete()
    if not deleted:
        raise Http404("No such invitation.")


def invitation_decline(*, invitation) -> None:
    invitation.delete()


@transaction.atomic
def invitation_accept(*, invitation, user) -> Survey:
    """``user`` (the addressee, found by ``selectors.accounts.member_invitation_for``) accepts: they
    become a member with the offered role, or, for an ownership offer, the owner."""
    survey = Survey.objects.select_for_update().get(pk=invitation.survey_id)
    # Answered, withdrawn or replaced meanwhile: the row is gone or says something else.
    current = (
        MemberInvitation.objects.select_for_update()
        .filter(pk=invitation.pk, role=invitation.role)
        .first()
    )
    if current is None:
        raise Http404("No such invitation.")
    if current.role == MemberInvitation.Role.OWNER:
        return _take_over(survey=survey, invitation=current, user=user)
    if survey.owner_id == user.pk:  # their own address, invited before the survey was theirs
        raise SurveyConflict(
            _("You own this survey already."), reason=Reason.WRONG_STATUS, field="invitation"
        )
    SurveyMember.objects.update_or_create(
        survey=survey, user=user, defaults={"role": current.role, "invited_by": current.invited_by}
    )
    # Every other invitation to join that reached this account is answered by this one.
    current.delete()
    MemberInvitation.objects.filter(survey=survey, user=user, role__in=ROLES).delete()
    email = normalized_email(user.email)
    if email:
        MemberInvitation.objects.filter(survey=survey, email=email).delete()
    survey.access_role = current.role
    return survey


def _take_over(*, survey, invitation, user):
    """The member accepts the owner's offer: the survey then counts towards their limits
    (checked now, not when offered: an offer counts towards nobody's)."""
    member = SurveyMember.objects.filter(survey=survey, user=user).first()
    if member is None or survey.owner_id != invitation.invited_by_id:
        # Made by someone who no longer owns it, or to someone no longer a member.
        raise SurveyConflict(
            _("This offer no longer stands: the survey changed hands or you left it."),
            reason=Reason.WRONG_STATUS,
            field="invitation",
        )
    try:
        ensure_owner_room(
            owner=user, field="invitation", surveys=1, questions=survey.questions.count()
        )
    except ValidationError as exc:  # the survey limit names no field: this is the one to blame
        if hasattr(exc, "error_dict"):
            raise
        raise ValidationError({"invitation": exc.messages}) from None
    old_owner = survey.owner
    # This offer, and any other the old owner made: the survey is no longer theirs to offer.
    MemberInvitation.objects.filter(survey=survey, role=MemberInvitation.Role.OWNER).delete()
    member.delete()
    survey.owner = user
    survey.save(update_fields=["owner", "updated_at"])
    SurveyMember.objects.create(
        survey=survey, user=old_owner, role=SurveyMember.Role.EDITOR, invited_by=old_owner
    )
    survey.access_role = MemberInvitation.Role.OWNER
    return survey


def member_set_role(*, survey, user_id, role) -> SurveyMember:
    role = _clean_role(role)
    member = _member(survey=survey, user_id=user_id)
    member.role = role
    member.save(update_fields=["role"])
    return member


@transaction.atomic
def member_remove(*, survey, user_id) -> None:
    """Remove a member (the owner removing someone, or a member leaving)."""
    if str(user_id) == str(survey.owner_id):
        raise SurveyConflict(
            _(
                "The owner cannot leave their own survey: transfer it to a member first, "
                "or delete it."
            ),
            reason=Reason.OWNER_CANNOT_LEAVE,
        )
    member = _member(survey=survey, user_id=user_id)
    MemberInvitation.objects.filter(survey=survey, user=member.user).delete()
    member.delete()


@transaction.atomic
def survey_transfer(*, survey, by, user_id) -> MemberInvitation:
    """Offer ``survey`` to the member ``user_id``; they become the owner when they accept (the
    old owner then stays on as an editor). One offer stands at a time: a new one replaces it.
    """
    survey = Survey.objects.select_for_update().get(pk=survey.pk)
    try:
        member = _member(survey=survey, user_id=user_id)
    except Http404:
        raise ValidationError(
            {
                "user_id": [
                    _("Ownership goes to a member of the survey; user %(value)s is not one.")
                    % {"value": user_id}
                ]
            }
        ) from None
    MemberInvitation.objects.filter(survey=survey, role=MemberInvitation.Role.OWNER).delete()
    return MemberInvitation.objects.create(
        survey=survey, user=member.user, role=MemberInvitation.Role.OWNER, invited_by=by
    )
