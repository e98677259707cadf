"""What the respondent page says about privacy comes from the numbers the tests check.

For several designs and in every language, the page's a, b, ε (per answer and in total), the
odds behind its wording, and its sentence about what the browser keeps, are compared with
dpengine's numbers and the survey's settings (issue 12: no fixed promise, no "0%").
"""

import html as html_module
import math
import re
from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext

import dpengine
from dpengine import ForcedResponse
from surveys import selectors
from surveys.formatting import epsilon_text
from surveys.templatetags.respond_tags import cover_of, percent, times
from tests.helpers import EVERY_KIND_QUESTIONS, EVERY_KIND_SETTINGS, MIXED_QUESTIONS

pytestmark = pytest.mark.django_db

LANGUAGES = ("en", "ko", "zh-hans")
DESIGNS = [(0.5, 0.5), (0.25, 0.5), (0.75, 0.5), (0.8, 0.5), (0.5, 0.2), (0.001, 0.001)]
KEPT_PERSONAL = (
    "Kept in this browser: the random submission number and, for each question, a random key "
    "which fixes in advance the two answers of the coins — one used if your answer is yes, one "
    "if it is no — so that taking the survey again on this device sends the same answers, "
    "counted once, and the coins cannot be averaged away. The key is drawn before you answer, "
    "so it says nothing about your answer."
)
KEPT_SHARED = (
    "Kept in this browser: nothing, once your answers are sent. This survey is set up for a "
    "shared device, so the next person's coins are flipped afresh."
)


def coins_section(html):
    return re.search(r'<section class="card coins".*?</section>', html, re.DOTALL).group(0)


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(("p_truth", "p_forced_yes"), DESIGNS)
def test_the_page_states_the_designs_own_numbers(
    client, make_survey, language, p_truth, p_forced_yes
):
    # Written in that language: a respondent page speaks one of the survey's languages.
    survey = make_survey(p_truth=p_truth, p_forced_yes=p_forced_yes, language=language)
    design = ForcedResponse(p_truth=p_truth, p_forced_yes=p_forced_yes)
    a, b, epsilon = design.p_yes_given_yes, design.p_yes_given_no, design.epsilon
    html = client.get(
        reverse("surveys:respond", args=[survey.slug]), {"lang": language}
    ).content.decode()
    section = coins_section(html)

    for chance in (a, b, p_truth, 1 - p_truth, p_forced_yes, 1 - p_forced_yes):
        shown = percent(chance)
        assert shown in section, (language, chance)
        # What is shown is the chance, to its shown precision, and never 0% or 100%.
        value = float(shown.rstrip("%")) / 100
        decimals = len(shown.rstrip("%").partition(".")[2])
        assert abs(value - chance) <= 0.5 * 10 ** -(decimals + 2) + 1e-12
        assert 0 < value < 1
    assert f"ε = {epsilon_text(epsilon)}" in section
    assert f"ε = {epsilon_text(2 * epsilon)}" in section  # two questions
    assert times(math.exp(epsilon)) in section

    cover = re.search(r'class="coins-punchline" data-cover="(\w+)"', section).group(1)
    assert cover == cover_of(math.exp(epsilon))
    with translation.override(language):
        if cover == "strong":
            assert gettext("So whatever we receive, you could say the coin chose it.") in section
        else:
            assert times(math.exp(epsilon)) in section.split('class="coins-punchline"')[1]


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("shared_devices", [False, True])
def test_the_page_says_what_the_browser_keeps_as_the_survey_is_set(
    client, make_survey, language, shared_devices
):
    survey = make_survey(shared_devices=shared_devices, language=language)
    html = client.get(
        reverse("surveys:respond", args=[survey.slug]), {"lang": language}
    ).content.decode()
    with translation.override(language):
        kept, other = (
            (gettext(KEPT_SHARED), gettext(KEPT_PERSONAL))
            if shared_devices
            else (gettext(KEPT_PERSONAL), gettext(KEPT_SHARED))
        )
    assert kept in html
    assert other not in html
    if language != "en":
        assert kept not in (KEPT_SHARED, KEPT_PERSONAL)  # translated, not English


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (0.75, "75%"),
        (0.125, "12.5%"),
        (0.000001, "0.0001%"),
        (0.0002, "0.02%"),
        (0.99999, "99.999%"),
        (0.9996, "99.96%"),
        (1.0, "100%"),
        (0.0, "0%"),
    ],
)
def test_percentages_never_round_a_chance_to_impossible_or_certain(value, shown):
    assert percent(value) == shown


@pytest.mark.parametrize(
    ("odds", "cover"),
    [(1.5, "strong"), (3.0000000000000004, "strong"), (3.01, "moderate"), (9.0, "moderate"),
     (9.01, "weak"), (1e6, "weak")],
)  # fmt: skip
def test_the_cover_wording_follows_the_odds(odds, cover):
    assert cover_of(odds) == cover


# The lay reading of the whole-survey ε (issue 14): msgids as the templates' trimmed
# blocktranslate blocks produce them.
TOTAL_MEANING_RESPONDENT = (
    "If you answer all %(k)s questions: taken together, everything we receive from you can "
    "make any guess about your answers at most %(all)s times more likely, or less likely, "
    "than it was before — even odds could become at most %(all)s to 1. This total grows with "
    "every question, because each answer goes through its own coins and can multiply the "
    "bound by up to %(one)s."
)
TOTAL_MEANING_BUILDER = (
    "In plain words: for a respondent who answers all %(k)s questions, everything they send, "
    "taken together, can make any guess about their answers at most %(all)s times more (or "
    "less) likely than before. Each answer goes through its own coins and can multiply this by "
    "up to %(one)s, so the total grows with every question you add."
)
TOTAL_DESIGNS = [(0.5, 0.5, 5), (0.25, 0.5, 3), (0.8, 0.5, 7), (0.5, 0.2, 2)]


def plain_text(html):
    return re.sub(r"\s+", " ", html_module.unescape(re.sub(r"<[^>]+>", " ", html)))


def total_meaning(msgid, *, design, questions, language):
    """The statement with dpengine's numbers: odds per answer and for all answers together."""
    report = dpengine.privacy_report(design, questions=questions)
    with translation.override(language):
        statement = gettext(msgid) % {
            "k": questions,
            "one": times(report.per_answer_odds),
            "all": times(report.total_odds),
        }
        translated = gettext(msgid) != msgid
    assert translated == (language != "en"), language
    return statement


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(("p_truth", "p_forced_yes", "questions"), TOTAL_DESIGNS)
def test_the_respondent_page_explains_the_total_in_plain_words(
    client, make_translated_survey, language, p_truth, p_forced_yes, questions
):
    survey = make_translated_survey(
        p_truth=p_truth,
        p_forced_yes=p_forced_yes,
        questions=[f"Question number {i}?" for i in range(questions)],
    )
    design = ForcedResponse(p_truth=p_truth, p_forced_yes=p_forced_yes)
    html = client.get(
        reverse("surveys:respond", args=[survey.slug]), {"lang": language}
    ).content.decode()
    expected = total_meaning(
        TOTAL_MEANING_RESPONDENT, design=design, questions=questions, language=language
    )
    assert expected in plain_text(coins_section(html))
    # e.g. the classic coins and 5 questions: 3 per answer, 3^5 = 243 for all of them
    if (p_truth, p_forced_yes, questions) == (0.5, 0.5, 5):
        assert times(dpengine.privacy_report(design, questions=5).total_odds) == "243"


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(("p_truth", "p_forced_yes", "questions"), TOTAL_DESIGNS)
def test_the_builders_live_numbers_explain_the_total_in_plain_words(
    owner_client, language, p_truth, p_forced_yes, questions
):
    design = ForcedResponse(p_truth=p_truth, p_forced_yes=p_forced_yes)
    response = owner_client.get(
        reverse("surveys:design-preview"),
        {"p_truth": p_truth, "p_forced_yes": p_forced_yes, "questions": questions},
        HTTP_ACCEPT_LANGUAGE=language,
    )
    expected = total_meaning(
        TOTAL_MEANING_BUILDER, design=design, questions=questions, language=language
    )
    assert expected in plain_text(response.json()["html"])


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.slow
def test_the_builder_page_explains_the_saved_surveys_total(owner_client, make_survey, language):
    survey = make_survey(status="draft", questions=[f"Question {i}?" for i in range(4)])
    html = owner_client.get(
        reverse("surveys:builder", args=[survey.pk]), HTTP_ACCEPT_LANGUAGE=language
    ).content.decode()
    expected = total_meaning(
        TOTAL_MEANING_BUILDER, design=ForcedResponse(0.5, 0.5), questions=4, language=language
    )
    assert "81" in expected  # 3^4
    assert expected in plain_text(html)


def test_one_question_has_no_separate_reading_of_the_total(client, make_survey):
    survey = make_survey(questions=["Only this?"])
    html = client.get(reverse("surveys:respond", args=[survey.slug])).content.decode()
    assert 'data-stat="total-meaning"' not in html


COIN_2 = (
    "If coin 1 lands tails (%(chance)s chance), this coin decides instead — “yes” (%(yes)s) or "
    "“no” (%(no)s), whatever your answer."
)


@pytest.mark.parametrize("language", LANGUAGES)
def test_coin_2_reads_as_deciding_after_coin_1s_tails(client, make_translated_survey, language):
    # Verifies last session's fix: "Coin 2 — Tails (50%)…" read as if coin 2 had the tails.
    survey = make_translated_survey(p_truth=0.25, p_forced_yes=0.5)
    html = client.get(
        reverse("surveys:respond", args=[survey.slug]), {"lang": language}
    ).content.decode()
    with translation.override(language):
        expected = gettext(COIN_2) % {"chance": "75%", "yes": "50%", "no": "50%"}
    assert expected in plain_text(coins_section(html))
    assert (expected == COIN_2 % {"chance": "75%", "yes": "50%", "no": "50%"}) == (language == "en")


@pytest.mark.parametrize(
    ("odds", "shown"),
    [
        (math.exp(0.5), "1.7"),  # 1.6487...: a bound is rounded up, never to 1.6
        (math.exp(math.log(3)), "3"),  # float noise of the exact 3 is not rounded up
        (3.04, "3.1"),
        (9.4, "9.4"),
        (243.00000000001, "243"),
        (243.2, "244"),
        (1e9, "1,000,000,000"),
    ],
)
def test_odds_are_shown_rounded_up(odds, shown):
    assert times(odds) == shown


SKIP_NOTE = (
    "Questions marked “optional” may be left blank. A skipped question sends nothing, and what "
    "this device keeps looks the same as if it had been answered. The coins do not hide a skip, "
    "so the researcher sees that you skipped it, though not why."
)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_page_says_a_skip_leaves_the_device_as_an_answer_would(client, make_survey, language):
    """Kept true by tests/e2e/test_submission_shape.py (the memo is the same whether the
    questions were answered or skipped) and tests/js/optional.test.mjs."""
    survey = make_survey(questions=[{"text": "Q?", "required": False}], language=language)
    page = client.get(reverse("surveys:respond", args=[survey.slug]), HTTP_ACCEPT_LANGUAGE=language)
    with translation.override(language):
        assert gettext(SKIP_NOTE) in html_module.unescape(page.content.decode())
        if language != "en":
            assert gettext(SKIP_NOTE) != SKIP_NOTE  # translated, not the English fallback


# The respondent's first screen (issue 27 item 7): each privacy sentence shown before the
# questions, with the test that fails if it is false. The numbers behind them (the chances,
# ε, the odds) moved unchanged into "Details" and are checked by the tests above.
FIRST_SCREEN = {
    # Only randomized reports leave the page, drawn in the browser before sending.
    "Your device flips virtual coins before anything is sent.": (
        "tests/e2e/test_respondent.py::"
        "test_respondents_send_only_a_submission_id_and_randomized_booleans"
    ),
    "Your device adds chance to each answer before anything is sent.": (
        "tests/e2e/test_question_types.py::"
        "test_each_type_sends_only_its_randomized_report_and_the_server_stores_it"
    ),
    # Every accepted design has its chances strictly inside (0, 1), so every report is possible
    # under every true answer (finite ε); the browser's reports follow the published chances.
    "Sometimes it sends your true answer, sometimes a random one, so no answer proves what you "
    "said.": (
        "tests/dpengine/test_designs.py::"
        "test_probabilities_outside_the_open_unit_interval_are_rejected",
        "tests/e2e/test_respondent.py::test_reported_yes_rates_match_three_quarters_and_one_quarter",
        # Not shown where a design makes a "no" conclusive (CDM, SLD: epsilon is inf).
        "tests/surveys/test_cheating_questions.py::"
        "test_no_answer_proves_what_you_said_is_never_said_when_a_no_is_conclusive",
    ),
    # The server keeps only randomized reports; results are estimates over many people.
    "The researcher learns how common each answer is, not yours.": (
        "tests/e2e/test_respondent.py::"
        "test_respondents_send_only_a_submission_id_and_randomized_booleans",
    ),
    "These coins protect you only weakly.": (
        "tests/surveys/views/test_privacy_statements.py::test_the_cover_wording_follows_the_odds",
        "tests/surveys/views/test_privacy_statements.py::"
        "test_the_first_screen_says_what_it_says_in_every_language",
    ),
    "Your agreement is not sent or stored.": (
        "tests/e2e/test_pilot_consent_schedule.py::"
        "test_consent_must_be_accepted_before_the_questions_show",
    ),
    # The practice flips the page's own coins and sends nothing.
    "Try it: flip the coins for a practice “yes”": (
        "tests/js/practice.test.mjs",
        "tests/e2e/test_respondent.py::test_the_practice_flip_announces_its_coins_and_sends_nothing",
    ),
    # The comprehension check: about the practice, only each round's first-try result leaves
    # the page (a boolean per round tried), and a wrong one does not stop the respondent.
    "See what your device does with an answer. Only whether your first try is right is sent. "
    "You can go on either way.": (
        "tests/js/comprehension.test.mjs",
        "tests/e2e/test_comprehension.py::"
        "test_the_practice_sends_only_whether_each_first_try_was_right",
        "tests/e2e/test_comprehension.py::"
        "test_a_respondent_who_skips_the_practice_sends_nothing_about_it",
    ),
}


def test_every_first_screen_sentence_names_a_test_that_exists():
    root = Path(__file__).resolve().parents[3]
    for sentence, tests in FIRST_SCREEN.items():
        for test in (tests,) if isinstance(tests, str) else tests:
            path, _, name = test.partition("::")
            source = (root / path).read_text()
            assert not name or re.search(rf"^def {name}\(", source, re.MULTILINE), (sentence, test)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_first_screen_says_what_it_says_in_every_language(
    client, make_survey, settings, language
):
    """The sentences above are the page's, translated; the weak-coins warning shows exactly
    when the odds are weak, and the general sentence exactly when not every question uses
    the survey's coins."""
    settings.MAX_EPSILON_PER_ANSWER = 20.0  # a site that allows weak coins (odds 19 here)
    shown = {}
    for kind, fields in {
        "strong": {},
        "weak": {"p_truth": 0.9, "p_forced_yes": 0.5, "consent_text": "Consent?"},
        "mixed": {"questions": MIXED_QUESTIONS},
        "comprehension": {"comprehension_check": True},
    }.items():
        survey = make_survey(language=language, **fields)
        page = client.get(reverse("surveys:respond", args=[survey.slug]), {"lang": language})
        shown[kind] = plain_text(page.content.decode())
    with translation.override(language):
        said = {sentence: gettext(sentence) for sentence in FIRST_SCREEN}
    if language != "en":
        assert all(said[sentence] != sentence for sentence in FIRST_SCREEN)  # translated
    coins, general, truth, learns, weak, consent, practice, understood = said.values()
    for kind, text in shown.items():
        assert (coins in text) == (kind != "mixed"), kind
        assert (general in text) == (kind == "mixed"), kind
        assert truth in text and learns in text, kind
        assert (weak in text) == (kind == "weak"), kind
        assert (consent in text) == (kind == "weak"), kind
        assert (practice in text) == (kind != "mixed"), kind
        assert (understood in text) == (kind == "comprehension"), kind
    assert cover_of(math.exp(ForcedResponse(0.9, 0.5).epsilon)) == "weak"


def test_the_results_page_counts_the_questions_its_total_epsilon_covers(make_survey, owner_client):
    """The total ε sums the questions covered by ε, and the sentence names them so: of a
    survey of every kind, not all its questions (issue 36 item 1)."""
    survey = make_survey(questions=EVERY_KIND_QUESTIONS, **EVERY_KIND_SETTINGS)
    covered = selectors.privacy_ledger(survey=survey).questions
    assert 0 < covered < len(EVERY_KIND_QUESTIONS)
    page = owner_client.get(reverse("surveys:results", args=[survey.pk])).content.decode()
    text = re.sub(r"\s+", " ", html_module.unescape(re.sub(r"<[^>]+>", " ", page)))
    assert f"a respondent who answered all {covered} questions covered by ε has a total ε" in text
