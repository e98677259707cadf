"""The respondent page as the server renders it: states, privacy numbers, inputs outside forms."""

import json
import math
from html.parser import HTMLParser

import pytest
from django.template.loader import render_to_string
from django.test import RequestFactory
from django.urls import reverse

from surveys import selectors
from surveys.models import Survey
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
    assert f"ε = {privacy.per_answer_epsilon:.2f}" in html  # 1.95
    assert f"ε = {privacy.total_epsilon:.2f}" in html  # 3.89
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
        assert script["attrs"].get("src", "").endswith("js/respond.js")
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
    # Written in Korean, offered in English and Chinese too (surveys/languages.py).
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
