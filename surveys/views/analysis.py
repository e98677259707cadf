"""What the answers say: results and their downloads, breakdown by group, regression, the
planner, and the public results settings.

Each page goes through ``common.member_view``; each validates its query, calls one selector,
and renders (a download: responds with the file).
"""

import functools

from django.http import HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _

from .. import selectors
from ..exports import bundles, codebook
from ..exports import csv as csv_export
from ..exports import r as r_export
from ..forms import BreakdownForm, PlannerForm, PublicResultsForm, RegressionForm, ResultsForm
from ..forms.analysis import ThresholdsForm
from ..models import CI_METHODS, Question
from ..selectors.columns import comprehension_column, question_column
from ..selectors.left_out import questions_left_out
from ..services import public_release, schedule
from . import export_jobs
from .charts import choice_chart, estimates_chart, numeric_chart, precision_chart
from .common import EDITOR, VIEWER, member_view, write_and_redirect

# --- results ------------------------------------------------------------------------------


def _interval_query(method, level, thresholds_form):
    """The query that repeats the page's choices: interval, level and numeric thresholds."""
    return "&".join(filter(None, [f"method={method}&level={level:g}", thresholds_form.query()]))


@member_view(GET=VIEWER)
def survey_results(request, survey):
    form = ResultsForm(request.GET, survey=survey)
    method, level = form.selection()
    thresholds_form = ThresholdsForm(request.GET, questions=survey.questions.all())
    estimates = selectors.survey_estimates(
        survey=survey,
        confidence=level,
        method=method,
        thresholds=thresholds_form.thresholds(),
    )
    phase = schedule.phase_of(survey)
    context = {
        "survey": survey,
        "phase": phase,
        # A closed survey's last batch, not visible yet (services/batches.py); never counted
        # while the survey takes responses: a count that moves by one says who just answered.
        "held_responses": (
            0 if phase in schedule.Phase.ACCEPTING else selectors.held_responses(survey=survey)
        ),
        "form": form,
        "thresholds_form": thresholds_form,
        "estimates": estimates,
        "chart": estimates_chart(estimates) if estimates.yes_no_rows else None,
        "choice_results": [(row, choice_chart(row, estimates)) for row in estimates.choice_rows],
        "numeric_results": [(row, numeric_chart(row, estimates)) for row in estimates.numeric_rows],
        "privacy": selectors.survey_privacy(survey=survey, ledger=estimates.ledger),
        "precision": selectors.results_precision(survey=survey, estimates=estimates),
        "method_label": dict(CI_METHODS)[method],
        "any_outside": any(
            row.estimate.was_clamped and not row.suppressed for row in estimates.yes_no_rows
        ),
        "query": _interval_query(method, level, thresholds_form),
        "xlsx_fits": bundles.xlsx_fits(survey),
        # The direct-questioning control group (templates/surveys/_control_group.html).
        "control_group": selectors.survey_control_group(
            survey=survey, confidence=level, method=method
        ),
        "comprehension": selectors.comprehension_results(
            survey=survey, confidence=level, method=method
        ),
    }
    status = 200 if form.is_valid() and thresholds_form.is_valid() else 400
    template = "surveys/_results_body.html" if "fragment" in request.GET else "surveys/results.html"
    return render(request, template, context, status=status)


def _bad_query(*forms):
    lines = [
        f"{field}: {' '.join(errors)}" for form in forms for field, errors in form.errors.items()
    ]
    return HttpResponse("\n".join(lines), status=400, content_type="text/plain; charset=utf-8")


def _results_query(view):
    """Calls ``view(request, survey, method=..., level=..., thresholds=...)`` with the
    download's query read by the results forms; a bad query is a 400 naming the fields, and
    ``view`` is not called."""

    @functools.wraps(view)
    def read_query(request, survey):
        form = ResultsForm(request.GET, survey=survey)
        thresholds_form = ThresholdsForm(request.GET, questions=survey.questions.all())
        if not (form.is_valid() and thresholds_form.is_valid()):
            return _bad_query(form, thresholds_form)
        method, level = form.selection()
        return view(
            request,
            survey,
            method=method,
            level=level,
            thresholds=thresholds_form.thresholds(),
            query=_interval_query(method, level, thresholds_form),
        )

    return read_query


@member_view(GET=VIEWER)
@_results_query
def estimates_csv(request, survey, *, method, level, thresholds, query):
    return csv_export.estimates_csv_response(
        selectors.survey_estimates(
            survey=survey, confidence=level, method=method, thresholds=thresholds
        ),
        codebook_url=_codebook_url(survey, query),
    )


@member_view(GET=VIEWER)
def responses_csv(request, survey):
    # Names the file that explains the columns, for a client that fetched the data alone.
    link = f'<{_codebook_url(survey)}>; rel="describedby"; type="text/csv"'
    return export_jobs.deliver(request, survey, kind="reports", options={}, headers={"Link": link})


def _bundle_options(method, level, thresholds):
    """A ZIP's or workbook's choices as an export job keeps them (JSON)."""
    return {
        "method": method,
        "confidence": level,
        "thresholds": {str(pk): value for pk, value in thresholds.items()},
    }


@member_view(GET=VIEWER)
def responses_sav(request, survey):
    return export_jobs.deliver(request, survey, kind="sav", options={})


@member_view(GET=VIEWER)
def responses_dta(request, survey):
    return export_jobs.deliver(request, survey, kind="dta", options={})


# --- downloads with their codebook (docs/researchers.md, "Exports and the codebook") ---------


def _codebook_url(survey, query=""):
    url = reverse("surveys:codebook-csv", kwargs={"pk": survey.pk})
    return f"{url}?{query}" if query else url


@member_view(GET=VIEWER)
@_results_query
def codebook_csv(request, survey, *, method, level, thresholds, query):
    return csv_export.codebook_csv_response(
        codebook.survey_codebook(survey=survey, method=method, confidence=level)
    )


@member_view(GET=VIEWER)
@_results_query
def export_zip(request, survey, *, method, level, thresholds, query):
    options = _bundle_options(method, level, thresholds)
    return export_jobs.deliver(request, survey, kind="zip", options=options)


@member_view(GET=VIEWER)
def export_xlsx(request, survey):
    if not bundles.xlsx_fits(survey):
        return HttpResponse(
            bundles.too_many_rows_message(survey),
            status=409,
            content_type="text/plain; charset=utf-8",
        )
    return _xlsx_download(request, survey)


@_results_query
def _xlsx_download(request, survey, *, method, level, thresholds, query):
    options = _bundle_options(method, level, thresholds)
    return export_jobs.deliver(request, survey, kind="xlsx", options=options)


# --- breakdown and regression -------------------------------------------------------------


@member_view(GET=VIEWER)
def breakdown(request, survey):
    grouping_questions = selectors.survey_grouping_questions(survey=survey)
    # Direct yes/no and choice questions group results as grouping questions do.
    columns = {q.pk: question_column(i) for i, q in enumerate(survey.questions.all())}
    direct = {q: columns[q.pk] for q in selectors.direct_grouping_questions(survey=survey)}
    # The comprehension check's answers too (C1, C2, ...): estimates split by whether the
    # respondent passed the practice on the first try.
    for index, check in enumerate(selectors.comprehension_questions(survey=survey)):
        direct[check] = comprehension_column(index)
    form = BreakdownForm(
        request.GET, survey=survey, grouping_questions=grouping_questions, direct=direct
    )
    # Without anything to group by the page only explains how to get it: nothing to validate.
    offered = bool(grouping_questions or direct)
    valid = not offered or form.is_valid()
    result = None
    if offered:
        chosen = form.cleaned_data if valid else {}
        by = chosen.get("by", form.fields["by"].choices[0][0])
        groups = {str(gq.pk): gq for gq in grouping_questions}
        for question in direct:
            groups[f"d{question.pk}"] = question
        picked = groups[by]
        if isinstance(picked, Question):
            picked = selectors.direct_grouping(survey=survey, question=picked)
        result = selectors.survey_breakdown(
            survey=survey,
            grouping_question=picked,
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
    everything = list(survey.questions.all())
    columns = {question.pk: question_column(index) for index, question in enumerate(everything)}
    # The model is of a yes/no answer: choice and numeric questions are not offered; a
    # compared question is, on its randomized arm alone.
    questions = selectors.regression_questions(everything)
    form = RegressionForm(request.GET, survey=survey, questions=questions, columns=columns)
    valid = not questions or form.is_valid()
    result = snippet = r_design = None
    if questions:
        chosen = form.cleaned_data if valid else {}
        question_id = chosen.get("question", questions[0].pk)
        question = next(q for q in questions if q.pk == question_id)
        result = selectors.survey_regression(
            survey=survey,
            question=question,
            confidence=chosen.get("level", survey.confidence),
        )
        snippet = r_export.r_snippet(survey=survey, question=question, covariates=result.covariates)
        r_design = r_export.r_design(survey=survey, question=question)
    context = {
        "survey": survey,
        "form": form,
        "regression": result,
        "column": columns[result.question.pk] if result else None,
        "other_types": len(everything) - len(questions),
        "left_out": questions_left_out(
            questions=everything, kept_ids={question.pk for question in questions}
        ),
        "r_design": r_design,
        "rrreg_model": (
            r_export.rrreg_model(survey=survey, question=result.question)
            if result and r_design is None
            else None
        ),
        "r_snippet": snippet,
        "r_estimates": r_export.r_estimates_script(survey=survey) if everything else None,
    }
    return render(request, "surveys/regression.html", context, status=200 if valid else 400)


@member_view(GET=VIEWER)
def r_export_csv(request, survey):
    return export_jobs.deliver(request, survey, kind="for-r", options={})


@member_view(GET=VIEWER)
def estimates_r(request, survey):
    return r_export.r_estimates_response(survey=survey)


# --- planner ------------------------------------------------------------------------------


@member_view(GET=VIEWER)
def planner(request, survey):
    form = PlannerForm(
        request.GET,
        survey=survey,
        preset=selectors.preset_for(p_truth=survey.p_truth, p_forced_yes=survey.p_forced_yes),
    )
    plan = per_question = None
    control_plans = cheating_plans = ()
    if form.is_valid():
        try:
            plan = selectors.study_plan(**form.plan_arguments())
        except ValueError as exc:
            form.add_error(None, str(exc))
    questions = list(survey.questions.all())
    if plan and plan.goal == "margin" and questions:
        per_question = selectors.question_plans(
            survey=survey, questions=questions, margin=plan.margin, confidence=plan.confidence
        )
        cheating_plans = selectors.cheating_plans(
            survey=survey, questions=questions, margin=plan.margin, confidence=plan.confidence
        )
    elif plan and questions:
        control_plans = selectors.control_group_plans(
            survey=survey,
            questions=questions,
            difference=plan.difference,
            power=plan.power,
            confidence=plan.confidence,
            prevalence=plan.prevalence,
        )
    context = {
        "survey": survey,
        "form": form,
        "plan": plan,
        "chart": precision_chart(plan) if plan else None,
        "question_plans": per_question,
        "control_plans": control_plans,
        "cheating_plans": cheating_plans,
    }
    return render(request, "surveys/planner.html", context, status=200 if plan else 400)


# --- public results -----------------------------------------------------------------------


@member_view(GET=VIEWER, POST=EDITOR)
def public_settings(request, survey):
    status = 200
    if request.method == "POST":
        form = PublicResultsForm(request.POST)
        saved = write_and_redirect(
            request,
            lambda: public_release.public_results_update(
                survey=survey,
                enabled=form.cleaned_data["public_results"],
                epsilon=form.cleaned_data["public_epsilon"],
                release_days=form.cleaned_data["public_release_days"],
                releases=form.cleaned_data["public_releases_max"],
            ),
            form=form,
            message=_("Public results settings saved."),
            to=reverse("surveys:public-settings", kwargs={"pk": survey.pk}),
        )
        if saved:
            return saved
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
        "public_status": selectors.public_status(survey=survey),
    }
    return render(request, "surveys/public_settings.html", context, status=status)
