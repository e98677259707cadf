"""The main pages in a real Chromium under the real policy: zero CSP violations."""

import re

import pytest
from django.urls import reverse
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

pytestmark = pytest.mark.e2e

# Collects violations before any page script runs, in every document the page loads.
RECORD_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  const where = `${event.sourceFile}:${event.lineNumber}`;
  window.__cspViolations.push(
    `${event.violatedDirective} blocked ${event.blockedURI || "inline"} (${where})`
  );
});
"""
CSP_CONSOLE = re.compile(r"Content[- ]Security[- ]Policy|Refused to", re.IGNORECASE)


@pytest.fixture
def watched_page(page):
    """``page`` with its CSP violations and CSP console errors collected in ``page.csp``."""
    page.csp = []
    page.add_init_script(RECORD_VIOLATIONS)
    page.on(
        "console",
        lambda message: (
            page.csp.append(f"console: {message.text}")
            if CSP_CONSOLE.search(message.text)
            else None
        ),
    )
    page.on("pageerror", lambda error: page.csp.append(f"page error: {error}"))
    return page


def visit(page, url, *, ready):
    """Load ``url`` until ``ready`` shows; return the violations (and a note if it never did)."""
    response = page.goto(url)
    assert response.status == 200, url
    problems = []
    try:
        page.locator(ready).first.wait_for(timeout=15000)
    except PlaywrightTimeoutError:
        # Typically a blocked script: report it with the violations rather than a bare timeout.
        problems.append(f"{ready!r} never appeared")
    # A round trip through the page's event loop, so late violations are reported too.
    page.evaluate("() => new Promise((resolve) => requestAnimationFrame(() => resolve()))")
    return problems + page.evaluate("() => window.__cspViolations") + page.csp


def test_main_pages_raise_no_csp_violation(
    live_server, watched_page, sign_in, owner, make_survey, submit
):
    page = watched_page
    survey = make_survey()
    for bits in ([True, False], [False, True], [True, True]):
        assert submit(survey, bits).status_code == 201
    draft = make_survey(title="Draft", status="draft")
    base = live_server.url
    violations = {}

    # The respondent page, including the coins and the submission.
    violations["respond"] = visit(page, f"{base}/s/{survey.slug}/", ready="form, fieldset")
    for fieldset in page.locator("fieldset").all():
        fieldset.get_by_label("No", exact=True).check()
    with page.expect_response(lambda r: r.request.method == "POST") as reply:
        page.get_by_role("button", name="Randomize and send my answers").click()
    assert reply.value.status == 201
    violations["respond"] += page.evaluate("() => window.__cspViolations") + page.csp

    page.csp.clear()
    violations["login"] = visit(page, f"{base}{reverse('login')}", ready="form")
    sign_in(page, live_server, owner)
    pages = {
        "dashboard": (reverse("surveys:dashboard"), "main h1"),
        "builder": (reverse("surveys:builder", args=[draft.pk]), "main form"),
        "preview": (reverse("surveys:preview", args=[draft.pk]), "main h1"),
        "share": (reverse("surveys:share", args=[survey.pk]), "main img, main svg"),
        "results": (reverse("surveys:results", args=[survey.pk]), "main svg"),
        "api docs": (reverse("api-docs"), ".swagger-ui .opblock"),
    }
    for name, (path, ready) in pages.items():
        page.csp.clear()
        violations[name] = visit(page, f"{base}{path}", ready=ready)

    assert {name: found for name, found in violations.items() if found} == {}
