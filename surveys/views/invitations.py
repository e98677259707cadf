"""The invitations page of an invitation survey (docs/invitations.md): invite by email or
make anonymous codes, see the counts, reset, revoke, remind, download the links for a mail
merge, the invitation export and a printable sheet of slips.

Viewers see the counts and who was invited; codes and links are for editors and the owner.
Nobody sees whether one invitee's code obtained or spent a token (docs/invitations.md).
"""

import segno
from django.conf import settings
from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from .. import services
from ..exports.csv import export_filename, stream_csv
from ..forms.invitations import InvitationCodesForm, InvitationEmailsForm, InvitationSenderForm
from ..models import Invitation
from ..selectors import invitations as invitation_selectors
from ..selectors.languages import survey_for_respondent
from ..selectors.surveys import ROLE_RANK
from ..selectors.warnings import survey_warnings
from ..services import invitation_mail, invitations
from .common import EDITOR, VIEWER, member_view, try_write


def _page_url(survey):
    return reverse("surveys:invitees", kwargs={"pk": survey.pk})


def _can_see_codes(survey):
    return ROLE_RANK[survey.access_role] >= ROLE_RANK[EDITOR]


def _rows(request, survey):
    with_code = _can_see_codes(survey)
    base_url = request.build_absolute_uri("/")
    for invitation in invitation_selectors.survey_invitations(survey=survey):
        view = invitations.invitation_view(invitation, with_code=with_code)
        link = (
            invitations.invitation_link(slug=survey.slug, code=view.code, base_url=base_url)
            if view.code
            else None
        )
        yield view, link


def _render(request, survey, *, emails_form=None, codes_form=None, sender_form=None, status=200):
    rows = list(_rows(request, survey))
    piloting = survey.status == survey.Status.PILOT
    context = {
        "survey": survey,
        # While piloting every invitation is in the pilot; after, the pilot's are set apart.
        "rows": rows if piloting else [row for row in rows if not row[0].pilot],
        "pilot_rows": [] if piloting else [row for row in rows if row[0].pilot],
        "counts": invitation_selectors.invitation_counts(survey=survey),
        "survey_warnings": survey_warnings(survey=survey),
        "can_edit": _can_see_codes(survey),
        "mail_enabled": settings.MAIL_ENABLED,
        "emails_form": emails_form or InvitationEmailsForm(),
        "codes_form": codes_form or InvitationCodesForm(),
        "sender_form": sender_form
        or InvitationSenderForm(
            initial={"contact_name": survey.contact_name, "contact_email": survey.contact_email}
        ),
    }
    return render(request, "surveys/invitees.html", context, status=status)


def _conflict(request, survey):
    def answer(exc):
        messages.error(request, exc.message)
        return redirect(_page_url(survey))

    return answer


def _made(request, survey, made):
    messages.success(
        request,
        ngettext("%(n)d invitation made.", "%(n)d invitations made.", len(made)) % {"n": len(made)},
    )
    return redirect(_page_url(survey))


def _saved(request, survey):
    messages.success(request, _("Saved: invitation emails and slips name you this way."))
    return redirect(_page_url(survey))


@member_view(GET=VIEWER, POST=EDITOR)
def invitees_page(request, survey):
    if request.method != "POST":
        return _render(request, survey)
    if "contact_email" in request.POST:
        form = InvitationSenderForm(request.POST)
        answered = try_write(
            lambda: invitation_mail.invitation_sender_update(
                survey=survey,
                contact_name=form.cleaned_data["contact_name"],
                contact_email=form.cleaned_data["contact_email"],
            ),
            then=lambda _survey: _saved(request, survey),
            form=form,
        )
        return answered or _render(request, survey, sender_form=form, status=400)
    if "count" in request.POST:
        form = InvitationCodesForm(request.POST)
        answered = try_write(
            lambda: invitations.invitations_create(
                survey=survey,
                count=form.cleaned_data["count"],
                language=form.cleaned_data["language"],
            ),
            then=lambda made: _made(request, survey, made),
            form=form,
            on_conflict=_conflict(request, survey),
        )
        return answered or _render(request, survey, codes_form=form, status=400)
    form = InvitationEmailsForm(request.POST, request.FILES)
    answered = try_write(
        lambda: invitations.invitations_create(
            survey=survey,
            emails=form.cleaned_data["addresses"],
            lines=form.cleaned_data["lines"],
            language=form.cleaned_data["language"],
        ),
        then=lambda made: _made(request, survey, made),
        form=form,
        on_conflict=_conflict(request, survey),
    )
    return answered or _render(request, survey, emails_form=form, status=400)


@member_view(POST=EDITOR)
def invitee_reset(request, survey, iid):
    try:
        invitations.invitation_reset(survey=survey, invitation_id=iid)
    except services.SurveyConflict as exc:
        messages.error(request, exc.message)
    else:
        messages.success(
            request,
            _(
                "A new code was made; the old one no longer works. If the old code had "
                "already obtained its token, this person can now answer twice."
            ),
        )
    return redirect(_page_url(survey))


@member_view(GET=EDITOR, POST=EDITOR)
def invitee_revoke(request, survey, iid):
    if request.method != "POST":
        try:
            invitation = invitation_selectors.survey_invitation(survey=survey, invitation_id=iid)
        except Invitation.DoesNotExist:
            raise Http404("No such invitation.") from None
        context = {
            "survey": survey,
            "header_active": "invitees",
            "invitation": invitation,
            "refused": invitation.status == Invitation.Status.REVOKED,
            "cancel_url": _page_url(survey),
        }
        return render(request, "surveys/invitee_revoke.html", context)
    try:
        invitations.invitation_revoke(survey=survey, invitation_id=iid)
    except services.SurveyConflict as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("Invitation revoked: its code obtains nothing any more."))
    return redirect(_page_url(survey))


@member_view(POST=EDITOR)
def invitees_remind(request, survey):
    try:
        queued = invitations.reminders_queue(survey=survey)
    except services.SurveyConflict as exc:
        messages.error(request, exc.message)
    else:
        messages.success(
            request,
            ngettext(
                "%(n)d reminder will be sent to those whose invitation has not been opened; "
                "nobody is shown who they are.",
                "%(n)d reminders will be sent to those whose invitation has not been opened; "
                "nobody is shown who they are.",
                queued,
            )
            % {"n": queued},
        )
    return redirect(_page_url(survey))


@member_view(GET=EDITOR)
def invitees_links_csv(request, survey):
    """Every usable invitation's link, for the researcher's own mail merge."""
    rows = [["email", "code", "link"]] + [
        [view.email or "", view.code, link]
        for view, link in _rows(request, survey)
        if not view.revoked and (not view.pilot or survey.status == survey.Status.PILOT)
    ]
    return stream_csv(
        rows, filename=export_filename(survey, kind="invitation-links", extension="csv")
    )


@member_view(GET=VIEWER)
def invitees_export_csv(request, survey):
    """Who was invited, whether revoked, whether in the pilot: never whether one invitation's
    code obtained or spent a token (the page's counts say how many did)."""
    rows = [["email", "invited_on", "revoked", "pilot"]] + [
        [
            view.email or "",
            invitation.created_at.date().isoformat(),
            view.revoked,
            view.pilot,
        ]
        for invitation in invitation_selectors.survey_invitations(survey=survey)
        for view in [invitations.invitation_view(invitation, with_code=False)]
    ]
    return stream_csv(rows, filename=export_filename(survey, kind="invitations", extension="csv"))


def _grouped(code):
    return " ".join(code[index : index + 4] for index in range(0, len(code), 4))


def _slip_text(survey, *, language, survey_url, code):
    """A slip's words, in ``language`` when the survey is offered in it, else its own."""
    shown = survey_for_respondent(survey=survey, preferences=[language] if language else [])
    with translation.override(shown.language):
        return render_to_string(
            "surveys/_invitation_slip.html",
            {"survey": shown, "survey_url": survey_url, "code": code},
        )


@member_view(GET=EDITOR)
def invitees_sheet(request, survey):
    """A printable sheet: one slip per anonymous code not revoked (used or not: the sheet
    must not tell which), of the pilot while it runs and of the real study after, each with
    its QR code and code in the slip's language."""
    survey_url = request.build_absolute_uri(
        reverse("surveys:respond", kwargs={"slug": survey.slug})
    )
    phase = survey.status == survey.Status.PILOT
    slips = [
        {
            "text": _slip_text(
                survey, language=view.language, survey_url=survey_url, code=_grouped(view.code)
            ),
            "qr": segno.make(link, error="m").svg_inline(scale=3, title=_("Invitation link")),
        }
        for view, link in _rows(request, survey)
        if not view.revoked and not view.email and view.code and view.pilot == phase
    ]
    return render(request, "surveys/invitee_sheet.html", {"survey": survey, "slips": slips})


@csrf_exempt  # the signed token is the authority; the page sets no cookie
@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def invitation_unsubscribe(request, token):
    """An invitee's "no more reminders" link: a button to confirm (mail scanners follow links
    with GET, so only the POST acts). Their personal link still works."""
    invitation_id = invitation_mail.unsubscribe_read(token)
    if invitation_id is None:
        raise Http404("No such invitation.")
    done = request.method == "POST"
    if done:
        invitation_mail.invitation_unsubscribe(invitation_id=invitation_id)
    return render(request, "respond/unsubscribe.html", {"done": done})
