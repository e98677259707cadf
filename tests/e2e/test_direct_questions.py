"""Direct questions in a real Chromium (issue 27 item 1): each is labelled at the question as
sent as given; the body carries the answer itself (a text answer decoded by the server to
exactly what was typed, Korean included); every body keeps the survey's one length; nothing
about a direct answer enters the memo."""

import json

import pytest

from surveys import services
from surveys.models import Submission
from surveys.services.answers import text_answer_decode
from tests.helpers import RESPONSES_PATH

pytestmark = pytest.mark.e2e

QUESTIONS = [
    {"text": "Have you taken office supplies home?"},
    {"text": "Do you manage people?", "randomized": False},
    {"text": "Department?", "type": "choice", "options": ["A", "B", "C"], "randomized": False},
    {"text": "Years here?", "type": "numeric", "min": 0, "max": 40, "randomized": False},
    {"text": "Anything else?", "type": "text", "randomized": False, "required": False},
]
KOREAN = '직장 내 괴롭힘은 없었다 "정말"'

MEMO = """
() => Object.entries(localStorage)
  .filter(([key]) => key.startsWith("rrsurvey:"))
  .map(([key, value]) => JSON.parse(value))
"""


@pytest.fixture
def survey(make_survey):
    return services.survey_open(survey=make_survey(status="draft", questions=QUESTIONS))


def send(page, live_server, survey, *, text):
    yes_no, manager, department, years, comment = survey.questions.values_list("id", flat=True)
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    page.locator(f"#q-{yes_no}-yes").check()
    page.locator(f"#q-{manager}-no").check()
    page.locator(f"#q-{department}-o2").check()
    page.locator(f"#q-{years}-value").fill("17")
    if text is not None:
        page.locator(f"#q-{comment}-value").fill(text)
    with page.expect_response(
        lambda r: RESPONSES_PATH in r.url and r.request.method == "POST"
    ) as reply:
        page.get_by_role("button", name="Randomize and send my answers").click()
    assert reply.value.status == 201, reply.value.text()
    return reply.value.request.post_data_buffer


def test_a_direct_answer_is_labelled_and_sent_as_given(live_server, new_context, survey):
    ids = list(survey.questions.values_list("id", flat=True))
    page = new_context().new_page()
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    for qid in ids[1:]:
        note = page.locator(f"#q-{qid}-how")
        assert "sent exactly as you give it" in note.inner_text()
        assert page.locator(f"#q-{qid} .not-randomized").is_visible()
    assert page.locator(f"#q-{ids[0]} .not-randomized").count() == 0
    assert "+ 4 direct questions, not covered" in page.content()

    lengths = set()
    for text in (KOREAN, None, "x" * 300):
        context = new_context()
        page = context.new_page()
        body = send(page, live_server, survey, text=text)
        lengths.add(len(body))
        sent = json.loads(body)
        answers = sent["answers"]
        assert answers[str(ids[1])] is False
        assert answers[str(ids[2])] == 2
        assert answers[str(ids[3])] == 17
        if text is None:
            assert str(ids[4]) not in answers
        else:
            assert text_answer_decode(answers[str(ids[4])]) == text
        stored = Submission.objects.get(submission_id=sent["submission_id"]).reports
        if text is not None:
            assert stored[f"q{ids[4]}"] == text
        # The thank-you names the direct answers as sent as given.
        assert "(sent as given, not randomized)" in page.locator("#respond-sent").text_content()
        (memo,) = page.evaluate(MEMO)
        assert set(memo["secrets"]) == {str(ids[0])}
        assert KOREAN not in json.dumps(memo, ensure_ascii=False)
    definition = json.loads(
        new_context().request.get(f"{live_server.url}/api/v1/public/surveys/{survey.slug}/").text()
    )
    assert lengths == {definition["submission_length"]}


def test_a_text_answer_over_the_byte_limit_is_named_before_sending(
    live_server, new_context, survey
):
    comment = survey.questions.values_list("id", flat=True)[4]
    page = new_context().new_page()
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    page.locator(f"#q-{comment}-value").fill("가" * 101)  # 303 bytes
    error = page.locator(f"#q-{comment}-error")
    assert "too long" in error.inner_text()


@pytest.mark.parametrize("locale", ["en-US", "ko-KR", "zh-CN"])
def test_axe_finds_no_violation_on_pages_with_direct_questions(
    live_server, new_context, sign_in, owner, make_survey, locale
):
    from tests.e2e.accessibility import axe_violations

    language = {"en-US": "en", "ko-KR": "ko", "zh-CN": "zh-hans"}[locale]
    survey = services.survey_open(
        survey=make_survey(status="draft", questions=QUESTIONS, language=language)
    )
    context = new_context(locale=locale, viewport={"width": 390, "height": 900}, bypass_csp=True)
    page = context.new_page()
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    assert axe_violations(page) == []
    sign_in(page, live_server, owner)
    for path in (f"/surveys/{survey.pk}/", f"/surveys/{survey.pk}/results/"):
        page.goto(live_server.url + path)
        assert axe_violations(page) == [], path
