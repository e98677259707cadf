"""Server-rendered SVG charts of one multiple-choice or numeric question for the results
page: a dot and an interval per option (on 0–100%), or the mean (on the question's range)
and the share above the threshold (on 0–100%).

As every chart here (``surveys.charts``): it only draws what the page's table states in
numbers; ``<title>`` and ``<desc>`` give screen readers the same summary, each row's
``<title>`` its numbers, and every interpolated text is escaped.
"""

from dataclasses import dataclass

from django.utils.html import escape
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from .charts import (
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
    grouped,
    percent,
    svg_end,
    svg_start,
)

# Room on the left for option labels (cut at LABEL_CHARACTERS, the whole label in the row's
# title and in the table under the chart).
OPTIONS = Frame("choice-chart", font_size=14, left=250, plot_width=410, right=30, top=12)
NUMERIC = Frame("numeric-chart", font_size=14, left=250, plot_width=410, right=30, top=12)
# Room for this many characters at the phone's larger text (analysis.css) within ``left``.
LABEL_CHARACTERS = 20


@dataclass(frozen=True)
class DotRow:
    """One row of a dot-and-interval chart, in the chart's own units."""

    label: str
    summary: str  # what the row's <title> says (the same numbers as the table)
    point: float | None  # None: no numbers (suppressed or no data); ``empty`` says why
    low: float = 0.0
    high: float = 0.0
    empty: str = ""
    data: str = ""  # extra attributes of the row's <g>, already escaped


def _short(label):
    return label if len(label) <= LABEL_CHARACTERS else label[: LABEL_CHARACTERS - 1] + "…"


def _dot_rows(parts, frame, *, top, rows, x_of, ticks, axis_text):
    """Banded rows with a dot and an interval each, gridlines at ``ticks`` ((value, label or
    "") pairs), the tick labels and the axis title under them; returns the bottom."""
    bottom = top + max(1, len(rows)) * ROW_HEIGHT
    for index in range(0, len(rows), 2):
        parts.append(
            f'<rect x="{frame.left}" y="{top + index * ROW_HEIGHT}" '
            f'width="{frame.plot_width}" height="{ROW_HEIGHT}" fill="{BAND}"/>'
        )
    for position, (value, label) in enumerate(ticks):
        x = x_of(value)
        edge = position in (0, len(ticks) - 1)
        parts.append(
            f'<line class="chart-grid" x1="{x}" y1="{top}" x2="{x}" y2="{bottom}" '
            f'stroke="{MUTED if edge else GRID}" stroke-width="1"/>'
        )
        if label:
            parts.append(
                f'<text x="{x}" y="{bottom + 24}" text-anchor="middle" fill="{MUTED}">'
                f"{escape(label)}</text>"
            )
    # Centred on the whole chart, not the plot: the wide label column leaves the plot's centre
    # too close to the right edge for a long title in the phone's larger type.
    parts.append(axis_title(frame.width / 2, bottom + 54, axis_text))
    for index, row in enumerate(rows):
        y = top + index * ROW_HEIGHT + ROW_HEIGHT / 2
        parts.append(f'<g class="chart-row"{row.data}>')
        parts.append(f"<title>{escape(row.summary)}</title>")
        parts.append(
            f'<text x="{frame.left - 12}" y="{y + 5:g}" text-anchor="end" fill="{INK}" '
            f'font-weight="600">{escape(_short(row.label))}</text>'
        )
        if row.point is None:
            parts.append(
                f'<text class="chart-empty" x="{frame.left + 12}" y="{y + 5:g}" '
                f'fill="{MUTED}" font-style="italic">{escape(row.empty)}</text>'
            )
        else:
            low, high, point = x_of(row.low), x_of(row.high), x_of(row.point)
            parts.append(
                f'<line class="chart-interval" x1="{low}" y1="{y:g}" x2="{high}" y2="{y:g}" '
                f'stroke="{INK}" stroke-width="2.5"/>'
            )
            parts.extend(
                f'<line class="chart-cap" x1="{x}" y1="{y - CAP_HALF:g}" x2="{x}" '
                f'y2="{y + CAP_HALF:g}" stroke="{INK}" stroke-width="2.5"/>'
                for x in (low, high)
            )
            parts.append(
                f'<circle class="chart-point" cx="{point}" cy="{y:g}" r="{POINT_RADIUS}" '
                f'fill="{POINT}" stroke="#ffffff" stroke-width="2"/>'
            )
        parts.append("</g>")
    return bottom


def _share_x(frame):
    def x_of(share):
        return round(frame.left + share * frame.plot_width, 2)

    return x_of


def _percent_ticks():
    return [
        (tick / 100, f"{tick}%" if tick % LABEL_STEP == 0 else "")
        for tick in range(0, 101, GRID_STEP)
    ]


def _empty_message(row, min_n):
    if row.suppressed:
        return _("Not enough responses yet (%(n)d of %(min)d)") % {"n": row.n, "min": min_n}
    return _("No responses yet")


def choice_chart(row, estimates) -> SafeString:
    """One multiple-choice question: every option's estimated share with its simultaneous
    (Bonferroni) interval, one row per option."""
    min_n = estimates.survey.min_n
    level = f"{estimates.confidence * 100:g}%"
    shown = row.has_data and not row.suppressed
    rows = []
    for option in row.options:
        # The headline: the consistent share (the shares add up to 100%) with the interval
        # shown next to it, as in the table.
        if shown:
            summary = _("%(option)s: %(est)s, interval %(low)s to %(high)s.") % {
                "option": option.label,
                "est": percent(option.consistent),
                "low": percent(option.consistent_low),
                "high": percent(option.consistent_high),
            }
        else:
            summary = f"{option.label}: {_empty_message(row, min_n)}"
        rows.append(
            DotRow(
                label=option.label,
                summary=summary,
                point=option.consistent if shown else None,
                low=option.consistent_low,
                high=option.consistent_high,
                empty=_empty_message(row, min_n) if option.index == 0 else "",
                data=f' data-option="{option.index}"',
            )
        )
    title = _(
        "%(q)s: estimated share choosing each option, with %(level)s simultaneous intervals"
    ) % {
        "q": row.column,
        "level": level,
    }
    desc = " ".join(
        [
            _(
                "Each dot marks the estimated share of respondents whose true answer is that "
                "option; the lines are %(level)s %(method)s intervals, Bonferroni-adjusted so "
                "that all of them hold together."
            )
            % {"level": level, "method": estimates.method},
            *(r.summary for r in rows),
        ]
    )
    height = OPTIONS.top + len(rows) * ROW_HEIGHT + AXIS_HEIGHT
    parts = svg_start(OPTIONS, height=height, title=title, desc=desc, key=f"-{row.question_id}")
    _dot_rows(
        parts,
        OPTIONS,
        top=OPTIONS.top,
        rows=rows,
        x_of=_share_x(OPTIONS),
        ticks=_percent_ticks(),
        axis_text=_("Estimated share choosing the option"),
    )
    return svg_end(parts)


def _range_ticks(lo, hi):
    step = _nice_range_step(hi - lo)
    first = -(-lo // step) * step
    values = [lo, *range(first, hi + 1, step), hi]
    return [(value, grouped(value)) for value in sorted(set(values))]


def _nice_range_step(span):
    for step in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000):
        if span / step <= 8:
            return step
    return 10 ** len(str(span // 8))


def numeric_chart(row, estimates) -> SafeString:
    """One numeric question: the mean with its interval on the question's range, and the
    share above the threshold with its interval on 0–100%."""
    min_n = estimates.survey.min_n
    level = f"{estimates.confidence * 100:g}%"
    shown = row.has_data and not row.suppressed
    empty = _empty_message(row, min_n)
    mean, share = row.mean, row.share_above
    mean_label = _("Mean")
    share_label = _("Share above %(t)s") % {"t": grouped(row.threshold)}
    if shown:
        mean_summary = _("%(label)s: %(est)s, interval %(low)s to %(high)s.") % {
            "label": mean_label,
            "est": f"{mean.clamped:.2f}",
            "low": f"{mean.ci_low:.2f}",
            "high": f"{mean.ci_high:.2f}",
        }
        share_summary = _("%(label)s: %(est)s, interval %(low)s to %(high)s.") % {
            "label": share_label,
            "est": percent(share.clamped),
            "low": percent(share.ci_low),
            "high": percent(share.ci_high),
        }
    else:
        mean_summary = f"{mean_label}: {empty}"
        share_summary = f"{share_label}: {empty}"
    title = _("%(q)s: mean answer and share above %(t)s, with %(level)s intervals") % {
        "q": row.column,
        "t": grouped(row.threshold),
        "level": level,
    }
    desc = " ".join(
        [
            _(
                "The first panel shows the estimated mean of the true answers on the "
                "question's range, %(lo)s to %(hi)s; the second the estimated share of true "
                "answers above %(t)s. Lines are %(level)s normal intervals."
            )
            % {
                "lo": grouped(row.lo),
                "hi": grouped(row.hi),
                "t": grouped(row.threshold),
                "level": level,
            },
            mean_summary,
            share_summary,
        ]
    )
    # Two panels of one row each, every panel with its own axis.
    height = NUMERIC.top + 2 * (ROW_HEIGHT + AXIS_HEIGHT)
    parts = svg_start(NUMERIC, height=height, title=title, desc=desc, key=f"-{row.question_id}")
    span = row.hi - row.lo

    def x_of_value(value):
        return round(NUMERIC.left + (value - row.lo) / span * NUMERIC.plot_width, 2)

    middle = _dot_rows(
        parts,
        NUMERIC,
        top=NUMERIC.top,
        rows=[
            DotRow(
                label=mean_label,
                summary=mean_summary,
                point=mean.clamped if shown else None,
                low=mean.ci_low,
                high=mean.ci_high,
                empty=empty,
                data=' data-statistic="mean"',
            )
        ],
        x_of=x_of_value,
        ticks=_range_ticks(row.lo, row.hi),
        axis_text=_("Mean of the true answers"),
    )
    _dot_rows(
        parts,
        NUMERIC,
        top=middle + AXIS_HEIGHT,
        rows=[
            DotRow(
                label=share_label,
                summary=share_summary,
                point=share.clamped if shown else None,
                low=share.ci_low,
                high=share.ci_high,
                empty=empty,
                data=' data-statistic="share_above"',
            )
        ],
        x_of=_share_x(NUMERIC),
        ticks=_percent_ticks(),
        axis_text=_("Share of true answers above the threshold"),
    )
    return svg_end(parts)
