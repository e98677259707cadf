"""Co-researchers: the owner invites other accounts to a survey as editors or viewers.

Writes (invite, change a role, remove, leave, transfer ownership) and the reads the members
page needs. Who may call which is decided before, by ``selectors.survey_for`` (docs/researchers.md,
"Co-researchers"): only the owner manages members and transfers; any member may leave.
"""

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.http import Http404
from django.utils.translation import gettext as _

from ..models import Survey, SurveyMember
from .errors import Reason, SurveyConflict
from .validation import ensure_owner_room

ROLES = tuple(SurveyMember.Role.values)


def _clean_role(role):
    if role not in ROLES:
        raise ValidationError(
            {"role": [_("Must be “editor” or “viewer”, got “%(value)s”.") % {"value": role}]}
        )
    return role


def _account(who):
    """The active account named ``who``: a username, or an email address held by one account."""
    who = (who or "").strip() if isinstance(who, str) else ""
    if not who:
        raise ValidationError({"user": [_("Enter the username or email address of an account.")]})
    accounts = get_user_model().objects.filter(is_active=True)
    found = accounts.filter(username=who).first()
    if found is None and "@" in who:
        by_email = list(accounts.filter(email__iexact=who)[:2])
        found = by_email[0] if len(by_email) == 1 else None
    if found is None:
        raise ValidationError(
            {
                "user": [
                    _("No account has the username or email address “%(value)s”.") % {"value": who}
                ]
            }
        )
    return found


def survey_members(*, survey) -> list[SurveyMember]:
    """The survey's members, first invited first, with their accounts."""
    return list(SurveyMember.objects.filter(survey=survey).select_related("user", "invited_by"))


def _member(*, survey, user_id):
    try:
        return SurveyMember.objects.select_related("user").get(survey=survey, user_id=int(user_id))
    except (SurveyMember.DoesNotExist, TypeError, ValueError, OverflowError):
        raise Http404("No such member of this survey.") from None


@transaction.atomic
def member_invite(*, survey, by, user, role) -> SurveyMember:
    """Give the account named ``user`` (username or email) ``role`` on ``survey``."""
    role = _clean_role(role)
    account = _account(user)
    if account.pk == survey.owner_id:
        raise ValidationError(
            {"user": [_("“%(value)s” owns this survey.") % {"value": account.get_username()}]}
        )
    already = SurveyMember.objects.filter(survey=survey, user=account).first()
    message = _(
        "“%(value)s” is already a member of this survey; change their role in the list instead."
    ) % {"value": account.get_username()}
    if already is not None:
        raise ValidationError({"user": [message]})
    try:
        with transaction.atomic():
            return SurveyMember.objects.create(
                survey=survey, user=account, role=role, invited_by=by
            )
    except IntegrityError:  # invited twice at the same moment
        raise ValidationError({"user": [message]}) from None


def member_set_role(*, survey, user_id, role) -> SurveyMember:
    role = _clean_role(role)
    member = _member(survey=survey, user_id=user_id)
    member.role = role
    member.save(update_fields=["role"])
    return member


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
    _member(survey=survey, user_id=user_id).delete()


@transaction.atomic
def survey_transfer(*, survey, user_id) -> Survey:
    """Make the member ``user_id`` the owner; the old owner stays on as an editor.

    The survey then counts towards the new owner's limits (surveys and questions per account).
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
    ensure_owner_room(
        owner=member.user,
        field="user_id",
        surveys=1,
        questions=survey.questions.count(),
    )
    old_owner = survey.owner
    member.delete()
    survey.owner = member.user
    survey.save(update_fields=["owner", "updated_at"])
    SurveyMember.objects.create(
        survey=survey, user=old_owner, role=SurveyMember.Role.EDITOR, invited_by=old_owner
    )
    return survey
