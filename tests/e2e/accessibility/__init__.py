"""WCAG 2.2 AA in a real Chromium (the tests of this folder): axe-core on every page type,
language and width (``test_pages.py``), the analysis pages and reflow at 200% zoom
(``test_zoom.py``), the co-researcher, pilot, consent and schedule pages (``test_members.py``),
keyboard only, focus always visible, targets, motion and colour (``test_keyboard.py``).

What they share, and the other page tests that run axe-core import: the pages, languages and
widths checked, axe-core's run, the reflow checks and the focus ring a Tab stop must show; the
surveys the pages are checked on (the ``surveys`` fixture, which this folder's conftest.py
hands to its tests).

axe-core is vendored (static/vendor/axe/) and injected by Playwright. The contexts that run it
bypass the Content-Security-Policy, because Playwright injects the file as an inline script;
the policy itself is tested in tests/production/.
"""

import datetime

import numpy as np
import pytest
from django.conf import settings
from django.utils import timezone

from surveys import services
from surveys.models import Survey
from surveys.services import grouping, public_release, translations
from tests.helpers import translation_texts

AXE = settings.BASE_DIR / "static" / "vendor" / "axe" / "axe.min.js"
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
AXE_RUN = """
(tags) => axe.run(document, {
  runOnly: {type: "tag", values: tags},
  rules: {"target-size": {enabled: true}},
  resultTypes: ["violations"],
}).then((result) => result.violations.map((violation) => ({
  id: violation.id,
  help: violation.help,
  nodes: violation.nodes.map((node) => node.target.join(" ") + " — " + node.failureSummary),
})))
"""
# The browser's language (Accept-Language), the <html lang> it must get, and a string that
# shows the page really is in that language.
LANGUAGES = {
    "en": ("en-US", "en", "rrsurvey — randomized-response surveys"),
    "ko": ("ko-KR", "ko", "rrsurvey — 로컬 차분 프라이버시"),
    "zh-hans": ("zh-CN", "zh-Hans", "rrsurvey —— 具有本地差分隐私"),
}
WIDTHS = {"desktop": 1280, "phone": 390}
PAGES = ("respondent", "sign-in", "dashboard", "builder", "translations", "results")
# The analysis pages (by group, regression, planner, public results): same rules, one width.
ANALYSIS_PAGES = ("breakdown", "regression", "planner", "public-settings", "public-results")
DEPARTMENTS = ("Sales", "Research", "Support")


@pytest.fixture
def surveys(make_survey):
    """A draft being built (every builder control) and an open survey with results to read,
    both with a grouping question (its own block on the respondent page)."""
    draft = make_survey(title="Exam honesty", status=Survey.Status.DRAFT)
    grouping.grouping_question_add(survey=draft, text="Your year?", options=("1st", "2nd"))
    # It checks comprehension: the respondent page has a practice round before the questions,
    # and the results page the comprehension table.
    survey = make_survey(min_n=5, status=Survey.Status.DRAFT, comprehension_check=True)
    grouping.grouping_question_add(
        survey=survey, text="Which department do you work in?", options=DEPARTMENTS
    )
    # Offered in every language: its respondent page speaks the browser's.
    translations.survey_translations_save(survey=survey, texts=translation_texts(survey))
    # The draft's Translations page: Korean half done (inputs, "missing" marks), no Chinese.
    translations.survey_translations_save(
        survey=draft,
        texts={"ko-title": "시험 정직성", "ko-g" + str(draft.grouping_questions.get().pk): "학년"},
    )
    survey = services.survey_open(survey=survey)
    # 40 simulated respondents in two departments; every report of the second question is
    # "no", so its unbiased estimate falls below 0% and the page shows the clamped value with
    # its footnote, and a department nobody chose shows how withheld cells read.
    reports = np.zeros((40, 2), dtype=bool)
    reports[::2, 0] = True
    sales, research, _support = survey.grouping_questions.get().options.all()
    # Received, and the public page switched on, three days ago: its schedule has made three
    # releases by today, the last one with these responses.
    three_days_ago = timezone.now().date() - datetime.timedelta(days=3)
    services.simulated_submissions_record(
        survey=survey,
        reports=reports,
        options=[[sales.pk]] * 25 + [[research.pk]] * 15,
        received_on=three_days_ago,
    )
    public_release.public_results_update(
        survey=survey, enabled=True, epsilon=1.0, today=three_days_ago
    )
    survey.refresh_from_db()
    return {"draft": draft, "open": survey}


def page_path(name, surveys):
    survey = surveys["open"]
    return {
        "respondent": f"/s/{survey.slug}/",
        "sign-in": "/accounts/login/",
        "dashboard": "/surveys/",
        "builder": f"/surveys/{surveys['draft'].pk}/",
        "translations": f"/surveys/{surveys['draft'].pk}/translations/",
        "results": f"/surveys/{survey.pk}/results/",
        "breakdown": f"/surveys/{survey.pk}/breakdown/",
        "regression": f"/surveys/{survey.pk}/regression/",
        "planner": f"/surveys/{survey.pk}/planner/?goal=difference&difference=10",
        "public-settings": f"/surveys/{survey.pk}/public/",
        "public-results": f"/r/{survey.slug}/",
    }[name]


def open_page(new_context, sign_in, live_server, owner, *, path, locale, width, **options):
    context = new_context(
        locale=locale, viewport={"width": width, "height": 900}, bypass_csp=True, **options
    )
    page = context.new_page()
    if path.startswith("/surveys/"):
        sign_in(page, live_server, owner)
    response = page.goto(live_server.url + path)
    assert response.status == 200, path
    return page


def axe_violations(page):
    page.add_script_tag(path=str(AXE))
    return page.evaluate(AXE_RUN, AXE_TAGS)


NO_SIDEWAYS_SCROLL = "() => document.documentElement.scrollWidth <= window.innerWidth"
CONTROLS_OUTSIDE = """() => [...document.querySelectorAll("a, button, input, select, summary")]
  .filter((el) => el.offsetParent !== null && !el.closest(".visually-hidden, .skip-link"))
  .filter((el) => !el.closest(".table-wrap, .chart-scroll"))  /* may scroll in their own box */
  .map((el) => [el.outerHTML.slice(0, 80), el.getBoundingClientRect()])
  .filter(([, box]) => box.left < -0.5 || box.right > window.innerWidth + 0.5)
  .map(([html]) => html)"""


def check_page(page, *, name, language, width):
    """The page is in the language asked for, axe finds nothing, and it fits its width."""
    _locale, html_lang, marker = LANGUAGES[language]
    assert page.locator("html").get_attribute("lang") == html_lang
    assert marker in page.locator("footer").inner_text()
    violations = axe_violations(page)
    assert violations == [], "\n".join(
        f"{v['id']} ({v['help']}):\n  " + "\n  ".join(v["nodes"]) for v in violations
    )
    assert page.evaluate(NO_SIDEWAYS_SCROLL), f"{name} scrolls sideways at {width}px"
    assert page.evaluate(CONTROLS_OUTSIDE) == []


FOCUS_RING = """
() => {
  const element = document.activeElement;
  // a radio's ring is drawn on its whole choice (label), see respond.css
  const target = element.closest(".choice") ?? element;
  const style = getComputedStyle(target);
  return {
    tag: element.tagName.toLowerCase(),
    id: element.id,
    name: element.getAttribute("name"),
    text: (element.innerText || element.value || "").trim().slice(0, 40),
    ring: style.outlineStyle !== "none" && parseFloat(style.outlineWidth) >= 2,
  };
}
"""


def tab_to(page, predicate, *, limit=60):
    """Press Tab until ``predicate(focused)`` holds; every stop on the way shows a focus ring."""
    for _press in range(limit):
        page.keyboard.press("Tab")
        focused = page.evaluate(FOCUS_RING)
        assert focused["tag"] != "body", "Tab left the page before reaching the element"
        assert focused["ring"], f"no visible focus on {focused}"
        if predicate(focused):
            return focused
    raise AssertionError(f"Tab never reached the element within {limit} presses")


def tab_stops(page, *, limit=120):
    """Every element Tab reaches in one full round, from the top of the page to its end."""
    # Tab out of the page first (a field may have autofocus), so the round starts at the top.
    for _press in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement === document.body"):
            break
    stops = []
    for _press in range(limit):
        page.keyboard.press("Tab")
        focused = page.evaluate(FOCUS_RING)
        if focused["tag"] == "body":
            return stops
        stops.append(focused)
    raise AssertionError(f"more than {limit} tab stops, or a keyboard trap")
