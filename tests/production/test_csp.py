"""The Content-Security-Policy: strict on every page type, and nothing inline in the pages."""

import re

import pytest
from django.urls import reverse

from surveys.models import Survey

# Sources a page may load from: its own origin and data: images (inline SVG icons). Anything
# else (a host, 'unsafe-inline', 'unsafe-eval', a nonce, blob:, *) would widen the policy.
ALLOWED_SOURCES = {"'self'", "'none'", "data:"}

INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)(?![^>]*type=\"application/json\")[^>]*>")
STYLE_BLOCK = re.compile(r"<style[\s>]", re.IGNORECASE)
STYLE_ATTRIBUTE = re.compile(r"<[^>]+\sstyle=", re.IGNORECASE)
EVENT_HANDLER = re.compile(r"<[^>]+\son[a-z]+=", re.IGNORECASE)
JAVASCRIPT_URL = re.compile(r"""(href|src|action)=["']?\s*javascript:""", re.IGNORECASE)


def policy(response):
    header = response.headers.get("Content-Security-Policy")
    assert header, f"no Content-Security-Policy on {response.request['PATH_INFO']}"
    directives = {}
    for part in header.split(";"):
        name, *sources = part.split()
        directives[name] = set(sources)
    return directives


def assert_strict(path, directives):
    assert directives["default-src"] == {"'none'"}, path
    assert directives["base-uri"] == {"'none'"}, path
    assert directives["frame-ancestors"] == {"'none'"}, path
    assert directives["form-action"] == {"'self'"}, path
    for name, sources in directives.items():
        unexpected = sources - ALLOWED_SOURCES
        assert not unexpected, f"{path}: {name} allows {sorted(unexpected)}"


def assert_nothing_inline(path, html):
    assert not INLINE_SCRIPT.search(html), f"{path}: inline <script>"
    assert not STYLE_BLOCK.search(html), f"{path}: <style> block"
    assert not STYLE_ATTRIBUTE.search(html), f"{path}: style= attribute"
    assert not EVENT_HANDLER.search(html), f"{path}: inline event handler"
    assert not JAVASCRIPT_URL.search(html), f"{path}: javascript: URL"


@pytest.fixture
def page_paths(make_survey, submit):
    draft = make_survey(title="Draft", status=Survey.Status.DRAFT)
    survey = make_survey()
    for bits in ([True, False], [False, False], [True, True]):
        assert submit(survey, bits).status_code == 201
    closed = make_survey(title="Closed", status=Survey.Status.CLOSED)
    question = draft.questions.first()
    researcher = [
        reverse("surveys:dashboard"),
        reverse("surveys:survey-new"),
        reverse("surveys:builder", args=[draft.pk]),
        reverse("surveys:question-edit", args=[draft.pk, question.pk]),
        reverse("surveys:preview", args=[draft.pk]),
        reverse("surveys:share", args=[survey.pk]),
        reverse("surveys:results", args=[survey.pk]),
        reverse("surveys:delete", args=[survey.pk]),
        reverse("surveys:qr", args=[survey.pk]),
        reverse("surveys:estimates-csv", args=[survey.pk]),
        reverse("surveys:responses-csv", args=[survey.pk]),
        reverse("api-docs"),
        reverse("api-docs") + "?script=",
    ]
    public = [
        reverse("surveys:home"),
        reverse("login"),
        reverse("signup"),
        reverse("surveys:respond", args=[survey.slug]),
        reverse("surveys:respond", args=[closed.slug]),
        reverse("surveys:respond", args=[draft.slug]),
        reverse("surveys:respond", args=["no-such-survey"]),
        f"/api/v1/public/surveys/{survey.slug}/",
        "/api/v1/public/surveys/no-such-survey/",
        "/no/such/page/",
    ]
    return {"researcher": researcher, "public": public}


@pytest.mark.django_db
def test_every_page_type_carries_the_strict_policy(client, owner, page_paths):
    seen = []
    for path in page_paths["public"]:
        seen.append((path, client.get(path)))
    client.force_login(owner)
    for path in page_paths["researcher"]:
        seen.append((path, client.get(path)))
    for path, response in seen:
        assert response.status_code in (200, 404), (path, response.status_code)
        assert_strict(path.split("?")[0], policy(response))


@pytest.mark.django_db
def test_html_pages_have_no_inline_script_style_or_handlers(client, owner, page_paths):
    checked = 0
    client.force_login(owner)
    for path in page_paths["public"] + page_paths["researcher"]:
        response = client.get(path)
        if not response["Content-Type"].startswith("text/html"):
            continue
        assert_nothing_inline(path, response.content.decode())
        checked += 1
    assert checked >= 15


def test_the_inline_detectors_catch_what_they_should():
    assert INLINE_SCRIPT.search("<script>alert(1)</script>")
    assert not INLINE_SCRIPT.search('<script type="module" src="/static/js/a.js"></script>')
    assert not INLINE_SCRIPT.search('<script id="d" type="application/json">{}</script>')
    assert STYLE_ATTRIBUTE.search('<div class="x" style="color: red">')
    assert EVENT_HANDLER.search('<button onclick="go()">')
    assert STYLE_BLOCK.search("<style>p{}</style>")
    assert JAVASCRIPT_URL.search('<a href="javascript:void(0)">')
