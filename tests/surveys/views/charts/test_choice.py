"""The chart of a multiple-choice question (``choice.py``): one marker and interval per option
at the selectors' numbers."""

from xml.etree import ElementTree

import pytest

from surveys.views.charts import choice

pytestmark = pytest.mark.django_db

SVG = "{http://www.w3.org/2000/svg}"


def test_choice_chart_marks_every_option_at_the_selectors_numbers(typed_estimates, chart_points):
    estimates = typed_estimates()
    row = estimates.choice_rows[0]
    root = ElementTree.fromstring(str(choice.choice_chart(row, estimates)))
    frame = choice.OPTIONS
    assert [float(p.get("cx")) for p in chart_points(root)] == [
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


def test_a_suppressed_choice_question_gets_a_message_not_a_marker(typed_estimates, chart_points):
    estimates = typed_estimates(n=5, min_n=10)
    root = ElementTree.fromstring(str(choice.choice_chart(estimates.choice_rows[0], estimates)))
    assert chart_points(root) == []
    assert "Not enough responses yet (5 of 10)" in [t.text for t in root.iter(f"{SVG}text")]
