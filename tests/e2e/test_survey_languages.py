"""One survey in three languages, in a real Chromium: a researcher translates a survey into
Korean and Simplified Chinese on its Translations page and opens it; three respondents answer
it in English, Korean and Chinese, each reading it in their own language, and their browsers
send nothing about language; the results pool the three answers into one n."""

import json
import re
from urllib.parse import urlsplit

import pytest
from django.utils.translation import trans_real
from playwright.sync_api import expect

from surveys.models import Submission, Survey
from surveys.services import grouping

pytestmark = pytest.mark.e2e

QUESTIONS = ("Have you copied homework?", "Have you cheated in an exam?")
GROUP = ("Your year?", ("First year", "Later years"))
TRANSLATIONS = {
    "ko": {
        "title": "시험 정직성",
        "intro": "솔직하게 답해 주십시오.",
        "questions": ("숙제를 베낀 적이 있습니까?", "시험에서 부정행위를 한 적이 있습니까?"),
        "group": ("몇 학년입니까?", ("1학년", "2학년 이상")),
    },
    "zh-hans": {
        "title": "考试诚信",
        "intro": "请如实作答。",
        "questions": ("你抄过作业吗？", "你在考试中作过弊吗？"),
        "group": ("你是几年级？", ("一年级", "更高年级")),
    },
}
LANGUAGE_NAMES = {"ko": "한국어", "zh-hans": "简体中文"}
# browser locale -> (survey language, <html lang>, "Yes", the send button)
RESPONDENTS = {
    "en-US": ("en", "en", "Yes", "Randomize and send my answers"),
    "ko-KR": ("ko", "ko", "예", "무작위화하여 응답 보내기"),
    "zh-CN": ("zh-hans", "zh-Hans", "是", "随机化并发送我的回答"),
}


def english_texts():
    return {
        "title": "Exam honesty",
        "intro": "Please answer honestly.",
        "questions": QUESTIONS,
        "group": GROUP,
    }


def translate_on_the_page(page, code):
    """Fill every input of one language, each next to the English text it translates."""
    words = TRANSLATIONS[code]
    name = LANGUAGE_NAMES[code]
    source = english_texts()
    pairs = [("Title", words["title"]), ("Introduction", words["intro"])]
    pairs += [(f"Q{i}", text) for i, text in enumerate(words["questions"], start=1)]
    pairs.append(("G1", words["group"][0]))
    pairs += [(f"G1 · {i}", label) for i, label in enumerate(words["group"][1], start=1)]
    for text_name, value in pairs:
        field = page.get_by_label(f"{name}: {text_name}", exact=False).first
        field.fill(value)
    # The English beside each input is the survey's own text.
    for text in (source["title"], source["intro"], *source["questions"]):
        expect(page.locator(".translation-source p", has_text=text)).to_be_visible()


def test_a_survey_translated_into_three_languages_pools_its_answers(
    live_server, page, new_context, sign_in, owner, make_survey
):
    survey = make_survey(
        title="Exam honesty",
        intro="Please answer honestly.",
        questions=QUESTIONS,
        status=Survey.Status.DRAFT,
        min_n=0,
    )
    grouping.grouping_question_add(survey=survey, text=GROUP[0], options=GROUP[1])
    sign_in(page, live_server, owner)

    # The researcher translates: the Translations tab lists what is missing, per language.
    page.goto(f"{live_server.url}/surveys/{survey.pk}/")
    page.get_by_role("link", name="Translations", exact=True).first.click()
    expect(page.get_by_role("heading", name="Translations", exact=True)).to_be_visible()
    status = page.locator(".translation-status")
    expect(status).to_contain_text("7 of 7 texts missing: not offered yet")
    translate_on_the_page(page, "ko")
    page.get_by_role("button", name="Save translations").click()
    expect(page.get_by_text("Translations saved.")).to_be_visible()
    expect(status.locator("li").nth(0)).to_contain_text("Complete: offered to respondents")
    expect(status.locator("li").nth(1)).to_contain_text("7 of 7 texts missing")
    translate_on_the_page(page, "zh-hans")
    page.get_by_role("button", name="Save translations").click()
    expect(status.locator(".badge--open")).to_have_count(2)
    expect(page.locator(".translation-missing")).to_have_count(0)

    page.get_by_role("link", name="Build", exact=True).click()
    page.get_by_role("button", name="Open survey…").click()
    page.get_by_role("button", name="Open survey", exact=True).click()  # the confirmation
    expect(page.locator(".survey-head .badge")).to_contain_text("Open")
    survey.refresh_from_db()
    link = f"{live_server.url}/s/{survey.slug}/"

    origin = urlsplit(live_server.url)
    posts = []
    for locale, (code, html_lang, yes, send) in RESPONDENTS.items():
        words = english_texts() if code == "en" else TRANSLATIONS[code]
        respondent = new_context(locale=locale).new_page()
        requests = []
        respondent.on("request", lambda request, requests=requests: requests.append(request))
        respondent.goto(link)
        # The page, survey and interface alike, is in the respondent's language.
        assert respondent.locator("html").get_attribute("lang") == html_lang
        expect(respondent.get_by_role("heading", level=1)).to_have_text(words["title"])
        expect(respondent.locator(".respond-intro")).to_have_text(words["intro"])
        texts = respondent.locator("fieldset.question:not(.question--grouping) .question-text")
        expect(texts).to_have_text(list(words["questions"]))
        assert texts.first.get_attribute("lang") == html_lang
        group = respondent.locator("fieldset.question--grouping")
        expect(group.locator(".question-text")).to_have_text(words["group"][0])
        # The options, then the built-in "Prefer not to say" in the page's language.
        decline = trans_real.translation(code).gettext("Prefer not to say")
        expect(group.locator(".choice span")).to_have_text([*words["group"][1], decline])
        # The menu offers the survey's three languages.
        options = respondent.locator("#language-select option")
        expect(options).to_have_text(["English", "한국어", "简体中文"])

        for fieldset in respondent.locator("fieldset.question:not(.question--grouping)").all():
            fieldset.get_by_label(yes, exact=True).check()
        group.locator("input[type=radio]").first.check()
        with respondent.expect_response(lambda r: r.request.method == "POST") as reply:
            respondent.get_by_role("button", name=send).click()
        assert reply.value.status == 201
        expect(respondent.locator("#respond-done")).to_be_visible()
        assert respondent.context.cookies() == []
        for request in requests:
            parts = urlsplit(request.url)
            assert (parts.scheme, parts.netloc) == (origin.scheme, origin.netloc)
        posts += [request for request in requests if request.method == "POST"]

    # What the network carried: randomized bits, a group, an id and the one fingerprint;
    # nothing about language, in the body or the address.
    assert len(posts) == 3
    fingerprints = set()
    for request in posts:
        body = json.loads(request.post_data)
        assert set(body) == {
            "submission_id", "answers", "groups", "design_fingerprint", "order", "padding",
        }  # fmt: skip
        fingerprints.add(body["design_fingerprint"])
        assert not re.search(r"\b(en|ko|zh|hans|lang|language)\b", request.post_data, re.I)
        assert urlsplit(request.url).query == ""
        assert urlsplit(request.url).path == f"/api/v1/public/surveys/{survey.slug}/responses/"
    assert fingerprints == {survey.design_fingerprint}
    assert Submission.objects.filter(survey=survey).count() == 3

    # One estimate per question, from all three languages' answers, in the survey's language.
    page.get_by_role("navigation", name="Survey pages").get_by_role("link", name="Results").click()
    expect(page.locator("[data-stat=responses]")).to_have_text("3")
    rows = page.locator(".results-table tbody tr")
    expect(rows).to_have_count(len(QUESTIONS))
    for row in rows.all():
        expect(row.locator("td[data-label=n]")).to_have_text("3")
    expect(page.locator(".results-table")).to_contain_text(QUESTIONS[0])
