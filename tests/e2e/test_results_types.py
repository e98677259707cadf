"""The results page of a survey that mixes question types, in a real Chromium: one chart per
choice and numeric question, the threshold a researcher chooses, and no WCAG violation at
either width (axe-core, as tests/e2e/accessibility/ runs it)."""

import pytest

from surveys import selectors
from tests.e2e.accessibility import axe_violations, open_page
from tests.helpers import MIXED_QUESTIONS, MIXED_SHARES, simulate_responses

pytestmark = pytest.mark.django_db(transaction=True)

# MIXED_QUESTIONS with a numeric question on a short range, so its share above is readable.
MIXED = [
    *MIXED_QUESTIONS[:3],
    {"text": "Days a week from home?", "type": "numeric", "min": 0, "max": 5, "epsilon": 2.0},
]


# The texts of every chart whose box (in the chart's own units, as drawn with the page's
# style) leaves the chart's viewBox, where an SVG clips.
TEXT_OUTSIDE_ITS_CHART = """
() => [...document.querySelectorAll("svg.results-chart, svg.choice-chart, svg.numeric-chart")]
  .flatMap((svg) => {
    const view = svg.viewBox.baseVal;
    return [...svg.querySelectorAll("text")]
      .filter((text) => {
        const box = text.getBBox();
        return box.x < view.x - 0.5 || box.y < view.y - 0.5 ||
          box.x + box.width > view.x + view.width + 0.5 ||
          box.y + box.height > view.y + view.height + 0.5;
      })
      .map((text) => `${svg.getAttribute("class")}: ${text.textContent}`);
  })
"""


@pytest.fixture
def mixed_survey(make_survey):
    survey = make_survey(questions=MIXED, min_n=20)
    return simulate_responses(survey, n=600, seed=21, shares=(*MIXED_SHARES[:3], 2))


@pytest.mark.parametrize("width", [1280, 390])
def test_mixed_results_are_drawn_and_accessible(
    live_server, new_context, sign_in, owner, mixed_survey, width
):
    page = open_page(
        new_context,
        sign_in,
        live_server,
        owner,
        path=f"/surveys/{mixed_survey.pk}/results/",
        locale="en-US",
        width=width,
    )
    assert page.locator("svg.choice-chart .chart-point").count() == 3
    assert page.locator("svg.numeric-chart .chart-point").count() == 2
    assert page.locator("svg.results-chart .chart-point").count() == 2
    violations = axe_violations(page)
    assert violations == [], violations
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
    # Every label inside its chart (issue 24: "100%" was clipped at 390 px, where the page's
    # style draws the chart's text larger than the SVG's own size).
    assert page.evaluate(TEXT_OUTSIDE_ITS_CHART) == []


def test_the_threshold_field_updates_the_share_above(
    live_server, new_context, sign_in, owner, mixed_survey
):
    numeric = mixed_survey.questions.all()[3]
    page = open_page(
        new_context,
        sign_in,
        live_server,
        owner,
        path=f"/surveys/{mixed_survey.pk}/results/",
        locale="en-US",
        width=1280,
    )
    page.fill(f"#id_threshold_q{numeric.pk}", "3")
    page.get_by_role("button", name="Update").click()
    page.wait_for_url(f"**threshold_q{numeric.pk}=3**")
    row = page.locator('[data-kind="numeric"] tr[data-statistic="share_above"]')
    assert "Share above 3" in row.inner_text()
    expected = (
        selectors.survey_estimates(survey=mixed_survey, thresholds={numeric.pk: 3})
        .rows[3]
        .share_above
    )
    assert f"{expected.clamped * 100:.1f}%" in row.inner_text()


@pytest.mark.parametrize("name", ["planner", "regression", "breakdown"])
def test_the_analysis_pages_of_a_mixed_survey_pass_axe_on_a_phone(
    live_server, new_context, sign_in, owner, mixed_survey, name
):
    page = open_page(
        new_context,
        sign_in,
        live_server,
        owner,
        path=f"/surveys/{mixed_survey.pk}/{name}/",
        locale="en-US",
        width=390,
    )
    if name == "planner":
        assert page.locator("#per-question-plan tbody tr").count() == 4
    if name == "regression":
        assert page.locator("#yes-no-only").count() == 1
    violations = axe_violations(page)
    assert violations == [], violations
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
