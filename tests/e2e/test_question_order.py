"""Random question order in a real Chromium (issue 27 item 5, issue 33 item 5): each browser
draws its own order, keeps a pinned question in its place, numbers the questions and labels
their "Clear answer" buttons as shown, and sends the order it showed, which is stored as each
question's position."""

import json
import re

import pytest

from surveys.models import Submission
from tests.helpers import RESPONSES_PATH

pytestmark = pytest.mark.e2e

QUESTIONS = 8  # 8! = 40,320 orders


def shown_order(page):
    return page.locator("#respond-questions fieldset.question").evaluate_all(
        "(sets) => sets.map((set) => set.id)"
    )


def test_each_browser_draws_its_own_order_sends_it_and_keeps_the_pinned_question(
    live_server, new_context, make_survey
):
    questions = [{"text": f"Statement number {i}?", "required": False} for i in range(QUESTIONS)]
    questions.append({"text": "Closing statement?", "required": False, "pinned": True})
    total = len(questions)
    survey = make_survey(questions=questions, shuffle_questions=True)
    ids = list(survey.questions.values_list("id", flat=True))
    orders, bodies = [], []
    for _ in range(2):
        page = new_context().new_page()  # a fresh context: no memo, no storage
        page.goto(f"{live_server.url}/s/{survey.slug}/")
        order = shown_order(page)
        assert sorted(order) == sorted(f"q-{qid}" for qid in ids)
        assert order[-1] == f"q-{ids[-1]}"  # pinned: where the researcher put it
        # "Question k of 9" and "Clear answer to question k of 9" follow the order shown.
        numbers = page.locator("#respond-questions .question-number").all_inner_texts()
        assert [re.match(r"Question \d+ of \d+", text.strip())[0] for text in numbers] == [
            f"Question {k} of {total}" for k in range(1, total + 1)
        ]
        for k, fieldset_id in enumerate(order, start=1):
            clear = page.locator(f"#{fieldset_id} button.skip-clear")
            assert clear.text_content().strip() == f"Clear answer to question {k} of {total}"
            page.locator(f"#{fieldset_id}").get_by_label("Yes", exact=True).check()
        with page.expect_request(
            lambda r: RESPONSES_PATH in r.url and r.method == "POST"
        ) as request:
            page.get_by_role("button", name="Randomize and send my answers").click()
        orders.append(order)
        bodies.append(request.value.post_data)
        page.locator("#respond-done").wait_for(state="visible")
    # Two uniform draws agree with probability 1/8! = 1/40,320 (about 2.5e-5): this test's
    # false-failure rate.
    assert orders[0] != orders[1]
    for body, order in zip(bodies, orders, strict=True):
        sent = json.loads(body)
        # The answers in id order in both bodies; the order shown is sent once, as `order`.
        assert list(sent["answers"]) == [str(qid) for qid in sorted(ids)]
        assert sent["order"] == [int(fieldset_id.removeprefix("q-")) for fieldset_id in order]
        assert set(sent) == {
            "submission_id", "answers", "design_fingerprint", "order", "padding",
        }  # fmt: skip
        stored = Submission.objects.get(submission_id=sent["submission_id"])
        assert stored.positions == {f"q{qid}": k for k, qid in enumerate(sent["order"], start=1)}
    assert len(bodies[0]) == len(bodies[1])


def test_without_shuffle_the_survey_order_is_kept(live_server, page, make_survey):
    survey = make_survey(questions=[f"Statement number {i}?" for i in range(QUESTIONS)])
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    ids = list(survey.questions.values_list("id", flat=True))
    assert shown_order(page) == [f"q-{qid}" for qid in ids]
