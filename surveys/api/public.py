"""Public endpoints: what a respondent's browser needs, and the single submission path."""

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from .. import selectors, services
from .serializers import (
    ErrorSerializer,
    PublicSurveySerializer,
    SubmissionAcceptedSerializer,
    SubmissionSerializer,
    submission_fields,
)
from .throttling import ResponseSubmissionThrottle

TAG = "public"


@extend_schema(tags=[TAG])
class PublicSurveyView(APIView):
    permission_classes = [AllowAny]
    authentication_classes = []

    @extend_schema(
        operation_id="public_survey_retrieve",
        summary="A survey's definition for the respondent's browser",
        responses={
            200: PublicSurveySerializer,
            404: OpenApiResponse(ErrorSerializer, description="No such survey."),
        },
        auth=[],
    )
    def get(self, request, slug):
        survey = selectors.survey_by_slug(slug=slug)
        return Response(PublicSurveySerializer(survey).data)


@extend_schema(tags=[TAG])
class PublicResponseView(APIView):
    permission_classes = [AllowAny]
    authentication_classes = []
    throttle_classes = [ResponseSubmissionThrottle]

    @extend_schema(
        operation_id="public_response_create",
        summary="Submit one respondent's randomized answers",
        description=(
            "Idempotent on `submission_id`: a retry stores nothing new and gets the same answer. "
            "Stored whole or not at all."
        ),
        request=SubmissionSerializer,
        responses={
            201: SubmissionAcceptedSerializer,
            400: OpenApiResponse(
                ErrorSerializer, description="Malformed; `errors` names the field."
            ),
            404: OpenApiResponse(ErrorSerializer, description="No such survey."),
            409: OpenApiResponse(ErrorSerializer, description="The survey is not open."),
            413: OpenApiResponse(ErrorSerializer, description="Request body too large."),
            415: OpenApiResponse(ErrorSerializer, description="The body is not JSON."),
            429: OpenApiResponse(ErrorSerializer, description="Too many submissions; retry later."),
        },
        auth=[],
    )
    def post(self, request, slug):
        try:
            fields = submission_fields(request.data)
        except ValidationError:
            selectors.survey_by_slug(slug=slug)  # no such survey: 404 comes first
            raise
        outcome = services.submission_receive(slug=slug, **fields)
        # A replay answers exactly as the first time did, so a client retry is harmless.
        return Response(
            {"submission_id": str(outcome.submission_id), "status": "recorded"},
            status=status.HTTP_201_CREATED,
        )
