"""Optional questions in a real Chromium, as a respondent does it (docs/researchers.md, "Optional
questions"): skip an optional question, clear an answer given by mistake, answer a grouping
question "Prefer not to say", and watch what leaves the page. In English, Korean and
Simplified Chinese."""

import json
import os

import pytest
from playwright.sync_api import expect

from surveys import services
from surveys.models import PREFER_NOT_TO_SAY, Submission
from surveys.services import grouping, translations
from tests.e2e.accessibility import axe_violations, tab_to
from tests.helpers import translation_texts

pytestmark = pytest.mark.e2e

SHOTS = "/tmp/shots"
# browser locale -> the words the respondent sees: the send button, the "optional" tag, the
# clear button, the built-in option, the error summary's title, "Yes", "Skipped: nothing sent"
WORDS = {
    "en-US": (
        "Randomize and send my answers",
        "optional",
        "Clear answer",
        "Prefer not to say",
        "Please answer the required questions before sending:",
        "Yes",
        "Skipped: nothing sent",
    ),
    "ko-KR": (
        "무작위화하여 응답 보내기",
        "선택 응답",
        "응답 지우기",
        "응답하지 않겠습니다",
        "보내기 전에 필수 문항에 답해 주십시오:",
        "예",
        "건너뜀: 전송 안 함",
    ),
    "zh-CN": (
        "随机化并发送我的回答",
        "选答",
        "清除答案",
        "不愿透露",
        "发送前请回答必答题：",
        "是",
        "已跳过：未发送",
    ),
}

MEMO_SECRETS = """
() => Object.entries(localStorage)
  .filter(([key]) => key.startsWith("rrsurvey:"))
  .map(([, value]) => Object.keys(JSON.parse(value).secrets).sort())
"""


@pytest.fixture
def survey(make_survey):
    """Q1 required, Q2 optional, and an optional grouping question."""
    draft = make_survey(
        status="draft",
        language="en",
        questions=[
            {"text": "Have you ever taken office supplies home?"},
            {"text": "Have you used drugs at work in the past year?", "required": False},
        ],
    )
    grouping.grouping_question_add(survey=draft, text="Which team are you in?", options=["A", "B"])
    # Offered in Korean and Chinese too, so each locale's respondent gets the page in it.
    translations.survey_translations_save(survey=draft, texts=translation_texts(draft))
    return services.survey_open(survey=draft)


@pytest.mark.parametrize("locale", WORDS)
def test_a_skipped_optional_question_sends_no_key_at_all(live_server, new_context, survey, locale):
    send, optional, clear, decline, summary, yes, skipped = WORDS[locale]
    q1, q2 = survey.questions.values_list("id", flat=True)
    gq = survey.grouping_questions.get()
    page = new_context(locale=locale).new_page()
    posts = []
    page.on(
        "request",
        lambda request: posts.append(request) if request.method == "POST" else None,
    )
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    expect(page.locator(f"#q-{q2} .optional-tag")).to_have_text(optional)
    expect(page.locator(f"#g-{gq.pk} .optional-tag")).to_have_text(optional)
    expect(page.locator(f"#q-{q1} .optional-tag")).to_have_count(0)

    # Sending with nothing answered names only the required question, and sends nothing.
    page.get_by_role("button", name=send).click()
    errors = page.locator("#respond-errors")
    expect(errors).to_contain_text(summary)
    expect(errors.locator("li")).to_have_count(1)
    assert page.locator(f"#q-{q1}").get_attribute("aria-invalid") == "true"
    assert page.locator(f"#q-{q2}").get_attribute("aria-invalid") is None
    assert page.evaluate("() => document.activeElement.id") == f"q-{q1}-yes"
    assert posts == []

    # Answer Q1; answer Q2 by mistake, then clear it from the keyboard; decline the group.
    page.locator(f"#q-{q1}").get_by_label(yes, exact=True).check()
    page.locator(f"#q-{q2}").get_by_label(yes, exact=True).check()
    tab_to(page, lambda focused: focused["tag"] == "button" and clear in focused["text"])
    page.keyboard.press("Enter")
    expect(page.locator(f"#q-{q2} input:checked")).to_have_count(0)
    page.locator(f"#g-{gq.pk}").get_by_label(decline, exact=True).check()
    if locale == "en-US":
        os.makedirs(SHOTS, exist_ok=True)
        page.screenshot(path=f"{SHOTS}/optional-respondent.png", full_page=True)

    with page.expect_response(lambda r: "/responses/" in r.url) as reply:
        page.get_by_role("button", name=send).click()
    assert reply.value.status == 201, reply.value.text()
    [request] = posts
    body = json.loads(request.post_data)
    assert set(body) == {
        "submission_id",
        "answers",
        "design_fingerprint",
        "groups",
        "order",
        "padding",
    }
    assert list(body["answers"]) == [str(q1)]  # no key, no placeholder for Q2
    assert body["groups"] == {str(gq.pk): PREFER_NOT_TO_SAY}
    assert f'"{q2}"' not in request.post_data

    # The memo keeps a secret for every question, skipped or not (it says nothing about skips);
    # the thank-you says Q2 was skipped.
    assert page.evaluate(MEMO_SECRETS) == [sorted([str(q1), str(q2)])]
    page.locator("#respond-done summary").click()
    expect(page.locator("#respond-sent dd").nth(1)).to_have_text(skipped)
    expect(page.locator("#respond-sent dd").nth(2)).to_contain_text(decline)
    stored = Submission.objects.get(survey=survey)
    assert list(stored.reports) == [f"q{q1}"]
    assert list(stored.group_answers.values_list("option_id", flat=True)) == [None]


def test_a_retake_that_answers_the_skipped_question_is_stored_once(
    live_server, new_context, survey
):
    q1, q2 = survey.questions.values_list("id", flat=True)
    page = new_context().new_page()
    url = f"{live_server.url}/s/{survey.slug}/"
    bodies = []
    for answer_q2 in (False, True):
        page.goto(url)
        page.locator(f"#q-{q1}").get_by_label("No", exact=True).check()
        if answer_q2:
            page.locator(f"#q-{q2}").get_by_label("Yes", exact=True).check()
        with page.expect_response(lambda r: "/responses/" in r.url) as reply:
            page.get_by_role("button", name="Randomize and send my answers").click()
        assert reply.value.status == 201
        bodies.append(json.loads(reply.value.request.post_data))
    first, retake = bodies
    assert first["submission_id"] == retake["submission_id"]
    assert list(first["answers"]) == [str(q1)]
    assert sorted(retake["answers"]) == sorted([str(q1), str(q2)])
    assert retake["answers"][str(q1)] == first["answers"][str(q1)]  # replayed, not redrawn
    expect(page.locator("#respond-done-replayed")).to_be_visible()
    # The server keeps the first submission, whole: nothing new is counted.
    stored = Submission.objects.get(survey=survey)
    assert list(stored.reports) == [f"q{q1}"]
    assert survey.response_count == 1


@pytest.mark.parametrize("width", [1280, 390])
def test_the_page_with_optional_questions_has_no_axe_violations(
    live_server, new_context, survey, width
):
    context = new_context(viewport={"width": width, "height": 900}, bypass_csp=True)
    page = context.new_page()
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    page.get_by_role("button", name="Randomize and send my answers").click()  # errors showing
    assert axe_violations(page) == []
