"""A respondent page a layperson reads in a minute (issue 27 item 7): before the first question,
beyond the researcher's own title, intro and consent text, at most about 80 words of ours, in
plain English (Flesch reading ease >= 60), in every language; every number one click away in a
closed native <details>.

Words and readability are measured by tests/helpers.py (``first_screen_blocks``,
``word_count``, ``flesch_reading_ease``), whose docstrings state their approximations: Korean
counts its space-separated words, Chinese half a word per character.
"""

import re

import pytest
from django.urls import reverse

from tests.helpers import (
    MIXED_QUESTIONS,
    first_screen_blocks,
    flesch_reading_ease,
    word_count,
)

pytestmark = pytest.mark.django_db

LANGUAGES = ("en", "ko", "zh-hans")
MAX_WORDS = 80
MIN_READING_EASE = 60
# The survey's sorts whose first screen differs: the classic coins; every design and type
# (and so the general sentence); coins weak enough for the warning, with a consent text to
# tick and optional questions (the longest first screen there is).
SURVEYS = {
    "classic": {},
    "mixed": {"questions": MIXED_QUESTIONS},
    # A cheating-detection question adds its own note (a "no" there is conclusive).
    "cheating detection": {
        "questions": [
            {"text": "Question 1?"},
            {"text": "Question 2?", "design": {"kind": "cdm", "p": [0.25, 0.75]}},
        ]
    },
    "weak, consent, optional": {
        "p_truth": 0.9,  # odds 19: weak, on a site whose ceiling allows it
        "p_forced_yes": 0.5,
        "consent_text": "I agree to take part in this study. " * 20,
        "questions": [{"text": f"Question {i}?", "required": False} for i in range(3)],
    },
    # The comprehension check's practice comes before the questions: its heading and note
    # count (tests/helpers.py REVEALED_BY_SCRIPT), up to its first round.
    "comprehension": {"questions": MIXED_QUESTIONS, "comprehension_check": True},
}


@pytest.fixture(autouse=True)
def weak_coins_allowed(settings):
    settings.MAX_EPSILON_PER_ANSWER = 20.0


def first_screen(client, make_survey, *, language, fields):
    survey = make_survey(language=language, **fields)
    page = client.get(reverse("surveys:respond", args=[survey.slug]), {"lang": language})
    return page.content.decode()


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("kind", SURVEYS)
def test_at_most_80_words_of_ours_come_before_the_first_question(
    client, make_survey, language, kind
):
    html = first_screen(client, make_survey, language=language, fields=SURVEYS[kind])
    blocks = first_screen_blocks(html)
    words = sum(word_count(block) for block in blocks)
    assert 20 <= words <= MAX_WORDS, (words, blocks)
    # The researcher's own words are not ours: the consent text (100 words here) is left out.
    assert not any("I agree to take part in this study" in block for block in blocks)


@pytest.mark.parametrize("kind", SURVEYS)
def test_the_english_before_the_first_question_is_plain(client, make_survey, kind):
    blocks = first_screen_blocks(
        first_screen(client, make_survey, language="en", fields=SURVEYS[kind])
    )
    assert flesch_reading_ease(blocks) >= MIN_READING_EASE, blocks


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("kind", SURVEYS)
def test_every_number_is_one_click_away_under_details(client, make_survey, language, kind):
    html = first_screen(client, make_survey, language=language, fields=SURVEYS[kind])
    section = re.search(r'<section class="card coins".*?</section>', html, re.DOTALL).group(0)
    details = re.search(
        r'<details class="respond-details privacy-details" id="privacy-details">(.*)</details>',
        section,
        re.DOTALL,
    ).group(1)
    # A closed native <details>: its <summary> is the one click (or key press) away.
    assert details.lstrip().startswith("<summary>")
    before = section.split('<details class="respond-details privacy-details"')[0]
    assert "ε" not in " ".join(first_screen_blocks(html))
    assert "ε =" not in before and "%" not in before
    assert "ε =" in details
    # A survey not all on the survey's coins states each question's chances at the question.
    if kind not in ("mixed", "cheating detection", "comprehension"):
        assert "%" in details


def test_the_words_are_counted_as_a_reader_counts_them():
    assert word_count("Your device flips virtual coins — before · anything.") == 7
    assert word_count("보내기 전에 기기가 가상의 동전을 던집니다.") == 6
    assert word_count("发送之前，您的设备") == 4  # eight Han characters and a comma
    # A text a child reads scores high, a dense one low (Flesch 1948).
    assert flesch_reading_ease(["The cat sat on the mat."]) > 100
    assert (
        flesch_reading_ease(
            ["Differential privacy quantifies informational disclosure probabilistically."]
        )
        < 0
    )
