"""The comprehension check in a real Chromium (issue 27 item 4): each design's practice round
gives feedback, and the only thing sent about the practice is, per round, whether the first
try was right: a boolean in the one submission body, for the round's hidden question."""

import json
import re
from urllib.parse import urlsplit

import pytest

from surveys import selectors
from surveys.models import Question, Submission
from tests.helpers import submit_answers

pytestmark = pytest.mark.e2e

QUESTIONS = [
    {"text": "Have you taken office supplies home?"},
    {"text": "Have you lied to your manager?", "design": {"kind": "warner", "p": 0.75}},
]
STORAGE_DUMP = """
() => Object.fromEntries(
  Array.from({length: localStorage.length}, (_, i) => localStorage.key(i))
    .map((key) => [key, localStorage.getItem(key)])
)
"""


def right_choice(scenario_text):
    """The answer a round's made-up case sends: always the other one than the true answer."""
    truth = re.search(r"Suppose your true answer is “(Yes|No)”", scenario_text).group(1)
    return "No" if truth == "Yes" else "Yes"


def practise(page, round_id, choices):
    """Choose each of ``choices`` ("right"/"wrong") in turn in one round; the feedback texts."""
    fieldset = page.locator(f"#practice-{round_id}")
    right = right_choice(fieldset.locator(".practice-scenario").inner_text())
    wrong = "Yes" if right == "No" else "No"
    said = []
    for choice in choices:
        fieldset.get_by_label(right if choice == "right" else wrong, exact=True).check()
        said.append(page.locator(f"#practice-{round_id}-feedback").inner_text())
    return said


def hidden_ids(survey):
    return [
        str(pk)
        for pk in Question.all_objects.filter(survey=survey, role="comprehension").values_list(
            "id", flat=True
        )
    ]


def test_the_practice_sends_only_whether_each_first_try_was_right(live_server, page, make_survey):
    survey = make_survey(questions=QUESTIONS, comprehension_check=True)
    coins, warner = hidden_ids(survey)
    real = [str(pk) for pk in survey.questions.values_list("id", flat=True)]
    page.goto(f"{live_server.url}/s/{survey.slug}/", wait_until="networkidle")
    requests = []
    page.on("request", lambda request: requests.append(request))
    assert page.locator("#respond-practice").is_visible()
    # Wrong first, then right: the feedback says so each time, and the first try counts.
    said = practise(page, coins, ["wrong", "right"])
    assert said[0].startswith("Not quite: your device sends")
    assert "coin 2 decides" in said[0]
    assert said[1].startswith("Right: your device sends")
    said = practise(page, warner, ["right"])
    assert said[0].startswith("Right:") and "opposite statement" in said[0]
    before_sending = [r.url for r in requests if not r.url.endswith("/static/favicon.svg")]
    requests.clear()
    for qid in real:
        page.locator(f"#q-{qid}").get_by_label("Yes", exact=True).check()
    body = submit_answers(page)

    # Practising sent nothing; sending sent one POST, and about the practice only two booleans.
    assert before_sending == []
    posts = [r for r in requests if r.method == "POST"]
    assert len(posts) == 1
    assert urlsplit(posts[0].url).path == f"/api/v1/public/surveys/{survey.slug}/responses/"
    assert set(body) == {"submission_id", "answers", "design_fingerprint", "order", "padding"}
    assert set(body["answers"]) == {*real, coins, warner}
    assert body["answers"][coins] is False  # the first try was wrong
    assert body["answers"][warner] is True
    assert all(isinstance(value, bool) for value in body["answers"].values())
    assert (
        len(posts[0].post_data.encode())
        == json.loads(page.locator("#respond-definition").inner_text())["survey"][
            "submission_length"
        ]
    )
    # Nothing about the practice is kept in the browser either: the memo holds the randomized
    # questions' secrets and the submission id, nothing for the hidden questions.
    (memo,) = [json.loads(value) for value in page.evaluate(STORAGE_DUMP).values()]
    assert set(memo) == {"submissionId", "sent", "secrets"}
    assert set(memo["secrets"]) == set(real)
    # The thank-you lists the practice results as sent as given.
    listed = page.locator("#respond-sent").text_content()
    assert "Practice round 1" in listed
    assert "first try not right (sent as given, not randomized)" in listed
    assert not page.locator("#respond-practice").is_visible()
    stored = Submission.objects.get(submission_id=body["submission_id"]).reports
    assert stored[f"q{coins}"] is False and stored[f"q{warner}"] is True
    results = selectors.comprehension_results(survey=survey)
    assert [(r.understood.count, r.understood.n) for r in results] == [(0, 1), (1, 1)]


def test_a_respondent_who_skips_the_practice_sends_nothing_about_it(live_server, page, make_survey):
    survey = make_survey(questions=QUESTIONS, comprehension_check=True)
    real = [str(pk) for pk in survey.questions.values_list("id", flat=True)]
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    for qid in real:
        page.locator(f"#q-{qid}").get_by_label("No", exact=True).check()
    body = submit_answers(page)
    assert set(body["answers"]) == set(real)
