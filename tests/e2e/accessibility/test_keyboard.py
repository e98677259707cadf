"""Keyboard only, focus always visible, targets large enough, motion only when welcome, status
not by colour alone; the respondent's error and thank-you states (see __init__.py)."""

import re

import pytest
from playwright.sync_api import expect

from surveys.models import Submission, Survey
from tests.e2e.accessibility import PAGES, axe_violations, open_page, page_path, tab_stops, tab_to
from tests.helpers import PASSWORD

pytestmark = pytest.mark.e2e


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
