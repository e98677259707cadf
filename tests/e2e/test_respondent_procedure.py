"""The respondent procedure in a real Chromium (issue 33): the page shows the coin's outcome as
an instruction, the respondent presses an answer, and the POST body holds exactly the answers
pressed (for CDM, with the group the instruction named) and nothing about the instruction; the
memo the browser keeps is the same whatever is pressed, and a reload shows the same
instruction. The practice round shows an instruction as a question shows it."""

import json
import re

import pytest
from scipy.stats import binomtest

from surveys.models import Submission
from tests.helpers import RESPONSES_PATH

pytestmark = pytest.mark.e2e

ALPHA = 1e-7
CDM = {"kind": "cdm", "p": [0.25, 0.75], "group_share": 0.3}
QUESTIONS = [
    {"text": "Have you ever taken supplies home?", "procedure": "respondent"},
    {"text": "Have you ever called in sick when well?", "design": CDM},
]
MEMOS = """
() => Object.entries(localStorage)
  .filter(([key]) => key.startsWith("rrsurvey:"))
  .map(([key, value]) => [key, JSON.parse(value)])
"""
FORCED = {
    "The coin says: answer truthfully.": None,
    "The coin says: choose “Yes”, whatever the truth.": True,
    "The coin says: choose “No”, whatever the truth.": False,
}
CDM_TEXT = re.compile(
    r"You are in group ([12])\. The coin says: "
    r"(choose “Yes”, whatever the truth|answer truthfully)\."
)


def ids_of(survey):
    return [str(qid) for qid in survey.questions.values_list("id", flat=True)]


def instruction(page, qid):
    text = page.locator(f"#q-{qid}-instruction-text")
    text.wait_for(state="visible")
    return text.inner_text()


def test_the_instruction_is_shown_and_only_the_answer_pressed_is_sent(
    live_server, page, make_survey
):
    survey = make_survey(title="Follow the coin", questions=QUESTIONS)
    coins, cdm = ids_of(survey)
    requests, problems = [], []
    page.on("request", lambda request: requests.append(request))
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    shown = {qid: instruction(page, qid) for qid in (coins, cdm)}
    assert shown[coins] in FORCED, shown
    told = CDM_TEXT.fullmatch(shown[cdm])
    assert told, shown
    group = int(told.group(1))
    # The memo is drawn as the page opens, before any answer, and no answer changes it.
    (opened,) = page.evaluate(MEMOS)
    assert set(opened[1]["secrets"]) == {coins, cdm} and opened[1]["sent"] is False
    memos = []
    for first, second in (("Yes", "No"), ("No", "Yes"), ("Yes", "Yes"), ("No", "No")):
        page.locator(f"#q-{coins}").get_by_label(first, exact=True).check()
        page.locator(f"#q-{cdm}").get_by_label(second, exact=True).check()
        memos.append(page.evaluate(MEMOS))
    assert all(memo == [opened] for memo in memos)
    # Pressed: No to the first (whatever its coin said), No to CDM (a "cheater").
    with page.expect_response(
        lambda r: RESPONSES_PATH in r.url and r.request.method == "POST"
    ) as reply:
        page.get_by_role("button", name="Randomize and send my answers").click()
    assert reply.value.status == 201, reply.value.text()
    raw = reply.value.request.post_data
    body = json.loads(raw)
    assert set(body) == {"submission_id", "answers", "design_fingerprint", "order", "padding"}
    # The order shown is the questions' ids only: nothing of the instruction shown.
    assert sorted(body["order"]) == sorted(int(key) for key in body["answers"])
    assert body["answers"] == {coins: False, cdm: 2 * (group - 1)}
    assert body["padding"].strip() == ""
    # Nothing about the instruction shown: not its words, not the coin.
    for text in shown.values():
        assert text not in raw
    assert not re.search(r"coin|truth|outcome|instruct|group", raw, re.IGNORECASE)
    stored = Submission.objects.get(submission_id=body["submission_id"]).reports
    assert stored == {f"q{coins}": False, f"q{cdm}": 2 * (group - 1)}
    posts = [r for r in requests if r.method == "POST"]
    assert [r.post_data for r in posts] == [raw]
    (after,) = page.evaluate(MEMOS)
    assert after[1]["secrets"] == opened[1]["secrets"] and after[1]["sent"] is True
    # A retake shows the same instructions (the memo's secrets fix them).
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    assert {qid: instruction(page, qid) for qid in (coins, cdm)} == shown
    assert problems == []


def test_the_instructions_follow_the_published_probabilities(live_server, page, make_survey):
    """Many fresh secrets drawn by the page's own modules with the browser's crypto: the CDM
    group with group_share, "choose Yes" with p of the group; the coins' three outcomes."""
    survey = make_survey(title="Follow the coin", questions=QUESTIONS, shared_devices=True)
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    draws = 4000
    outcomes = page.evaluate(
        """async ([count]) => {
          const { memoOutcome, newSecret } = await import("/static/js/coins.js");
          const { questionRandomizer } = await import("/static/js/designs.js");
          const { survey } = JSON.parse(document.getElementById("respond-definition").textContent);
          const coins = { p_truth: survey.p_truth, p_forced_yes: survey.p_forced_yes };
          const out = [];
          for (let i = 0; i < count; i += 1) {
            out.push(survey.questions.map((question) => memoOutcome({
              randomizer: questionRandomizer(question, coins),
              questionId: String(question.id),
              secret: newSecret(crypto),
            })));
          }
          return out;
        }""",
        [draws],
    )
    forced = [first["coin"] for first, _second in outcomes]
    assert binomtest(forced.count("truth"), draws, 0.5).pvalue > ALPHA
    assert binomtest(forced.count("yes"), draws, 0.25).pvalue > ALPHA
    groups = [second["group"] for _first, second in outcomes]
    assert binomtest(groups.count(1), draws, 0.3).pvalue > ALPHA
    for group, p in ((1, 0.25), (2, 0.75)):
        told = [second["pressYes"] for _f, second in outcomes if second["group"] == group]
        assert binomtest(sum(told), len(told), p).pvalue > ALPHA, group


def test_the_practice_round_shows_an_instruction_as_the_question_does(
    live_server, page, make_survey
):
    survey = make_survey(
        title="Practise following", questions=QUESTIONS[1:], comprehension_check=True
    )
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    practice = page.locator("#respond-practice")
    practice.wait_for(state="visible")
    scenario = practice.locator(".practice-scenario").inner_text()
    match = re.fullmatch(
        r"Suppose your true answer is “(Yes|No)”, and the question shows: (.*) "
        r"What do you choose\?",
        scenario,
    )
    assert match, scenario
    truth, shown = match.group(1) == "Yes", match.group(2)
    assert CDM_TEXT.fullmatch(shown), shown
    right = truth or "choose “Yes”" in shown
    practice.get_by_label("Yes" if right else "No", exact=True).check()
    feedback = practice.locator(".practice-feedback").inner_text()
    assert feedback.startswith("Right: you choose"), feedback
