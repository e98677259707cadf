"""Public endpoints: what a respondent's browser needs, and the single submission path."""

from django.http import HttpResponse
from django.utils.cache import patch_vary_headers
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions, status
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from .. import selectors, services
from ..selectors import languages
from .errors import error_response, error_responses
from .limits import json_body
from .serializers import (
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
        description=(
            "Drafts are not published (404); a closed survey lists no questions. Texts come in "
            "the language asked for with `?lang=` (else the first language of Accept-Language) "
            "when the survey is offered in it, else in its own language; `language` says which."
        ),
        parameters=[
            OpenApiParameter(
                "lang",
                str,
                description="A language code (en, ko, zh-hans); ignored when not offered.",
            )
        ],
        responses={
            200: PublicSurveySerializer,
            **error_responses(described={404: "No such survey, or a draft."}),
        },
        auth=[],
    )
    def get(self, request, slug):
        survey = languages.survey_for_respondent(
            survey=selectors.survey_published(slug=slug),
            preferences=languages.language_preferences(request),
        )
        response = Response(PublicSurveySerializer(survey).data)
        response["Content-Language"] = survey.language
        patch_vary_headers(response, ["Accept-Language"])
        return response


@csrf_exempt
def response_create(request, slug):
    """``POST .../public/surveys/<slug>/responses/``: one respondent's randomized answers.

    A plain Django view, not a DRF one, because every respondent calls it and DRF's request
    and response machinery (request wrapper, content negotiation, rendering) is a measurable
    part of a worker's CPU per submission (docs/benchmarks.md, "Benchmarks"). It keeps the
    API's contract
    all the same: the rate limit, JSON only within the body limits, the one error shape
    (``errors.py``), and ``PublicResponseView`` documents it in the OpenAPI schema.
    """
    try:
        if request.method != "POST":
            raise exceptions.MethodNotAllowed(request.method)
        throttle = ResponseSubmissionThrottle()
        if not throttle.allow_request(request, None):
            raise exceptions.Throttled(throttle.wait())
        try:
            fields = submission_fields(json_body(request))
        except exceptions.ValidationError:
            selectors.survey_by_slug(slug=slug)  # no such survey: 404 comes first
            raise
        outcome = services.submission_receive(slug=slug, **fields)
    except Exception as exc:
        response = error_response(exc)
        if response is None:
            raise
        if isinstance(exc, exceptions.MethodNotAllowed):
            response["Allow"] = "POST"
        return response
    # A replay answers exactly as the first time did, so a client retry is harmless.
    return accepted_response(outcome.submission_id)


def accepted_response(submission_id):
    """The 201, byte for byte what ``JsonResponse`` writes for ``{"submission_id": ...,
    "status": "recorded"}``, without its encoder: a UUID's text needs no escaping, and the
    encoder was a tenth of the view's CPU (docs/benchmarks.md, "Where the worker's CPU
    goes")."""
    return HttpResponse(
        b'{"submission_id": "%s", "status": "recorded"}' % str(submission_id).encode(),
        content_type="application/json",
        status=status.HTTP_201_CREATED,
    )


@extend_schema(tags=[TAG])
class PublicResponseView(APIView):
    """The OpenAPI description of ``response_create`` (drf-spectacular reads DRF views only)."""

    permission_classes = [AllowAny]
    authentication_classes = []

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
            **error_responses(
                413,
                described={
                    400: "Malformed; `errors` names the field.",
                    404: "No such survey.",
                    409: "The survey is not open.",
                    415: "The body is not JSON.",
                    429: "Too many submissions; retry later.",
                },
            ),
        },
        auth=[],
    )
    def post(self, request, slug):
        return response_create(request._request, slug)


# The schema generator finds a view's description through the ``cls`` attribute DRF's
# ``as_view()`` sets on the function it returns; point it at the class above.
response_create.cls = PublicResponseView
response_create.initkwargs = {}
