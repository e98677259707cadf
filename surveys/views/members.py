"""The members page: the owner invites co-researchers, changes their roles, removes them and
transfers ownership; every member sees who has access and may leave.

Each view goes through ``common.member_view``, so someone who neither owns the survey nor is
a member gets a 404 first; the role each method needs is declared on the decorator.
"""

from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _

from .. import services
from ..forms import MemberInviteForm, MemberRoleForm, TransferForm
from ..services import members
from .common import OWNER, VIEWER, member_view, write_and_redirect


def _render_members(request, survey, *, form=None, status=200):
    found = members.survey_members(survey=survey)
    context = {
        "survey": survey,
        "members": [(member, MemberRoleForm(initial={"role": member.role})) for member in found],
        "form": form or MemberInviteForm(),
        "is_owner": survey.access_role == OWNER,
    }
    return render(request, "surveys/members.html", context, status=status)


def _members_url(survey):
    return reverse("surveys:members", kwargs={"pk": survey.pk})


@member_view(GET=VIEWER, POST=OWNER)
def members_page(request, survey):
    if request.method != "POST":
        return _render_members(request, survey)
    form = MemberInviteForm(request.POST)
    invited = write_and_redirect(
        request,
        lambda: members.member_invite(survey=survey, by=request.user, **form.cleaned_data),
        form=form,
        message=lambda member: (
            _("%(user)s can now open this survey as %(role)s.")
            % {"user": member.user.get_username(), "role": member.get_role_display()}
        ),
        to=_members_url(survey),
    )
    return invited or _render_members(request, survey, form=form, status=400)


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
        transferred = write_and_redirect(
            request,
            lambda: members.survey_transfer(survey=survey, user_id=form.cleaned_data["user_id"]),
            form=form,
            message=lambda moved: (
                _("%(user)s now owns “%(title)s”; you stay on as an editor.")
                % {"user": moved.owner.get_username(), "title": moved.title}
            ),
            to=_members_url(survey),
        )
        if transferred:
            return transferred
    context = {"survey": survey, "form": form, "members": found}
    return render(request, "surveys/transfer.html", context, status=status)
