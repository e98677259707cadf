"""Random question order in a real Chromium (issue 27 item 5): each browser draws its own
order, the page numbers the questions as shown, and nothing sent says what the order was."""

import json

import pytest

from tests.helpers import RESPONSES_PATH

pytestmark = pytest.mark.e2e

QUESTIONS = 8  # 8! = 40,320 orders


def shown_order(page):
    return page.locator("#respond-questions fieldset.question").evaluate_all(
        "(sets) => sets.map((set) => set.id)"
    )


def test_each_browser_draws_its_own_order_and_sends_none_of_it(
    live_server, new_context, make_survey
):
    survey = make_survey(
        questions=[f"Statement number {i}?" for i in range(QUESTIONS)], shuffle_questions=True
    )
    ids = list(survey.questions.values_list("id", flat=True))
    orders, bodies = [], []
    for _ in range(2):
        page = new_context().new_page()  # a fresh context: no memo, no storage
        page.goto(f"{live_server.url}/s/{survey.slug}/")
        order = shown_order(page)
        assert sorted(order) == sorted(f"q-{qid}" for qid in ids)
        # "Question k of 8" follows the order shown, not the survey's order.
        numbers = page.locator("#respond-questions .question-number").all_inner_texts()
        assert [text.split("\n")[0].strip() for text in numbers] == [
            f"Question {k} of {QUESTIONS}" for k in range(1, QUESTIONS + 1)
        ]
        for fieldset_id in order:
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
    for body in bodies:
        answers = json.loads(body)["answers"]
        # The answers in id order in both bodies, whatever order was shown; nothing else
        # in the body could carry an order (the definition's keys only).
        assert list(answers) == [str(qid) for qid in sorted(ids)]
        assert set(json.loads(body)) == {
            "submission_id", "answers", "design_fingerprint", "padding",
        }  # fmt: skip
    assert len(bodies[0]) == len(bodies[1])


def test_without_shuffle_the_survey_order_is_kept(live_server, page, make_survey):
    survey = make_survey(questions=[f"Statement number {i}?" for i in range(QUESTIONS)])
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    ids = list(survey.questions.values_list("id", flat=True))
    assert shown_order(page) == [f"q-{qid}" for qid in ids]
