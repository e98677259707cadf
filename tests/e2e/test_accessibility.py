"""WCAG 2.2 AA in a real Chromium: axe-core on every page type, language and width; keyboard
only; focus always visible; reflow at 200% zoom and on a phone; motion only when welcome.

axe-core is vendored (static/vendor/axe/) and injected by Playwright. The contexts that run it
bypass the Content-Security-Policy, because Playwright injects the file as an inline script;
the policy itself is tested in tests/production/.
"""

import datetime
import re

import numpy as np
import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.utils import timezone
from playwright.sync_api import expect

from surveys import services
from surveys.models import Submission, Survey
from surveys.services import grouping, members, public_release, translations
from tests.helpers import PASSWORD, add_member, translation_texts

pytestmark = pytest.mark.e2e

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


def test_axe_finds_no_violation_in_the_respondents_error_and_thank_you_states(
    live_server, new_context, sign_in, owner, surveys
):
    page = open_page(
        new_context,
        sign_in,
        live_server,
        owner,
        path=page_path("respondent", surveys),
        locale="ko-KR",
        width=390,
    )
    page.locator("#respond-submit").click()  # nothing answered: the error summary shows
    # The two yes/no questions; the grouping question is optional (a new one's default).
    expect(page.locator("#respond-errors li")).to_have_count(2)
    assert axe_violations(page) == []
    for fieldset in page.locator("fieldset.question").all():
        fieldset.locator("input[type=radio]").last.check()
    page.locator("#respond-submit").click()
    expect(page.locator("#respond-done")).to_be_visible()
    page.locator("#respond-done summary").click()
    assert axe_violations(page) == []


# --- keyboard ----------------------------------------------------------------------------

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


def test_a_respondent_answers_the_whole_survey_with_the_keyboard_only(
    live_server, page, make_survey
):
    survey = make_survey(
        questions=("Have you cheated?", "Have you lied?", "Have you stolen?"), language="en"
    )
    ids = list(survey.questions.values_list("id", flat=True))
    page.goto(f"{live_server.url}/s/{survey.slug}/")

    # Question 1: Tab into the group, Space picks "Yes".
    tab_to(page, lambda f: f["name"] == f"q-{ids[0]}")
    page.keyboard.press("Space")
    # Question 2: the arrow key moves to "No" and selects it, as in any radio group.
    tab_to(page, lambda f: f["name"] == f"q-{ids[1]}")
    page.keyboard.press("ArrowRight")
    # The submit button before answering question 3: Enter shows what is missing and moves
    # the focus to it.
    tab_to(page, lambda f: f["id"] == "respond-submit")
    page.keyboard.press("Enter")
    expect(page.locator("#respond-errors")).to_contain_text("Question 3 has no answer yet")
    assert page.evaluate("() => document.activeElement.id") == f"q-{ids[2]}-yes"
    page.keyboard.press("ArrowDown")  # question 3: "No"
    assert page.evaluate("() => document.querySelectorAll('input:checked').length") == 3
    assert page.locator(f"#q-{ids[0]}-yes").is_checked()
    assert page.locator(f"#q-{ids[1]}-no").is_checked()
    assert page.locator(f"#q-{ids[2]}-no").is_checked()

    tab_to(page, lambda f: f["id"] == "respond-submit")
    with page.expect_response(lambda r: r.request.method == "POST") as reply:
        page.keyboard.press("Enter")
    assert reply.value.status == 201
    expect(page.locator("#respond-done")).to_be_focused()
    assert Submission.objects.filter(survey=survey).count() == 1
    # The local-only view of what was sent opens from the keyboard too.
    tab_to(page, lambda f: f["tag"] == "summary")
    page.keyboard.press("Enter")
    expect(page.locator("#respond-sent")).to_be_visible()
    sent = page.locator("#respond-sent dd")
    expect(sent).to_have_count(3)
    assert set(sent.all_inner_texts()) <= {"Yes", "No"}  # what the coins made of the answers


@pytest.mark.parametrize("name", PAGES)
def test_every_stop_in_the_tab_order_shows_a_focus_ring(
    live_server, new_context, sign_in, owner, surveys, name
):
    page = open_page(
        new_context,
        sign_in,
        live_server,
        owner,
        path=page_path(name, surveys),
        locale="en-US",
        width=1280,
    )
    stops = tab_stops(page)
    assert len(stops) > 5
    assert [stop for stop in stops if not stop["ring"]] == []
    # The switcher, by keyboard too ("lang" on respondent pages, which set no cookie).
    assert {"language", "lang"} & {stop["name"] for stop in stops}


def test_a_researcher_signs_in_and_opens_a_survey_with_the_keyboard_only(
    live_server, page, owner, make_survey
):
    survey = make_survey(title="Keyboard survey", status=Survey.Status.DRAFT)
    page.goto(f"{live_server.url}/accounts/login/")
    expect(page.locator("#id_username")).to_be_focused()  # autofocus: type straight away
    page.keyboard.type(owner.username)
    page.keyboard.press("Tab")
    page.keyboard.type(PASSWORD)
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/surveys/$"))
    tab_to(page, lambda f: f["text"] == "Keyboard survey")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(rf"/surveys/{survey.pk}/$"))
    tab_to(page, lambda f: f["text"] == "Open survey…")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(rf"/surveys/{survey.pk}/open/"))  # the confirmation
    tab_to(page, lambda f: f["text"] == "Open survey")
    page.keyboard.press("Enter")
    expect(page.locator(".badge")).to_contain_text("Open")
    survey.refresh_from_db()
    assert survey.status == Survey.Status.OPEN


# --- reflow, zoom, targets, motion --------------------------------------------------------


def test_every_control_of_the_respondent_page_is_at_least_24_pixels_square(
    live_server, new_context, sign_in, owner, surveys
):
    page = open_page(
        new_context,
        sign_in,
        live_server,
        owner,
        path=page_path("respondent", surveys),
        locale="zh-CN",
        width=390,
    )
    small = page.evaluate(
        """() => [...document.querySelectorAll("a, button, select, summary, label.choice")]
            .filter((el) => el.offsetParent !== null && !el.closest(".visually-hidden"))
            .map((el) => [el.outerHTML.slice(0, 60), el.getBoundingClientRect()])
            .filter(([, r]) => r.width < 24 || r.height < 24)
            .filter(([html]) => !html.startsWith('<a class="skip-link"'))"""
    )
    assert small == []


@pytest.mark.parametrize(
    ("motion", "animation"), [("no-preference", "coin-flip"), ("reduce", "none")]
)
def test_the_coins_flip_only_for_people_who_welcome_motion(
    live_server, new_context, open_survey, motion, animation
):
    page = new_context(reduced_motion=motion).new_page()
    page.goto(f"{live_server.url}/s/{open_survey.slug}/")
    coins = page.locator(".coin-steps .coin-icon")
    expect(coins).to_have_count(2)
    names = coins.evaluate_all(
        "(icons) => icons.map((icon) => getComputedStyle(icon).animationName)"
    )
    assert names == [animation, animation]
    if motion == "no-preference":
        # a short visual: both coins come to rest within five seconds (WCAG 2.2.2)
        ends = coins.evaluate_all(
            """(icons) => icons.map((icon) => {
                 const s = getComputedStyle(icon);
                 return parseFloat(s.animationDelay) + parseFloat(s.animationDuration)
                   * Number(s.animationIterationCount);
               })"""
        )
        assert max(ends) <= 5


def test_status_is_never_told_by_colour_alone(live_server, page, sign_in, owner, surveys):
    sign_in(page, live_server, owner)
    page.goto(f"{live_server.url}/surveys/")
    badges = [" ".join(text.split()) for text in page.locator(".badge").all_text_contents()]
    assert sorted(badges) == ["Status: Draft", "Status: Open"]
    page.goto(f"{live_server.url}/s/{surveys['open'].slug}/")
    page.locator("#respond-submit").click()
    error = page.locator(".question-error").first
    expect(error).to_have_text("Choose Yes or No.")  # words, and a ⚠ sign, not only red
    assert (
        page.evaluate(
            "() => getComputedStyle(document.querySelector('.question-error'), '::before').content"
        )
        == '"⚠ "'
    )


# Co-researchers (docs/researchers.md, "Co-researchers"): the members and transfer pages as the
# owner (with an invitation and an offer waiting), the members page, dashboard (with an
# invitation waiting) and results as a viewer (the survey "shared with me"), and the viewer's
# account page with an unverified address.
MEMBER_PAGES = {
    "members": ("owner", "/surveys/{pk}/members/"),
    "transfer": ("owner", "/surveys/{pk}/transfer/"),
    "members-as-viewer": ("viewer", "/surveys/{pk}/members/"),
    "dashboard-as-viewer": ("viewer", "/surveys/"),
    "results-as-viewer": ("viewer", "/surveys/{pk}/results/"),
    "public-settings-as-viewer": ("viewer", "/surveys/{pk}/public/"),
    "account-as-viewer": ("viewer", "/accounts/"),
}


@pytest.mark.parametrize("width", WIDTHS.values(), ids=WIDTHS.keys())
@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("name", MEMBER_PAGES)
def test_axe_finds_no_wcag_violation_on_the_co_researcher_pages(
    live_server, new_context, sign_in, owner, surveys, name, language, width
):
    survey = surveys["open"]
    accounts = get_user_model().objects
    viewer = accounts.create_user("vera", password=PASSWORD, email="vera@example.org")
    add_member(survey=survey, user=viewer, role="viewer")
    editor = accounts.create_user("ed", password=PASSWORD)
    add_member(survey=survey, user=editor, role="editor")
    members.member_invite(survey=survey, by=owner, user="new@example.org", role="viewer")
    members.survey_transfer(survey=survey, by=owner, user_id=editor.pk)
    members.member_invite(survey=surveys["draft"], by=owner, user="vera", role="editor")
    who, path = MEMBER_PAGES[name]
    page = open_page(
        new_context,
        sign_in,
        live_server,
        viewer if who == "viewer" else owner,
        path=path.format(pk=survey.pk),
        locale=LANGUAGES[language][0],
        width=width,
    )
    check_page(page, name=name, language=language, width=width)


# --- pilot, consent, schedule and target (issue 14): the pages and states they add ---------

NEW_STATE_PAGES = (
    "pilot-respondent",
    "pilot-builder",
    "pilot-results",
    "pilot-discard",
    "scheduled-respondent",
    "dashboard-target",
)


@pytest.fixture
def pilot_surveys(make_survey, make_translated_survey):
    # Offered in every language, so the respondent page shows each
    # (docs/languages-accessibility.md, "One survey,
    # several languages").
    pilot = make_translated_survey(
        title="Pilot run",
        status=Survey.Status.DRAFT,
        consent_text="Taking part is voluntary.",
        response_target=385,
    )
    pilot = services.survey_pilot_start(survey=pilot)
    services.submission_record(
        survey=pilot,
        submission_id="0b9c4a49-5d0f-4f52-9d55-2f0b8bd1f9c1",
        answers=dict.fromkeys(pilot.questions.values_list("id", flat=True), True),
    )
    scheduled = make_survey(title="Starts tomorrow", status=Survey.Status.DRAFT)
    now = timezone.now()
    services.survey_schedule(
        survey=scheduled,
        opens_at=now + datetime.timedelta(days=1),
        closes_at=now + datetime.timedelta(days=8),
    )
    running = make_survey(title="With a target", response_target=40)
    services.simulated_submissions_record(survey=running, reports=np.ones((10, 2), dtype=bool))
    return {"pilot": pilot, "scheduled": scheduled}


def new_state_path(name, surveys):
    pilot, scheduled = surveys["pilot"], surveys["scheduled"]
    return {
        "pilot-respondent": f"/s/{pilot.slug}/",
        "pilot-builder": f"/surveys/{pilot.pk}/",
        "pilot-results": f"/surveys/{pilot.pk}/results/",
        "pilot-discard": f"/surveys/{pilot.pk}/discard-pilot/",
        "scheduled-respondent": f"/s/{scheduled.slug}/",
        "dashboard-target": "/surveys/",
    }[name]


@pytest.mark.parametrize(
    ("language", "width"),
    [("en", 1280), ("en", 390), ("ko", 390), ("zh-hans", 1280)],
    ids=["en-desktop", "en-phone", "ko-phone", "zh-desktop"],
)
@pytest.mark.parametrize("name", NEW_STATE_PAGES)
def test_axe_finds_no_violation_in_the_pilot_consent_and_schedule_pages(
    live_server, new_context, sign_in, owner, pilot_surveys, name, language, width
):
    path = new_state_path(name, pilot_surveys)
    page = open_page(
        new_context,
        sign_in,
        live_server,
        owner,
        path=path,
        locale=LANGUAGES[language][0],
        width=width,
    )
    if name == "pilot-respondent":
        expect(page.locator("#respond-questions")).to_be_hidden()
        assert axe_violations(page) == []  # before consent: the consent card alone
        page.locator("#respond-consent-accept").check()
        expect(page.locator("#respond-questions")).to_be_visible()
    check_page(page, name=name, language=language, width=width)
