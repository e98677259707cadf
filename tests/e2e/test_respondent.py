"""The respondent page in a real Chromium: what leaves the browser, memoisation, statistics."""

import base64
import json
from urllib.parse import urlsplit

import pytest
from scipy.stats import binomtest

from surveys import services
from surveys.models import Submission, Survey
from tests.helpers import DETERMINISTIC_COINS, RESPONSES_PATH, derived_reports, submit_answers

pytestmark = pytest.mark.e2e


STORAGE_DUMP = """
() => Object.fromEntries(
  Array.from({length: localStorage.length}, (_, i) => localStorage.key(i))
    .map((key) => [key, localStorage.getItem(key)])
)
"""


def page_url(live_server, survey):
    return f"{live_server.url}/s/{survey.slug}/"


def question_ids(survey):
    return list(survey.questions.values_list("id", flat=True))


def record_requests(page, requests=None):
    """Every request ``page`` makes, appended to ``requests`` as it happens."""
    requests = [] if requests is None else requests
    page.on("request", lambda request: requests.append(request))
    return requests


def answer(page, truths):
    """Tick Yes/No for each question id in ``truths`` ({id: bool})."""
    for qid, truth in truths.items():
        page.locator(f"#q-{qid}").get_by_label("Yes" if truth else "No", exact=True).check()


def take_survey(page, live_server, survey, truths):
    page.goto(page_url(live_server, survey))
    answer(page, truths)
    return submit_answers(page)


def test_respondents_send_only_a_submission_id_and_randomized_booleans(
    live_server, new_context, make_survey
):
    survey = make_survey()
    ids = question_ids(survey)
    origin = urlsplit(live_server.url)
    sent = []
    requests = []
    problems = []
    for respondent in range(5):
        page = new_context().new_page()
        record_requests(page, requests)
        page.on("pageerror", lambda error: problems.append(str(error)))
        page.on(
            "console",
            lambda message: (
                problems.append(message.text) if "Content Security Policy" in message.text else None
            ),
        )
        truths = {qid: (respondent + index) % 2 == 0 for index, qid in enumerate(ids)}
        sent.append(take_survey(page, live_server, survey, truths))
        assert page.evaluate(
            "() => [...document.querySelectorAll('main input')].every((i) => i.form === null)"
        )

    assert problems == []  # no script error, nothing the strict CSP had to block
    posts = [r for r in requests if r.method == "POST"]
    assert len(posts) == 5
    for request in posts:
        assert urlsplit(request.url).path == f"/api/v1/public/surveys/{survey.slug}/responses/"
        body = json.loads(request.post_data)
        # "groups" (grouping answers, sent as given) only when the survey asks any.
        grouped = survey.grouping_questions.exists()
        expected = {"submission_id", "answers", "design_fingerprint", "order", "padding"}
        assert set(body) == expected | ({"groups"} if grouped else set())
        assert body["padding"].strip(" ") == ""  # spaces only: one length per survey
        assert body["design_fingerprint"] == survey.design_fingerprint
        assert set(body["answers"]) == {str(qid) for qid in ids}
        assert all(isinstance(bit, bool) for bit in body["answers"].values())
    for request in requests:
        parts = urlsplit(request.url)
        assert (parts.scheme, parts.netloc) == (origin.scheme, origin.netloc), request.url

    # what the server stored is exactly what the browsers sent
    assert Submission.objects.filter(survey=survey).count() == 5
    for body in sent:
        stored = Submission.objects.get(submission_id=body["submission_id"]).reports
        assert stored == {f"q{qid}": bit for qid, bit in body["answers"].items()}


def test_answer_inputs_belong_to_no_form(live_server, page, make_translated_survey):
    # Offered in three languages, so the page has its language switcher (a form) too.
    open_survey = make_translated_survey()
    page.goto(page_url(live_server, open_survey))
    forms = page.evaluate(
        "() => [...document.querySelectorAll('main input, main button')].map((el) => el.form)"
    )
    assert forms and all(form is None for form in forms)
    # The page's one form is the language switcher in the header: it carries no answer, and
    # no CSRF token (the page sets no cookie); it reloads this page with ?lang=.
    switchers = page.evaluate(
        "() => [...document.forms].map((form) => [form.method, new URL(form.action).pathname, "
        "[...form.elements].map((element) => element.name)])"
    )
    assert switchers == [["get", f"/s/{open_survey.slug}/", ["lang", ""]]]


def test_without_javascript_nothing_is_sent_and_the_page_says_why(
    live_server, new_context, open_survey
):
    page = new_context(java_script_enabled=False).new_page()
    requests = record_requests(page)
    page.goto(page_url(live_server, open_survey))
    # (Playwright's text selectors skip <noscript>, so find the message by its class.)
    notice = page.locator(".respond-noscript")
    assert notice.is_visible()
    assert "randomizes them in your browser first" in notice.inner_text()
    answer(page, dict.fromkeys(question_ids(open_survey), True))
    page.keyboard.press("Enter")  # no implicit submission: the radios are in no form
    button = page.get_by_role("button", name="Randomize and send my answers")
    assert button.is_disabled()
    button.click(force=True)
    page.goto(page_url(live_server, open_survey))  # a round trip, so anything pending lands
    assert [r.url for r in requests if r.method != "GET"] == []
    assert all("?" not in r.url for r in requests)  # no GET form submission either
    assert Submission.objects.count() == 0


def test_thank_you_state_lists_only_what_was_sent_and_clears_the_true_answers(
    live_server, page, open_survey
):
    ids = question_ids(open_survey)
    body = take_survey(page, live_server, open_survey, {ids[0]: True, ids[1]: False})
    done = page.locator("#respond-done")
    assert done.is_visible()
    assert page.evaluate("() => document.activeElement.id") == "respond-done"
    assert page.get_by_role("heading", name="Thank you").is_visible()
    assert page.locator("#respond-questions").is_hidden()
    assert page.evaluate("() => document.querySelectorAll('input:checked').length") == 0

    page.get_by_text("Show what was sent").click()
    shown = page.locator("#respond-sent dd").all_inner_texts()
    assert shown == ["Yes" if body["answers"][str(qid)] else "No" for qid in ids]


def test_unanswered_questions_are_announced_and_focused_and_nothing_is_sent(
    live_server, page, open_survey
):
    ids = question_ids(open_survey)
    requests = record_requests(page)
    page.goto(page_url(live_server, open_survey))
    answer(page, {ids[0]: True})
    page.get_by_role("button", name="Randomize and send my answers").click()

    errors = page.locator("#respond-errors")
    assert errors.get_attribute("aria-live") == "assertive"
    assert "Question 2 has no answer yet" in errors.inner_text()
    second = page.locator(f"#q-{ids[1]}")
    assert second.get_attribute("aria-invalid") == "true"
    assert second.get_attribute("aria-describedby") == f"q-{ids[1]}-error"
    assert page.locator(f"#q-{ids[1]}-error").inner_text() == "Choose Yes or No."
    assert page.evaluate("() => document.activeElement.id") == f"q-{ids[1]}-yes"
    assert page.locator(f"#q-{ids[0]}").get_attribute("aria-invalid") is None
    assert not [r for r in requests if r.method == "POST"]

    answer(page, {ids[1]: False})
    assert second.get_attribute("aria-invalid") is None
    assert errors.inner_text() == ""


def test_a_retake_in_the_same_browser_replays_the_first_submission(
    live_server, new_context, make_survey
):
    survey = make_survey(
        questions=[f"Sensitive question {n}?" for n in range(1, 9)]  # 8 bits: a real check
    )
    ids = question_ids(survey)
    truths = {qid: index % 3 == 0 for index, qid in enumerate(ids)}
    page = new_context().new_page()
    first = take_survey(page, live_server, survey, truths)
    assert page.locator("#respond-done-replayed").is_hidden()

    page.goto(page_url(live_server, survey))  # same context: same storage
    already = page.locator("#respond-already")
    assert already.is_visible()
    assert "already answered this survey on this device" in already.inner_text()
    answer(page, truths)
    second = submit_answers(page)
    # Same bits under the same id: stored once, and the page says nothing new was counted.
    assert second == first
    assert page.locator("#respond-done-replayed").is_visible()
    assert Submission.objects.filter(survey=survey).count() == 1
    survey.refresh_from_db()
    assert survey.response_count == 1

    # Changing an answer sends the report the memo's secret fixes for the new answer, still
    # under the first id.
    (memo,) = [json.loads(value) for value in page.evaluate(STORAGE_DUMP).values()]
    flipped = {qid: not truth for qid, truth in truths.items()}
    third = take_survey(page, live_server, survey, flipped)
    assert third["submission_id"] == first["submission_id"]
    assert third["answers"] == derived_reports(page, secrets=memo["secrets"], truths=flipped)
    assert first["answers"] == derived_reports(page, secrets=memo["secrets"], truths=truths)
    assert Submission.objects.filter(survey=survey).count() == 1
    stored = Submission.objects.get(survey=survey).reports
    assert stored == {f"q{qid}": bit for qid, bit in first["answers"].items()}


def test_browser_storage_is_the_same_whatever_the_true_answers(
    live_server, new_context, make_survey
):
    survey = make_survey(questions=[f"Sensitive question {n}?" for n in range(1, 7)])
    ids = question_ids(survey)
    dumps = []
    for truth in (True, False):
        context = new_context()
        context.add_init_script(DETERMINISTIC_COINS)
        page = context.new_page()
        take_survey(page, live_server, survey, dict.fromkeys(ids, truth))
        dumps.append(
            {
                "local": page.evaluate(STORAGE_DUMP),
                "session": page.evaluate("() => sessionStorage.length"),
                "cookies": context.cookies(),
            }
        )
    all_yes, all_no = dumps
    # One memo: the submission id (random bytes, not coins), whether it was sent, and a random
    # secret per question (32 bytes, base64url), keyed by the survey and its design.
    ((key_yes, memo_yes),) = all_yes["local"].items()
    ((key_no, memo_no),) = all_no["local"].items()
    assert key_yes == key_no == f"rrsurvey:v3:{survey.slug}:{survey.design_fingerprint}"
    memo_yes, memo_no = json.loads(memo_yes), json.loads(memo_no)
    assert set(memo_yes) == {"submissionId", "sent", "secrets"}
    assert memo_yes["secrets"] == memo_no["secrets"]
    assert memo_yes["sent"] is memo_no["sent"] is True
    assert set(memo_yes["secrets"]) == {str(qid) for qid in ids}
    assert all(
        len(base64.urlsafe_b64decode(secret + "=")) == 32 for secret in memo_yes["secrets"].values()
    )
    assert all_yes["session"] == all_no["session"] == 0
    assert all_yes["cookies"] == all_no["cookies"] == []  # the page sets no cookie at all


def test_a_failed_send_is_retried_with_the_same_submission_id(live_server, page, open_survey):
    ids = question_ids(open_survey)
    attempts = []

    def flaky(route):
        attempts.append(json.loads(route.request.post_data))
        if len(attempts) == 1:
            route.abort("connectionreset")
        else:
            route.continue_()

    page.route(f"**{RESPONSES_PATH}", flaky)
    page.goto(page_url(live_server, open_survey))
    answer(page, dict.fromkeys(ids, True))
    button = page.get_by_role("button", name="Randomize and send my answers")
    button.click()
    status = page.locator("#respond-status")
    status.get_by_text("the connection failed").wait_for()
    assert button.is_enabled()

    body = submit_answers(page)
    assert len(attempts) == 2
    assert attempts[0] == attempts[1] == body
    assert Submission.objects.filter(survey=open_survey).count() == 1


def test_a_refusal_shows_the_servers_reason(live_server, page, open_survey):
    page.goto(page_url(live_server, open_survey))
    answer(page, dict.fromkeys(question_ids(open_survey), False))
    services.survey_close(survey=open_survey)  # closed while the respondent was answering
    page.get_by_role("button", name="Randomize and send my answers").click()
    status = page.locator("#respond-status")
    status.get_by_text("Your answers were not accepted").wait_for()
    assert "closed" in status.inner_text()
    assert page.locator("#respond-done").is_hidden()


def test_closed_survey_page_says_so(live_server, page, make_survey):
    survey = make_survey(status=Survey.Status.CLOSED)
    page.goto(page_url(live_server, survey))
    assert page.get_by_role("heading", name="This survey is closed").is_visible()
    assert page.locator("main input").count() == 0


def test_draft_survey_page_says_it_is_not_open_yet(live_server, page, make_survey):
    survey = make_survey(status=Survey.Status.DRAFT)
    page.goto(page_url(live_server, survey))
    assert page.get_by_role("heading", name="This survey is not open yet").is_visible()
    assert page.locator("main input").count() == 0


# One respondent in one round trip: tap every question's answer and the button (the page's own
# handlers run, as for a finger's tap). The survey is marked for shared devices, so each
# respondent in this one browser draws fresh coins, as people at a kiosk do.
FRESH_RESPONDENT_TAPS = """
([questionIds, truth]) => {
  for (const questionId of questionIds) {
    document.getElementById(`q-${questionId}-${truth ? "yes" : "no"}`).click();
  }
  document.getElementById("respond-submit").click();
}
"""


@pytest.mark.slow
def test_reported_yes_rates_match_three_quarters_and_one_quarter(
    live_server, page, make_survey, settings
):
    # 200 coins per true answer: 25 respondents of 8 questions, each question's coins drawn
    # from its own random secret (static/js/coins.js), so independent draws as 200 one-question
    # respondents would give, at an eighth of the page loads (each costs Chromium about 0.1 s
    # of CPU).
    settings.RESPONSE_RATE_LIMIT = None  # 50 submissions from one address: not its subject
    respondents, questions = 25, 8
    for truth, expected_rate in ((True, 3 / 4), (False, 1 / 4)):
        survey = make_survey(
            title=f"Truth {truth}",
            questions=[f"Question {n}?" for n in range(1, questions + 1)],
            shared_devices=True,
        )
        qids = question_ids(survey)
        url = page_url(live_server, survey)
        for _ in range(respondents):
            # Module scripts run before DOMContentLoaded, so the page is ready by then.
            page.goto(url, wait_until="domcontentloaded")
            with page.expect_response(
                lambda r: RESPONSES_PATH in r.url and r.request.method == "POST"
            ) as reply:
                page.evaluate(FRESH_RESPONDENT_TAPS, [qids, truth])
            assert reply.value.status == 201
        stored = [row.reports for row in Submission.objects.filter(survey=survey)]
        assert len(stored) == respondents
        assert all(set(reports) == {f"q{qid}" for qid in qids} for reports in stored)
        # Fresh coins for each respondent: 25 equal submissions would mean coins reused across
        # respondents (under fresh coins, a chance below 0.1 ** 24).
        assert len({tuple(sorted(reports.items())) for reports in stored}) > 1
        yes = sum(reports[f"q{qid}"] is True for reports in stored for qid in qids)
        # Browser crypto cannot be seeded, so this test is random: with correct coins it
        # fails with probability at most 1e-4 per truth (the p-value threshold), its
        # false-failure rate.
        result = binomtest(yes, respondents * questions, expected_rate)
        assert result.pvalue > 1e-4, (truth, yes, result.pvalue)


def test_researcher_preview_validates_but_sends_and_stores_nothing(
    live_server, page, sign_in, owner, make_survey
):
    survey = make_survey(status=Survey.Status.DRAFT)
    sign_in(page, live_server, owner)
    requests = record_requests(page)
    page.goto(f"{live_server.url}/surveys/{survey.pk}/preview/")
    assert page.get_by_role("note").get_by_text("Preview").is_visible()
    answer(page, dict.fromkeys(question_ids(survey), True))
    page.get_by_role("button", name="Randomize and send my answers").click()
    page.locator("#respond-status").get_by_text("nothing was sent").wait_for()
    assert [r.url for r in requests if r.method == "POST"] == []
    assert page.evaluate("() => localStorage.length") == 0
    assert Submission.objects.count() == 0


def test_the_practice_flip_announces_its_coins_and_sends_nothing(live_server, page, open_survey):
    """The "try it" control (issue 27 item 7): a button, reached and pressed with the keyboard,
    whose live region says what the survey's coins did with a practice "yes"; it sends and keeps
    nothing. The announcements follow the coins: with the classic 1/2, 1/2 coins, coin 1 lands
    heads half the time (binomial test; false-failure rate at most 1e-4)."""
    page.goto(page_url(live_server, open_survey), wait_until="networkidle")
    requests = record_requests(page)
    button = page.get_by_role("button", name="Try it: flip the coins for a practice “yes”")
    result = page.locator("#try-coins-result")
    assert result.get_attribute("role") == "status"
    assert result.get_attribute("aria-live") == "polite"
    button.focus()
    presses = 200
    announced = []
    for count in range(1, presses + 1):
        page.keyboard.press("Enter" if count % 2 else "Space")
        announced.append(result.inner_text())
        assert announced[-1].startswith(f"Practice {count}: coin 1 landed "), announced[-1]
        assert announced[-1].endswith("Nothing was sent.")
    heads = [text for text in announced if "landed heads" in text]
    assert all("your true answer, “Yes”, would be sent" in text for text in heads)
    tails = [text for text in announced if "landed tails" in text]
    assert len(heads) + len(tails) == presses
    assert binomtest(len(heads), presses, 1 / 2).pvalue > 1e-4, len(heads)
    assert {"“Yes”" in text for text in tails} == {True, False}  # coin 2 chose both ways
    # The browser may fetch the tab's icon late on its own; nothing else may leave the page.
    assert [r.url for r in requests if not r.url.endswith("/static/favicon.svg")] == []
    assert page.evaluate(STORAGE_DUMP) == {}
