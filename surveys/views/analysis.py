"""Pages beyond one number: grouping questions, breakdown, regression, planner, public results.

Researcher pages go through ``views.member_view`` (sign-in, and a survey the user neither
owns nor is a member of is a 404 before anything else; a member's role too low, a 403);
each validates its input, calls one service or selector, renders.
"""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from . import analysis, grouping, public_results, r_export, services
from .analysis_charts import precision_chart
from .analysis_forms import (
    BreakdownForm,
    GroupingQuestionForm,
    PlannerForm,
    PublicResultsForm,
    RegressionForm,
)
from .forms import preset_for
from .models import CI_METHODS, GroupingQuestion
from .public_views import chosen_language, page_language
from .views import (
    EDITOR,
    FROZEN_REASON,
    VIEWER,
    _apply_service_errors,
    _conflict,
    _render_builder,
    member_view,
)

# --- grouping questions (in the builder) --------------------------------------------------


def _to_grouping(survey):
    return redirect(reverse("surveys:builder", kwargs={"pk": survey.pk}) + "#grouping")


@member_view(POST=EDITOR)
def grouping_add(request, survey):
    form = GroupingQuestionForm.for_builder(request.POST)
    if form.is_valid():
        try:
            grouping.grouping_question_add(
                survey=survey,
                text=form.cleaned_data["text"],
                options=form.option_list(),
                required=form.cleaned_data["required"],
            )
        except ValidationError as exc:
            _apply_service_errors(form, exc)
        except services.SurveyConflict as exc:
            return _conflict(request, survey, exc)
        else:
            messages.success(request, _("Grouping question added."))
            return _to_grouping(survey)
    return _render_builder(request, survey, grouping_form=form, status=400)


def _grouping_question(survey, gid):
    return get_object_or_404(GroupingQuestion, pk=gid, survey=survey)


@member_view(GET=EDITOR, POST=EDITOR)
def grouping_edit(request, survey, gid):
    grouping_question = _grouping_question(survey, gid)
    context = {
        "survey": survey,
        "grouping_question": grouping_question,
        "frozen": survey.is_frozen,
        "frozen_reason": FROZEN_REASON,
    }
    if request.method != "POST":
        form = GroupingQuestionForm(initial=GroupingQuestionForm.initial_for(grouping_question))
        return render(request, "surveys/grouping_edit.html", {**context, "form": form})
    form = GroupingQuestionForm(request.POST)
    status = 400
    if form.is_valid():
        try:
            grouping.grouping_question_update(
                grouping_question=grouping_question,
                text=form.cleaned_data["text"],
                options=form.option_list(),
                required=form.cleaned_data["required"],
            )
        except ValidationError as exc:
            _apply_service_errors(form, exc)
        except services.SurveyConflict as exc:
            messages.error(request, exc.message)
            status = 409
        else:
            messages.success(request, _("Grouping question saved."))
            return _to_grouping(survey)
    return render(request, "surveys/grouping_edit.html", {**context, "form": form}, status=status)


@member_view(POST=EDITOR)
def grouping_delete(request, survey, gid):
    grouping_question = _grouping_question(survey, gid)
    try:
        grouping.grouping_question_delete(grouping_question=grouping_question)
    except services.SurveyConflict as exc:
        return _conflict(request, survey, exc)
    messages.success(request, _("Grouping question deleted."))
    return _to_grouping(survey)


# --- breakdown and regression -------------------------------------------------------------


@member_view(GET=VIEWER)
def breakdown(request, survey):
    grouping_questions = analysis.survey_grouping_questions(survey=survey)
    form = BreakdownForm(request.GET, survey=survey, grouping_questions=grouping_questions)
    # Without grouping questions the page only explains how to get some: nothing to validate.
    valid = not grouping_questions or form.is_valid()
    result = None
    if grouping_questions:
        chosen = form.cleaned_data if valid else {}
        by = chosen.get("by", grouping_questions[0].pk)
        result = analysis.survey_breakdown(
            survey=survey,
            grouping_question=next(gq for gq in grouping_questions if gq.pk == by),
            confidence=chosen.get("level", survey.confidence),
            method=chosen.get("method", survey.ci_method),
        )
    context = {
        "survey": survey,
        "form": form,
        "breakdown": result,
        "method_label": dict(CI_METHODS)[result.method] if result else "",
    }
    return render(request, "surveys/breakdown.html", context, status=200 if valid else 400)


@member_view(GET=VIEWER)
def regression(request, survey):
    questions = list(survey.questions.all())
    form = RegressionForm(request.GET, survey=survey, questions=questions)
    valid = not questions or form.is_valid()
    result = snippet = None
    if questions:
        chosen = form.cleaned_data if valid else {}
        question_id = chosen.get("question", questions[0].pk)
        question = next(q for q in questions if q.pk == question_id)
        result = analysis.survey_regression(
            survey=survey,
            question=question,
            confidence=chosen.get("level", survey.confidence),
        )
        snippet = r_export.r_snippet(survey=survey, question=question, covariates=result.covariates)
    context = {
        "survey": survey,
        "form": form,
        "regression": result,
        "question_number": questions.index(result.question) + 1 if result else None,
        "r_design": r_export.r_design(survey=survey),
        "r_snippet": snippet,
    }
    return render(request, "surveys/regression.html", context, status=200 if valid else 400)


@member_view(GET=VIEWER)
def r_export_csv(request, survey):
    return r_export.r_export_response(survey=survey)


# --- planner ------------------------------------------------------------------------------


@member_view(GET=VIEWER)
def planner(request, survey):
    form = PlannerForm(
        request.GET,
        survey=survey,
        preset=preset_for(p_truth=survey.p_truth, p_forced_yes=survey.p_forced_yes),
    )
    plan = None
    if form.is_valid():
        try:
            plan = analysis.study_plan(**form.plan_arguments())
        except ValueError as exc:
            form.add_error(None, str(exc))
    context = {
        "survey": survey,
        "form": form,
        "plan": plan,
        "chart": precision_chart(plan) if plan else None,
    }
    return render(request, "surveys/planner.html", context, status=200 if plan else 400)


# --- public results -----------------------------------------------------------------------


@member_view(GET=VIEWER, POST=EDITOR)
def public_settings(request, survey):
    status = 200
    if request.method == "POST":
        form = PublicResultsForm(request.POST)
        if form.is_valid():
            try:
                public_results.public_results_update(
                    survey=survey,
                    enabled=form.cleaned_data["public_results"],
                    epsilon=form.cleaned_data["public_epsilon"],
                    release_days=form.cleaned_data["public_release_days"],
                    releases=form.cleaned_data["public_releases_max"],
                )
            except ValidationError as exc:
                _apply_service_errors(form, exc)
            else:
                messages.success(request, _("Public results settings saved."))
                return redirect("surveys:public-settings", pk=survey.pk)
        status = 400
    else:
        form = PublicResultsForm(
            initial={
                "public_results": survey.public_results,
                "public_epsilon": survey.public_epsilon,
                "public_release_days": survey.public_release_days,
                "public_releases_max": survey.public_releases_max,
            }
        )
    context = {
        "survey": survey,
        "form": form,
        "public_url": request.build_absolute_uri(
            reverse("surveys:public-results", kwargs={"slug": survey.slug})
        ),
        "public_status": public_results.public_status(survey=survey),
    }
    return render(request, "surveys/public_settings.html", context, status=status)


@never_cache
@require_safe
def public_results_page(request, slug):
    try:
        results = public_results.public_results(slug=slug)
    except Http404:
        with translation.override(chosen_language(request) or translation.get_language()):
            return render(request, "public/not_found.html", status=404)
    language = page_language(request, results.survey)
    with translation.override(language):
        response = render(request, "public/results.html", {"results": results})
    response.headers["Content-Language"] = language
    return response
