"""The results chart: well-formed SVG with one marker per shown question at the right place."""

from xml.etree import ElementTree

import numpy as np
import pytest

from surveys import selectors, services
from surveys.views.charts import choice, numeric, yes_no

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


def points(root):
    return [c for c in root.iter(f"{SVG}circle") if c.get("class") == "chart-point"]


def test_markers_sit_at_the_known_estimates(make_survey):
    # Classic design: estimate = 2 * yes / n - 1/2. With n = 200: 150 yes -> 100 %,
    # 100 yes -> 50 %, 60 yes -> 10 %, 25 yes -> -37.5 %, drawn clamped at 0 %.
    survey = make_survey(questions=["A?", "B?", "C?", "D?"], min_n=0)
    with_counts(survey, [(150, 200), (100, 200), (60, 200), (25, 200)])
    root = chart_for(survey)
    markers = points(root)
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


def test_suppressed_questions_get_a_message_not_a_marker(make_survey):
    survey = make_survey(questions=["A?", "B?"], min_n=30)
    with_counts(survey, [(5, 10), (6, 10)])
    root = chart_for(survey)
    assert points(root) == []
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


def test_survey_without_questions_still_draws_an_empty_axis(make_survey):
    survey = make_survey(questions=(), status="draft")
    root = chart_for(survey)
    assert points(root) == []
    assert root.tag == f"{SVG}svg"


# --- one chart per multiple-choice and numeric question -----------------------------------

TYPED = [
    {"text": "Yes or no?"},
    {
        "text": "Which <b>one</b>?",
        "type": "choice",
        "options": ["None", "A label longer than the chart's room", "<script>x</script>"],
    },
    {"text": "How many?", "type": "numeric", "min": 0, "max": 10, "epsilon": 2.0},
]


def typed_estimates(make_survey, *, n=200, min_n=10):
    survey = make_survey(questions=TYPED, min_n=min_n)
    reports = np.zeros((n, 3), dtype=np.int64)
    reports[:, 1] = np.arange(n) % 3  # options 0, 1, 2 in turn: a third each
    reports[:, 2] = np.arange(n) % 11  # 0..10 in turn
    services.simulated_submissions_record(survey=survey, reports=reports)
    survey.refresh_from_db()
    numeric = survey.questions.all()[2]
    return selectors.survey_estimates(survey=survey, thresholds={numeric.pk: 4})


def test_choice_chart_marks_every_option_at_the_selectors_numbers(make_survey):
    estimates = typed_estimates(make_survey)
    row = estimates.choice_rows[0]
    root = ElementTree.fromstring(str(choice.choice_chart(row, estimates)))
    frame = choice.OPTIONS
    assert [float(p.get("cx")) for p in points(root)] == [
        pytest.approx(frame.left + option.consistent * frame.plot_width, abs=0.01)
        for option in row.options
    ]
    intervals = [line for line in root.iter(f"{SVG}line") if line.get("class") == "chart-interval"]
    assert [float(line.get("x1")) for line in intervals] == [
        pytest.approx(frame.left + option.consistent_low * frame.plot_width, abs=0.01)
        for option in row.options
    ]
    # Unique ids per question, the whole label in the row's title, a cut one on the axis.
    assert root.get("aria-labelledby") == (
        f"choice-chart-{row.question_id}-title choice-chart-{row.question_id}-desc"
    )
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert "A label longer than…" in texts
    titles = [t.text for t in root.iter(f"{SVG}title")]
    assert any(t.startswith("A label longer than the chart's room:") for t in titles)
    assert "<script>" not in str(choice.choice_chart(row, estimates))


def test_numeric_chart_marks_the_mean_on_the_range_and_the_share_on_percent(make_survey):
    estimates = typed_estimates(make_survey)
    row = estimates.numeric_rows[0]
    root = ElementTree.fromstring(str(numeric.numeric_chart(row, estimates)))
    frame = numeric.NUMERIC
    mean_x, share_x = (float(p.get("cx")) for p in points(root))
    assert mean_x == pytest.approx(frame.left + row.mean.clamped / 10 * frame.plot_width, abs=0.01)
    assert share_x == pytest.approx(
        frame.left + row.share_above.clamped * frame.plot_width, abs=0.01
    )
    desc = root.find(f"{SVG}desc").text
    assert "above 4" in desc and f"{row.mean.clamped:.2f}" in desc


def test_suppressed_typed_questions_get_a_message_not_a_marker(make_survey):
    estimates = typed_estimates(make_survey, n=5, min_n=10)
    for chart in (
        choice.choice_chart(estimates.choice_rows[0], estimates),
        numeric.numeric_chart(estimates.numeric_rows[0], estimates),
    ):
        root = ElementTree.fromstring(str(chart))
        assert points(root) == []
        assert "Not enough responses yet (5 of 10)" in [t.text for t in root.iter(f"{SVG}text")]
