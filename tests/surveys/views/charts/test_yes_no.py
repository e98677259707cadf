"""The results chart of the yes/no questions (``yes_no.py``): well-formed SVG with one marker per
shown question at the right place."""

from xml.etree import ElementTree

import numpy as np
import pytest

from surveys import selectors, services
from surveys.views.charts import yes_no

pytestmark = pytest.mark.django_db

SVG = "{http://www.w3.org/2000/svg}"


def chart_for(survey):
    return ElementTree.fromstring(
        str(yes_no.estimates_chart(selectors.survey_estimates(survey=survey)))
    )


def with_counts(survey, counts):
    """Store reports so question i has exactly counts[i] = (yes, n) randomized reports."""
    n = counts[0][1]
    assert all(total == n for _yes, total in counts)
    bits = np.zeros((n, len(counts)), dtype=bool)
    for column, (yes, _n) in enumerate(counts):
        bits[:yes, column] = True
    services.simulated_submissions_record(survey=survey, reports=bits)
    survey.refresh_from_db()
    return survey


def test_markers_sit_at_the_known_estimates(make_survey, chart_points):
    # Classic design: estimate = 2 * yes / n - 1/2. With n = 200: 150 yes -> 100 %,
    # 100 yes -> 50 %, 60 yes -> 10 %, 25 yes -> -37.5 %, drawn clamped at 0 %.
    survey = make_survey(questions=["A?", "B?", "C?", "D?"], min_n=0)
    with_counts(survey, [(150, 200), (100, 200), (60, 200), (25, 200)])
    root = chart_for(survey)
    markers = chart_points(root)
    assert len(markers) == 4
    # The plot spans x = 60 (0 %) to x = 660 (100 %).
    assert [float(m.get("cx")) for m in markers] == [660.0, 360.0, 120.0, 60.0]
    rows = sorted({float(m.get("cy")) for m in markers})
    assert len(rows) == 4  # one row per question


def test_intervals_span_the_selectors_bounds(make_survey):
    survey = make_survey(questions=["A?"], min_n=0)
    with_counts(survey, [(130, 400)])
    row = selectors.survey_estimates(survey=survey).rows[0]
    interval = next(
        line
        for line in chart_for(survey).iter(f"{SVG}line")
        if line.get("class") == "chart-interval"
    )
    assert float(interval.get("x1")) == pytest.approx(60 + 600 * row.estimate.ci_low, abs=0.01)
    assert float(interval.get("x2")) == pytest.approx(60 + 600 * row.estimate.ci_high, abs=0.01)


def test_suppressed_questions_get_a_message_not_a_marker(make_survey, chart_points):
    survey = make_survey(questions=["A?", "B?"], min_n=30)
    with_counts(survey, [(5, 10), (6, 10)])
    root = chart_for(survey)
    assert chart_points(root) == []
    messages = [t.text for t in root.iter(f"{SVG}text") if t.get("class") == "chart-empty"]
    assert messages == ["Not enough responses yet (10 of 30)"] * 2


def test_chart_is_accessible_and_has_a_labelled_axis(make_survey):
    survey = make_survey(questions=["A?", "B?"], min_n=0)
    with_counts(survey, [(100, 200), (60, 200)])
    root = chart_for(survey)
    assert root.get("role") == "img"
    assert root.get("aria-labelledby") == "results-chart-title results-chart-desc"
    assert root.find(f"{SVG}title").text.startswith("Estimated share")
    desc = root.find(f"{SVG}desc").text
    assert "Q1: 50.0%" in desc
    assert "Q2: 10.0%" in desc
    labels = [t.text for t in root.iter(f"{SVG}text")]
    assert [x for x in labels if x.endswith("%")] == ["0%", "20%", "40%", "60%", "80%", "100%"]
    grid = [line for line in root.iter(f"{SVG}line") if line.get("class") == "chart-grid"]
    assert len(grid) == 11


def test_question_text_cannot_break_the_markup(make_survey):
    survey = make_survey(questions=['<script>alert("x")</script> & "quotes"?'], min_n=0)
    with_counts(survey, [(100, 200)])
    svg = str(yes_no.estimates_chart(selectors.survey_estimates(survey=survey)))
    ElementTree.fromstring(svg)  # still well-formed
    assert "<script>" not in svg


def test_survey_without_questions_still_draws_an_empty_axis(make_survey, chart_points):
    survey = make_survey(questions=(), status="draft")
    root = chart_for(survey)
    assert chart_points(root) == []
    assert root.tag == f"{SVG}svg"
