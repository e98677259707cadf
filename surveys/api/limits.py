"""Bounds on what the API will read: body size and JSON nesting.

These two guards are the API's body limit (``API_MAX_BODY_BYTES``) on every ``/api/`` route:
the middleware for a declared length, the parser for the bytes it reads. The parser is not a
subclass of DRF's ``JSONParser``: DRF reads a ``JSONParser``'s body through Django's
``request.body``, whose own limit (``DATA_UPLOAD_MAX_MEMORY_SIZE``, 256 KiB, for forms) would
refuse an API body the documentation allows, with an HTML page instead of the error shape.
"""

import codecs
import json

from django.conf import settings
from django.http import JsonResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from rest_framework import exceptions, status
from rest_framework.parsers import BaseParser
from rest_framework.renderers import JSONRenderer
from rest_framework.utils.mediatypes import media_type_matches

API_PREFIX = "/api/"
MAX_JSON_DEPTH = 32
# When a body is refused, read (and discard) at most this much of it, so the client gets the
# 413 instead of a connection reset from a server that closed with unread data; beyond this
# a client is not worth the bandwidth and may see a reset.
DRAIN_LIMIT = 64 * 1024 * 1024
_CHUNK = 64 * 1024


class RequestTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = gettext_lazy("The request body is too large.")
    default_code = "request_too_large"


def _declared_length(meta):
    try:
        return int(meta.get("CONTENT_LENGTH") or 0)
    except (TypeError, ValueError):
        return 0


def too_large_message():
    return _("The request body is too large: at most %(max)d bytes.") % {
        "max": settings.API_MAX_BODY_BYTES
    }


class RequestBodyLimitMiddleware:
    """Answer 413 in the API's error shape to any /api/ request declaring an oversized body."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path_info.startswith(API_PREFIX):
            length = _declared_length(request.META)
            if length > settings.API_MAX_BODY_BYTES:
                self._drain(request.META.get("wsgi.input"), min(length, DRAIN_LIMIT))
                return JsonResponse(
                    {"detail": too_large_message(), "errors": {}},
                    # No "Connection: close": WSGI forbids an application to set hop-by-hop
                    # headers (runserver answered 500); the drain above is what keeps the
                    # connection usable, and the server decides whether to close it.
                    status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
                )
        return self.get_response(request)

    @staticmethod
    def _drain(stream, remaining):
        if stream is None:
            return
        while remaining > 0:
            chunk = stream.read(min(_CHUNK, remaining))
            if not chunk:
                return
            remaining -= len(chunk)


def _depth(value):
    """Nesting depth of parsed JSON, computed without recursion."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, depth)
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return deepest


def _brackets(text):
    """The opening brackets in a JSON text: no parse of it is nested deeper."""
    return text.count("{") + text.count("[")


def _has_lone_surrogate(value):
    """Whether any key or string in parsed JSON holds a lone surrogate (from a \\u escape)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if not item.isascii():
                try:
                    item.encode("utf-8")
                except UnicodeEncodeError:
                    return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


class BoundedJSONParser(BaseParser):
    """JSON only, at most API_MAX_BODY_BYTES and MAX_JSON_DEPTH levels; NaN/Infinity refused.

    Read from the request's stream, never ``request.body`` (see the module docstring)."""

    media_type = "application/json"
    renderer_class = JSONRenderer

    def parse(self, stream, media_type=None, parser_context=None):
        limit = settings.API_MAX_BODY_BYTES
        raw = stream.read(limit + 1) if stream is not None else b""
        if len(raw) > limit:
            raise RequestTooLarge(too_large_message())
        encoding = (parser_context or {}).get("encoding") or settings.DEFAULT_CHARSET
        try:
            codecs.lookup(encoding)
            text = raw.decode(encoding)
            data = json.loads(text, parse_constant=_refuse_constant)
        except (LookupError, UnicodeDecodeError) as exc:
            raise exceptions.ParseError(
                _("The body is not valid text: %(e)s") % {"e": exc}
            ) from None
        except RecursionError:
            raise exceptions.ParseError(self._too_deep()) from None
        except ValueError as exc:
            raise exceptions.ParseError(_("JSON parse error: %(e)s") % {"e": exc}) from None
        # Each walk of the parsed body only where its text allows what it looks for: no
        # deeper than the brackets it holds (those in strings counted too, so never less), and a
        # lone surrogate only from a \u escape (the decoders refuse encoded ones). A submission
        # has neither, and the walks were a tenth of its parsing.
        if _brackets(text) > MAX_JSON_DEPTH and _depth(data) > MAX_JSON_DEPTH:
            raise exceptions.ParseError(self._too_deep())
        if "\\u" in text and _has_lone_surrogate(data):
            # "\ud800" escapes decode to text no UTF-8 response (echoing the bad key) can carry.
            raise exceptions.ParseError(
                _("The JSON body contains an unpaired \\u surrogate escape.")
            )
        return data

    @staticmethod
    def _too_deep():
        return _("The JSON body is nested more than %(max)d levels deep.") % {"max": MAX_JSON_DEPTH}


def _refuse_constant(name):
    raise ValueError(f"{name} is not valid JSON")


def json_body(request):
    """A plain Django view's JSON body, read as a DRF view reads it with ``BoundedJSONParser``.

    No body is ``{}``; a body that is not ``application/json`` is a 415; the parser's limits
    and errors (413, 400) hold. Raises DRF's exceptions, for ``errors.error_response``.
    """
    content_type = request.META.get("CONTENT_TYPE", "")
    if not _declared_length(request.META) or not content_type:
        return {}
    if not media_type_matches(BoundedJSONParser.media_type, content_type):
        raise exceptions.UnsupportedMediaType(content_type)
    encoding = request.encoding or settings.DEFAULT_CHARSET
    return BoundedJSONParser().parse(request, content_type, {"encoding": encoding})
