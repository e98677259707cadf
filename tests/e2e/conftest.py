"""Shared fixtures for the browser tests: real Chromium (Debian's) driven by Playwright.

- ``browser`` (session): one Chromium for the whole run.
- ``page``: a page in a fresh browser context (no cookies, no storage), closed afterwards.
- ``new_context``: a factory for more fresh contexts in one test (e.g. several respondents);
  keyword arguments go to ``browser.new_context`` (``java_script_enabled=False``,
  ``viewport=...``). All are closed after the test.
- ``sign_in(page, live_server, user)``: signs ``user`` in for ``page``'s context by giving it
  a real session cookie (no login form involved, so tests of other pages do not depend on
  the login page; test the login form itself by filling it in).

Playwright's sync API runs an event loop in the test thread, so Django's "you cannot call
this from an async context" guard must be relaxed for the ORM calls the tests make.
"""

import os
import shutil

import pytest
from django.conf import settings
from django.test import Client
from playwright.sync_api import sync_playwright

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def browser():
    if not os.path.exists(CHROMIUM):
        # Never skip: `make test` installs chromium first (test-browser-deps); say how.
        pytest.fail(f"Chromium not found at {CHROMIUM}; run `make test-browser-deps`.")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def new_context(browser):
    contexts = []

    def make(**options):
        context = browser.new_context(**options)
        contexts.append(context)
        return context

    yield make
    for context in contexts:
        context.close()


@pytest.fixture
def page(new_context):
    return new_context().new_page()


@pytest.fixture
def sign_in():
    def sign_in(page, live_server, user):
        client = Client()
        client.force_login(user)
        cookie = client.cookies[settings.SESSION_COOKIE_NAME]
        page.context.add_cookies(
            [{"name": cookie.key, "value": cookie.value, "url": live_server.url}]
        )

    return sign_in
