"""The results chart of the yes/no questions: one row per question, the estimate with its
interval, on 0–100%."""

from django.utils.html import escape
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from ...selectors import SurveyEstimates
from .svg import (
    AXIS_HEIGHT,
    BAND,
    CAP_HALF,
    GRID,
    GRID_STEP,
    INK,
    LABEL_STEP,
    MUTED,
    POINT,
    POINT_RADIUS,
    ROW_HEIGHT,
    Frame,
    axis_title,
    percent,
    svg_end,
    svg_start,
)

# right: half of the "100%" tick label in the phone's larger type (researcher.css), plus air.
RESULTS = Frame("results-chart", font_size=14, left=60, plot_width=600, right=48, top=12)


def x_for(share):
    """Horizontal position of a share in [0, 1] on the results chart."""
    return round(RESULTS.left + share * RESULTS.plot_width, 2)


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
        "est": percent(est.clamped),
        "low": percent(est.ci_low),
        "high": percent(est.ci_high),
    }


def _results_grid(parts, *, bottom):
    for tick in range(0, 101, GRID_STEP):
        x = x_for(tick / 100)
        parts.append(
            f'<line class="chart-grid" x1="{x}" y1="{RESULTS.top}" x2="{x}" y2="{bottom}" '
            f'stroke="{MUTED if tick in (0, 100) else GRID}" stroke-width="1"/>'
        )
        if tick % LABEL_STEP == 0:
            parts.append(
                f'<text x="{x}" y="{bottom + 24}" text-anchor="middle" fill="{MUTED}">'
                f"{tick}%</text>"
            )


def _interval(row, *, label, y, min_n):
    est = row.estimate
    low, high, point = x_for(est.ci_low), x_for(est.ci_high), x_for(est.clamped)
    caps = [
        f'<line class="chart-cap" x1="{x}" y1="{y - CAP_HALF:g}" x2="{x}" '
        f'y2="{y + CAP_HALF:g}" stroke="{INK}" stroke-width="2.5"/>'
        for x in (low, high)
    ]
    return [
        f'<g class="chart-row" data-question="{row.question_id}">',
        f"<title>{escape(_row_summary(label, row, min_n))}</title>",
        f'<line class="chart-interval" x1="{low}" y1="{y:g}" x2="{high}" y2="{y:g}" '
        f'stroke="{INK}" stroke-width="2.5"/>',
        *caps,
        f'<circle class="chart-point" cx="{point}" cy="{y:g}" r="{POINT_RADIUS}" '
        f'fill="{POINT}" stroke="#ffffff" stroke-width="2"/>',
        "</g>",
    ]


def estimates_chart(estimates: SurveyEstimates) -> SafeString:
    """The SVG markup (every text escaped) for the results page's yes/no questions (each
    labelled with its column, Q1…; choice and numeric questions have charts of their own)."""
    rows = estimates.yes_no_rows
    min_n = estimates.survey.min_n
    plot_height = max(1, len(rows)) * ROW_HEIGHT
    bottom = RESULTS.top + plot_height
    level = f"{estimates.confidence * 100:g}%"
    title = _("Estimated share answering “yes”, per question, with %(level)s intervals") % {
        "level": level
    }
    labels = [row.column for row in rows]
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
    parts = svg_start(RESULTS, height=bottom + AXIS_HEIGHT, title=title, desc=desc)
    for index in range(0, len(rows), 2):
        parts.append(
            f'<rect x="{RESULTS.left}" y="{RESULTS.top + index * ROW_HEIGHT}" '
            f'width="{RESULTS.plot_width}" height="{ROW_HEIGHT}" fill="{BAND}"/>'
        )
    _results_grid(parts, bottom=bottom)
    axis_text = _("Estimated share answering “yes”")
    parts.append(axis_title(RESULTS.left + RESULTS.plot_width / 2, bottom + 54, axis_text))

    for index, (label, row) in enumerate(zip(labels, rows, strict=True)):
        y = RESULTS.top + index * ROW_HEIGHT + ROW_HEIGHT / 2
        est = row.estimate
        parts.append(
            f'<text x="{RESULTS.left - 12}" y="{y + 5:g}" text-anchor="end" fill="{INK}" '
            f'font-weight="600">{escape(label)}</text>'
        )
        if row.suppressed or not est.has_data:
            message = (
                _("Not enough responses yet (%(n)d of %(min)d)") % {"n": est.n, "min": min_n}
                if row.suppressed
                else _("No responses yet")
            )
            parts.append(
                f'<text class="chart-empty" x="{RESULTS.left + 12}" y="{y + 5:g}" '
                f'fill="{MUTED}" font-style="italic">{escape(message)}</text>'
            )
            continue
        parts.extend(_interval(row, label=label, y=y, min_n=min_n))
    return svg_end(parts)
