"""English, Korean and Simplified Chinese in a real Chromium: the browser's language, the
switcher (with and without JavaScript), strings made by the scripts, errors from the API,
and what the respondent page weighs in each language."""

import gzip
import re
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from surveys import services

pytestmark = pytest.mark.e2e

# browser locale -> (<html lang>, the send button, the error summary's title, "Yes", "No")
LANGUAGES = {
    "en-US": (
        "en",
        "Randomize and send my answers",
        "Please answer every question before sending:",
        "Yes",
        "No",
    ),
    "ko-KR": (
        "ko",
        "무작위화하여 응답 보내기",
        "보내기 전에 모든 문항에 답해 주십시오:",
        "예",
        "아니요",
    ),
    "zh-CN": ("zh-Hans", "随机化并发送我的回答", "发送前请回答所有问题：", "是", "否"),
}
# Bytes a fresh load of the respondent page costs as production sends it: the static files
# compressed as whitenoise serves them (CompressedManifestStaticFilesStorage: gzip at level 9,
# brotli where the browser takes it, which is smaller still), the page and the catalog as
# Django writes them (both gzipped by surveys/middleware.py when the browser takes it). The test
# server does not serve static files compressed, so the test compresses their bodies itself.
PAGE_BUDGET = 100 * 1024


def respond_url(live_server, survey):
    return f"{live_server.url}/s/{survey.slug}/"


@pytest.fixture
def open_survey(make_translated_survey):
    """Offered in English, Korean and Chinese: a respondent page speaks only the languages
    its survey is offered in (surveys/selectors/languages.py)."""
    return make_translated_survey()


@pytest.mark.parametrize("locale", LANGUAGES)
def test_the_page_speaks_the_browsers_language_with_the_researchers_translated_words(
    live_server, new_context, open_survey, locale
):
    html_lang, send, _summary, yes, no = LANGUAGES[locale]
    page = new_context(locale=locale).new_page()
    page.goto(respond_url(live_server, open_survey))
    assert page.locator("html").get_attribute("lang") == html_lang
    expect(page.get_by_role("button", name=send)).to_be_enabled()
    first = page.locator("fieldset.question").first
    expect(first.get_by_label(yes, exact=True)).to_be_visible()
    expect(first.get_by_label(no, exact=True)).to_be_visible()
    question = first.locator(".question-text")
    written = open_survey.questions.first().text
    suffix = {"en": "", "ko": " [ko]", "zh-Hans": " [zh-hans]"}[html_lang]
    expect(question).to_have_text(written + suffix)  # the researcher's words, translated
    assert question.get_attribute("lang") == html_lang


@pytest.mark.parametrize("locale", ["ko-KR", "zh-CN"])
def test_the_scripts_messages_come_from_the_javascript_catalog(
    live_server, new_context, open_survey, locale
):
    _lang, send, summary, yes, _no = LANGUAGES[locale]
    page = new_context(locale=locale).new_page()
    problems = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("console", lambda message: problems.append(message.text))
    page.goto(respond_url(live_server, open_survey))
    first, second = page.locator("fieldset.question").all()
    first.get_by_label(yes, exact=True).check()
    page.get_by_role("button", name=send).click()
    errors = page.locator("#respond-errors")
    expect(errors).to_contain_text(summary)
    expected_item = {"ko-KR": "문항 2에 아직 답하지 않으셨습니다", "zh-CN": "第 2 题尚未作答"}
    expect(errors.locator("li")).to_have_text([expected_item[locale]])
    choose = {"ko-KR": "“예” 또는 “아니요”를 선택해 주십시오.", "zh-CN": "请选择“是”或“否”。"}
    expect(second.locator(".question-error")).to_have_text(choose[locale])
    assert problems == []  # the catalog loaded under the strict CSP, nothing complained


def test_the_thank_you_and_the_local_view_of_what_was_sent_are_translated(
    live_server, new_context, open_survey
):
    page = new_context(locale="zh-CN").new_page()
    page.goto(respond_url(live_server, open_survey))
    for fieldset in page.locator("fieldset.question").all():
        fieldset.get_by_label("否", exact=True).check()
    page.get_by_role("button", name="随机化并发送我的回答").click()
    expect(page.get_by_role("heading", name="感谢您！随机化后的回答已发送")).to_be_visible()
    page.get_by_text("查看发送的内容（仅在本设备的此页面显示）").click()
    sent = page.locator("#respond-sent dd")
    expect(sent).to_have_count(2)
    assert set(sent.all_inner_texts()) <= {"是", "否"}
    assert page.locator("#respond-sent dt").first.get_attribute("lang") == "zh-Hans"


def test_the_switcher_works_without_javascript_and_keeps_the_page(
    live_server, new_context, open_survey
):
    context = new_context(java_script_enabled=False, locale="en-US")
    page = context.new_page()
    url = respond_url(live_server, open_survey)
    page.goto(url)
    page.get_by_label("Language").select_option(label="한국어")
    page.get_by_role("button", name="Change language").click()
    # The same page, the choice in its address: respondent pages set no cookie.
    expect(page).to_have_url(f"{url}?lang=ko")
    assert page.locator("html").get_attribute("lang") == "ko"
    expect(page.get_by_role("heading", name="문항", exact=True)).to_be_visible()
    page.get_by_label("언어").select_option(label="简体中文")
    page.get_by_role("button", name="언어 변경").click()
    expect(page).to_have_url(f"{url}?lang=zh-hans")
    assert page.locator("html").get_attribute("lang") == "zh-Hans"
    assert context.cookies() == []


def test_a_researcher_switches_language_and_stays_on_the_same_results_view(
    live_server, page, sign_in, owner, make_survey
):
    survey = make_survey(min_n=0)
    sign_in(page, live_server, owner)
    url = f"{live_server.url}/surveys/{survey.pk}/results/?method=exact&level=0.9"
    page.goto(url)
    page.get_by_label("Language").select_option("zh-hans")
    page.get_by_role("button", name="Change language").click()
    expect(page).to_have_url(url)
    expect(page.get_by_role("heading", name="各题估计值")).to_be_visible()
    expect(page.get_by_label("区间方法")).to_have_value("exact")


def test_an_api_refusal_reaches_the_respondent_in_the_pages_language(
    live_server, new_context, make_translated_survey
):
    survey = make_translated_survey()
    page = new_context(locale="en-US").new_page()
    page.goto(respond_url(live_server, survey))
    # Chosen with the switcher: the browser still asks for English, the page is Chinese.
    page.get_by_label("Language").select_option("zh-hans")
    page.get_by_role("button", name="Change language").click()
    # Wait for the Chinese page: the switch reloads it, and boxes ticked on the English page
    # before the reload would be lost (then nothing is sent at all).
    expect(page.get_by_role("button", name="随机化并发送我的回答")).to_be_visible()
    for fieldset in page.locator("fieldset.question").all():
        fieldset.get_by_label("是", exact=True).check()
    services.survey_close(survey=survey)  # closed while the respondent was answering
    with page.expect_response(lambda r: r.request.method == "POST") as reply:
        page.get_by_role("button", name="随机化并发送我的回答").click()
    assert reply.value.status == 409
    sent = reply.value.request.all_headers()
    assert sent["accept-language"] == "zh-Hans"
    assert "cookie" not in sent  # neither the language choice nor the CSRF token rides along
    expect(page.locator("#respond-status")).to_have_text(
        "您的回答未被接受：此问卷已结束，不再接受回答。"
    )


def test_the_results_page_says_when_it_refreshed_in_the_researchers_language(
    live_server, new_context, sign_in, owner, make_survey, submit
):
    survey = make_survey(min_n=0)
    page = new_context(locale="ko-KR").new_page()
    page.clock.install()
    sign_in(page, live_server, owner)
    page.goto(f"{live_server.url}/surveys/{survey.pk}/results/")
    assert submit(survey, [True, False]).status_code == 201
    page.clock.run_for(31_000)
    status = page.locator("#refresh-status")
    expect(status).to_contain_text("결과를 갱신했습니다.")
    expect(status).to_have_text(re.compile(r"결과를 갱신했습니다\. .+에 새 응답을 확인했습니다\.$"))


@pytest.mark.parametrize("locale", LANGUAGES)
def test_the_respondent_page_weighs_under_100_kb_from_its_own_origin_only(
    live_server, new_context, open_survey, locale
):
    page = new_context(locale=locale).new_page()  # fresh context: empty cache
    finished, failed = [], []
    page.on("requestfinished", lambda request: finished.append(request))
    page.on("requestfailed", lambda request: failed.append(request))
    page.goto(respond_url(live_server, open_survey), wait_until="networkidle")
    expect(page.get_by_role("button", name=LANGUAGES[locale][1])).to_be_enabled()
    assert failed == []
    origin = urlsplit(live_server.url).netloc
    assert {urlsplit(request.url).netloc for request in finished} == {origin}
    paths = {urlsplit(request.url).path for request in finished}
    assert "/jsi18n/" in paths and "/static/js/respond.js" in paths
    transferred = 0
    for request in finished:
        sizes = request.sizes()
        body = sizes["responseBodySize"]
        if urlsplit(request.url).path.startswith("/static/"):
            body = len(gzip.compress(request.response().body(), compresslevel=9))
        transferred += sizes["responseHeadersSize"] + body
    assert transferred < PAGE_BUDGET, f"{transferred} bytes for {sorted(paths)}"
