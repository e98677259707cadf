"""Building a survey with every question type in a real Chromium (issue 17): with the script,
only the chosen type's and design's fields show, the ε they give is shown live, and each added
question is stored as chosen; without the script every field is on the page and the form still
posts. The builder with all three types stays at 0 axe violations; a screenshot is kept."""

import math
import os
from pathlib import Path

import pytest
from playwright.sync_api import expect

from dpengine import Kuk, UnrelatedQuestion
from surveys.formatting import epsilon_text
from surveys.models import Survey
from surveys.services.question_types import question_type_spec
from tests.e2e.accessibility import axe_violations, open_page

pytestmark = pytest.mark.e2e

ARTIFACTS = Path(os.environ.get("TEST_ARTIFACTS", "test-artifacts"))


def add(page, text):
    page.locator("#id_text").fill(text)
    page.get_by_role("button", name="Add question").click()
    expect(page.locator(".question-item__text").last).to_have_text(text)


def test_each_type_is_built_through_the_page_with_its_live_epsilon(
    live_server, new_context, sign_in, owner, make_survey
):
    survey = make_survey(status=Survey.Status.DRAFT, questions=[])
    page = open_page(
        new_context, sign_in, live_server, owner,
        path=f"/surveys/{survey.pk}/", locale="en-US", width=1280,
    )  # fmt: skip
    live = page.locator("[data-live-epsilon-value]")

    # Yes/no with the survey's coins: no parameters shown, ε = ln 3.
    expect(page.locator('[data-for-design="warner"]')).to_be_hidden()
    expect(page.locator('[data-for-type="choice"]')).to_be_hidden()
    expect(page.locator("#id_options")).to_be_disabled()
    expect(live).to_have_text(f"{math.log(3):.2f}")
    add(page, "Taken office supplies home?")

    # Unrelated question: its two parameters, dpengine's defaults, ε = ln 5; then changed.
    page.locator("#id_design").select_option("unrelated_question")
    expect(page.locator('[data-for-design="unrelated_question"]')).to_be_visible()
    expect(page.locator('[data-for-design="kuk"]')).to_be_hidden()
    expect(page.locator("#id_unrelated_question_pi")).to_have_value("0.25")
    expect(live).to_have_text(f"{UnrelatedQuestion().epsilon:.2f}")
    page.locator("#id_unrelated_question_p").fill("0.6")
    expect(live).to_have_text(f"{UnrelatedQuestion(p=0.6, pi=0.25).epsilon:.2f}")
    page.locator("#id_unrelated_question_p").fill("0")
    expect(page.locator("[data-live-epsilon-invalid]")).to_be_visible()
    # A box emptied while typing stays empty (its default comes back only when it reappears).
    page.locator("#id_unrelated_question_p").fill("")
    expect(page.locator("#id_unrelated_question_p")).to_have_value("")
    expect(live).to_have_text("—")
    page.locator("#id_unrelated_question_p").press_sequentially("0.6")
    expect(page.locator("[data-live-epsilon-invalid]")).to_be_hidden()
    add(page, "Lied to your manager?")

    # The box keeps the last question's design for the next; Kuk at its defaults.
    expect(page.locator("#id_design")).to_have_value("unrelated_question")
    expect(page.locator("#id_unrelated_question_p")).to_have_value("0.6")
    page.locator("#id_design").select_option("kuk")
    expect(live).to_have_text(f"{Kuk().epsilon:.2f}")
    add(page, "Cards?")

    # Multiple choice: the options box and ε; ε live as typed.
    page.get_by_label("Multiple choice", exact=True).check()
    expect(page.locator('[data-for-type="yes_no"]')).to_be_hidden()
    expect(page.locator("#id_options")).to_be_visible()
    page.locator("#id_options").fill("None\nPens\nPaper")
    page.locator("#id_epsilon").fill("0.8")
    expect(live).to_have_text("0.80")
    add(page, "Which did you take?")

    # Numeric: range and ε.
    page.get_by_label("Number in a range", exact=True).check()
    expect(page.locator("#id_options")).to_be_hidden()
    page.locator("#id_min").fill("0")
    page.locator("#id_max").fill("30")
    page.locator("#id_epsilon").fill("2")
    add(page, "Drinks a week?")

    # An error lands beside its field and nothing is stored.
    page.get_by_label("Number in a range", exact=True).check()
    page.locator("#id_min").fill("5")
    page.locator("#id_max").fill("5")
    page.locator("#id_text").fill("Broken?")
    page.get_by_role("button", name="Add question").click()
    expect(page.locator(".error-summary")).to_contain_text(
        "Must be greater than “Smallest answer (number)” (5)."
    )
    expect(page.locator('[data-for-type="numeric"] .errorlist')).to_contain_text("greater")

    assert [question_type_spec(q) for q in survey.questions.all()] == [
        {"type": "yes_no", "design": {}},
        {"type": "yes_no", "design": {"kind": "unrelated_question", "p": 0.6, "pi": 0.25}},
        {"type": "yes_no", "design": {"kind": "kuk", **Kuk().parameters}},
        {"type": "choice", "options": ["None", "Pens", "Paper"], "epsilon": 0.8},
        {"type": "numeric", "min": 0, "max": 30, "epsilon": 2.0},
    ]
    # The list and the ledger say each question's ε; the total is their sum.
    total = math.log(3) + UnrelatedQuestion(p=0.6).epsilon
    total += Kuk().epsilon + 0.8 + 2.0
    expect(page.locator("[data-stat=question-epsilon]")).to_have_count(5)
    # 6.7608...: shown rounded up (issue 23), 6.77.
    expect(page.locator("[data-stat=total-epsilon]")).to_have_text(epsilon_text(total))

    page.reload()
    page.locator("#id_text").fill("")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "builder-question-types.png"), full_page=True)
    page.locator("#id_design").select_option("mangat")
    page.locator("#questions").screenshot(path=str(ARTIFACTS / "builder-questions-card.png"))
    page.locator(".privacy-panel").screenshot(path=str(ARTIFACTS / "builder-privacy-ledger.png"))
    assert axe_violations(page) == []


def test_without_a_script_every_field_shows_and_a_choice_question_is_added(
    live_server, new_context, sign_in, owner, make_survey
):
    survey = make_survey(status=Survey.Status.DRAFT, questions=[])
    page = open_page(
        new_context, sign_in, live_server, owner,
        path=f"/surveys/{survey.pk}/", locale="en-US", width=1280, java_script_enabled=False,
    )  # fmt: skip
    for selector in ("#id_design", "#id_warner_p", "#id_mangat_t", "#id_options", "#id_min"):
        expect(page.locator(selector)).to_be_visible()
    page.locator("#id_text").fill("Which?")
    page.get_by_label("Multiple choice", exact=True).check()
    page.locator("#id_options").fill("Red\nBlue")
    with page.expect_navigation():
        page.get_by_role("button", name="Add question").click()
    expect(page.get_by_text("Question added.")).to_be_visible()
    assert [question_type_spec(q) for q in survey.questions.all()] == [
        {"type": "choice", "options": ["Red", "Blue"], "epsilon": pytest.approx(math.log(3))}
    ]


def test_the_edit_page_shows_the_stored_type_and_changes_it(
    live_server, new_context, sign_in, owner, make_survey
):
    survey = make_survey(
        status=Survey.Status.DRAFT,
        questions=[{"text": "Which?", "type": "choice", "options": ["Red", "Blue"]}],
    )
    question = survey.questions.get()
    page = open_page(
        new_context, sign_in, live_server, owner,
        path=f"/surveys/{survey.pk}/questions/{question.pk}/edit/", locale="en-US", width=390,
    )  # fmt: skip
    expect(page.locator("#id_options")).to_have_value("Red\nBlue")
    expect(page.locator('[data-for-type="yes_no"]')).to_be_hidden()
    page.get_by_label("Yes or no", exact=True).check()
    page.locator("#id_design").select_option("warner")
    page.locator("#id_warner_p").fill("0.8")
    expect(page.locator("[data-live-epsilon-value]")).to_have_text(f"{math.log(4):.2f}")
    assert axe_violations(page) == []
    with page.expect_navigation():
        page.get_by_role("button", name="Save question").click()
    question.refresh_from_db()
    assert question_type_spec(question) == {
        "type": "yes_no",
        "design": {"kind": "warner", "p": 0.8},
    }
    assert question.options == []
