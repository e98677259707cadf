"""Researcher pages: validate the input, call one service or selector, render.

Every survey page goes through :func:`member_view`, which resolves the survey with
``selectors.survey_for`` *before* anything else, so a survey the user neither owns nor is a
member of is a 404 on every page and download, whatever the method (a member whose role is
too low gets a 403).
"""

import functools

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse, HttpResponseNotAllowed, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _

from . import analysis, codebook, export_bundles, exports, languages, schedule, selectors, services
from .analysis_forms import GroupingQuestionForm
from .charts import estimates_chart
from .forms import (
    DashboardForm,
    DesignPreviewForm,
    MoveForm,
    QuestionAddForm,
    QuestionForm,
    ResultsForm,
    ScheduleForm,
    SurveyForm,
    preset_coins,
)
from .models import CI_METHODS, Question, Survey
from .qr import qr_svg

FROZEN_REASON = services.FROZEN_MESSAGE


def member_view(**roles):
    """Sign-in required; ``roles`` maps each method the view takes to the least role it needs
    (``GET=selectors.VIEWER, POST=selectors.EDITOR``).

    The survey is resolved by ``selectors.survey_for`` before anything else: someone who
    neither owns it nor is a member gets a 404 whatever the method, as for a missing survey;
    then a method not listed is a 405, and a member whose role is too low a 403. The roles are
    kept on the view (``survey_roles``) for the generated test matrix.
    """
    roles = {method.upper(): role for method, role in roles.items()}
    if "GET" in roles:
        roles.setdefault("HEAD", roles["GET"])
    allowed = list(roles)

    def decorate(view):
        @login_required
        @functools.wraps(view)
        def wrapper(request, pk, **kwargs):
            survey = selectors.survey_for(user=request.user, survey_id=pk, role=selectors.VIEWER)
            if request.method not in roles:
                return HttpResponseNotAllowed(allowed)
            selectors.ensure_role(survey=survey, role=roles[request.method])
            return view(request, survey, **kwargs)

        wrapper.survey_roles = roles
        return wrapper

    return decorate


def owner_view(*methods):
    """``member_view`` with every method for the owner alone."""
    return member_view(**dict.fromkeys(methods, selectors.OWNER))


VIEWER, EDITOR, OWNER = selectors.VIEWER, selectors.EDITOR, selectors.OWNER


def _apply_service_errors(form, exc: ValidationError):
    """Attach a service's ``{field: [message]}`` errors to the form fields they name."""
    if not hasattr(exc, "error_dict"):
        form.add_error(None, exc)
        return
    for field, errors in exc.message_dict.items():
        form.add_error(field if field in form.fields else None, errors)


def _unsaved_design_privacy(*, p_truth, p_forced_yes, questions):
    # An unsaved Survey carries the coins into the same selector the saved survey uses.
    design = selectors.survey_design(survey=Survey(p_truth=p_truth, p_forced_yes=p_forced_yes))
    return selectors.design_privacy(design=design, questions=questions)


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
    }
    return render(request, "surveys/dashboard.html", context)


def _query_without(query, name):
    """The query string minus ``name``, for links that change only that parameter."""
    kept = query.copy()
    kept.pop(name, None)
    return kept.urlencode()


# --- builder ------------------------------------------------------------------------------


def _builder_context(survey):
    return {
        "survey": survey,
        "frozen": survey.is_frozen,
        "frozen_reason": (
            services.PILOT_RESPONSES_MESSAGE
            if survey.status == Survey.Status.PILOT
            else FROZEN_REASON
        ),
        "phase": schedule.phase_of(survey),
        "questions": selectors.survey_questions(survey=survey),
        "grouping_questions": analysis.survey_grouping_questions(survey=survey),
        "privacy": selectors.survey_privacy(survey=survey),
        "presets": preset_coins(),
    }


def _render_builder(
    request,
    survey,
    *,
    form=None,
    question_form=None,
    grouping_form=None,
    schedule_form=None,
    status=200,
):
    context = _builder_context(survey)
    context["form"] = form or SurveyForm(
        initial=SurveyForm.initial_for(survey),
        frozen=survey.is_frozen,
        current_confidence=survey.confidence,
        suggested_target=context["privacy"].respondents_for_margin,
    )
    context["schedule_form"] = schedule_form or ScheduleForm(
        initial={"opens_at": survey.opens_at, "closes_at": survey.closes_at}
    )
    context["question_form"] = question_form or QuestionAddForm()
    context["grouping_form"] = grouping_form or GroupingQuestionForm.for_builder()
    return render(request, "surveys/builder.html", context, status=status)


def _conflict(request, survey, exc):
    """A state conflict (frozen survey, nothing to open) is a message on the builder, not a 500."""
    messages.error(request, exc.message)
    fresh = selectors.survey_for(user=request.user, survey_id=survey.pk, role=selectors.VIEWER)
    return _render_builder(request, fresh, status=409)


@login_required
def survey_new(request):
    initial = {
        "language": get_language() if get_language() in dict(settings.LANGUAGES) else "en",
        "preset": "classic",
        "p_truth": 0.5,
        "p_forced_yes": 0.5,
        "ci_method": "wilson",
        "confidence": 0.95,
        "min_n": 30,
    }
    data = request.POST if request.method == "POST" else None
    form = SurveyForm(data, initial=initial)
    if data is not None and form.is_valid():
        try:
            survey = services.survey_create(owner=request.user, **form.service_data())
        except ValidationError as exc:
            _apply_service_errors(form, exc)
        else:
            messages.success(request, _("Survey created. Now add its questions."))
            return redirect("surveys:builder", pk=survey.pk)
    # After a refused POST, show the numbers of the coins that were chosen, if they were valid.
    chosen = getattr(form, "cleaned_data", {})
    privacy = _unsaved_design_privacy(
        p_truth=chosen.get("p_truth") or initial["p_truth"],
        p_forced_yes=chosen.get("p_forced_yes") or initial["p_forced_yes"],
        questions=0,
    )
    return render(
        request,
        "surveys/survey_new.html",
        {"form": form, "privacy": privacy, "presets": preset_coins()},
        status=400 if data is not None else 200,
    )


@member_view(GET=EDITOR, POST=EDITOR)
def survey_builder(request, survey):
    if request.method != "POST":
        return _render_builder(request, survey)
    form = SurveyForm(
        request.POST,
        initial=SurveyForm.initial_for(survey),
        frozen=survey.is_frozen,
        current_confidence=survey.confidence,
    )
    if form.is_valid():
        try:
            services.survey_update(survey=survey, data=form.service_data())
        except ValidationError as exc:
            _apply_service_errors(form, exc)
        except services.SurveyConflict as exc:
            return _conflict(request, survey, exc)
        else:
            messages.success(request, _("Settings saved."))
            return redirect("surveys:builder", pk=survey.pk)
    return _render_builder(request, survey, form=form, status=400)


@login_required
def design_preview(request):
    """JSON for the builder's live privacy numbers, computed by the same selector as the page."""
    form = DesignPreviewForm(request.GET)
    if not form.is_valid():
        errors = form.labelled_errors()
        html = render_to_string(
            "surveys/_privacy_numbers.html", {"errors": errors}, request=request
        )
        return JsonResponse({"errors": errors, "html": html}, status=400)
    privacy = _unsaved_design_privacy(
        p_truth=form.cleaned_data["p_truth"],
        p_forced_yes=form.cleaned_data["p_forced_yes"],
        questions=form.cleaned_data["questions"] or 0,
    )
    html = render_to_string("surveys/_privacy_numbers.html", {"privacy": privacy}, request=request)
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


# --- questions ----------------------------------------------------------------------------


def _question(survey, qid):
    return get_object_or_404(Question, pk=qid, survey=survey)


def _to_questions(survey):
    return redirect(reverse("surveys:builder", kwargs={"pk": survey.pk}) + "#questions")


def _wants_json(request):
    """The builder's script asks for JSON; a form posted without a script asks for a page."""
    return request.headers.get("Accept", "").startswith("application/json")


def _questions_json(request, survey, *, message="", question_form=None, status=200):
    """The builder's question block, re-rendered, for the script to swap in without a reload."""
    context = {
        **_builder_context(survey),
        "question_form": question_form or QuestionAddForm(),
    }
    html = render_to_string("surveys/_builder_questions.html", context, request=request)
    body = {"html": html, "questions": context["privacy"].questions, "message": str(message)}
    if question_form is not None and question_form.errors:
        body["errors"] = question_form.errors.get_json_data()
    return JsonResponse(body, status=status)


def _conflict_json(exc):
    return JsonResponse({"message": str(exc.message)}, status=409)


@member_view(POST=EDITOR)
def question_add(request, survey):
    form = QuestionAddForm(request.POST)
    if form.is_valid():
        try:
            added = services.questions_add(
                survey=survey,
                texts=form.cleaned_data["text"],
                required=form.cleaned_data["required"],
            )
        except ValidationError as exc:
            _apply_service_errors(form, exc)
        except services.SurveyConflict as exc:
            return _conflict_json(exc) if _wants_json(request) else _conflict(request, survey, exc)
        else:
            message = ngettext("Question added.", "%(n)d questions added.", len(added)) % {
                "n": len(added)
            }
            if _wants_json(request):
                return _questions_json(request, survey, message=message)
            messages.success(request, message)
            return _to_questions(survey)
    if _wants_json(request):
        return _questions_json(request, survey, question_form=form, status=400)
    return _render_builder(request, survey, question_form=form, status=400)


@member_view(GET=EDITOR, POST=EDITOR)
def question_edit(request, survey, qid):
    question = _question(survey, qid)
    context = {"survey": survey, "question": question, "frozen_reason": FROZEN_REASON}
    if request.method != "POST":
        form = QuestionForm(initial=QuestionForm.initial_for(question))
        return render(request, "surveys/question_edit.html", {**context, "form": form})
    form = QuestionForm(request.POST)
    status = 400
    if form.is_valid():
        try:
            services.question_update(
                question=question,
                text=form.cleaned_data["text"],
                required=form.cleaned_data["required"],
            )
        except ValidationError as exc:
            _apply_service_errors(form, exc)
        except services.SurveyConflict as exc:
            messages.error(request, exc.message)
            status = 409
        else:
            messages.success(request, _("Question saved."))
            return _to_questions(survey)
    return render(request, "surveys/question_edit.html", {**context, "form": form}, status=status)


@member_view(POST=EDITOR)
def question_delete(request, survey, qid):
    question = _question(survey, qid)
    try:
        services.question_delete(question=question)
    except services.SurveyConflict as exc:
        return _conflict_json(exc) if _wants_json(request) else _conflict(request, survey, exc)
    if _wants_json(request):
        return _questions_json(request, survey, message=_("Question deleted."))
    messages.success(request, _("Question deleted."))
    return _to_questions(survey)


@member_view(POST=EDITOR)
def question_move(request, survey, qid):
    question = _question(survey, qid)
    form = MoveForm(request.POST)
    if not form.is_valid():
        if _wants_json(request):
            return JsonResponse({"errors": form.errors.get_json_data()}, status=400)
        messages.error(request, _("The direction must be “up” or “down”."))
        return _render_builder(request, survey, status=400)
    try:
        services.question_move(question=question, offset=form.offset)
    except services.SurveyConflict as exc:
        return _conflict_json(exc) if _wants_json(request) else _conflict(request, survey, exc)
    if _wants_json(request):
        return _questions_json(request, survey, message=_("Question moved."))
    return _to_questions(survey)


# --- lifecycle ----------------------------------------------------------------------------


@member_view(GET=VIEWER)
def survey_preview(request, survey):
    # ?lang= previews a language the survey is offered in (the Translations page links it).
    survey = languages.survey_for_respondent(survey=survey, preferences=[request.GET.get("lang")])
    context = {
        "survey": survey,
        "questions": list(survey.questions.all()),
        "privacy": selectors.survey_privacy(survey=survey),
        "preview": True,
    }
    return render(request, "respond/respond.html", context)


@member_view(POST=EDITOR)
def survey_open(request, survey):
    try:
        services.survey_open(survey=survey)
    except services.SurveyConflict as exc:
        return _conflict(request, survey, exc)
    messages.success(request, _("The survey is open: respondents can answer now."))
    return redirect("surveys:builder", pk=survey.pk)


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
    try:
        services.survey_pilot_start(survey=survey)
    except services.SurveyConflict as exc:
        return _conflict(request, survey, exc)
    messages.success(
        request,
        _(
            "The survey is a pilot: its link takes answers now, and none will count. Discard "
            "them to change the questions; opening for the real study discards them all."
        ),
    )
    return redirect("surveys:builder", pk=survey.pk)


@member_view(GET=EDITOR, POST=EDITOR)
def survey_pilot_discard(request, survey):
    if request.method != "POST":
        return render(request, "surveys/pilot_discard.html", {"survey": survey})
    try:
        discarded = services.survey_pilot_discard(survey=survey)
    except services.SurveyConflict as exc:
        return _conflict(request, survey, exc)
    messages.success(
        request,
        ngettext(
            "Discarded %(n)d pilot response. You can change the questions now.",
            "Discarded %(n)d pilot responses. You can change the questions now.",
            discarded,
        )
        % {"n": discarded},
    )
    return redirect("surveys:builder", pk=survey.pk)


@member_view(POST=EDITOR)
def survey_schedule(request, survey):
    form = ScheduleForm(request.POST)
    if form.is_valid():
        try:
            services.survey_schedule(
                survey=survey,
                # Once a survey has opened its opening time is history: the form shows none.
                opens_at=form.cleaned_data["opens_at"]
                if schedule.phase_of(survey) in ("draft", "pilot", "scheduled")
                else survey.opens_at,
                closes_at=form.cleaned_data["closes_at"],
            )
        except ValidationError as exc:
            _apply_service_errors(form, exc)
        except services.SurveyConflict as exc:
            return _conflict(request, survey, exc)
        else:
            messages.success(request, _("Schedule saved."))
            return redirect(reverse("surveys:builder", kwargs={"pk": survey.pk}) + "#schedule")
    return _render_builder(request, survey, schedule_form=form, status=400)


@member_view(POST=EDITOR)
def survey_close(request, survey):
    try:
        services.survey_close(survey=survey)
    except services.SurveyConflict as exc:
        return _conflict(request, survey, exc)
    messages.success(request, _("The survey is closed: it no longer accepts responses."))
    return redirect("surveys:builder", pk=survey.pk)


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


# --- results ------------------------------------------------------------------------------


@member_view(GET=VIEWER)
def survey_results(request, survey):
    form = ResultsForm(request.GET, survey=survey)
    method, level = form.selection()
    estimates = selectors.survey_estimates(survey=survey, confidence=level, method=method)
    context = {
        "survey": survey,
        "phase": schedule.phase_of(survey),
        "form": form,
        "estimates": estimates,
        "chart": estimates_chart(estimates),
        "privacy": selectors.survey_privacy(survey=survey),
        "method_label": dict(CI_METHODS)[method],
        "any_outside": any(r.estimate.was_clamped and not r.suppressed for r in estimates.rows),
        "query": f"method={method}&level={level:g}",
        "xlsx_fits": export_bundles.xlsx_fits(survey),
    }
    status = 200 if form.is_valid() else 400
    template = "surveys/_results_body.html" if "fragment" in request.GET else "surveys/results.html"
    return render(request, template, context, status=status)


def _bad_query(form):
    lines = [f"{field}: {' '.join(errors)}" for field, errors in form.errors.items()]
    return HttpResponse("\n".join(lines), status=400, content_type="text/plain; charset=utf-8")


def _results_query(view):
    """Calls ``view(request, survey, method=..., level=...)`` with the download's query read
    by the results form; a bad query is a 400 naming the fields, and ``view`` is not called."""

    @functools.wraps(view)
    def read_query(request, survey):
        form = ResultsForm(request.GET, survey=survey)
        if not form.is_valid():
            return _bad_query(form)
        method, level = form.selection()
        return view(request, survey, method=method, level=level)

    return read_query


@member_view(GET=VIEWER)
@_results_query
def estimates_csv(request, survey, *, method, level):
    return exports.estimates_csv_response(
        selectors.survey_estimates(survey=survey, confidence=level, method=method),
        codebook_url=_codebook_url(survey, f"method={method}&level={level:g}"),
    )


@member_view(GET=VIEWER)
def responses_csv(request, survey):
    return exports.reports_csv_response(
        codebook.survey_codebook(survey=survey), codebook_url=_codebook_url(survey)
    )


# --- downloads with their codebook (README, "Exports and the codebook") -------------------


def _codebook_url(survey, query=""):
    url = reverse("surveys:codebook-csv", kwargs={"pk": survey.pk})
    return f"{url}?{query}" if query else url


@member_view(GET=VIEWER)
@_results_query
def codebook_csv(request, survey, *, method, level):
    return exports.codebook_csv_response(
        codebook.survey_codebook(survey=survey, method=method, confidence=level)
    )


@member_view(GET=VIEWER)
@_results_query
def export_zip(request, survey, *, method, level):
    return export_bundles.zip_response(
        **export_bundles.survey_bundle(survey=survey, method=method, confidence=level)
    )


@member_view(GET=VIEWER)
def export_xlsx(request, survey):
    if not export_bundles.xlsx_fits(survey):
        return HttpResponse(
            export_bundles.too_many_rows_message(survey),
            status=409,
            content_type="text/plain; charset=utf-8",
        )
    return _xlsx_download(request, survey)


@_results_query
def _xlsx_download(request, survey, *, method, level):
    return export_bundles.xlsx_response(
        **export_bundles.survey_bundle(survey=survey, method=method, confidence=level)
    )
