"""The respondent page with a direct-questioning control group (issue 27 item 2): before any
answer it says the chance of being asked some questions directly and that this is sent; each
compared question carries the note control.js reveals in the control group; the ledger says
the ε does not cover those answers then; nothing of it without a control group."""

import pytest
from django.urls import reverse

from tests.helpers import first_screen_blocks, word_count

pytestmark = pytest.mark.django_db

QUESTIONS = [
    {"text": "Did you take supplies home?", "compare_direct": True},
    {"text": "Did you call in sick when well?"},
]


def page(client, survey, language="en"):
    return client.get(reverse("surveys:respond", args=[survey.slug]), {"lang": language})


def test_the_page_says_the_chance_and_that_it_is_sent_before_the_questions(client, make_survey):
    survey = make_survey(questions=QUESTIONS, control_share=0.25)
    html = page(client, survey).content.decode()
    note = html.index('id="control-group-note"')
    assert note < html.index('id="respond-questions"')
    assert "With a 25% chance, questions marked “may be asked directly” skip the coins" in html
    assert "those answers, and that fact, are sent as given" in html
    first = survey.questions.first()
    # At the compared question: marked, and the note the script reveals in the control group.
    assert f'id="q-{first.pk}-may"' in html
    assert f'id="q-{first.pk}-control" hidden' in html
    assert f'id="q-{survey.questions.last().pk}-may"' not in html
    # The ledger: ε covers a compared answer only outside the control group.
    assert 'data-stat="control-group"' in html
    assert "not covered by its ε" in html
    # What is sent, and the thank-you the script swaps in.
    assert "whether your device asked them with coins or directly" in html
    assert 'id="respond-done-control" hidden' in html and 'id="respond-done-coins"' in html


def test_the_first_screen_stays_within_80_words(client, make_survey):
    for language in ("en", "ko", "zh-hans"):
        survey = make_survey(questions=QUESTIONS, control_share=0.25, language=language)
        blocks = first_screen_blocks(page(client, survey, language).content.decode())
        words = sum(word_count(block) for block in blocks)
        assert words <= 80, (language, words, blocks)


@pytest.mark.parametrize(
    "fields",
    [
        {"control_share": 0.0, "questions": QUESTIONS},
        {"control_share": 0.3, "questions": [{"text": "Not compared?"}]},
    ],
)
def test_nothing_is_said_without_a_control_group(client, make_survey, fields):
    html = page(client, make_survey(**fields)).content.decode()
    for marker in ('id="control-group-note"', "-may", 'data-stat="control-group"', "done-control"):
        assert marker not in html


def test_with_direct_questions_no_sentence_says_only_the_coins_results_leave(client, make_survey):
    questions = [{"text": "Did you?"}, {"text": "Do you manage people?", "randomized": False}]
    html = page(client, make_survey(questions=questions)).content.decode()
    assert 'id="respond-done-coins" hidden' in html
    assert "Your answers to the questions asked directly left this device as you gave them" in html
    assert 'id="respond-done-control" hidden' not in html
    assert "Only the coins' results are sent, and your answers to the questions marked" in html
