"""Researcher pages: the dashboard, a new survey, the builder's settings, the survey's life
(pilot, schedule, open, close, copy, trash) and sharing.

Each validates its input, calls one service or selector, and renders; the role each method
needs is declared with ``common.member_view``. Questions are in ``views/questions.py``.
"""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import (
    Http404,
    HttpResponse,
    HttpResponseBadRequest,
    HttpResponseNotAllowed,
    JsonResponse,
)
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _

from .. import selectors, services
from ..forms import DashboardForm, DesignPreviewForm, ScheduleForm, SurveyForm
from ..models import Survey
from ..qr import qr_svg
from ..selectors import accounts as account_selectors
from ..selectors import languages
from ..selectors.warnings import survey_warnings
from ..services import schedule
from ..services.pilot import PILOT_INVITATIONS_CHOICES
from .common import (
    EDITOR,
    OWNER,
    VIEWER,
    builder_action,
    builder_url,
    member_view,
    on_builder,
    render_builder,
    write_and_redirect,
)
from .respondent import respond_page_context

# --- landing and dashboard ----------------------------------------------------------------


def home(request):
    if request.user.is_authenticated:
        return redirect("surveys:dashboard")
    return render(request, "home.html", {"signup_enabled": settings.SIGNUP_ENABLED})


DASHBOARD_PAGE_SIZE = 20


@login_required
def dashboard(request):
    form = DashboardForm(request.GET)
    if not form.is_valid():
        context = {"form": form, "page": None, "has_surveys": True, "shared": ()}
        return render(request, "surveys/dashboard.html", context, status=400)
    surveys = selectors.surveys_for_dashboard(
        owner=request.user, search=form.cleaned_data["q"], sort=form.cleaned_data["sort"]
    )
    page = Paginator(surveys, DASHBOARD_PAGE_SIZE).get_page(form.cleaned_data["page"] or 1)
    searching = bool(form.cleaned_data["q"].strip())
    context = {
        "form": form,
        "page": page,
        "surveys": page.object_list,
        "searching": searching,
        "has_surveys": searching or page.paginator.count > 0,
        "query_without_page": _query_without(request.GET, "page"),
        "shared": selectors.surveys_shared_with(user=request.user),
        "invitations": account_selectors.member_invitations_for(user=request.user),
    }
    return render(request, "surveys/dashboard.html", context)


def _query_without(query, name):
    """The query string minus ``name``, for links that change only that parameter."""
    kept = query.copy()
    kept.pop(name, None)
    return kept.urlencode()


# --- a new survey, the builder's settings ------------------------------------------------


@login_required
def survey_new(request):
    # The form starts from the model's own defaults, so the page cannot drift from them.
    initial = {
        name: Survey._meta.get_field(name).get_default()
        for name in ("p_truth", "p_forced_yes", "ci_method", "confidence", "min_n", "access")
    }
    initial["language"] = get_language() if get_language() in dict(settings.LANGUAGES) else "en"
    initial["preset"] = selectors.preset_for(
        p_truth=initial["p_truth"], p_forced_yes=initial["p_forced_yes"]
    )
    data = request.POST if request.method == "POST" else None
    form = SurveyForm(data, initial=initial)
    if data is not None:
        created = write_and_redirect(
            request,
            lambda: services.survey_create(owner=request.user, **form.service_data()),
            form=form,
            message=_("Survey created. Now add its questions."),
            to=builder_url,
        )
        if created:
            return created
    # After a refused POST, show the numbers of the coins that were chosen, if they were valid.
    chosen = getattr(form, "cleaned_data", {})
    privacy, _needs = selectors.coins_privacy(
        p_truth=chosen.get("p_truth") or initial["p_truth"],
        p_forced_yes=chosen.get("p_forced_yes") or initial["p_forced_yes"],
    )
    return render(
        request,
        "surveys/survey_new.html",
        {"form": form, "privacy": privacy, "presets": selectors.preset_coins()},
        status=400 if data is not None else 200,
    )


@member_view(GET=EDITOR, POST=EDITOR)
def survey_builder(request, survey):
    if request.method != "POST":
        return render_builder(request, survey)
    form = SurveyForm(
        request.POST,
        initial=SurveyForm.initial_for(survey),
        frozen=survey.is_frozen,
        current_confidence=survey.confidence,
    )
    saved = write_and_redirect(
        request,
        lambda: services.survey_update(survey=survey, data=form.service_data()),
        form=form,
        message=_("Settings saved."),
        to=builder_url(survey),
        on_conflict=on_builder(request, survey),
    )
    return saved or render_builder(request, survey, form=form, status=400)


@login_required
def design_preview(request):
    """JSON for the builder's live privacy numbers, computed by the same selector as the page:
    with ``survey``, the ledger of its saved questions under the coins asked about."""
    form = DesignPreviewForm(request.GET)
    if not form.is_valid():
        errors = form.labelled_errors()
        html = render_to_string(
            "surveys/_privacy_numbers.html", {"errors": errors}, request=request
        )
        return JsonResponse({"errors": errors, "html": html}, status=400)
    survey_id = form.cleaned_data.get("survey")
    saved = (
        selectors.survey_for(user=request.user, survey_id=survey_id, role=selectors.VIEWER)
        if survey_id is not None
        else None
    )
    privacy, needs = selectors.coins_privacy(
        p_truth=form.cleaned_data["p_truth"],
        p_forced_yes=form.cleaned_data["p_forced_yes"],
        questions=form.cleaned_data["questions"] or 0,
        survey=saved,
    )
    html = render_to_string(
        "surveys/_privacy_numbers.html", {"privacy": privacy, "needs": needs}, request=request
    )
    return JsonResponse(
        {
            "per_answer_epsilon": privacy.per_answer_epsilon,
            "total_epsilon": privacy.total_epsilon,
            "questions": privacy.questions,
            "odds_ratio": privacy.odds_ratio,
            "respondents_for_margin": privacy.respondents_for_margin,
            "margin": privacy.margin,
            "confidence": privacy.confidence,
            "html": html,
        }
    )


# --- lifecycle ----------------------------------------------------------------------------


@member_view(GET=VIEWER)
def survey_preview(request, survey):
    # ?lang= previews a language the survey is offered in (the Translations page links it).
    survey = languages.survey_for_respondent(survey=survey, preferences=[request.GET.get("lang")])
    return render(request, "respond/respond.html", respond_page_context(survey, preview=True))


@member_view(GET=EDITOR, POST=EDITOR)
def survey_open(request, survey):
    if request.method != "POST":
        context = {
            "survey": survey,
            "header_active": "builder",
            "first_opening": survey.opened_at is None,
            "refused": survey.status == Survey.Status.OPEN,
            "cancel_url": builder_url(survey),
            "survey_warnings": survey_warnings(survey=survey),
        }
        return render(request, "surveys/open_confirm.html", context)
    message = _("The survey is open: respondents can answer now.")
    # The open-for-real confirmation of an invitation pilot: revoke its invitations (the
    # default) or re-issue them with new codes.
    choice = request.POST.get("pilot_invitations") or None
    if choice not in (None, *PILOT_INVITATIONS_CHOICES):
        return HttpResponseBadRequest("pilot_invitations must be revoke or reissue.")
    return builder_action(
        request,
        survey,
        lambda survey: services.survey_open(survey=survey, pilot_invitations=choice),
        message,
    )


@member_view(POST=OWNER)
def survey_duplicate(request, survey):
    try:
        copy = services.survey_duplicate(survey=survey)
    except ValidationError as exc:  # the account's limit on surveys or questions
        messages.error(request, " ".join(exc.messages))
        return redirect("surveys:builder", pk=survey.pk)
    messages.success(
        request,
        _(
            "This is a copy of “%(title)s”: a draft with its own link. "
            "Change what you need, then open it."
        )
        % {"title": survey.title},
    )
    return redirect("surveys:builder", pk=copy.pk)


@member_view(POST=EDITOR)
def survey_pilot(request, survey):
    message = _(
        "The survey is a pilot: its link takes answers now, and none will count. Discard "
        "them to change the questions; opening for the real study discards them all."
    )
    return builder_action(request, survey, services.survey_pilot_start, message)


@member_view(GET=EDITOR, POST=EDITOR)
def survey_pilot_discard(request, survey):
    if request.method != "POST":
        return render(request, "surveys/pilot_discard.html", {"survey": survey})

    def message(discarded):
        return ngettext(
            "Discarded %(n)d pilot response. You can change the questions now.",
            "Discarded %(n)d pilot responses. You can change the questions now.",
            discarded,
        ) % {"n": discarded}

    return builder_action(request, survey, services.survey_pilot_discard, message)


@member_view(POST=EDITOR)
def survey_schedule(request, survey):
    form = ScheduleForm(request.POST)
    saved = write_and_redirect(
        request,
        lambda: services.survey_schedule(
            survey=survey,
            # Once a survey has opened its opening time is history: the form shows none.
            opens_at=form.cleaned_data["opens_at"]
            if schedule.phase_of(survey) in ("draft", "pilot", "scheduled")
            else survey.opens_at,
            closes_at=form.cleaned_data["closes_at"],
            time_zone=form.cleaned_data["time_zone"],
        ),
        form=form,
        message=_("Schedule saved."),
        to=builder_url(survey, "schedule"),
        on_conflict=on_builder(request, survey),
    )
    return saved or render_builder(request, survey, schedule_form=form, status=400)


@member_view(POST=EDITOR)
def survey_close(request, survey):
    message = _("The survey is closed: it no longer accepts responses.")
    return builder_action(request, survey, services.survey_close, message)


@member_view(POST=OWNER)
def survey_release_batch(request, survey):
    """A closed survey's last batch, smaller than its batch size, made visible by its owner
    once the results page has said how many responses it holds (services/batches.py)."""
    shown = request.POST.get("responses", "")
    results = reverse("surveys:results", kwargs={"pk": survey.pk})
    return write_and_redirect(
        request,
        lambda: services.batch_release_last(
            survey=survey, responses=int(shown) if shown.isdigit() else -1
        ),
        message=lambda n: (
            ngettext(
                "Released the last batch: %(n)d response.",
                "Released the last batch: %(n)d responses.",
                n,
            )
            % {"n": n}
        ),
        to=results,
        on_conflict=lambda exc: _conflict_on_results(request, exc, results),
    )


def _conflict_on_results(request, exc, results):
    messages.error(request, str(exc))
    return redirect(results)


@member_view(GET=OWNER, POST=OWNER)
def survey_delete(request, survey):
    if request.method != "POST":
        context = {"survey": survey, "trash_days": settings.TRASH_DAYS}
        return render(request, "surveys/survey_delete.html", context)
    title = survey.title
    services.survey_delete(survey=survey)
    messages.success(
        request,
        _("Moved the survey “%(title)s” to the trash; you can restore it for %(days)d days.")
        % {"title": title, "days": settings.TRASH_DAYS},
    )
    return redirect("surveys:dashboard")


@login_required
def trash(request):
    context = {
        "surveys": selectors.surveys_in_trash(owner=request.user),
        "days": settings.TRASH_DAYS,
    }
    return render(request, "surveys/trash.html", context)


@login_required
def survey_restore(request, pk):
    # Like every survey route: 404 for what is not the user's (here: in their trash) first.
    if not selectors.survey_in_trash(owner=request.user, survey_id=pk):
        raise Http404("No such survey in your trash.")
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    try:
        survey = services.survey_restore(owner=request.user, survey_id=pk)
    except Survey.DoesNotExist:  # purged or restored meanwhile
        raise Http404("No such survey in your trash.") from None
    messages.success(
        request,
        _("Restored the survey “%(title)s”. It is closed: open it again when you are ready.")
        % {"title": survey.title},
    )
    return redirect("surveys:builder", pk=survey.pk)


# --- sharing ------------------------------------------------------------------------------


def _respondent_url(request, survey):
    return request.build_absolute_uri(reverse("surveys:respond", kwargs={"slug": survey.slug}))


@member_view(GET=EDITOR)
def survey_share(request, survey):
    context = {"survey": survey, "respondent_url": _respondent_url(request, survey)}
    return render(request, "surveys/share.html", context)


@member_view(GET=EDITOR)
def survey_qr(request, survey):
    title = _("QR code for the survey “%(title)s”") % {"title": survey.title}
    # Private and not stored, as every owner page (surveys.middleware.PrivateCacheMiddleware).
    return HttpResponse(
        qr_svg(_respondent_url(request, survey), title=title), content_type="image/svg+xml"
    )
