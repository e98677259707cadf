"""WCAG 2.2 AA in a real Chromium: axe-core on the analysis pages, and every page reflowed
at 200% zoom.

The pages, languages, widths and checks are in this folder's __init__.py."""

import pytest

from tests.e2e.accessibility import (
    ANALYSIS_PAGES,
    LANGUAGES,
    PAGES,
    WIDTHS,
    check_page,
    open_page,
    page_path,
)

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("name", ANALYSIS_PAGES)
def test_axe_finds_no_wcag_violation_on_the_analysis_pages(
    live_server, new_context, sign_in, owner, surveys, name, language
):
    path = page_path(name, surveys)
    locale, width = LANGUAGES[language][0], WIDTHS["phone"]
    page = open_page(
        new_context, sign_in, live_server, owner, path=path, locale=locale, width=width
    )
    check_page(page, name=name, language=language, width=width)


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("name", PAGES + ANALYSIS_PAGES)
def test_pages_work_at_200_percent_zoom(
    live_server, new_context, sign_in, owner, surveys, name, language
):
    # 200% zoom on a 1280-pixel-wide window lays the page out in 640 CSS pixels.
    path = page_path(name, surveys)
    locale, width = LANGUAGES[language][0], 640
    page = open_page(
        new_context, sign_in, live_server, owner, path=path, locale=locale, width=width
    )
    check_page(page, name=name, language=language, width=width)
