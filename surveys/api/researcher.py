"""Researcher endpoints: a researcher's own surveys and their raw reports (the estimates are
in ``analysis.py``).

Every view validates with a serializer and calls one service or selector. Surveys are looked
up through ``selectors.survey_for`` before any handler runs, so a survey the caller neither
owns nor is a member of is a 404 for every method (and an anonymous caller is refused before
that); a member whose role is below the method's (``survey_roles``) gets a 403.
"""

from urllib.parse import urlencode

from django.urls import reverse
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import exceptions, serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from .. import selectors, services
from ..services import translations
from .common import CSVNegotiation, OwnedSurveyView
from .errors import JOB_REFUSALS, error_responses
from .export_jobs import deliver
from .serializers import (
    BatchReleasedSerializer,
    BatchReleaseSerializer,
    PilotDiscardedSerializer,
    SurveyScheduleSerializer,
    SurveySerializer,
)

TAG = "researcher"


def codebook_api_url(request, survey, interval):
    """The codebook of a download, with the same interval choice as the download."""
    url = reverse("api:survey-codebook-csv", kwargs={"survey_id": survey.pk})
    query = urlencode({key: interval[key] for key in ("method", "confidence") if key in interval})
    return request.build_absolute_uri(f"{url}?{query}" if query else url)


@extend_schema(tags=[TAG])
class SurveyListView(APIView):
    @extend_schema(
        operation_id="surveys_list",
        summary="List your surveys and those shared with you, newest first",
        description="`role` says what you are on each: owner, editor or viewer.",
        responses={200: SurveySerializer(many=True), **error_responses(401)},
    )
    def get(self, request):
        surveys = selectors.surveys_for_user(user=request.user).prefetch_related(
            "questions", "grouping_questions__options"
        )
        return Response(SurveySerializer(surveys, many=True, context={"request": request}).data)

    @extend_schema(
        operation_id="surveys_create",
        summary="Create a survey (as a draft) with its questions",
        request=SurveySerializer,
        responses={201: SurveySerializer, **error_responses(400, 401, 413)},
    )
    def post(self, request):
        body = SurveySerializer(data=request.data)
        body.is_valid(raise_exception=True)
        survey = translations.survey_create_translated(
            owner=request.user, **body.service_arguments()
        )
        return Response(
            SurveySerializer(survey, context={"request": request}).data,
            status=status.HTTP_201_CREATED,
        )


@extend_schema(tags=[TAG])
class SurveyDetailView(OwnedSurveyView):
    survey_roles = {"get": selectors.VIEWER, "patch": selectors.EDITOR, "delete": selectors.OWNER}

    @extend_schema(
        operation_id="surveys_retrieve",
        summary="One of your surveys",
        responses={200: SurveySerializer, **error_responses(401, 404)},
    )
    def get(self, request, survey_id):
        return Response(SurveySerializer(self.survey, context={"request": request}).data)

    @extend_schema(
        operation_id="surveys_partial_update",
        summary="Change a survey; a `questions` list replaces all questions",
        description=(
            "Send only the fields to change. `questions` replaces the whole list (new ids) and, "
            "like `p_truth` and `p_forced_yes`, can change only while the survey has no "
            "responses (409 after)."
        ),
        request=SurveySerializer(partial=True),
        responses={200: SurveySerializer, **error_responses(400, 401, 404, 409, 413)},
    )
    def patch(self, request, survey_id):
        body = SurveySerializer(data=request.data, partial=True)
        body.is_valid(raise_exception=True)
        fields = body.service_arguments()
        questions = fields.pop("questions", None)
        survey_translations = fields.pop("translations", None)
        question_translations = fields.pop("question_translations", None)
        survey = translations.survey_update_translated(
            survey=self.survey,
            data=fields,
            questions=questions,
            translations=survey_translations,
            question_translations=question_translations,
        )
        return Response(SurveySerializer(survey, context={"request": request}).data)

    @extend_schema(
        operation_id="surveys_destroy",
        summary="Delete a survey with all its responses",
        responses={204: OpenApiResponse(description="Deleted."), **error_responses(401, 404)},
    )
    def delete(self, request, survey_id):
        services.survey_delete(survey=self.survey)
        return Response(status=status.HTTP_204_NO_CONTENT)


@extend_schema(tags=[TAG])
class SurveyOpenView(OwnedSurveyView):
    survey_roles = {"post": selectors.EDITOR}

    @extend_schema(
        operation_id="surveys_open",
        summary="Open a survey for responses",
        description=(
            "Opening a pilot for the real study revokes the pilot's invitations; "
            '`{"pilot_invitations": "reissue"}` re-issues them with new codes instead '
            "(emailed again), counted in the real study."
        ),
        request=inline_serializer(
            "SurveyOpenRequest",
            {"pilot_invitations": serializers.ChoiceField(["revoke", "reissue"], required=False)},
        ),
        responses={200: SurveySerializer, **error_responses(400, 401, 404, 409)},
    )
    def post(self, request, survey_id):
        data = request.data if isinstance(request.data, dict) else {}
        unknown = sorted(set(data) - {"pilot_invitations"})
        if unknown:
            raise exceptions.ValidationError({unknown[0]: [_("Unknown field.")]})
        survey = services.survey_open(
            survey=self.survey, pilot_invitations=data.get("pilot_invitations")
        )
        return Response(SurveySerializer(survey, context={"request": request}).data)


@extend_schema(tags=[TAG])
class SurveyDuplicateView(OwnedSurveyView):
    survey_roles = {"post": selectors.OWNER}

    @extend_schema(
        operation_id="surveys_duplicate",
        summary="Copy a survey into a new draft with its own link",
        description=(
            "Settings, coins, questions and grouping questions are copied; responses and the "
            "public results page are not. The way to change a survey whose design is frozen."
        ),
        request=None,
        responses={201: SurveySerializer, **error_responses(401, 404)},
    )
    def post(self, request, survey_id):
        copy = services.survey_duplicate(survey=self.survey)
        return Response(
            SurveySerializer(copy, context={"request": request}).data,
            status=status.HTTP_201_CREATED,
        )


@extend_schema(tags=[TAG])
class SurveyCloseView(OwnedSurveyView):
    survey_roles = {"post": selectors.EDITOR}

    @extend_schema(
        operation_id="surveys_close",
        summary="Close a survey: it stops accepting responses",
        description="A pilot is not closed (409): open it for the real study or discard "
        "its responses.",
        request=None,
        responses={200: SurveySerializer, **error_responses(401, 404, 409)},
    )
    def post(self, request, survey_id):
        survey = services.survey_close(survey=self.survey)
        return Response(SurveySerializer(survey, context={"request": request}).data)


@extend_schema(tags=[TAG])
class SurveyPilotView(OwnedSurveyView):
    survey_roles = {"post": selectors.EDITOR}

    @extend_schema(
        operation_id="surveys_pilot",
        summary="Start a pilot: the real link takes test responses that are never counted",
        description=(
            "Only a draft that has never been open. Its responses show on the results marked "
            "as a pilot; changing questions, coins or consent text first needs them discarded "
            "(`discard-pilot`), and opening for the real study (`open` or `schedule`) "
            "discards them all and freezes the design."
        ),
        request=None,
        responses={200: SurveySerializer, **error_responses(401, 404, 409)},
    )
    def post(self, request, survey_id):
        survey = services.survey_pilot_start(survey=self.survey)
        return Response(SurveySerializer(survey, context={"request": request}).data)


@extend_schema(tags=[TAG])
class SurveyPilotDiscardView(OwnedSurveyView):
    survey_roles = {"post": selectors.EDITOR}

    @extend_schema(
        operation_id="surveys_discard_pilot",
        summary="Discard every pilot response (only while the survey is a pilot)",
        description="Deletes the pilot's submissions and everything counted from them; the "
        "survey stays a pilot. 409 for a survey that is not a pilot: its responses are real.",
        request=None,
        responses={200: PilotDiscardedSerializer, **error_responses(401, 404, 409)},
    )
    def post(self, request, survey_id):
        discarded = services.survey_pilot_discard(survey=self.survey)
        survey = selectors.survey_for(user=request.user, survey_id=survey_id, role=selectors.VIEWER)
        return Response(
            PilotDiscardedSerializer(
                {"discarded": discarded, "survey": survey}, context={"request": request}
            ).data
        )


@extend_schema(tags=[TAG])
class SurveyBatchReleaseView(OwnedSurveyView):
    # The owner's alone: a small batch is easier to link to the people who answered.
    survey_roles = {"post": selectors.OWNER}

    @extend_schema(
        operation_id="surveys_release_batch",
        summary="Release a closed survey's last batch of responses, smaller than its batch size",
        description="Responses of a batched survey become visible in batches of `batch_size` "
        '(docs/invitations.md, "Batches"). Once it takes no more responses, the last batch, '
        "smaller, waits here: `held_responses` on the survey says how many it holds, and "
        "`responses` must repeat that number. A small batch is easier to link to the people "
        "who answered. 409 while the survey takes responses, or naming `responses` when the "
        "batch holds another number (or none).",
        request=BatchReleaseSerializer,
        responses={200: BatchReleasedSerializer, **error_responses(400, 401, 403, 404, 409)},
    )
    def post(self, request, survey_id):
        data = BatchReleaseSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        released = services.batch_release_last(
            survey=self.survey, responses=data.validated_data["responses"]
        )
        survey = selectors.survey_for(user=request.user, survey_id=survey_id, role=selectors.VIEWER)
        return Response(
            BatchReleasedSerializer(
                {"released": released, "survey": survey}, context={"request": request}
            ).data
        )


@extend_schema(tags=[TAG])
class SurveyScheduleView(OwnedSurveyView):
    survey_roles = {"post": selectors.EDITOR}

    @extend_schema(
        operation_id="surveys_schedule",
        summary="Set when the survey takes responses: opens_at and closes_at",
        description=(
            "Responses are taken only in [opens_at, closes_at), compared with the current time "
            "(no background process needed). A new `opens_at` opens the survey for the real "
            "study now (pilot responses discarded, design frozen); it starts taking responses "
            "at that time. 409 for an opening time on a survey that has already opened."
        ),
        request=SurveyScheduleSerializer,
        responses={200: SurveySerializer, **error_responses(400, 401, 404, 409)},
    )
    def post(self, request, survey_id):
        body = SurveyScheduleSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        survey = services.survey_schedule(survey=self.survey, **body.validated_data)
        return Response(SurveySerializer(survey, context={"request": request}).data)


@extend_schema(tags=[TAG])
class SurveyResponsesCSVView(OwnedSurveyView):
    survey_roles = {"get": selectors.VIEWER}
    content_negotiation_class = CSVNegotiation

    @extend_schema(
        operation_id="surveys_responses_csv",
        summary="Every randomized report as CSV, one row per submission",
        description=(
            "Columns: submission_id (rows sorted by it, not by arrival), received_on, Q1…Qn "
            "(the randomized report of each question in display order: 0/1 for yes/no, the "
            "reported option's index from 0 for multiple choice, the noisy integer for a "
            "number; empty when skipped), G1…Gm (the chosen option's label per grouping "
            'question; prefer_not_to_say for the built-in "Prefer not to say"; empty when '
            "skipped). A label starting with = + - @ ' tab or CR "
            "gets one leading '. "
            "The codebook (`codebook.csv`, named by the `Link` header) describes each column. "
            "Above EXPORT_JOB_THRESHOLD responses: `202` with an export job (docs/api.md, "
            '"Large exports").'
        ),
        responses={
            (200, "text/csv"): OpenApiResponse(OpenApiTypes.STR, description="CSV file."),
            (202, "application/json"): OpenApiResponse(description="Export job (see exports)."),
            **error_responses(401, 404, described=JOB_REFUSALS),
        },
    )
    def get(self, request, survey_id):
        link = f'<{codebook_api_url(request, self.survey, {})}>; rel="describedby"; type="text/csv"'
        return deliver(request, self.survey, kind="reports", options={}, headers={"Link": link})
