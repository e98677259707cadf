"""Response headers the whole site shares, the mark that keeps respondents' requests out of
the logs, and the compression of pages that carry no secret."""

import http

from csp.constants import HEADER, HEADER_REPORT_ONLY
from csp.middleware import CheckableLazyObject, CSPMiddleware
from csp.utils import build_policy
from django.conf import settings
from django.conf.urls.i18n import is_language_prefix_patterns_used
from django.contrib.messages.middleware import MessageMiddleware
from django.contrib.messages.storage import default_storage
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.middleware.gzip import GZipMiddleware
from django.middleware.locale import LocaleMiddleware
from django.utils import translation
from django.utils.cache import patch_vary_headers
from django.utils.functional import SimpleLazyObject, empty

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


# The attributes django-csp's decorators (csp_update, csp_replace, csp) set on a response to
# change its policy; a response with none of them gets the site's policy.
_POLICY_CHANGES = (
    "_csp_config",
    "_csp_update",
    "_csp_replace",
    "_csp_config_ro",
    "_csp_update_ro",
    "_csp_replace_ro",
)
# (header, the response attribute that exempts a response from it, the setting it comes from)
_POLICY_HEADERS = (
    (HEADER, "_csp_exempt", "CONTENT_SECURITY_POLICY"),
    (HEADER_REPORT_ONLY, "_csp_exempt_ro", "CONTENT_SECURITY_POLICY_REPORT_ONLY"),
)
_site_policies = None


class SitePolicyCSPMiddleware(CSPMiddleware):
    """django-csp's middleware, the site's policy built once rather than for every response.

    django-csp builds the header from ``CONTENT_SECURITY_POLICY`` on every response (two
    dataclass copies and two policy builds): the largest part of the middleware's CPU per
    submission (docs/benchmarks.md, "Where the worker's CPU goes"). A response whose view
    changed no policy (no ``csp_update``/``csp_replace``/``csp`` decorator) to a request that
    asked for no nonce gets the same header every time, so it is built once per settings
    (again when a test changes them) and set by the same rules as django-csp's: not over a
    header the view set, not on an exempt response or an excluded prefix, not on DEBUG's
    404/500 pages. Every other response goes through django-csp's own code.
    """

    def process_response(self, request, response):
        if getattr(request, "_csp_nonce", None) is not None or any(
            getattr(response, name, None) is not None for name in _POLICY_CHANGES
        ):
            return super().process_response(request, response)
        if settings.DEBUG and response.status_code in (
            http.HTTPStatus.INTERNAL_SERVER_ERROR,
            http.HTTPStatus.NOT_FOUND,
        ):
            return response
        for (header, exempt, _setting), (policy, excluded) in zip(
            _POLICY_HEADERS, _policies(), strict=True
        ):
            if (
                policy
                and header not in response
                and getattr(response, exempt, False) is False
                and not request.path_info.startswith(excluded)
            ):
                response[header] = policy
        # As django-csp does: a nonce asked for once the header is written raises.
        request.csp_nonce = CheckableLazyObject(self._csp_nonce_post_response)
        return response


def _policies():
    """``(policy, excluded prefixes)`` for the header and the report-only header, from the
    settings; built on first use."""
    global _site_policies
    if _site_policies is None:
        _site_policies = tuple(
            (
                build_policy(report_only=header == HEADER_REPORT_ONLY),
                tuple((getattr(settings, setting, None) or {}).get("EXCLUDE_URL_PREFIXES") or ()),
            )
            for header, _exempt, setting in _POLICY_HEADERS
        )
    return _site_policies


@receiver(setting_changed)
def _policies_forgotten(*, setting, **kwargs):
    global _site_policies
    if setting in {name for _header, _exempt, name in _POLICY_HEADERS}:
        _site_policies = None


class UnprefixedLocaleMiddleware(LocaleMiddleware):
    """Django's LocaleMiddleware, without reading a language from the path when no URL is
    language-prefixed (``i18n_patterns``: this project has none).

    Django's reads the path's first segment as a language code twice per request (``/api/``
    on every submission: a miss, which its cache does not keep) and uses the result only with
    ``i18n_patterns``. Without them the same language is activated, and the response gets the
    same ``Vary: Accept-Language`` and ``Content-Language``; with them Django's own code runs.
    """

    def process_request(self, request):
        if _language_prefixed(request):
            return super().process_request(request)
        translation.activate(translation.get_language_from_request(request, check_path=False))
        request.LANGUAGE_CODE = translation.get_language()
        return None

    def process_response(self, request, response):
        if _language_prefixed(request):
            return super().process_response(request, response)
        patch_vary_headers(response, ("Accept-Language",))
        response.headers.setdefault("Content-Language", translation.get_language())
        return response


def _language_prefixed(request):
    i18n_patterns_used, _prefixed_default = is_language_prefix_patterns_used(
        getattr(request, "urlconf", settings.ROOT_URLCONF)
    )
    return i18n_patterns_used


class LazyMessageMiddleware(MessageMiddleware):
    """Django's MessageMiddleware, its storage made when the request first reads or adds a
    message instead of for every request.

    Django's makes the message storage (a cookie storage with its signer and a session
    storage) for each request and asks it at the end to save what changed: for a request that
    neither read nor added a message (every API call, every submission), nothing. Here the
    storage is made when first used; one never made has nothing to save.
    """

    def process_request(self, request):
        request._messages = SimpleLazyObject(lambda: default_storage(request))

    def process_response(self, request, response):
        messages = getattr(request, "_messages", None)
        if type(messages) is SimpleLazyObject and messages._wrapped is empty:
            return response
        return super().process_response(request, response)
