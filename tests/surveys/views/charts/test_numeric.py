"""The chart of a numeric question (``numeric.py``): the mean on the range, the share above the
threshold on percent."""

from xml.etree import ElementTree

import pytest

from surveys.views.charts import numeric

pytestmark = pytest.mark.django_db

SVG = "{http://www.w3.org/2000/svg}"


def test_numeric_chart_marks_the_mean_on_the_range_and_the_share_on_percent(
    typed_estimates, chart_points
):
    estimates = typed_estimates()
    row = estimates.numeric_rows[0]
    root = ElementTree.fromstring(str(numeric.numeric_chart(row, estimates)))
    frame = numeric.NUMERIC
    mean_x, share_x = (float(p.get("cx")) for p in chart_points(root))
    assert mean_x == pytest.approx(frame.left + row.mean.clamped / 10 * frame.plot_width, abs=0.01)
    assert share_x == pytest.approx(
        frame.left + row.share_above.clamped * frame.plot_width, abs=0.01
    )
    desc = root.find(f"{SVG}desc").text
    assert "above 4" in desc and f"{row.mean.clamped:.2f}" in desc


def test_a_suppressed_numeric_question_gets_a_message_not_a_marker(typed_estimates, chart_points):
    estimates = typed_estimates(n=5, min_n=10)
    root = ElementTree.fromstring(str(numeric.numeric_chart(estimates.numeric_rows[0], estimates)))
    assert chart_points(root) == []
    assert "Not enough responses yet (5 of 10)" in [t.text for t in root.iter(f"{SVG}text")]
