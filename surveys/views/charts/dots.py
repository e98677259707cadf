"""The dot-and-interval rows the results charts of multiple-choice and numeric questions
draw: banded rows, a dot and an interval each, gridlines and an axis under them."""

from dataclasses import dataclass

from django.utils.html import escape
from django.utils.translation import gettext as _

from .svg import (
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
    axis_title,
)

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


def short_label(label):
    return label if len(label) <= LABEL_CHARACTERS else label[: LABEL_CHARACTERS - 1] + "…"


def dot_rows(parts, frame, *, top, rows, x_of, ticks, axis_text):
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
            f'font-weight="600">{escape(short_label(row.label))}</text>'
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


def share_x(frame):
    def x_of(share):
        return round(frame.left + share * frame.plot_width, 2)

    return x_of


def percent_ticks():
    return [
        (tick / 100, f"{tick}%" if tick % LABEL_STEP == 0 else "")
        for tick in range(0, 101, GRID_STEP)
    ]


def empty_message(row, min_n):
    if row.suppressed:
        return _("Not enough responses yet (%(n)d of %(min)d)") % {"n": row.n, "min": min_n}
    return _("No responses yet")
