"""Pages are sent gzip-compressed only when they carry no secret (surveys/middleware.py,
``SecretFreePageGZipMiddleware``): BREACH needs a secret and attacker-chosen text in one
compressed response, so a page with a CSRF token or anything bound to a person is sent as is."""

import gzip
import json
import re
import uuid

import pytest
from csp.constants import NONCE, SELF
from csp.exceptions import CSPNonceError
from csp.middleware import CSPMiddleware
from django.http import HttpResponse
from django.test import Client, override_settings

from surveys.middleware import SitePolicyCSPMiddleware, UnprefixedLocaleMiddleware
from surveys.models import Survey

pytestmark = pytest.mark.django_db

GZIP = {"HTTP_ACCEPT_ENCODING": "gzip, deflate, br"}


def compressed(response):
    return response.get("Content-Encoding") == "gzip"


def html(response):
    return gzip.decompress(response.content).decode() if compressed(response) else response.text


def test_the_respondent_page_is_compressed_and_reads_the_same(respondent, open_survey):
    plain = respondent.get(f"/s/{open_survey.slug}/")
    response = respondent.get(f"/s/{open_survey.slug}/", **GZIP)
    assert response.status_code == 200
    assert compressed(response) and not compressed(plain)
    assert "Accept-Encoding" in response["Vary"]
    assert len(response.content) < len(plain.content) / 2
    # The page reads the same once inflated (apart from the CSP nonce, new on each response).
    assert 'id="respond-definition"' in html(response)
    assert html(response).count(open_survey.title) == plain.text.count(open_survey.title)
    assert "csrfmiddlewaretoken" not in html(response)
    assert response.cookies == {}


def test_the_public_results_page_and_the_api_docs_are_compressed(respondent, open_survey):
    Survey.objects.filter(pk=open_survey.pk).update(public_results=True)
    response = respondent.get(f"/r/{open_survey.slug}/", **GZIP)
    assert response.status_code == 200
    assert compressed(response)
    assert open_survey.title in html(response)
    docs = respondent.get("/api/docs/", **GZIP)
    assert docs.status_code == 200 and compressed(docs)


def test_the_scripts_catalog_is_compressed_and_reads_the_same(respondent):
    plain = respondent.get("/jsi18n/?lang=ko")
    response = respondent.get("/jsi18n/?lang=ko", **GZIP)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/javascript")
    assert compressed(response) and not compressed(plain)
    assert gzip.decompress(response.content) == plain.content
    assert len(response.content) < len(plain.content) / 2


def test_a_page_with_a_csrf_token_is_not_compressed_even_when_it_reflects_the_address():
    # The sign-in form: a CSRF token, and `next` from the address written into the page, the
    # two things BREACH needs.
    response = Client().get("/accounts/login/?next=/surveys/guess-csrf-0123/", **GZIP)
    assert response.status_code == 200
    assert "csrfmiddlewaretoken" in response.text
    assert "guess-csrf-0123" in response.text
    assert not compressed(response)


def test_the_home_page_is_not_compressed_its_language_form_carries_a_csrf_token():
    response = Client().get("/", **GZIP)
    assert response.status_code == 200
    assert "csrfmiddlewaretoken" in response.text
    assert not compressed(response)


def test_a_signed_in_researchers_pages_are_never_compressed(owner_client, open_survey):
    for path in ("/surveys/", f"/surveys/{open_survey.pk}/results/", f"/s/{open_survey.slug}/"):
        response = owner_client.get(path, **GZIP)
        assert response.status_code == 200, path
        assert not compressed(response), path


def test_json_and_pages_without_gzip_in_accept_encoding_are_sent_as_is(respondent, open_survey):
    api = respondent.get(f"/api/v1/public/surveys/{open_survey.slug}/", **GZIP)
    assert api.status_code == 200 and not compressed(api)
    page = respondent.get(f"/s/{open_survey.slug}/", HTTP_ACCEPT_ENCODING="identity")
    assert page.status_code == 200 and not compressed(page)


# The project's middleware with Django's LocaleMiddleware and django-csp's CSPMiddleware in
# place of the subclasses that skip their per-response work (surveys/middleware.py).
STOCK = {
    "surveys.middleware.UnprefixedLocaleMiddleware": "django.middleware.locale.LocaleMiddleware",
    "surveys.middleware.SitePolicyCSPMiddleware": "csp.middleware.CSPMiddleware",
}


def stock_middleware():
    from django.conf import settings

    assert set(STOCK) <= set(settings.MIDDLEWARE)
    return [STOCK.get(name, name) for name in settings.MIDDLEWARE]


def submission_requests(survey):
    """``(method, path, body, headers)`` of a submission that stores and of each refusal."""
    path = f"/api/v1/public/surveys/{survey.slug}/responses/"
    answers = {str(qid): True for qid in survey.questions.values_list("id", flat=True)}

    def body(**fields):
        return json.dumps({"submission_id": str(uuid.uuid4()), "answers": answers, **fields})

    return {
        "stored": ("post", path, body(), {}),
        "field refused": ("post", path, body(answers={"x": True}), {}),
        "unknown field": ("post", path, body(colour="red"), {}),
        "no such survey": ("post", "/api/v1/public/surveys/nobody/responses/", body(), {}),
        "not a POST": ("get", path, None, {}),
        "not JSON": ("post", path, "answers", {"content_type": "text/plain"}),
        "too large": ("post", path, body(padding=" " * (1024 * 1024)), {}),
        "Korean": ("post", path, body(), {"HTTP_ACCEPT_LANGUAGE": "ko"}),
    }


def answered(method, path, body, headers):
    client = Client()
    if method == "get":
        return client.get(path, **headers)
    extra = dict(headers)
    content_type = extra.pop("content_type", "application/json")
    return client.post(path, body, content_type=content_type, **extra)


@pytest.mark.parametrize("debug", [False, True])
def test_the_submission_endpoint_answers_the_headers_of_the_stock_middleware(
    open_survey, settings, debug
):
    settings.DEBUG = debug
    for case, request in submission_requests(open_survey).items():
        ours = answered(*request)
        with override_settings(MIDDLEWARE=stock_middleware()):
            stock = answered(*request)
        assert ours.status_code == stock.status_code, case
        assert dict(ours.headers) == dict(stock.headers), case
        assert ours.content == stock.content or case == "stored", case
        if case == "stored":
            assert ours.status_code == 201
            assert set(ours.headers) >= {
                "Content-Security-Policy",
                "X-Frame-Options",
                "X-Content-Type-Options",
                "Referrer-Policy",
                "Cross-Origin-Opener-Policy",
                "Vary",
                "Content-Language",
            }


def test_pages_answer_the_headers_of_the_stock_middleware_but_their_nonce(respondent, open_survey):
    # The respondent page asks for a nonce (a new one on each response): django-csp's own code
    # writes that policy.
    for path in (f"/s/{open_survey.slug}/", "/jsi18n/?lang=ko", "/accounts/login/", "/nowhere/"):
        ours = Client().get(path, HTTP_ACCEPT_LANGUAGE="zh-hans")
        with override_settings(MIDDLEWARE=stock_middleware()):
            stock = Client().get(path, HTTP_ACCEPT_LANGUAGE="zh-hans")
        assert ours.status_code == stock.status_code, path
        assert without_nonce(ours.headers) == without_nonce(stock.headers), path


def without_nonce(headers):
    return {
        name: NONCE_SOURCE.sub("'nonce-…'", value) if name == "Content-Security-Policy" else value
        for name, value in headers.items()
        if name not in {"Set-Cookie", "Expires"}  # Expires: the second the page was sent
    }


NONCE_SOURCE = re.compile(r"'nonce-[^']+'")


@pytest.mark.parametrize(
    "decorate",
    [
        lambda response: response,
        lambda response: setattr(response, "_csp_update", {"img-src": ["https://x.test"]}),
        lambda response: setattr(response, "_csp_replace", {"script-src": None}),
        lambda response: setattr(response, "_csp_config", {"default-src": ["'self'"]}),
        lambda response: setattr(response, "_csp_exempt", True),
        lambda response: response.__setitem__("Content-Security-Policy", "default-src 'self'"),
    ],
    ids=["site policy", "updated", "replaced", "own config", "exempt", "set by the view"],
)
def test_the_policy_is_the_one_django_csp_writes(rf, decorate):
    def response_for():
        response = HttpResponse("page")
        decorate(response)
        return response

    request, again = rf.get("/s/x/"), rf.get("/s/x/")
    ours = SitePolicyCSPMiddleware(lambda _request: response_for())(request)
    stock = CSPMiddleware(lambda _request: response_for())(again)
    assert ours.get("Content-Security-Policy") == stock.get("Content-Security-Policy")
    # A nonce asked for once the header is written raises, as django-csp's does.
    with pytest.raises(CSPNonceError):
        str(request.csp_nonce)


def test_a_nonce_asked_for_is_in_the_policy(rf):
    def page(request):
        return HttpResponse(f"<script nonce='{request.csp_nonce}'></script>")

    request = rf.get("/s/x/")
    with override_settings(CONTENT_SECURITY_POLICY={"DIRECTIVES": {"script-src": [SELF, NONCE]}}):
        response = SitePolicyCSPMiddleware(page)(request)
    assert f"script-src 'self' 'nonce-{request._csp_nonce}'" in response["Content-Security-Policy"]


def test_the_policy_follows_the_settings(rf):
    before = SitePolicyCSPMiddleware(lambda _request: HttpResponse())(rf.get("/"))
    changed = {"DIRECTIVES": {"default-src": ["'self'"]}, "EXCLUDE_URL_PREFIXES": ["/free/"]}
    with override_settings(CONTENT_SECURITY_POLICY=changed):
        middleware = SitePolicyCSPMiddleware(lambda _request: HttpResponse())
        assert middleware(rf.get("/"))["Content-Security-Policy"] == "default-src 'self'"
        assert "Content-Security-Policy" not in middleware(rf.get("/free/page"))
    after = SitePolicyCSPMiddleware(lambda _request: HttpResponse())(rf.get("/"))
    assert after["Content-Security-Policy"] == before["Content-Security-Policy"]
    assert "default-src 'none'" in after["Content-Security-Policy"]


def test_with_language_prefixed_urls_django_reads_the_language_from_the_path(rf):
    # No URL of the project has a language prefix; one that does gets Django's own behaviour.
    with override_settings(ROOT_URLCONF="tests.surveys.prefixed_urls"):
        request = rf.get("/ko/page/")
        response = UnprefixedLocaleMiddleware(lambda _request: HttpResponse())(request)
    assert request.LANGUAGE_CODE == "ko"
    assert response["Content-Language"] == "ko"


def test_messages_are_stored_and_read_as_django_stores_them(rf):
    from django.contrib import messages
    from django.contrib.messages.middleware import MessageMiddleware
    from django.contrib.sessions.middleware import SessionMiddleware

    from surveys.middleware import LazyMessageMiddleware

    def adding(request):
        messages.success(request, "Saved.")
        return HttpResponse()

    def reading(request):
        return HttpResponse(" ".join(str(m) for m in messages.get_messages(request)))

    def served(middleware, view, cookies=None):
        request = rf.get("/")
        request.COOKIES.update(cookies or {})
        return SessionMiddleware(middleware(view))(request)

    for middleware in (MessageMiddleware, LazyMessageMiddleware):
        added = served(middleware, adding)
        assert "messages" in added.cookies, middleware
        cookies = {"messages": added.cookies["messages"].value}
        read = served(middleware, reading, cookies)
        assert read.content == b"Saved.", middleware
        # Read, the message is gone: the cookie is deleted.
        assert read.cookies["messages"].value == "", middleware
        untouched = served(middleware, lambda request: HttpResponse(), cookies)
        assert "messages" not in untouched.cookies, middleware
