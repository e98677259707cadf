"""Researcher pages: validate the input, call one service or selector, render.

Every survey page goes through :func:`owner_view`, which resolves the survey with
``selectors.survey_for_owner`` *before* anything else, so another researcher's survey is a
404 on every page and download, whatever the method.
"""

import functools

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponse, HttpResponseNotAllowed, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _

from . import analysis, exports, schedule, selectors, services
from .analysis_forms import GroupingQuestionForm
from .charts import estimates_chart
from .forms import (
    DesignPreviewForm,
    MoveForm,
    QuestionForm,
    ResultsForm,
    ScheduleForm,
    SurveyForm,
    preset_coins,
)
from .models import CI_METHODS, Question, Survey
from .qr import qr_svg

FROZEN_REASON = services.FROZEN_MESSAGE


def owner_view(*methods):
    """Sign-in required; the survey ``pk`` must belong to the user (404 otherwise)."""
    allowed = [*methods, "HEAD"] if "GET" in methods else list(methods)

    def decorate(view):
        @login_required
        @functools.wraps(view)
        def wrapper(request, pk, **kwargs):
            survey = selectors.survey_for_owner(owner=request.user, survey_id=pk)
            if request.method not in allowed:
                return HttpResponseNotAllowed(allowed)
            return view(request, survey, **kwargs)

        return wrapper

    return decorate


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


@login_required
def dashboard(request):
    surveys = selectors.surveys_for_owner(owner=request.user)
    return render(request, "surveys/dashboard.html", {"surveys": surveys})


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
    context["question_form"] = question_form or QuestionForm()
    context["grouping_form"] = grouping_form or GroupingQuestionForm.for_builder()
    return render(request, "surveys/builder.html", context, status=status)


def _conflict(request, survey, exc):
    """A state conflict (frozen survey, nothing to open) is a message on the builder, not a 500."""
    messages.error(request, exc.message)
    fresh = selectors.survey_for_owner(owner=request.user, survey_id=survey.pk)
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


@owner_view("GET", "POST")
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


@owner_view("POST")
def question_add(request, survey):
    form = QuestionForm(request.POST)
    if form.is_valid():
        try:
            services.question_add(survey=survey, text=form.cleaned_data["text"])
        except ValidationError as exc:
            _apply_service_errors(form, exc)
        except services.SurveyConflict as exc:
            return _conflict(request, survey, exc)
        else:
            messages.success(request, _("Question added."))
            return _to_questions(survey)
    return _render_builder(request, survey, question_form=form, status=400)


@owner_view("GET", "POST")
def question_edit(request, survey, qid):
    question = _question(survey, qid)
    context = {"survey": survey, "question": question, "frozen_reason": FROZEN_REASON}
    if request.method != "POST":
        form = QuestionForm(initial={"text": question.text})
        return render(request, "surveys/question_edit.html", {**context, "form": form})
    form = QuestionForm(request.POST)
    status = 400
    if form.is_valid():
        try:
            services.question_update(question=question, text=form.cleaned_data["text"])
        except ValidationError as exc:
            _apply_service_errors(form, exc)
        except services.SurveyConflict as exc:
            messages.error(request, exc.message)
            status = 409
        else:
            messages.success(request, _("Question saved."))
            return _to_questions(survey)
    return render(request, "surveys/question_edit.html", {**context, "form": form}, status=status)


@owner_view("POST")
def question_delete(request, survey, qid):
    question = _question(survey, qid)
    try:
        services.question_delete(question=question)
    except services.SurveyConflict as exc:
        return _conflict(request, survey, exc)
    messages.success(request, _("Question deleted."))
    return _to_questions(survey)


@owner_view("POST")
def question_move(request, survey, qid):
    question = _question(survey, qid)
    form = MoveForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("The direction must be “up” or “down”."))
        return _render_builder(request, survey, status=400)
    try:
        services.question_move(question=question, offset=form.offset)
    except services.SurveyConflict as exc:
        return _conflict(request, survey, exc)
    return _to_questions(survey)


# --- lifecycle ----------------------------------------------------------------------------


@owner_view("GET")
def survey_preview(request, survey):
    context = {
        "survey": survey,
        "questions": selectors.survey_questions(survey=survey),
        "privacy": selectors.survey_privacy(survey=survey),
        "preview": True,
    }
    return render(request, "respond/respond.html", context)


@owner_view("POST")
def survey_open(request, survey):
    try:
        services.survey_open(survey=survey)
    except services.SurveyConflict as exc:
        return _conflict(request, survey, exc)
    messages.success(request, _("The survey is open: respondents can answer now."))
    return redirect("surveys:builder", pk=survey.pk)


@owner_view("POST")
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


@owner_view("POST")
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


@owner_view("GET", "POST")
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


@owner_view("POST")
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


@owner_view("POST")
def survey_close(request, survey):
    try:
        services.survey_close(survey=survey)
    except services.SurveyConflict as exc:
        return _conflict(request, survey, exc)
    messages.success(request, _("The survey is closed: it no longer accepts responses."))
    return redirect("surveys:builder", pk=survey.pk)


@owner_view("GET", "POST")
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


@owner_view("GET")
def survey_share(request, survey):
    context = {"survey": survey, "respondent_url": _respondent_url(request, survey)}
    return render(request, "surveys/share.html", context)


@owner_view("GET")
def survey_qr(request, survey):
    title = _("QR code for the survey “%(title)s”") % {"title": survey.title}
    # Private and not stored, as every owner page (surveys.middleware.PrivateCacheMiddleware).
    return HttpResponse(
        qr_svg(_respondent_url(request, survey), title=title), content_type="image/svg+xml"
    )


# --- results ------------------------------------------------------------------------------


@owner_view("GET")
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
    }
    status = 200 if form.is_valid() else 400
    template = "surveys/_results_body.html" if "fragment" in request.GET else "surveys/results.html"
    return render(request, template, context, status=status)


def _bad_query(form):
    lines = [f"{field}: {' '.join(errors)}" for field, errors in form.errors.items()]
    return HttpResponse("\n".join(lines), status=400, content_type="text/plain; charset=utf-8")


@owner_view("GET")
def estimates_csv(request, survey):
    form = ResultsForm(request.GET, survey=survey)
    if not form.is_valid():
        return _bad_query(form)
    method, level = form.selection()
    return exports.estimates_csv_response(
        selectors.survey_estimates(survey=survey, confidence=level, method=method)
    )


@owner_view("GET")
def responses_csv(request, survey):
    return exports.reports_csv_response(survey)
