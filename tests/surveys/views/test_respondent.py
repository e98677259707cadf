"""The respondent page as the server renders it: states, privacy numbers, inputs outside forms."""

import json
import math
from html.parser import HTMLParser

import pytest
from django.template.loader import render_to_string
from django.test import RequestFactory
from django.urls import reverse

from surveys import selectors
from surveys.formatting import epsilon_text
from surveys.models import Survey
from surveys.selectors import explanations
from surveys.views.respondent import respond_page_context

pytestmark = pytest.mark.django_db


def page_url(survey):
    return f"/s/{survey.slug}/"


def squeezed(response):
    """The page's HTML with runs of whitespace collapsed, so sentences read as written."""
    return " ".join(response.content.decode().split())


class PageStructure(HTMLParser):
    """Records every input with the forms around it, and the JSON definition block."""

    def __init__(self):
        super().__init__()
        self.open_forms = 0
        self.inputs = []
        self.buttons = []
        self.scripts = []
        self._script = None
        self.html_lang = None
        self.style_attributes = 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "style" in attrs:
            self.style_attributes += 1
        if tag == "html":
            self.html_lang = attrs.get("lang")
        elif tag == "form":
            self.open_forms += 1
        elif tag == "input":
            self.inputs.append({**attrs, "inside_form": self.open_forms > 0})
        elif tag == "button":
            self.buttons.append({**attrs, "inside_form": self.open_forms > 0})
        elif tag == "script":
            self._script = {"attrs": attrs, "text": ""}

    def handle_endtag(self, tag):
        if tag == "form":
            self.open_forms -= 1
        elif tag == "script" and self._script is not None:
            self.scripts.append(self._script)
            self._script = None

    def handle_data(self, data):
        if self._script is not None:
            self._script["text"] += data

    def definition(self):
        (block,) = [s for s in self.scripts if s["attrs"].get("id") == "respond-definition"]
        assert block["attrs"]["type"] == "application/json"
        return json.loads(block["text"])


def parse(response):
    structure = PageStructure()
    structure.feed(response.content.decode())
    return structure


def test_open_survey_shows_title_intro_and_a_yes_no_group_per_question(client, make_survey):
    survey = make_survey(intro="Please answer honestly; the coins protect you.")
    response = client.get(page_url(survey))
    assert response.status_code == 200
    html = response.content.decode()
    assert "Workplace habits" in html
    assert "the coins protect you." in html
    for question in survey.questions.all():
        assert question.text in html
        assert f'<fieldset class="question" id="q-{question.pk}"' in html
    radios = [i for i in parse(response).inputs if i.get("type") == "radio"]
    assert len(radios) == 2 * survey.questions.count()
    assert {r["value"] for r in radios} == {"yes", "no"}


def test_answer_inputs_and_submit_button_belong_to_no_form(client, open_survey):
    structure = parse(client.get(page_url(open_survey)))
    # (the language switcher is a form of its own: a select, a CSRF token and the page's path)
    answers = [i for i in structure.inputs if i.get("type") == "radio"]
    assert answers
    assert all(not i["inside_form"] for i in answers)
    assert all("form" not in i for i in answers)
    (submit,) = [b for b in structure.buttons if b.get("id") == "respond-submit"]
    assert submit["type"] == "button"
    assert not submit["inside_form"]
    assert "form" not in submit


def test_submit_button_starts_disabled_so_only_the_script_can_send(client, open_survey):
    buttons = parse(client.get(page_url(open_survey))).buttons
    (submit,) = [b for b in buttons if b.get("id") == "respond-submit"]
    assert "disabled" in submit


def test_page_explains_the_coins_before_the_questions_with_this_surveys_numbers(
    client, make_survey
):
    survey = make_survey(p_truth=0.75, p_forced_yes=0.5)
    html = squeezed(client.get(page_url(survey)))
    privacy = selectors.survey_privacy(survey=survey)
    # a = 0.75 + 0.25 * 0.5 = 0.875, b = 0.125; epsilon = ln 7 per answer, 2 ln 7 for two.
    assert math.isclose(privacy.per_answer_epsilon, math.log(7))
    assert "75% chance" in html
    assert "25% chance" in html
    assert "87.5%" in html and "12.5%" in html
    assert f"ε = {epsilon_text(privacy.per_answer_epsilon)}" in html  # 1.95
    # 2 ln 7 = 3.8918...: shown rounded up (issue 23), never as 3.89.
    assert "ε = 3.90" in html
    assert "at most 7 times" in html
    assert "at most 49 times" in html
    # Odds of 7 are more than the classic 3: the page says the coins lean towards the truth.
    assert "these coins lean towards the truth" in html
    assert "you could say the coin chose it" not in html
    assert html.index('class="coins-punchline"') < html.index('class="question"')


def test_classic_design_is_explained_as_half_and_half(client, open_survey):
    html = squeezed(client.get(page_url(open_survey)))
    assert "Heads (50% chance)" in html
    assert "“yes” (50%) or “no” (50%)" in html
    assert "“yes” 75% of the time" in html and "still 25% of the time" in html
    assert "ε = 1.10" in html and "ε = 2.20" in html
    assert "at most 3 times" in html and "at most 9 times" in html


def test_page_says_why_nothing_can_be_sent_without_javascript(client, open_survey):
    html = client.get(page_url(open_survey)).content.decode()
    noscript = html[html.index("<noscript>") : html.index("</noscript>")]
    assert "randomizes them in your browser first" in noscript
    assert "nothing can be submitted" in noscript


def test_page_has_no_inline_script_or_style(client, open_survey):
    structure = parse(client.get(page_url(open_survey)))
    assert structure.style_attributes == 0
    for script in structure.scripts:
        if script["attrs"].get("type") == "application/json":
            continue
        if script["attrs"].get("src") == f"{reverse('javascript-catalog')}?lang=en":
            assert script["text"].strip() == ""  # Django's JS catalog: a file, not inline
            continue
        assert script["attrs"].get("type") == "module"
        # The page's script, and the one that adds the respondent's own time to a closing time.
        assert script["attrs"].get("src", "").endswith(("js/respond.js", "js/localtime.js"))
        assert script["text"].strip() == ""
    assert "<style" not in client.get(page_url(open_survey)).content.decode()


def test_embedded_definition_matches_the_public_api(client, respondent, make_survey):
    survey = make_survey(p_truth=0.6, p_forced_yes=0.25, intro="Intro <b>text</b>")
    definition = parse(client.get(page_url(survey))).definition()
    api = respondent.get(f"/api/v1/public/surveys/{survey.slug}/")
    assert api.status_code == 200
    assert definition["survey"] == api.json()
    assert definition["submit_url"] == f"/api/v1/public/surveys/{survey.slug}/responses/"
    assert definition["preview"] is False
    assert [q["id"] for q in definition["survey"]["questions"]] == list(
        survey.questions.values_list("id", flat=True)
    )


def test_draft_survey_says_it_is_not_open_and_shows_no_inputs(client, make_survey):
    survey = make_survey(status=Survey.Status.DRAFT)
    response = client.get(page_url(survey))
    assert response.status_code == 200
    assert "This survey is not open yet" in response.content.decode()
    structure = parse(response)
    assert [i for i in structure.inputs if not i["inside_form"]] == []  # only the language form
    assert not any(s["attrs"].get("id") == "respond-definition" for s in structure.scripts)


def test_closed_survey_says_it_is_closed_and_shows_no_inputs(client, make_survey):
    survey = make_survey(status=Survey.Status.CLOSED)
    response = client.get(page_url(survey))
    assert response.status_code == 200
    html = response.content.decode()
    assert "This survey is closed" in html
    assert survey.questions.first().text not in html
    assert [i for i in parse(response).inputs if not i["inside_form"]] == []


def test_unknown_slug_is_a_friendly_404(client, open_survey):
    response = client.get("/s/no-such-survey-link/")
    assert response.status_code == 404
    assert "Survey not found" in response.content.decode()


def test_page_refuses_post_so_no_form_could_ever_submit_to_it(client, open_survey):
    response = client.post(page_url(open_survey), {"q-1": "yes"})
    assert response.status_code == 405


def test_page_is_never_cached(client, open_survey):
    response = client.get(page_url(open_survey))
    assert "no-store" in response.headers["Cache-Control"]


@pytest.mark.parametrize(
    ("accept_language", "expected"),
    [
        ("", "ko"),  # asks for nothing: the survey's language
        ("fr-FR,fr;q=0.9", "ko"),  # asks only for unsupported languages
        ("en-US,en;q=0.9", "en"),  # asks for a supported language: honoured
        ("zh-CN,zh;q=0.9", "zh-Hans"),  # <html lang> in BCP 47 form
        ("en;q=0", "ko"),  # q=0 means "not this one"
    ],
)
def test_page_language_is_the_surveys_unless_the_browser_asks_for_a_supported_one(
    client, make_translated_survey, accept_language, expected
):
    # Written in Korean, offered in English and Chinese too (surveys/selectors/languages.py).
    survey = make_translated_survey(language="ko", into=("en", "zh-hans"))
    headers = {"HTTP_ACCEPT_LANGUAGE": accept_language} if accept_language else {}
    response = client.get(page_url(survey), **headers)
    assert parse(response).html_lang == expected
    assert response.headers["Content-Language"].lower() == expected.lower()
    # the survey's own text is in the page's language, and marked with it
    title = survey.title if expected == "ko" else f"{survey.title} [{expected.lower()}]"
    assert f'<h1 lang="{expected}">{title}</h1>' in response.content.decode()


def test_preview_renders_everything_but_marks_the_definition_as_preview(make_survey):
    survey = make_survey(status=Survey.Status.DRAFT)
    html = render_to_string(
        "respond/respond.html",
        respond_page_context(survey, preview=True),
        request=RequestFactory().get("/"),
    )
    structure = PageStructure()
    structure.feed(html)
    assert "Preview" in html
    assert len([i for i in structure.inputs if i.get("type") == "radio"]) == 4
    assert structure.definition()["preview"] is True
    assert structure.definition()["survey"]["status"] == "draft"


# --- question types and designs (issue 17) -------------------------------------------------


def discrete_laplace_at_least(magnitude, *, scale):
    """P(|Z| >= m) by summing the pmf tanh(1 / (2 scale)) e^(-|z| / scale) far into the tail,
    independently of the closed form selectors.explanations uses."""
    alpha = math.exp(-1 / scale)
    norm = (1 - alpha) / (1 + alpha)
    inside = sum(norm * alpha ** abs(z) for z in range(-magnitude + 1, magnitude))
    return 1 - inside


def test_choice_and_numeric_questions_are_inputs_in_no_form(client, mixed_survey):
    structure = parse(client.get(page_url(mixed_survey)))
    _plain, _warner, choice, numeric = mixed_survey.questions.all()
    options = [i for i in structure.inputs if i.get("name") == f"q-{choice.pk}"]
    assert [(i["type"], i["value"], i["id"]) for i in options] == [
        ("radio", str(index), f"q-{choice.pk}-o{index}") for index in range(3)
    ]
    (number,) = [i for i in structure.inputs if i.get("name") == f"q-{numeric.pk}"]
    assert (number["type"], number["min"], number["max"], number["step"]) == (
        "number",
        "0",
        "30",
        "1",
    )
    assert number["inputmode"] == "numeric"
    assert number["aria-required"] == "true"
    assert not any(i["inside_form"] for i in structure.inputs)


def test_choice_options_are_a_labelled_radio_group_and_the_range_is_in_the_label(
    client, mixed_survey
):
    html = squeezed(client.get(page_url(mixed_survey)))
    _plain, _warner, choice, numeric = mixed_survey.questions.all()
    assert f'id="q-{choice.pk}" role="radiogroup"' in html
    for index, label in enumerate(["None", "Pens", "Paper"]):
        assert f'<label class="choice" for="q-{choice.pk}-o{index}">' in html
        assert f'<span lang="en">{label}</span>' in html
    assert (
        f'<label for="q-{numeric.pk}-value">Your answer: a whole number from 0 to 30</label>'
        in html
    )
    assert f'aria-describedby="q-{numeric.pk}-how"' in html
    assert "Anonymous survey · 4 questions" in html


def test_each_question_explains_its_randomization_with_its_own_chances(client, mixed_survey):
    html = squeezed(client.get(page_url(mixed_survey)))
    plain, warner, choice, numeric = mixed_survey.questions.all()

    def how(question):
        start = html.index(f'id="q-{question.pk}-how"')
        return html[start : html.index("</fieldset>", start)]

    assert "with a 50% chance your browser sends your true answer" in how(plain)
    assert "“yes” (50%) or “no” (50%)" in how(plain)
    assert "we receive “yes” 75% of the time; when it is no, 25% of the time" in how(plain)
    # Warner p = 3/4: the statement 75%, its opposite 25%; a = 3/4, b = 1/4.
    assert "with a 75% chance you answer the statement as written; otherwise (25%)" in how(warner)
    assert "we receive “yes” 75% of the time; when it is no, 25% of the time" in how(warner)
    # k = 3, ε = ln 3: keep e^ε / (e^ε + 2) = 3/5, each other option 1/5.
    assert "sends your option with a 60% chance" in how(choice)
    assert "one of the 2 other options, picked at random" in how(choice)
    assert "each of them is sent with a 20% chance" in how(choice)
    assert "within 0 to 30" in how(numeric)
    assert "ε = 2.00" in how(numeric)
    # The coins are not explained a second time above the questions.
    assert "Heads (50% chance)" not in html


def test_the_numeric_noise_the_page_quotes_is_as_common_as_it_says(client, mixed_survey):
    html = squeezed(client.get(page_url(mixed_survey)))
    # Range 30, ε = 2: scale 15. |Z| >= 10 has chance 0.530 and >= 11 0.497, so 10 is the
    # largest size reached at least half the time; >= 35 has 0.1005 and >= 36 0.0940.
    scale = 30 / 2.0
    assert discrete_laplace_at_least(10, scale=scale) >= 0.5
    assert discrete_laplace_at_least(11, scale=scale) < 0.5
    assert discrete_laplace_at_least(35, scale=scale) >= 0.1
    assert discrete_laplace_at_least(36, scale=scale) < 0.1
    assert "At least half the time the noise moves your number by 10 or more." in html
    assert "At least one time in ten it moves it by 35 or more." in html


@pytest.mark.parametrize(
    ("scale", "share"),
    [(15.0, 0.5), (15.0, 0.1), (0.5, 0.5), (0.5, 0.1), (1 / 2.1972, 0.5), (400.0, 0.5)],
)
def test_noise_reached_is_the_largest_size_that_common(scale, share):
    alpha = math.exp(-1 / scale)
    magnitude = explanations.noise_reached(alpha=alpha, share=share)
    assert discrete_laplace_at_least(magnitude, scale=scale) >= share
    assert discrete_laplace_at_least(magnitude + 1, scale=scale) < share


def test_a_narrow_numeric_range_says_the_number_is_often_sent_unchanged(client, make_survey):
    # Range 1, ε = 2: P(Z = 0) = (1 - e^-2) / (1 + e^-2) = 0.76, more than half.
    survey = make_survey(
        questions=[
            {"text": "Smoker (0 or 1)?", "type": "numeric", "min": 0, "max": 1, "epsilon": 2}
        ]
    )
    html = squeezed(client.get(page_url(survey)))
    assert "More than half the time no noise is added" in html


def test_every_yes_no_design_is_explained_with_its_numbers(client, make_survey):
    survey = make_survey(
        questions=[
            {
                "text": "Q unrelated?",
                "design": {"kind": "unrelated_question", "p": 0.5, "pi": 0.25},
            },
            {"text": "Q kuk?", "design": {"kind": "kuk", "theta1": 0.625, "theta2": 0.25}},
            {"text": "Q mangat?", "design": {"kind": "mangat", "p": 0.75, "t": 0.75}},
        ]
    )
    html = squeezed(client.get(page_url(survey)))
    # unrelated question: a = 1/2 + 1/2 · 1/4 = 5/8, b = 1/8
    assert "With a 50% chance your browser sends your true answer; otherwise your device" in html
    assert "whose answer is “yes” with a 25% chance" in html
    assert "we receive “yes” 62.5% of the time; when it is no, 12.5% of the time" in html
    # Kuk: the decks' red shares are a and b
    assert "the first is 62.5% red, the second 25% red" in html
    assert "we receive “yes” 62.5% of the time; when it is no, 25% of the time" in html
    # Mangat (t = 3/4): a = 1/4 + 3/4 · 3/4 = 13/16, b = 1/4
    assert "sends “yes” straight away with a 25% chance" in html
    assert "we receive “yes” 81.2% of the time; when it is no, 25% of the time" in html


def test_the_privacy_ledger_lists_each_questions_epsilon_and_the_total(client, mixed_survey):
    html = squeezed(client.get(page_url(mixed_survey)))
    ledger = html[
        html.index('id="privacy-ledger"') : html.index("</dl>", html.index("privacy-ledger"))
    ]
    for number, epsilon in enumerate(["1.10", "1.10", "1.10", "2.00"], start=1):
        assert f"<dt>Question {number}</dt> <dd>ε = {epsilon}</dd>" in ledger
    assert f"ε = {epsilon_text(3 * math.log(3) + 2)}" in ledger  # 5.30
    # The largest single ε is the numeric question's 2: e^2 = 7.39; e^(3 ln 3 + 2) = 27 e^2
    # = 199.5 for all of them.
    assert "here at most 7.4 times for any single question" in html
    assert "together at most 200 times" in html


def test_a_survey_of_one_design_keeps_one_epsilon_per_answer(client, make_survey):
    survey = make_survey(
        questions=[
            {"text": "First?", "design": {"kind": "warner", "p": 0.8}},
            {"text": "Second?", "design": {"kind": "warner", "p": 0.8}},
        ]
    )
    html = squeezed(client.get(page_url(survey)))
    # Warner p = 0.8: ε = ln 4 = 1.39 each (not the survey coins' ln 3), 2.77 in all.
    assert "Privacy loss per answer</dt> <dd>ε = 1.39</dd>" in html
    assert "ε = 2.78" in html  # 2 ln 4 = 2.7726..., rounded up
    assert 'id="privacy-ledger"' not in html
    assert "at most 4 times as likely under one true answer as under the other" in html


def test_what_is_sent_and_kept_is_described_for_each_type(client, make_survey, mixed_survey):
    html = squeezed(client.get(page_url(mixed_survey)))
    assert "for a yes/no question, a yes or a no;" in html
    assert "the number of one option: yours, or another one your browser picked" in html
    assert "a noisy whole number: your number, kept within its range, plus random noise" in html
    assert "one per option, for a numeric question one per whole number in its range" in html
    assert "a random key drawn before your answer is read, which fixes in advance" in html
    assert "The key is drawn before your answer is read" in html

    only_choice = make_survey(
        questions=[{"text": "Pick one", "type": "choice", "options": ["A", "B"]}],
        shared_devices=True,
    )
    html = squeezed(client.get(page_url(only_choice)))
    assert "for a multiple-choice question, the number of one option" in html
    assert "for a yes/no question, a yes or a no;" not in html
    assert "for a numeric question, a noisy whole number" not in html
    assert "Kept in this browser: nothing, once your answers are sent" in html
    assert "otherwise it sends the other option instead (25% chance)" in html


def test_a_yes_no_survey_on_the_coins_keeps_its_page(client, open_survey):
    html = squeezed(client.get(page_url(open_survey)))
    assert "Anonymous survey · 2 yes/no questions" in html
    assert "For each question, your browser flips two coins." in html
    assert 'class="randomization"' not in html  # the coins are explained once, above
    assert "the yes or no the coins produced" in html


def test_mangat_that_never_says_yes_straight_away_is_explained_as_the_spinner(client, make_survey):
    survey = make_survey(
        questions=[{"text": "Q?", "design": {"kind": "mangat", "p": 0.75, "t": 1}}]
    )
    html = squeezed(client.get(page_url(survey)))
    assert "straight away" not in html
    assert "with a 75% chance you answer the statement as written; otherwise (25%)" in html


def questions_tag(html):
    start = html.index('id="respond-questions"')
    return html[html.rindex("<section", 0, start) : html.index(">", start) + 1]


@pytest.mark.parametrize(("access", "hidden"), [("invitation", True), ("both", False)])
def test_an_invitation_only_page_hides_its_questions_until_the_code_is_known(
    client, make_survey, access, hidden
):
    """respond.js asks the code's state first (docs/invitations.md, "A second device"): the
    questions of an invitation-only survey come hidden, and the definition says where to ask."""
    survey = make_survey(access=access)
    html = client.get(page_url(survey)).content.decode()
    assert (" hidden" in questions_tag(html)) is hidden
    structure = PageStructure()
    structure.feed(html)
    assert structure.definition()["invitation_status_url"] == (
        f"/api/v1/public/surveys/{survey.slug}/invitation-status/"
    )
    assert "Opening the page only checks the code, without using it." in squeezed(
        client.get(page_url(survey))
    )


def test_a_link_survey_and_the_preview_show_their_questions(client, open_survey, make_survey):
    html = client.get(page_url(open_survey)).content.decode()
    assert " hidden" not in questions_tag(html)
    structure = PageStructure()
    structure.feed(html)
    assert "invitation_status_url" not in structure.definition()
    draft = make_survey(access="invitation", status=Survey.Status.DRAFT)
    preview = render_to_string(
        "respond/respond.html",
        respond_page_context(draft, preview=True),
        request=RequestFactory().get("/"),
    )
    assert " hidden" not in questions_tag(preview)
