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
    extend_schema_field,
)
from rest_framework import serializers
from rest_framework.response import Response

from .. import selectors
from ..exports import csv as csv_export
from ..exports import r as r_export
from ..forms.analysis import ThresholdsForm
from ..selectors.mechanisms import FORCED_RESPONSE
from .errors import JOB_REFUSALS, error_responses
from .export_jobs import deliver
from .researcher import CSVNegotiation, OwnedSurveyView, codebook_api_url
from .serializers import (
    ConfidenceField,
    EstimatesQuerySerializer,
    SurveyEstimatesSerializer,
    finite,
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


class RegressionQuerySerializer(serializers.Serializer):
    question = serializers.IntegerField(
        required=False,
        min_value=1,
        help_text="Id of the yes/no question to model; defaults to the survey's first yes/no "
        "question (multiple-choice and numeric questions cannot be modelled: 400).",
    )
    confidence = ConfidenceField(
        strict=False, required=False, help_text="Defaults to the survey's confidence level."
    )


class LevelSerializer(serializers.Serializer):
    option_id = serializers.IntegerField()
    label = serializers.CharField()
    respondents = serializers.IntegerField(
        help_text="Reports of this question from respondents who chose this option."
    )
    role = serializers.ChoiceField(
        choices=["reference", "coefficient", "dropped"],
        help_text="reference: the baseline level; dropped: nobody chose it, left out.",
    )


class CovariateSerializer(serializers.Serializer):
    grouping_question_id = serializers.IntegerField()
    text = serializers.CharField()
    levels = LevelSerializer(many=True)


class CoefficientSerializer(serializers.Serializer):
    term = serializers.CharField(
        allow_null=True, help_text="The grouping question; null for the intercept."
    )
    level = serializers.CharField(allow_null=True, help_text="The option; null for the intercept.")
    reference = serializers.CharField(
        allow_null=True, help_text="The reference option it is compared with."
    )
    estimate = serializers.FloatField(
        allow_null=True, help_text="Log-odds (intercept) or log odds ratio."
    )
    std_error = serializers.FloatField(allow_null=True, help_text="Wald (approximate).")
    ci_low = serializers.FloatField(
        allow_null=True,
        help_text="The interval shown (`ci_method`), per coefficient. Null when the model has "
        "several grouping questions (no interval shown) or when the end is unbounded (a "
        "group's share may be 0 or 1).",
    )
    ci_high = serializers.FloatField(allow_null=True, help_text="As `ci_low`.")
    odds_ratio = serializers.FloatField(allow_null=True, help_text="exp(estimate).")
    odds_ratio_low = serializers.FloatField(allow_null=True, help_text="exp(ci_low).")
    odds_ratio_high = serializers.FloatField(allow_null=True, help_text="exp(ci_high).")
    wald_ci_low = serializers.FloatField(
        source="wald_low",
        allow_null=True,
        help_text="Wald interval (estimate ± z·std_error), as R's rr and RRreg report it; "
        "approximate, never shown: it can cover far less than its level.",
    )
    wald_ci_high = serializers.FloatField(source="wald_high", allow_null=True)
    p_value = serializers.FloatField(
        allow_null=True, help_text="Two-sided Wald test of a zero coefficient (approximate)."
    )

    def to_representation(self, instance):
        data = super().to_representation(instance)
        return {
            key: finite(value) if isinstance(value, float) else value for key, value in data.items()
        }


class RegressionSerializer(serializers.Serializer):
    survey_id = serializers.IntegerField(source="survey.id")
    question_id = serializers.IntegerField(source="question.id")
    question = serializers.CharField(source="question.text")
    status = serializers.CharField(
        help_text="`fitted`, or why there is no coefficient table: `no_responses`, `too_few`, "
        "`separation`, `singular` or `not_converged` (see `message`)."
    )
    message = serializers.CharField(help_text="Empty when fitted; otherwise what went wrong.")
    detail = serializers.CharField(help_text="The fitting library's own explanation, if any.")
    n = serializers.IntegerField(help_text="Reports used.")
    arm = serializers.CharField(
        allow_null=True,
        help_text="`randomized` for a question compared with asking directly: the model is "
        "fitted on its randomized arm alone (the control group's direct answers are left out "
        "of `n` and of `left_out`); null for every other question (all its reports).",
    )
    left_out = serializers.IntegerField(
        help_text="Reports of the question left out because a grouping answer is missing "
        '(skipped, or "Prefer not to say"): missing, never a level of its own.'
    )
    min_n = serializers.IntegerField()
    confidence = serializers.FloatField()
    design = serializers.CharField(
        source="design.kind",
        help_text="The question's yes/no design: forced_response, warner, unrelated_question, "
        "kuk or mangat.",
    )
    a = serializers.FloatField(source="design.p_yes_given_yes", help_text="P(report yes | yes).")
    b = serializers.FloatField(source="design.p_yes_given_no", help_text="P(report yes | no).")
    p_truth = serializers.SerializerMethodField(
        help_text="The forced-response coins; null for another design."
    )
    p_forced_yes = serializers.SerializerMethodField(
        help_text="The forced-response coins; null for another design."
    )
    epsilon = serializers.FloatField(source="design.epsilon")
    covariates = CovariateSerializer(many=True)
    coefficients = CoefficientSerializer(
        many=True, help_text="Intercept first, then one row per non-reference option."
    )
    log_likelihood = serializers.FloatField(allow_null=True)
    iterations = serializers.IntegerField(allow_null=True)
    ci_method = serializers.CharField(
        allow_null=True,
        help_text="`exact-product` when at most one grouping question splits the respondents: "
        "each coefficient's interval has coverage at least `confidence` at every n (per "
        "coefficient, not simultaneous). Null with several grouping questions: no interval.",
    )

    @extend_schema_field(serializers.FloatField(allow_null=True))
    def get_p_truth(self, result):
        return _coin(result.design, "p_truth")

    @extend_schema_field(serializers.FloatField(allow_null=True))
    def get_p_forced_yes(self, result):
        return _coin(result.design, "p_forced_yes")


def _coin(design, name):
    value = getattr(design, name, None) if design.kind == FORCED_RESPONSE else None
    return None if value is None else float(value)


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
