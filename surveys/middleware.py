"""Response headers the whole site shares, and the mark that keeps respondents' requests out
of the logs."""

from django.conf import settings

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


def _signed_in(request):
    # A respondent sends neither a session cookie nor a token: no session is read for them.
    if (
        settings.SESSION_COOKIE_NAME not in request.COOKIES
        and "HTTP_AUTHORIZATION" not in request.META
    ):
        return False
    user = getattr(request, "user", None)  # DRF sets it here too for token authentication
    return bool(user is not None and user.is_authenticated)
