"""Server-rendered SVG chart of the results: one row per question, estimate with its interval.

The chart only draws what the results table already states in numbers, so nothing depends
on seeing it; ``<title>`` and ``<desc>`` give screen readers the same summary.
"""

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from .selectors import SurveyEstimates

# Layout in SVG user units; the chart scales with its container through the viewBox.
LEFT = 60  # room for the question labels "Q1", "Q2", ...
PLOT_WIDTH = 600
RIGHT = 30
TOP = 12
ROW_HEIGHT = 52
AXIS_HEIGHT = 64  # tick labels and the axis title under the rows
WIDTH = LEFT + PLOT_WIDTH + RIGHT
GRID_STEP = 10  # percentage points between gridlines
LABEL_STEP = 20  # percentage points between tick labels
POINT_RADIUS = 7
CAP_HALF = 7

INK = "#1d232b"
MUTED = "#4d5866"
GRID = "#c9d1db"
BAND = "#f4f6f9"
POINT = "#0b5cad"


def x_for(share):
    """Horizontal position of a share in [0, 1]."""
    return round(LEFT + share * PLOT_WIDTH, 2)


def _percent(value):
    return f"{value * 100:.1f}%"


def _row_summary(label, row, min_n):
    est = row.estimate
    if row.suppressed:
        return _("%(q)s: not enough responses yet (%(n)d of %(min)d).") % {
            "q": label,
            "n": est.n,
            "min": min_n,
        }
    if not est.has_data:
        return _("%(q)s: no responses yet.") % {"q": label}
    return _("%(q)s: %(est)s, interval %(low)s to %(high)s.") % {
        "q": label,
        "est": _percent(est.clamped),
        "low": _percent(est.ci_low),
        "high": _percent(est.ci_high),
    }


def estimates_chart(estimates: SurveyEstimates) -> SafeString:
    """The SVG markup (every text escaped) for the results page."""
    rows = estimates.rows
    min_n = estimates.survey.min_n
    plot_height = max(1, len(rows)) * ROW_HEIGHT
    height = TOP + plot_height + AXIS_HEIGHT
    bottom = TOP + plot_height
    level = f"{estimates.confidence * 100:g}%"
    title = _("Estimated share answering “yes”, per question, with %(level)s intervals") % {
        "level": level
    }
    labels = [_("Q%(number)d") % {"number": index + 1} for index in range(len(rows))]
    desc = " ".join(
        [
            _(
                "Each dot marks the estimated share of respondents whose true answer is yes; "
                "the line around it is the %(level)s %(method)s confidence interval."
            )
            % {"level": level, "method": estimates.method},
            *(_row_summary(label, row, min_n) for label, row in zip(labels, rows, strict=True)),
        ]
    )

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="results-chart" '
        f'viewBox="0 0 {WIDTH} {height}" role="img" '
        f'aria-labelledby="results-chart-title results-chart-desc" '
        f'font-family="system-ui, sans-serif" font-size="14">',
        f'<title id="results-chart-title">{escape(title)}</title>',
        f'<desc id="results-chart-desc">{escape(desc)}</desc>',
    ]
    for index in range(len(rows)):
        if index % 2 == 0:
            y = TOP + index * ROW_HEIGHT
            parts.append(
                f'<rect x="{LEFT}" y="{y}" width="{PLOT_WIDTH}" height="{ROW_HEIGHT}" '
                f'fill="{BAND}"/>'
            )
    for percent in range(0, 101, GRID_STEP):
        x = x_for(percent / 100)
        major = percent % LABEL_STEP == 0
        parts.append(
            f'<line class="chart-grid" x1="{x}" y1="{TOP}" x2="{x}" y2="{bottom}" '
            f'stroke="{MUTED if percent in (0, 100) else GRID}" stroke-width="1"/>'
        )
        if major:
            parts.append(
                f'<text x="{x}" y="{bottom + 24}" text-anchor="middle" fill="{MUTED}">'
                f"{percent}%</text>"
            )
    # Outside the f-string: xgettext cannot see a _() call inside one, so it went untranslated.
    axis_title = _("Estimated share answering “yes”")
    parts.append(
        f'<text class="chart-axis-title" x="{LEFT + PLOT_WIDTH / 2:g}" y="{bottom + 54}" '
        f'text-anchor="middle" fill="{INK}" font-weight="600">{escape(axis_title)}</text>'
    )

    for index, (label, row) in enumerate(zip(labels, rows, strict=True)):
        y = TOP + index * ROW_HEIGHT + ROW_HEIGHT / 2
        est = row.estimate
        parts.append(
            f'<text x="{LEFT - 12}" y="{y + 5:g}" text-anchor="end" fill="{INK}" '
            f'font-weight="600">{escape(label)}</text>'
        )
        if row.suppressed or not est.has_data:
            message = (
                _("Not enough responses yet (%(n)d of %(min)d)") % {"n": est.n, "min": min_n}
                if row.suppressed
                else _("No responses yet")
            )
            parts.append(
                f'<text class="chart-empty" x="{LEFT + 12}" y="{y + 5:g}" fill="{MUTED}" '
                f'font-style="italic">{escape(message)}</text>'
            )
            continue
        low, high, point = x_for(est.ci_low), x_for(est.ci_high), x_for(est.clamped)
        parts.extend(
            [
                f'<g class="chart-row" data-question="{row.question_id}">',
                f"<title>{escape(_row_summary(label, row, min_n))}</title>",
                f'<line class="chart-interval" x1="{low}" y1="{y:g}" x2="{high}" y2="{y:g}" '
                f'stroke="{INK}" stroke-width="2.5"/>',
                f'<line class="chart-cap" x1="{low}" y1="{y - CAP_HALF:g}" x2="{low}" '
                f'y2="{y + CAP_HALF:g}" '
                f'stroke="{INK}" stroke-width="2.5"/>',
                f'<line class="chart-cap" x1="{high}" y1="{y - CAP_HALF:g}" x2="{high}" '
                f'y2="{y + CAP_HALF:g}" '
                f'stroke="{INK}" stroke-width="2.5"/>',
                f'<circle class="chart-point" cx="{point}" cy="{y:g}" r="{POINT_RADIUS}" '
                f'fill="{POINT}" stroke="#ffffff" stroke-width="2"/>',
                "</g>",
            ]
        )
    parts.append("</svg>")
    # Every interpolated text went through escape(); the rest is fixed markup and numbers.
    return mark_safe("".join(parts))
