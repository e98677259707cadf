"""The planner's chart plots what the goal is about, at the anticipated share (issue 14).

The SVG's points are read back through the chart's own axes and compared with dpengine's
planning functions: the half-width (``margin_for_sample_size``) for a margin, the power of the
two-group test (``power_difference``) per group for a difference.
"""

import re

import pytest
from django.urls import reverse

import dpengine
from surveys.views.charts import planner

pytestmark = pytest.mark.django_db


def planner_svg(client, survey, **query):
    response = client.get(reverse("surveys:planner", kwargs={"pk": survey.pk}), query)
    assert response.status_code == 200
    return re.search(
        r"<svg [^>]*precision-chart.*?</svg>", response.content.decode(), re.DOTALL
    ).group(0)


def chosen_line(svg):
    """(respondents, value in percent) of the solid line, read back through the axes."""
    n_max = max(
        int(t.replace(",", ""))
        for t in re.findall(r'anchor="middle" fill="#[0-9a-f]+">([\d,]+)</text>', svg)
    )
    ticks = [
        float(t) for t in re.findall(r'anchor="end" fill="#[0-9a-f]+">±?([\d.]+)%?</text>', svg)
    ]
    y_top = max(ticks)
    polyline = re.search(r'<polyline class="chart-curve chart-curve--chosen"[^>]*>', svg).group(0)
    quantity = re.search(r'data-quantity="(\w+)"', polyline).group(1)
    points = []
    for pair in re.search(r'points="([^"]+)"', polyline).group(1).split():
        x, y = (float(v) for v in pair.split(","))
        n = (x - planner.PLANNER.left) / planner.PLANNER.plot_width * n_max
        value = (
            (planner.PLANNER.top + planner.PLANNER_PLOT_HEIGHT - y)
            / planner.PLANNER_PLOT_HEIGHT
            * y_top
        )
        points.append((round(n), value, abs(n - round(n))))
    return quantity, n_max, y_top, points


# Coordinates carry two decimals: 0.005 px is under 0.002 percent on a 320 px axis.
TOLERANCE = 0.01


@pytest.mark.parametrize("prevalence", ["", "5", "30"])
def test_a_two_group_goal_plots_dpengines_power_per_group(grouped_survey, owner_client, prevalence):
    svg = planner_svg(
        owner_client, grouped_survey, goal="difference", difference="10", power="0.8",
        prevalence=prevalence, level="0.95",
    )  # fmt: skip
    quantity, _n_max, y_top, points = chosen_line(svg)
    assert quantity == "power" and y_top == 100
    assert "Power (%)" in svg and "± percentage points" not in svg
    design = dpengine.ForcedResponse(0.5, 0.5)
    p = float(prevalence) / 100 if prevalence else None
    needed = dpengine.required_sample_size_difference(
        design=design, difference=0.1, power=0.8, confidence=0.95, p=p
    )
    assert len(points) > 40
    for n, value, off_grid in points:
        assert off_grid < 0.1  # x decodes to a whole number of respondents
        power = dpengine.power_difference(design=design, n=n, difference=0.1, p=p) * 100
        assert value == pytest.approx(power, abs=TOLERANCE), n
    # the line passes through the plan: the power asked for at the respondents needed
    at_needed = dict((n, value) for n, value, _off in points)[needed]
    assert 80 <= at_needed < 80.5
    assert f"{needed:,} per group" in svg


@pytest.mark.parametrize("prevalence", ["", "4", "50"])
def test_a_margin_goal_plots_dpengines_half_width_at_the_anticipated_share(
    grouped_survey, owner_client, prevalence
):
    svg = planner_svg(
        owner_client, grouped_survey, goal="margin", margin="5", prevalence=prevalence
    )
    quantity, _n_max, y_top, points = chosen_line(svg)
    assert quantity == "half_width"
    design = dpengine.ForcedResponse(0.5, 0.5)
    p = float(prevalence) / 100 if prevalence else None
    for n, value, _off in points:
        margin = dpengine.margin_for_sample_size(design=design, n=n, p=p) * 100
        assert value == pytest.approx(margin, abs=TOLERANCE * y_top / 100 + 1e-3), n


def test_the_anticipated_share_changes_the_two_group_chart(grouped_survey, owner_client):
    def line(prevalence):
        return chosen_line(
            planner_svg(
                owner_client, grouped_survey, goal="difference", difference="10",
                prevalence=prevalence,
            )
        )[3]  # fmt: skip

    worst, rare = line(""), line("2")
    # A rare behaviour (2% against 12%) has less variance than the worst case: more power
    # with the same respondents.
    rare_at = {n: value for n, value, _off in rare}
    shared = [(n, value) for n, value, _off in worst if n in rare_at and 5 < value < 95]
    assert shared and all(rare_at[n] > value for n, value in shared)
