"""One error shape for every API 4xx: ``{"detail": str, "errors": {field: [messages]}}``.

``errors`` names the offending top-level field (``non_field_errors`` for the body as a whole)
and is empty when no field is at fault (401, 404, 409 without a field, 413, 429 ...).
Nested problems keep their path in the message: ``questions: [1] text: This field ...``.
"""

from django.core.exceptions import NON_FIELD_ERRORS, RequestDataTooBig, SuspiciousOperation
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from django.urls import Resolver404, resolve
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse
from rest_framework import exceptions, status
from rest_framework.permissions import AllowAny
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView
from rest_framework.views import exception_handler as drf_exception_handler

from ..services import SurveyConflict
from ..services.errors import AccessRefused, ExportJobsBusy, ExportRefused
from .limits import RequestTooLarge, too_large_message
from .serializers import ErrorSerializer

# What each error status means for most endpoints (the OpenAPI descriptions).
ERROR_DESCRIPTIONS = {
    400: "Invalid input; `errors` names the field.",
    401: "Not authenticated.",
    403: "Your role on this survey does not allow this (or a session without CSRF token).",
    404: "No such survey among yours or those shared with you.",
    409: "The survey's state forbids this (e.g. it already has responses).",
    413: "Request body too large.",
}
# An export that would start a job: why it may not (``Retry-After`` says when to ask again).
JOB_REFUSALS = {
    429: "You already have 3 exports of this survey waiting or running "
    "(EXPORT_JOBS_ACTIVE_MAX); `Retry-After` gives the seconds to wait.",
    503: "The export files fill the server's disk budget (EXPORT_DISK_BUDGET_MB); "
    "`Retry-After` gives the seconds until the oldest expires.",
}


def error_responses(*codes, described=None):
    """An endpoint's OpenAPI error responses, all in the one error shape: each of ``codes``
    with its usual description, and each code of ``described`` with the text given there."""
    texts = {code: ERROR_DESCRIPTIONS[code] for code in codes} | (described or {})
    return {
        code: OpenApiResponse(ErrorSerializer, description=text) for code, text in texts.items()
    }


def _field_name(key):
    return "non_field_errors" if key == NON_FIELD_ERRORS else str(key)


def _messages(value, prefix=""):
    if isinstance(value, dict):
        return [
            msg
            for key, sub in value.items()
            # Integer keys index a list (DRF reports list items' errors that way).
            for msg in _messages(
                sub, f"{prefix}[{key}] " if isinstance(key, int) else f"{prefix}{key}: "
            )
        ]
    if isinstance(value, list):
        if any(isinstance(item, dict | list) for item in value):
            # A list of nested errors (one entry per item, empty for valid ones): keep the index.
            return [
                msg
                for index, item in enumerate(value)
                for msg in _messages(item, f"{prefix}[{index}] ")
            ]
        return [msg for item in value for msg in _messages(item, prefix)]
    return [f"{prefix}{value}"]


def error_body(errors, *, detail=None):
    if detail is None:
        field, messages = next(iter(errors.items()))
        detail = messages[0] if field == "non_field_errors" else f"{field}: {messages[0]}"
    return {"detail": str(detail), "errors": errors}


def _validation_errors(detail):
    if isinstance(detail, dict) and detail:
        return {_field_name(key): _messages(value) for key, value in detail.items()}
    return {"non_field_errors": _messages(detail)}


def api_exception_handler(exc, context):
    if isinstance(exc, DjangoValidationError):
        errors = (
            {_field_name(key): [str(m) for m in msgs] for key, msgs in exc.message_dict.items()}
            if hasattr(exc, "error_dict")
            else {"non_field_errors": [str(m) for m in exc.messages]}
        )
        return Response(error_body(errors), status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, SurveyConflict):
        errors = {exc.field: [exc.message]} if exc.field else {}
        return Response(error_body(errors, detail=exc.message), status=status.HTTP_409_CONFLICT)
    if isinstance(exc, ExportRefused):
        busy = isinstance(exc, ExportJobsBusy)
        return Response(
            error_body({}, detail=exc.message),
            status=status.HTTP_429_TOO_MANY_REQUESTS
            if busy
            else status.HTTP_503_SERVICE_UNAVAILABLE,
            headers={"Retry-After": str(exc.retry_after)},
        )
    if isinstance(exc, AccessRefused):
        return Response(
            error_body({exc.field: [exc.message]}, detail=exc.message),
            status=status.HTTP_403_FORBIDDEN,
        )
    if isinstance(exc, RequestDataTooBig):
        # Django's own cap on a body read as a form (e.g. by the CSRF check of a session
        # write): the same 413 as the API's, in the error shape rather than an HTML page.
        exc = RequestTooLarge(too_large_message())
    elif isinstance(exc, SuspiciousOperation):
        exc = exceptions.ParseError(_("The request is malformed."))
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()

    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        response.data = error_body(_validation_errors(exc.detail))
    else:
        response.data = error_body({}, detail=exc.detail)
    return response


def error_response(exc):
    """``api_exception_handler``'s answer to ``exc`` for a view outside DRF, or None if ``exc``
    is not an error the API answers (then it propagates, a 500)."""
    response = api_exception_handler(exc, {})
    if response is not None:
        # What DRF's view would have set after content negotiation: the API speaks JSON only.
        response.accepted_renderer = JSONRenderer()
        response.accepted_media_type = JSONRenderer.media_type
        response.renderer_context = {}
    return response


class NotFoundView(APIView):
    """Any unknown /api/ address: a 404 in the error shape instead of an HTML page."""

    authentication_classes = []
    permission_classes = [AllowAny]
    schema = None  # not part of the documented API

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        path = request.path_info
        detail = _("Not found.")
        if not path.endswith("/"):
            try:
                match = resolve(path + "/")
            except Resolver404:
                match = None
            if match and getattr(match.func, "view_class", None) is not NotFoundView:
                detail = _("Not found. Did you mean %(path)s (with a trailing slash)?") % {
                    "path": path + "/"
                }
        raise exceptions.NotFound(detail)
