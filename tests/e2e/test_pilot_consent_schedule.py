"""Pilot, consent and schedule in a real Chromium, as a researcher and respondents do it
(issue 14, items 1, 3 and 7)."""

import json
from datetime import timedelta

import pytest
from django.utils import timezone
from django.utils.translation import trans_real
from playwright.sync_api import expect

from surveys import services
from surveys.models import Submission, Survey

pytestmark = pytest.mark.e2e

QUESTIONS = ("Have you evr cheated on an exam?", "Have you copied homework this month?")
SEND = "Randomize and send my answers"


def tab(page, name):
    return page.get_by_role("navigation", name="Survey pages").get_by_role("link", name=name)


def answer(page, truths=(True, False)):
    """Answer every question shown and send; returns the body the browser posted."""
    for fieldset, truth in zip(page.locator("fieldset.question").all(), truths, strict=True):
        fieldset.locator(f"input[value={'yes' if truth else 'no'}]").check()
    with page.expect_response(lambda r: r.request.method == "POST") as reply:
        page.locator("#respond-submit").click()
    assert reply.value.status == 201, reply.value.text()
    expect(page.locator("#respond-done")).to_be_visible()
    return json.loads(reply.value.request.post_data)


def test_a_pilot_is_answered_through_the_live_link_discarded_and_never_counted(
    live_server, page, new_context, sign_in, owner, make_survey
):
    survey = make_survey(title="Exam honesty", questions=QUESTIONS, status="draft")
    link = f"{live_server.url}/s/{survey.slug}/"
    sign_in(page, live_server, owner)
    page.goto(f"{live_server.url}/surveys/{survey.pk}/")
    page.get_by_role("button", name="Start a pilot").click()
    expect(page.locator(".survey-head .badge")).to_contain_text("Pilot")

    # A tester answers through the real link; the page says it is a pilot.
    tester = new_context().new_page()
    tester.goto(link)
    expect(tester.locator("#respond-pilot")).to_contain_text("discarded before the real study")
    answer(tester)

    # The results show it, marked as a pilot.
    tab(page, "Results").click()
    expect(page.locator("#pilot-results-notice")).to_be_visible()
    expect(page.locator("[data-stat=responses]")).to_have_text("1")
    expect(page.locator(".results-summary dt").first).to_have_text("Pilot responses (not counted)")

    # The typo can be fixed only after discarding the pilot responses, with confirmation.
    tab(page, "Build").click()
    expect(page.locator("#frozen-notice")).to_contain_text("discard the pilot responses first")
    page.get_by_role("link", name="Discard pilot responses…").click()
    expect(page.get_by_role("heading", name="Discard pilot responses?")).to_be_visible()
    page.get_by_role("button", name="Discard pilot responses").click()
    expect(page.locator(".messages, [role=status], .notice").first).to_be_visible()
    assert Submission.objects.filter(survey=survey).count() == 0
    page.get_by_role("link", name="Edit question 1").click()
    page.get_by_label("Question", exact=True).fill("Have you ever cheated on an exam?")
    page.get_by_role("button", name="Save question").click()
    expect(page.locator(".question-item__text").first).to_have_text(
        "Have you ever cheated on an exam?"
    )

    # The same tester, same browser, tries the corrected pilot.
    tester.goto(link)
    expect(tester.locator("fieldset.question").first).to_contain_text("ever cheated")
    pilot_body = answer(tester)

    # The real study opens from the pilot: every pilot response goes, the link stays.
    tab(page, "Build").click()
    expect(page.locator("#open-real-locks")).to_contain_text("discards every pilot response")
    page.get_by_role("button", name="Open for the real study…").click()
    page.get_by_role("button", name="Open for the real study", exact=True).click()
    expect(page.locator(".survey-head .badge")).to_contain_text("Open")
    assert Submission.objects.filter(survey=survey).count() == 0
    tab(page, "Results").click()
    expect(page.locator("[data-stat=responses]")).to_have_text("0")
    expect(page.locator("#pilot-results-notice")).to_have_count(0)

    # The real study names another design than the pilot's, so the tester's browser drops its
    # pilot memo: a new submission id and new coins, which nothing joins to the pilot's row
    # (nor to a pilot export someone kept).
    tester.goto(link)
    expect(tester.locator("#respond-pilot")).to_have_count(0)
    expect(tester.locator("#respond-already")).to_be_hidden()
    real_body = answer(tester)
    expect(tester.locator("#respond-done-replayed")).to_be_hidden()
    assert real_body["submission_id"] != pilot_body["submission_id"]
    assert real_body["design_fingerprint"] != pilot_body["design_fingerprint"]
    kept = tester.evaluate("Object.keys(localStorage)")
    assert kept == [f"rrsurvey:v3:{survey.slug}:{real_body['design_fingerprint']}"]
    stored = Submission.objects.get(survey=survey)
    assert str(stored.submission_id) == real_body["submission_id"]
    page.reload()
    expect(page.locator("[data-stat=responses]")).to_have_text("1")


@pytest.mark.parametrize("language", ["en", "ko", "zh-hans"])
def test_consent_must_be_accepted_before_the_questions_show(
    live_server, new_context, make_translated_survey, language
):
    # Offered in all three languages, the consent text translated like every other text.
    survey = make_translated_survey(
        consent_text="Taking part is voluntary; you may stop at any time."
    )
    # The catalog itself, not translation.override: activating a language here would outlive
    # the test under Playwright's greenlets and change the language of later tests.
    catalog = trans_real.translation(language)
    accept = catalog.gettext("I have read this and agree to take part")
    heading = catalog.gettext("Consent")
    page = new_context().new_page()
    page.goto(f"{live_server.url}/s/{survey.slug}/?lang={language}")
    expect(page.get_by_role("heading", name=heading, exact=True)).to_be_visible()
    consent = page.locator(".consent-text")
    expect(consent).to_contain_text("Taking part is voluntary")
    # The respondent reads it in the page's language (the test marks translations "[ko]").
    if language != "en":
        expect(consent).to_contain_text(f"[{language}]")
    else:
        expect(consent).not_to_contain_text("[")
    questions = page.locator("#respond-questions")
    expect(questions).to_be_hidden()
    expect(page.locator("#respond-submit")).to_be_hidden()

    # With the keyboard: tab to the box, tick it with the space bar.
    box = page.get_by_role("checkbox", name=accept)
    box.focus()
    page.keyboard.press("Space")
    expect(box).to_be_checked()
    expect(questions).to_be_visible()
    page.keyboard.press("Space")  # changing one's mind hides them again
    expect(questions).to_be_hidden()
    page.keyboard.press("Space")
    body = answer(page)
    # Nothing of consent (the padding is spaces: tests/e2e/test_submission_shape.py).
    assert set(body) == {"submission_id", "answers", "design_fingerprint", "order", "padding"}
    assert Submission.objects.filter(survey=survey).count() == 1


def test_a_scheduled_survey_refuses_responses_before_its_time_and_after_its_close(
    live_server, new_context, make_survey
):
    survey = make_survey(questions=QUESTIONS, status="draft")
    now = timezone.now()
    services.survey_schedule(
        survey=survey, opens_at=now + timedelta(days=1), closes_at=now + timedelta(days=2)
    )
    page = new_context().new_page()
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    expect(page.get_by_role("heading", name="This survey is not open yet")).to_be_visible()
    expect(page.locator(".respond-state")).to_contain_text("It opens on")
    expect(page.locator("fieldset.question")).to_have_count(0)

    # Its time comes: the page takes answers, and says when it closes.
    Survey.objects.filter(pk=survey.pk).update(opens_at=now - timedelta(minutes=1))
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    expect(page.locator("#respond-closes")).to_contain_text("This survey closes on")
    answer(page)

    # A respondent who loaded the page before the close sends after it: refused, nothing stored.
    late = new_context().new_page()
    late.goto(f"{live_server.url}/s/{survey.slug}/")
    Survey.objects.filter(pk=survey.pk).update(closes_at=timezone.now() - timedelta(seconds=1))
    for fieldset in late.locator("fieldset.question").all():
        fieldset.locator("input[value=yes]").check()
    with late.expect_response(lambda r: r.request.method == "POST") as reply:
        late.locator("#respond-submit").click()
    assert reply.value.status == 409
    expect(late.locator("#respond-status")).to_contain_text("closed on")
    assert Submission.objects.filter(survey=survey).count() == 1
    late.goto(f"{live_server.url}/s/{survey.slug}/")
    expect(late.get_by_role("heading", name="This survey is closed")).to_be_visible()
    expect(late.locator(".respond-state")).to_contain_text("It closed on")


def test_a_page_loaded_during_the_pilot_sends_nothing_after_the_real_opening(
    live_server, new_context, make_survey
):
    survey = make_survey(questions=QUESTIONS, status="draft")
    services.survey_pilot_start(survey=survey)
    tester = new_context().new_page()
    tester.goto(f"{live_server.url}/s/{survey.slug}/")
    expect(tester.locator("#respond-pilot")).to_be_visible()
    # The researcher opens the real study while the tester still has the pilot page open.
    services.survey_open(survey=survey)
    posts = []
    tester.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    for fieldset in tester.locator("fieldset.question").all():
        fieldset.locator("input[value=yes]").check()
    with tester.expect_navigation():
        tester.locator("#respond-submit").click()
    # Nothing was posted, nothing stored: the page reloaded into the real study.
    assert posts == []
    assert not Submission.objects.filter(survey=survey).exists()
    expect(tester.locator("#respond-pilot")).to_have_count(0)
    answer(tester)
    assert Submission.objects.filter(survey=survey).count() == 1
