"""Researcher downloads that carry their codebook: the codebook itself, a ZIP, an Excel file,
and the raw reports labelled for SPSS and Stata.

Like researcher.py: the survey is resolved to the caller's own (404 otherwise) before any
handler runs; each view validates the interval choice and calls one export.
"""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.response import Response

from .. import selectors
from ..exports import bundles, codebook, spss_stata
from ..exports import csv as csv_export
from .analysis import THRESHOLD_PARAMETER, estimates_query
from .errors import JOB_REFUSALS, error_body, error_responses
from .export_jobs import ACCEPTED, JOB_DESCRIPTION, bundle_options, deliver
from .researcher import CSVNegotiation, OwnedSurveyView
from .serializers import EstimatesQuerySerializer

TAG = "researcher"


def _interval(request, survey):
    """The interval method, level and numeric thresholds, or a 400 naming the field."""
    return estimates_query(request, survey)


def _codebook(survey, interval):
    return codebook.survey_codebook(
        survey=survey, method=interval.get("method"), confidence=interval.get("confidence")
    )


@extend_schema(tags=[TAG])
class SurveyCodebookCSVView(OwnedSurveyView):
    survey_roles = {"get": selectors.VIEWER}
    content_negotiation_class = CSVNegotiation

    @extend_schema(
        operation_id="surveys_codebook_csv",
        summary="The codebook: what every column of the exports means, and their provenance",
        description=(
            "One row per fact; columns section, name, type, value, text, p_truth, "
            "p_forced_yes, a, b, epsilon, design, parameters. `section=survey`: provenance "
            "(title, slug, language, design, epsilon_per_answer — `per question` when the "
            "questions differ —, total_epsilon (the ledger's sum), ci_method, confidence, "
            "minimum_n, software, generated_at) in `value`. `section=column`: a column of the "
            "raw reports file (`type` identifier, date, randomized_yes_no, randomized_choice, "
            "randomized_numeric or grouping; `text` the question; for randomized ones ε, the "
            "design and its parameters, a and b for yes/no, and the coins for yes/no "
            "questions with forced response). `section=value`: a value a column's cells hold, "
            "as written there (an option's index for multiple choice, `integer` for a "
            "number), and its meaning; an empty cell is 'not answered'. `method` and "
            "`confidence` as for the estimates."
        ),
        parameters=[EstimatesQuerySerializer, THRESHOLD_PARAMETER],
        responses={
            (200, "text/csv"): OpenApiResponse(OpenApiTypes.STR, description="CSV file."),
            **error_responses(400, 401, 404),
        },
    )
    def get(self, request, survey_id):
        return csv_export.codebook_csv_response(
            _codebook(self.survey, _interval(request, self.survey))
        )


@extend_schema(tags=[TAG])
class SurveyExportZipView(OwnedSurveyView):
    survey_roles = {"get": selectors.VIEWER}
    content_negotiation_class = CSVNegotiation

    @extend_schema(
        operation_id="surveys_export_zip",
        summary="ZIP of codebook.csv, estimates.csv and reports.csv",
        description=(
            "The results page's download: the three CSV files; the codebook comes last and "
            "names reports.csv's rows and SHA-256. " + JOB_DESCRIPTION
        ),
        parameters=[EstimatesQuerySerializer, THRESHOLD_PARAMETER],
        responses={
            (200, "application/zip"): OpenApiResponse(
                OpenApiTypes.BINARY, description="ZIP archive."
            ),
            **ACCEPTED,
            **error_responses(400, 401, 404, described=JOB_REFUSALS),
        },
    )
    def get(self, request, survey_id):
        options = bundle_options(_interval(request, self.survey))
        return deliver(request, self.survey, kind="zip", options=options)


@extend_schema(tags=[TAG])
class SurveyExportXlsxView(OwnedSurveyView):
    survey_roles = {"get": selectors.VIEWER}
    content_negotiation_class = CSVNegotiation

    @extend_schema(
        operation_id="surveys_export_xlsx",
        summary="Excel workbook with the sheets estimates, reports and codebook",
        description=(
            "The same rows as the ZIP's CSV files; text is stored as text (never a formula) "
            "and labels as chosen, without the CSV's leading '. 409 when the survey has more "
            "responses than a sheet holds (1,048,575). " + JOB_DESCRIPTION
        ),
        parameters=[EstimatesQuerySerializer, THRESHOLD_PARAMETER],
        responses={
            (200, bundles.XLSX_CONTENT_TYPE): OpenApiResponse(
                OpenApiTypes.BINARY, description="Excel workbook."
            ),
            **ACCEPTED,
            **error_responses(400, 401, 404, 409, described=JOB_REFUSALS),
        },
    )
    def get(self, request, survey_id):
        if not bundles.xlsx_fits(self.survey):
            message = bundles.too_many_rows_message(self.survey)
            return Response(error_body({}, detail=message), status=status.HTTP_409_CONFLICT)
        options = bundle_options(_interval(request, self.survey))
        return deliver(request, self.survey, kind="xlsx", options=options)


LABELLED_DESCRIPTION = (
    "The raw reports (the rows of `responses.csv`) with variable labels (the question texts), "
    "value labels (the codebook's meanings: 1/0 for yes/no, an option's index from 0 for "
    "multiple choice, a grouping question's options coded 1…k in order) and the codebook's "
    "facts, every question's design, p_truth, p_forced_yes, a, b and ε in the file's notes. "
    "Skipped and prefer-not-to-say stay apart: {missing}. A label longer than the format "
    "keeps is cut with '…' and given in full in the notes. " + JOB_DESCRIPTION
)


@extend_schema(tags=[TAG])
class SurveyResponsesSavView(OwnedSurveyView):
    survey_roles = {"get": selectors.VIEWER}
    content_negotiation_class = CSVNegotiation

    @extend_schema(
        operation_id="surveys_responses_sav",
        summary="Every randomized report as an SPSS file (.sav), labelled",
        description=LABELLED_DESCRIPTION.format(
            missing="-1 (skipped) and -2 (prefer not to say), labelled and declared "
            "user-missing; a reported number's skip is system-missing"
        ),
        responses={
            (200, spss_stata.SPSS_CONTENT_TYPE): OpenApiResponse(
                OpenApiTypes.BINARY, description="SPSS system file."
            ),
            **ACCEPTED,
            **error_responses(401, 404, described=JOB_REFUSALS),
        },
    )
    def get(self, request, survey_id):
        return deliver(request, self.survey, kind="sav", options={})


@extend_schema(tags=[TAG])
class SurveyResponsesDtaView(OwnedSurveyView):
    survey_roles = {"get": selectors.VIEWER}
    content_negotiation_class = CSVNegotiation

    @extend_schema(
        operation_id="surveys_responses_dta",
        summary="Every randomized report as a Stata file (.dta, Stata 14+), labelled",
        description=LABELLED_DESCRIPTION.format(
            missing="the extended missing values .a (skipped) and .b (prefer not to say), labelled"
        ),
        responses={
            (200, spss_stata.STATA_CONTENT_TYPE): OpenApiResponse(
                OpenApiTypes.BINARY, description="Stata data file."
            ),
            **ACCEPTED,
            **error_responses(401, 404, described=JOB_REFUSALS),
        },
    )
    def get(self, request, survey_id):
        return deliver(request, self.survey, kind="dta", options={})
