"""The fixture the accessibility tests check pages on, defined beside their checks (the page
tests outside this folder that use it import it from there too)."""

from tests.e2e.accessibility import surveys  # noqa: F401 (a fixture: pytest finds it by name)
