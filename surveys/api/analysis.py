"""Researcher endpoints that read the answers: the estimates (JSON and CSV), the regression on
the grouping questions, the export for R.

Like researcher.py: the survey is resolved (404 unless the caller owns it or is a member,
403 for a role too low) before any handler runs; each view validates with a serializer and
calls one selector.
"""

from django.utils.translation import gettext_lazy as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
)
from rest_framework import serializers
from rest_framework.response import Response

from .. import selectors
from ..exports import csv as csv_export
from ..exports import r as r_export
from ..forms.analysis import ThresholdsForm
from .errors import JOB_REFUSALS, error_responses
from .export_jobs import deliver
from .researcher import CSVNegotiation, OwnedSurveyView, codebook_api_url
from .serializers import (
    EstimatesQuerySerializer,
    RegressionQuerySerializer,
    RegressionSerializer,
    SurveyEstimatesSerializer,
)

TAG = "researcher"

THRESHOLD_PARAMETER = OpenApiParameter(
    name="threshold_q{question_id}",
    type=OpenApiTypes.INT,
    required=False,
    description=(
        "One parameter per numeric question, named with its id (e.g. `threshold_q12=40`): "
        "the share-above threshold, an integer from the question's min to max − 1; defaults "
        "to the middle of the range, (min + max) // 2. A bad value is a 400 naming the "
        "parameter."
    ),
)

ESTIMATES_DESCRIPTION = (
    "One row per question in display order, each with its `type`: `yes_no` (the share "
    "answering yes, debiased with the question's own design, any interval method), `choice` "
    "(`options`: every option's share with Bonferroni simultaneous intervals: each at "
    "`per_option_confidence` so all k hold together at `confidence`) or `numeric` (`mean` "
    "of the answers clamped to [min, max] and `share_above` a `threshold`, with normal "
    "intervals; the share reads the raw reports, so its cost grows with the responses). "
    "Every row carries its `design`, `parameters` and `epsilon`; `total_epsilon` is their "
    "sum. Statistics are null when suppressed (fewer reports than `min_n`) or without data."
)


def estimates_query(request, survey) -> dict:
    """The interval and thresholds of an estimates request, or a 400 naming the field."""
    query = EstimatesQuerySerializer(data=request.query_params)
    query.is_valid(raise_exception=True)
    thresholds = ThresholdsForm(request.query_params, questions=survey.questions.all())
    if not thresholds.is_valid():
        raise serializers.ValidationError(
            {field: list(errors) for field, errors in thresholds.errors.items()}
        )
    return {**query.validated_data, "thresholds": thresholds.thresholds()}


@extend_schema(tags=[TAG])
class SurveyEstimatesView(OwnedSurveyView):
    survey_roles = {"get": selectors.VIEWER}

    @extend_schema(
        operation_id="surveys_estimates",
        summary="Debiased estimates with confidence intervals, one row per question by type",
        description=ESTIMATES_DESCRIPTION,
        parameters=[EstimatesQuerySerializer, THRESHOLD_PARAMETER],
        responses={200: SurveyEstimatesSerializer, **error_responses(400, 401, 404)},
    )
    def get(self, request, survey_id):
        estimates = selectors.survey_estimates(
            survey=self.survey, **estimates_query(request, self.survey)
        )
        return Response(SurveyEstimatesSerializer(estimates).data)


@extend_schema(tags=[TAG])
class SurveyEstimatesCSVView(OwnedSurveyView):
    survey_roles = {"get": selectors.VIEWER}
    content_negotiation_class = CSVNegotiation

    @extend_schema(
        operation_id="surveys_estimates_csv",
        summary="The estimates as CSV, streamed: a row per yes/no question, per option of a "
        "multiple-choice question and per statistic of a numeric question",
        description=(
            "The same file as in the results page's ZIP. Columns: column, question_id, "
            "position, question, type, design, statistic (share_yes, share, mean or "
            "share_above), option_index, option, threshold, n, reported_yes, option_reports, "
            "yes_rate, estimate, clamped, std_error, ci_low, ci_high, suppressed, ci_method "
            "(normal for numeric rows), confidence, adjustment (bonferroni for options), "
            "interval_confidence (each interval's own level), epsilon, parameters. The rest "
            "of the provenance (software, generated-at) is in the codebook, `codebook.csv` "
            'with the same query, which the `Link: <…>; rel="describedby"` header names.'
        ),
        parameters=[EstimatesQuerySerializer, THRESHOLD_PARAMETER],
        responses={
            (200, "text/csv"): OpenApiResponse(OpenApiTypes.STR, description="CSV file."),
            **error_responses(400, 401, 404),
        },
    )
    def get(self, request, survey_id):
        query = estimates_query(request, self.survey)
        return csv_export.estimates_csv_response(
            selectors.survey_estimates(survey=self.survey, **query),
            codebook_url=codebook_api_url(request, self.survey, query),
        )


@extend_schema(tags=[TAG])
class SurveyControlGroupCSVView(OwnedSurveyView):
    survey_roles = {"get": selectors.VIEWER}
    content_negotiation_class = CSVNegotiation

    @extend_schema(
        operation_id="surveys_control_group_csv",
        summary="The direct-questioning control group's comparison as CSV: a row per question "
        "compared with asking directly",
        description=(
            "Columns: column, question_id, question, status, control_share, randomized_n, "
            "randomized_yes_reports, randomized_estimate, randomized_ci_low, "
            "randomized_ci_high, randomized_ci_method, direct_n, direct_yes, direct_share, "
            "direct_ci_low, direct_ci_high, difference (randomized minus direct), "
            "difference_ci_low, difference_ci_high, difference_method, "
            "p_value_more_is_better (one-sided), confidence. The same numbers as the "
            "`control_group` of the estimates; also `control_group.csv` in the results ZIP."
        ),
        parameters=[EstimatesQuerySerializer],
        responses={
            (200, "text/csv"): OpenApiResponse(OpenApiTypes.STR, description="CSV file."),
            **error_responses(400, 401, 404),
        },
    )
    def get(self, request, survey_id):
        query = EstimatesQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        return csv_export.control_group_csv_response(
            selectors.survey_control_group(survey=self.survey, **query.validated_data),
            survey=self.survey,
        )


@extend_schema(tags=[TAG])
class SurveyRegressionView(OwnedSurveyView):
    survey_roles = {"get": selectors.VIEWER}

    @extend_schema(
        operation_id="surveys_regression",
        summary="Logistic regression of one yes/no question on the grouping questions",
        description=(
            "Maximum likelihood on the randomized reports (P(report yes | x) = b + (a − b) "
            "logistic(β₀ + xβ)); each grouping question dummy-coded with its first option as "
            "the reference. A question compared with asking directly is fitted on its "
            "randomized arm alone (`arm`). A fit that is impossible (too little data, "
            "separation, collinear groups) is still a 200 with `status` and `message` saying "
            "why."
        ),
        parameters=[RegressionQuerySerializer],
        responses={200: RegressionSerializer, **error_responses(400, 401, 404)},
    )
    def get(self, request, survey_id):
        query = RegressionQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        questions = selectors.regression_questions(self.survey.questions.all())
        question_id = query.validated_data.get("question", questions[0].pk if questions else None)
        question = next((q for q in questions if q.pk == question_id), None)
        if question is None:
            raise serializers.ValidationError(
                {"question": [_("Not a yes/no question of this survey.")]}
            )
        result = selectors.survey_regression(
            survey=self.survey,
            question=question,
            confidence=query.validated_data.get("confidence"),
        )
        return Response(RegressionSerializer(result).data)


@extend_schema(tags=[TAG])
class SurveyRExportCSVView(OwnedSurveyView):
    survey_roles = {"get": selectors.VIEWER}
    content_negotiation_class = CSVNegotiation

    @extend_schema(
        operation_id="surveys_r_export_csv",
        summary="Randomized reports with grouping covariates as CSV, one row per submission",
        description=(
            "The raw reports file under another name: submission_id, received_on, Q1…Qn "
            "(the randomized report of each question in display order: 0/1 for yes/no, the "
            "reported option's index from 0 for multiple choice, the noisy integer for a "
            "number; empty when skipped), G1…Gm (chosen option's label per grouping "
            'question; prefer_not_to_say for the built-in "Prefer not to say"; empty when '
            "skipped), P1…Pn (where the page showed each question, 1 first; empty when not "
            "recorded); the codebook (`codebook.csv`) names each column. For checking the "
            "regression with R's rr or RRreg package and every estimate in R "
            '(docs/researchers.md, "Export for R"). Above EXPORT_JOB_THRESHOLD responses: '
            "`202` with an export job, as for responses.csv."
        ),
        responses={
            (200, "text/csv"): OpenApiResponse(OpenApiTypes.STR, description="CSV file."),
            (202, "application/json"): OpenApiResponse(description="Export job."),
            **error_responses(401, 404, described=JOB_REFUSALS),
        },
    )
    def get(self, request, survey_id):
        return deliver(request, self.survey, kind="for-r", options={})


@extend_schema(tags=[TAG])
class SurveyEstimatesRView(OwnedSurveyView):
    survey_roles = {"get": selectors.VIEWER}
    content_negotiation_class = CSVNegotiation

    @extend_schema(
        operation_id="surveys_estimates_r",
        summary="An R script that estimates every question from `for-r.csv`",
        description=(
            "The results page's R script: it reads the file `for-r.csv` gives (under the name "
            "that download has on the same day), estimates each question by its kind with "
            "RRreg's `RRuni` (yes/no designs, a compared question's randomized arm, CDM and "
            "SLD) or base R (multiple choice, numbers, direct questions and a control group's "
            "direct share) and collects the numbers in a data frame `estimates` (column, "
            "statistic, option, estimate, std_error) named as `estimates/` names them "
            '(docs/researchers.md, "Export for R").'
        ),
        responses={
            (200, "text/plain"): OpenApiResponse(OpenApiTypes.STR, description="R script."),
            **error_responses(401, 404),
        },
    )
    def get(self, request, survey_id):
        return r_export.r_estimates_response(survey=self.survey)
