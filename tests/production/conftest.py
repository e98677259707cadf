"""Fixtures for the production checks: the shared browser fixtures and the live gunicorn."""

from tests.e2e.conftest import browser, new_context, page, sign_in  # noqa: F401
