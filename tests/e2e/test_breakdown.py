"""Grouping questions end to end in Chromium: respondents answer one through the page, and
the researcher's breakdown and regression pages show the right n per group."""

import os
import re

import numpy as np
import pytest

from surveys import services
from surveys.services import grouping
from tests.helpers import submit_answers

pytestmark = pytest.mark.e2e

SHOTS = "/tmp/shots"
DEPARTMENTS = ("Sales", "Research", "Support")


@pytest.fixture
def survey(owner):
    """Two yes/no questions, one grouping question; 40 earlier respondents each in Sales and
    Research (seeded, stored as a browser would), nobody yet in Support."""
    survey = services.survey_create(
        owner=owner,
        title="Workplace habits",
        questions=[
            "Have you ever taken office supplies home for private use?",
            "Have you used drugs at work in the past year?",
        ],
        min_n=5,
    )
    gq = grouping.grouping_question_add(
        survey=survey, text="Which department do you work in?", options=DEPARTMENTS, required=True
    )
    survey = services.survey_open(survey=survey)
    sales, research, _support = gq.options.all()
    rng = np.random.default_rng(2024)
    services.simulated_submissions_record(
        survey=survey,
        reports=rng.random((80, 2)) < 0.5,
        options=[[sales.pk]] * 40 + [[research.pk]] * 40,
    )
    survey.refresh_from_db()
    return survey


def shoot(page, name):
    os.makedirs(SHOTS, exist_ok=True)
    page.screenshot(path=f"{SHOTS}/{name}.png", full_page=True)


def answer_and_send(page, truths, department):
    for qid, truth in truths.items():
        page.locator(f"#q-{qid}").get_by_label("Yes" if truth else "No", exact=True).check()
    page.locator(".question--grouping").get_by_label(department, exact=True).check()
    return submit_answers(page)


def test_respondents_answer_a_grouping_question_and_the_researcher_sees_n_per_group(
    live_server, new_context, sign_in, owner, survey
):
    question_ids = list(survey.questions.values_list("id", flat=True))
    gq = survey.grouping_questions.get()
    option_ids = {o.label: o.pk for o in gq.options.all()}
    url = f"{live_server.url}/s/{survey.slug}/"

    # A respondent who forgets the grouping question is told so, at the question.
    page = new_context().new_page()
    page.goto(url)
    notice = page.locator(".question--grouping")
    assert "This one is not randomized" in notice.inner_text()
    assert "cover only the randomized questions" in page.locator("#grouping-note").inner_text()
    shoot(page, "grouping-respondent-desktop")
    for qid in question_ids:
        page.locator(f"#q-{qid}").get_by_label("No", exact=True).check()
    page.get_by_role("button", name="Randomize and send my answers").click()
    assert "About you 1 has no answer yet" in page.locator("#respond-errors").inner_text()
    assert page.locator(f"#g-{gq.pk}").get_attribute("aria-invalid") == "true"
    assert page.evaluate("() => document.activeElement.name") == f"g-{gq.pk}"
    assert page.evaluate(
        "() => [...document.querySelectorAll('#respond-questions input')]"
        ".every((input) => input.form === null)"
    )

    # Three respondents through the page: one in each department.
    bodies = []
    for index, department in enumerate(DEPARTMENTS):
        if index > 0:
            page = new_context(viewport={"width": 390, "height": 844}).new_page()
            page.goto(url)
        truths = {qid: (index + position) % 2 == 0 for position, qid in enumerate(question_ids)}
        bodies.append(answer_and_send(page, truths, department))
        if index == 2:
            shoot(page, "grouping-respondent-done-phone")
    for body, department in zip(bodies, DEPARTMENTS, strict=True):
        assert set(body) == {
            "submission_id",
            "answers",
            "groups",
            "design_fingerprint",
            "order",
            "padding",
        }
        assert body["groups"] == {str(gq.pk): str(option_ids[department])}
        assert all(isinstance(bit, bool) for bit in body["answers"].values())

    # The researcher's breakdown: 41, 41 and 1 respondents; Support is withheld, and says why.
    researcher = new_context().new_page()
    sign_in(researcher, live_server, owner)
    researcher.goto(f"{live_server.url}/surveys/{survey.pk}/breakdown/")
    counts = researcher.locator(".group-counts").inner_text()
    assert re.search(r"Sales\s+41 respondents", counts)
    assert re.search(r"Research\s+41 respondents", counts)
    assert re.search(r"Support\s+1 respondent\b", counts)
    for question_id in question_ids:
        card = researcher.locator(f'.breakdown-card[data-question="{question_id}"]')
        for department, n in (("Sales", 41), ("Research", 41), ("Support", 1)):
            row = card.locator(f'tr[data-option="{option_ids[department]}"]')
            assert row.locator('td[data-label="n"]').inner_text() == str(n)
        support = card.locator(f'tr[data-option="{option_ids["Support"]}"]')
        assert support.get_attribute("data-status") == "too_few"
        assert (
            "Withheld: 1 response in this group, fewer than the survey’s minimum of 5"
            in support.inner_text()
        )
        sales = card.locator(f'tr[data-option="{option_ids["Sales"]}"]')
        assert re.search(r"\d+\.\d%", sales.inner_text())  # an estimate is shown
    shoot(researcher, "breakdown-desktop")
    researcher.set_viewport_size({"width": 390, "height": 844})
    shoot(researcher, "breakdown-phone")

    # The regression page: the same n per option; one respondent in Support separates the
    # data (a single report is all yes or all no), so there is a message instead of a table.
    researcher.set_viewport_size({"width": 1280, "height": 900})
    researcher.goto(f"{live_server.url}/surveys/{survey.pk}/regression/")
    assert researcher.locator('[data-stat="n"]').first.inner_text() == "83"
    levels = researcher.locator(f'table[data-grouping-question="{gq.pk}"]')
    for department, n in (("Sales", 41), ("Research", 41), ("Support", 1)):
        row = levels.locator(f'tr[data-option="{option_ids[department]}"]')
        assert row.locator('[data-stat="n"]').inner_text() == str(n)
    problem = researcher.locator("#regression-problem")
    assert problem.get_attribute("data-status") in {"separation", "not_converged", "singular"}
    assert "No coefficient table." in problem.inner_text()
    shoot(researcher, "regression-problem-desktop")


def test_the_regression_page_shows_a_coefficient_table(
    live_server, new_context, sign_in, owner, survey
):
    gq = survey.grouping_questions.get()
    support = gq.options.get(label="Support")
    rng = np.random.default_rng(7)
    services.simulated_submissions_record(
        survey=survey, reports=rng.random((60, 2)) < 0.5, options=[[support.pk]] * 60
    )
    page = new_context().new_page()
    sign_in(page, live_server, owner)
    page.goto(f"{live_server.url}/surveys/{survey.pk}/regression/")
    table = page.locator(".coefficient-table")
    assert table.locator("tbody tr").count() == 3
    assert "Research (vs. Sales)" in table.inner_text()
    assert "Support (vs. Sales)" in table.inner_text()
    assert 'design = "forced-known"' in page.locator(".code-block").inner_text()
    shoot(page, "regression-desktop")
    page.set_viewport_size({"width": 390, "height": 844})
    shoot(page, "regression-phone")
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/surveys/{survey.pk}/planner/")
    assert page.locator('[data-stat="respondents"]').inner_text() == "1,537"
    shoot(page, "planner-desktop")
    page.set_viewport_size({"width": 390, "height": 844})
    shoot(page, "planner-phone")
