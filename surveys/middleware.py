"""Response headers the whole site shares, the mark that keeps respondents' requests out of
the logs, and the compression of pages that carry no secret."""

from django.conf import settings
from django.middleware.gzip import GZipMiddleware

from .log_filters import respondent_request_ended, respondent_request_started

# Pages that carry a sign-in form or a CSRF token, whoever asks.
PRIVATE_PREFIXES = ("/accounts/", "/admin/")


class PrivateCacheMiddleware:
    """``Cache-Control: private, no-store`` on every response to a signed-in researcher.

    Owner pages, researcher API responses and exports hold survey data that respondents were
    promised is protected: no shared proxy may keep them, and no browser cache may either (a
    shared computer's next user, the back button after signing out). Runs outermost, after
    the session middleware has answered, so reading the user adds no ``Vary: Cookie``.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if request.path_info.startswith(PRIVATE_PREFIXES) or _signed_in(request):
            current = response.get("Cache-Control", "")
            if not ("private" in current and "no-store" in current):
                response["Cache-Control"] = "private, no-store"
        return response


class RespondentRequestMiddleware:
    """While a respondent's request (their page, a public API call, a static file, the
    JavaScript catalog) is handled, no log line below ERROR is written, whatever its logger:
    ``surveys.log_filters.DropRespondentPaths`` reads the mark. Runs outermost, so the other
    middleware (WhiteNoise serving a file included) run inside it."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        token = respondent_request_started(request.path)
        try:
            return self.get_response(request)
        finally:
            respondent_request_ended(token)


class SecretFreePageGZipMiddleware(GZipMiddleware):
    """Gzip an HTML page or the scripts' catalog only when it carries no secret
    (``carries_no_secret``).

    Why not every page: BREACH (Gluck, Harris & Prado 2013). When a compressed response holds
    both a secret and text an attacker can choose (a query parameter, a survey title they
    wrote), the response's length reveals how well a guess of the secret compresses against
    it, and many requests recover the secret byte by byte. A page with no secret in it has
    nothing to recover, so compressing it is safe: the respondent page, the public results,
    the API docs and the scripts' translation catalog (``/jsi18n/``, the largest text a
    respondent loads: 26 kB in Korean), each the same for every visitor. Static files are
    whitenoise's (compressed at collectstatic) and stay out of this. Django's GZipMiddleware
    does the compressing, with its random filename padding ("Heal the BREACH") on top.
    """

    def process_response(self, request, response):
        if not carries_no_secret(request, response):
            return response
        return super().process_response(request, response)


# JSON stays out: API answers are bound to who asks for them.
_COMPRESSED_TYPES = ("text/html", "text/javascript")


def carries_no_secret(request, response) -> bool:
    """Whether ``response`` is a page or script in which no secret can be: none was rendered into
    it (no CSRF token: the CSRF middleware marks every request whose token was asked for),
    none was set with it (no cookie), and none could be read for it (the request sent no
    session cookie and no ``Authorization``, so nothing bound to a person was in reach)."""
    return (
        response.get("Content-Type", "").startswith(_COMPRESSED_TYPES)
        and not response.streaming
        and not response.cookies
        and not request.META.get("CSRF_COOKIE_NEEDS_UPDATE")
        and settings.SESSION_COOKIE_NAME not in request.COOKIES
        and "HTTP_AUTHORIZATION" not in request.META
    )


def _signed_in(request):
    # A respondent sends neither a session cookie nor a token: no session is read for them.
    if (
        settings.SESSION_COOKIE_NAME not in request.COOKIES
        and "HTTP_AUTHORIZATION" not in request.META
    ):
        return False
    user = getattr(request, "user", None)  # DRF sets it here too for token authentication
    return bool(user is not None and user.is_authenticated)
