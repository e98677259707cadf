"""The members page: the owner invites co-researchers, withdraws invitations, changes roles,
removes members and offers ownership; every member sees who has access and may leave. And
the invitee's side: accepting or declining an invitation (listed on their dashboard).

Each survey view goes through ``common.member_view``, so someone who neither owns the survey
nor is a member gets a 404 first; the role each method needs is declared on the decorator.
An invitation is answered only by its addressee (``selectors.accounts.member_invitation_for``):
anyone else gets a 404.
"""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from .. import services
from ..forms import MemberInviteForm, MemberRoleForm, TransferForm
from ..models import MemberInvitation
from ..rate_limits import member_invite_window
from ..selectors import accounts as account_selectors
from ..services import members
from .common import OWNER, VIEWER, member_view, write_and_redirect


def _render_members(request, survey, *, form=None, status=200):
    found = members.survey_members(survey=survey)
    is_owner = survey.access_role == OWNER
    context = {
        "survey": survey,
        "members": [(member, MemberRoleForm(initial={"role": member.role})) for member in found],
        "invitations": account_selectors.member_invitations(survey=survey) if is_owner else [],
        "form": form or MemberInviteForm(),
        "is_owner": is_owner,
    }
    return render(request, "surveys/members.html", context, status=status)


def _members_url(survey):
    return reverse("surveys:members", kwargs={"pk": survey.pk})


def _invited_message(invitation):
    if invitation.email:
        # The same words whether or not the address has an account: nothing here knows.
        return _(
            "Invitation to %(email)s saved: whoever verified this address on their account "
            "can accept it. Until then it grants nothing."
        ) % {"email": invitation.email}
    return _("%(user)s is invited as %(role)s and can open this survey once they accept.") % {
        "user": invitation.user.get_username(),
        "role": invitation.get_role_display(),
    }


@member_view(GET=VIEWER, POST=OWNER)
def members_page(request, survey):
    if request.method != "POST":
        return _render_members(request, survey)
    form = MemberInviteForm(request.POST)
    window = member_invite_window(user=request.user)
    if window is not None and window.hit() > window.limit:
        form.is_valid()  # so the page shows the fields as sent
        form.add_error(None, _("Too many invitations from your account; try again later."))
        response = _render_members(request, survey, form=form, status=429)
        response["Retry-After"] = str(window.ttl)
        return response
    invited = write_and_redirect(
        request,
        lambda: members.member_invite(
            survey=survey,
            by=request.user,
            base_url=request.build_absolute_uri("/"),
            **form.cleaned_data,
        ),
        form=form,
        message=_invited_message,
        to=_members_url(survey),
    )
    return invited or _render_members(request, survey, form=form, status=400)


@member_view(POST=OWNER)
def invitation_withdraw(request, survey, iid):
    members.invitation_withdraw(survey=survey, invitation_id=iid)
    messages.success(request, _("Invitation withdrawn."))
    return redirect(_members_url(survey))


@member_view(POST=OWNER)
def member_role(request, survey, uid):
    form = MemberRoleForm(request.POST)
    if not form.is_valid():
        messages.error(request, " ".join(form.errors["role"]))
        return _render_members(request, survey, status=400)
    member = members.member_set_role(survey=survey, user_id=uid, role=form.cleaned_data["role"])
    messages.success(
        request,
        _("%(user)s is now %(role)s.")
        % {"user": member.user.get_username(), "role": member.get_role_display()},
    )
    return redirect(_members_url(survey))


@member_view(POST=OWNER)
def member_remove(request, survey, uid):
    try:
        members.member_remove(survey=survey, user_id=uid)
    except services.SurveyConflict as exc:  # the owner's own id
        messages.error(request, exc.message)
        return _render_members(request, survey, status=409)
    messages.success(request, _("Removed the member: they can no longer open this survey."))
    return redirect(_members_url(survey))


@member_view(POST=VIEWER)
def member_leave(request, survey):
    try:
        members.member_remove(survey=survey, user_id=request.user.pk)
    except services.SurveyConflict as exc:  # the owner
        messages.error(request, exc.message)
        return _render_members(request, survey, status=409)
    messages.success(
        request, _("You left “%(title)s”: it is no longer in your list.") % {"title": survey.title}
    )
    return redirect("surveys:dashboard")


@member_view(GET=OWNER, POST=OWNER)
def survey_transfer(request, survey):
    found = members.survey_members(survey=survey)
    form = TransferForm(request.POST or None, members=found)
    status = 200
    if request.method == "POST":
        status = 400
        offered = write_and_redirect(
            request,
            lambda: members.survey_transfer(
                survey=survey, by=request.user, user_id=form.cleaned_data["user_id"]
            ),
            form=form,
            message=lambda offer: (
                _(
                    "%(user)s is offered “%(title)s”: they become its owner when they accept, "
                    "and you stay on as an editor."
                )
                % {"user": offer.user.get_username(), "title": survey.title}
            ),
            to=_members_url(survey),
        )
        if offered:
            return offered
    offer = next(
        (
            invitation
            for invitation in account_selectors.member_invitations(survey=survey)
            if invitation.role == MemberInvitation.Role.OWNER
        ),
        None,
    )
    context = {"survey": survey, "form": form, "members": found, "offer": offer}
    return render(request, "surveys/transfer.html", context, status=status)


# --- the invitee's side: accept or decline ---------------------------------------------------


@login_required
@require_POST
def invitation_accept(request, iid):
    invitation = account_selectors.member_invitation_for(user=request.user, invitation_id=iid)
    try:
        survey = members.invitation_accept(invitation=invitation, user=request.user)
    except services.ValidationError as exc:  # ownership would take them past a limit
        messages.error(request, " ".join(exc.messages))
        return redirect("surveys:dashboard")
    except services.SurveyConflict as exc:
        messages.error(request, exc.message)
        return redirect("surveys:dashboard")
    if survey.access_role == OWNER:
        messages.success(request, _("You now own “%(title)s”.") % {"title": survey.title})
    else:
        messages.success(request, _("You joined “%(title)s”.") % {"title": survey.title})
    return redirect("surveys:dashboard")


@login_required
@require_POST
def invitation_decline(request, iid):
    invitation = account_selectors.member_invitation_for(user=request.user, invitation_id=iid)
    members.invitation_decline(invitation=invitation)
    messages.success(
        request, _("Invitation to “%(title)s” declined.") % {"title": invitation.survey.title}
    )
    return redirect("surveys:dashboard")
