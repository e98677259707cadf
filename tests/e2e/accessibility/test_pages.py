"""WCAG 2.2 AA in a real Chromium: axe-core on every page type, language and width.

The pages, languages, widths and checks are in this folder's __init__.py."""

import pytest

from tests.e2e.accessibility import LANGUAGES, PAGES, WIDTHS, check_page, open_page, page_path

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("width", WIDTHS.values(), ids=WIDTHS.keys())
@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("name", PAGES)
def test_axe_finds_no_wcag_violation(
    live_server, new_context, sign_in, owner, surveys, name, language, width
):
    path = page_path(name, surveys)
    locale = LANGUAGES[language][0]
    page = open_page(
        new_context, sign_in, live_server, owner, path=path, locale=locale, width=width
    )
    check_page(page, name=name, language=language, width=width)
