"""One error shape for every API 4xx: ``{"detail": str, "errors": {field: [messages]}}``."""

from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from ..services import SurveyConflict


def _flatten(detail):
    if isinstance(detail, dict):
        return {str(key): _messages(value) for key, value in detail.items()}
    return {}


def _messages(value):
    if isinstance(value, dict):
        return [f"{key}: {msg}" for key, sub in value.items() for msg in _messages(sub)]
    if isinstance(value, list):
        return [msg for item in value for msg in _messages(item)]
    return [str(value)]


def _summary(errors):
    field, messages = next(iter(errors.items()))
    return f"{field}: {messages[0]}"


def api_exception_handler(exc, context):
    if isinstance(exc, DjangoValidationError):
        errors = (
            {key: [str(m) for m in msgs] for key, msgs in exc.message_dict.items()}
            if hasattr(exc, "error_dict")
            else {"non_field_errors": [str(m) for m in exc.messages]}
        )
        return Response({"detail": _summary(errors), "errors": errors}, status=400)
    if isinstance(exc, SurveyConflict):
        errors = {exc.field: [exc.message]} if exc.field else {}
        return Response({"detail": exc.message, "errors": errors}, status=status.HTTP_409_CONFLICT)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()

    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        errors = _flatten(exc.detail) or {"non_field_errors": _messages(exc.detail)}
        response.data = {"detail": _summary(errors), "errors": errors}
    else:
        detail = exc.detail if isinstance(exc, exceptions.APIException) else str(exc)
        response.data = {"detail": str(detail), "errors": {}}
    return response
