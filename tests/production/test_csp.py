"""The Content-Security-Policy: strict on every page type, and nothing inline in the pages."""

import re

import pytest
from django.urls import URLResolver, get_resolver, reverse
from django.urls.resolvers import RoutePattern

from surveys.models import GroupingOption, GroupingQuestion, Survey
from tests.routes import finished_export

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


def route_templates(patterns=None, prefix=""):
    """Every routed path as ``(template, converters)``, e.g. ``("s/<slug>/", {"slug"})``.

    Regular-expression routes (the API's catch-all 404) and the admin are left out.
    """
    patterns = get_resolver().url_patterns if patterns is None else patterns
    for entry in patterns:
        if not isinstance(entry.pattern, RoutePattern):
            continue
        route = prefix + entry.pattern._route
        if route.startswith("admin/"):
            continue
        if isinstance(entry, URLResolver):
            yield from route_templates(entry.url_patterns, route)
        else:
            yield route, set(entry.pattern.converters)


@pytest.fixture
def page_paths(owner, make_survey, submit):
    """One path (or more) for every route, filled with the cast's surveys; researcher routes
    with the owner's, so the real pages render rather than 404s."""
    draft = make_survey(title="Draft", status=Survey.Status.DRAFT)
    grouping = GroupingQuestion.objects.create(survey=draft, position=0, text="Age band?")
    GroupingOption.objects.create(grouping_question=grouping, position=0, label="Under 30")
    answered = make_survey()
    for bits in ([True, False], [False, False], [True, True]):
        assert submit(answered, bits).status_code == 201
    closed = make_survey(title="Closed", status=Survey.Status.CLOSED)
    values = {
        "qid": [draft.questions.first().pk],
        "gid": [grouping.pk],
        "pk": [draft.pk, answered.pk],
        "survey_id": [answered.pk],
        "slug": [answered.slug, closed.slug, draft.slug, "no-such-survey"],
        "token_id": [1],
        "invitation_id": [1],  # none such: the 404 carries the policy too
        "iid": [1],
        "uid": [owner.pk],  # a member (co-researchers); the routes are POST-only
        "user_id": [owner.pk],
        # A reset link that is not valid: the page says so (a valid one is tested elsewhere).
        "uidb64": ["MQ"],
        # The answered survey's finished export, so the job's page renders (and a job of no one).
        "job_id": [finished_export(answered).pk, "00000000-0000-4000-8000-000000000000"],
        "token": ["set-password"],
    }
    paths = []
    for template, converters in route_templates():
        unknown = converters - set(values)
        assert not unknown, f"no test value for {sorted(unknown)} in {template}"
        filled = [template]
        for name in converters:
            filled = [
                re.sub(rf"<(\w+:)?{name}>", str(value), path)
                for path in filled
                for value in (
                    values[name][:1] if "qid" in converters or "gid" in converters else values[name]
                )
            ]
        paths.extend("/" + path for path in filled)
    paths += ["/no/such/page/", reverse("api-docs") + "?script="]
    return paths


@pytest.mark.django_db
@pytest.mark.slow  # every page of the site, downloads included: ~2.5 s
def test_every_route_answers_with_the_strict_policy(client, owner, page_paths):
    client.force_login(owner)
    checked = 0
    for path in page_paths:
        response = client.get(path)
        assert response.status_code < 500, path
        assert_strict(path, policy(response))
        checked += 1
    assert checked >= 40


@pytest.mark.django_db
@pytest.mark.slow  # every page twice (signed out and in): ~3.5 s
def test_no_page_has_inline_script_style_or_handlers(client, owner, page_paths):
    pages = set()
    for signed_in in (False, True):
        if signed_in:
            client.force_login(owner)
        for path in page_paths:
            response = client.get(path)
            if response.status_code == 200 and response["Content-Type"].startswith("text/html"):
                assert_nothing_inline(path, response.content.decode())
                pages.add(path)
    assert {"/accounts/login/", "/accounts/signup/", "/api/docs/", "/surveys/"} <= pages
    assert len(pages) >= 20


@pytest.mark.django_db
@pytest.mark.slow
def test_anonymous_pages_carry_the_strict_policy_too(client, page_paths):
    # Signed out, researcher routes redirect to the login page: those responses count too.
    for path in page_paths:
        response = client.get(path)
        assert response.status_code < 500, path
        assert_strict(path, policy(response))


def test_the_inline_detectors_catch_what_they_should():
    assert INLINE_SCRIPT.search("<script>alert(1)</script>")
    assert not INLINE_SCRIPT.search('<script type="module" src="/static/js/a.js"></script>')
    assert not INLINE_SCRIPT.search('<script id="d" type="application/json">{}</script>')
    assert STYLE_ATTRIBUTE.search('<div class="x" style="color: red">')
    assert EVENT_HANDLER.search('<button onclick="go()">')
    assert STYLE_BLOCK.search("<style>p{}</style>")
    assert JAVASCRIPT_URL.search('<a href="javascript:void(0)">')
