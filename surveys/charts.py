"""Server-rendered SVG charts: the results (one row per yes/no question, the estimate with its
interval) and the planner (the goal's quantity against respondents, one line per ε); the
charts of multiple-choice and numeric questions are in ``question_charts`` and share this
module's frame and drawing helpers.

A chart only draws what the page's table already states in numbers, so nothing depends on
seeing it: ``<title>`` and ``<desc>`` give screen readers the same summary, the planner's
lines differ by dash pattern and carry direct labels (nothing depends on colour), and every
interpolated text is escaped.
"""

from dataclasses import dataclass

from django.utils.formats import number_format
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from .formatting import epsilon_text
from .selectors import SurveyEstimates
from .selectors.planning import Plan

INK = "#1d232b"
MUTED = "#4d5866"
GRID = "#c9d1db"
BAND = "#f4f6f9"
POINT = "#0b5cad"
ALTERNATIVE = "#8a4b00"


@dataclass(frozen=True)
class Frame:
    """A chart's layout in SVG user units; the chart scales with its container (viewBox)."""

    name: str  # the CSS class, and the prefix of the title's and description's ids
    font_size: int
    left: int  # room for the row labels or the vertical tick labels
    plot_width: int
    right: int
    top: int

    @property
    def width(self):
        return self.left + self.plot_width + self.right


# right: half of the "100%" tick label in the phone's larger type (researcher.css), plus air.
RESULTS = Frame("results-chart", font_size=14, left=60, plot_width=600, right=48, top=12)
ROW_HEIGHT = 52
AXIS_HEIGHT = 64  # tick labels and the axis title under the rows
GRID_STEP = 10  # percentage points between gridlines
LABEL_STEP = 20  # percentage points between tick labels
POINT_RADIUS = 7
CAP_HALF = 7

# right: room for the direct labels "ε = 1.10 (chosen)"
PLANNER = Frame("precision-chart", font_size=19, left=84, plot_width=500, right=215, top=16)
PLANNER_PLOT_HEIGHT = 320
PLANNER_BOTTOM = 64
LABEL_GAP = 21  # px between baselines of the right-hand labels (font size 19)
# Chosen design: solid and thick; the alternatives: dashed and dotted.
STYLES = {
    "chosen": (POINT, "3.5", ""),
    "lower": (MUTED, "2.5", ' stroke-dasharray="10 6"'),
    "higher": (ALTERNATIVE, "2.5", ' stroke-dasharray="2 5"'),
}


def svg_start(frame, *, height, title, desc, key=""):
    """The opening markup; ``key`` makes the title's and description's ids unique when a
    page holds several charts of one frame (one per question)."""
    name, width, font_size = frame.name, frame.width, frame.font_size
    ids = f"{name}{key}"
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="{name}" '
        f'viewBox="0 0 {width} {height}" role="img" '
        f'aria-labelledby="{ids}-title {ids}-desc" '
        f'font-family="system-ui, sans-serif" font-size="{font_size}">',
        f'<title id="{ids}-title">{escape(title)}</title>',
        f'<desc id="{ids}-desc">{escape(desc)}</desc>',
    ]


def svg_end(parts) -> SafeString:
    # Every interpolated text went through escape(); the rest is fixed markup and numbers.
    return mark_safe("".join([*parts, "</svg>"]))


def axis_title(x, y, text, extra=""):
    # Translated by the caller, outside any f-string: xgettext cannot see a _() call inside one.
    return (
        f'<text class="chart-axis-title" x="{x:g}" y="{y:g}" text-anchor="middle" '
        f'fill="{INK}" font-weight="600"{extra}>{escape(text)}</text>'
    )


def percent(value, decimals=1):
    return f"{value * 100:.{decimals}f}%"


# --- the results chart --------------------------------------------------------------------


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


# --- the planner's chart ------------------------------------------------------------------


def _nice_step(span, ticks=5):
    raw = span / ticks
    for step in (0.5, 1, 2, 2.5, 5, 10, 20, 25, 50, 100):
        if step >= raw:
            return step
    return 100


def grouped(value):
    return number_format(int(value), force_grouping=True)


def _points(value):
    return f"{value * 100:.1f}"


def _spread(labels, *, top, bottom):
    """Labels ``(y, text, bold)`` moved apart by at least LABEL_GAP, kept within
    [top, bottom], in the order of their wanted heights."""
    placed = []
    for y, text, bold in sorted(labels, key=lambda label: label[0]):
        y = max(y, top, placed[-1][0] + LABEL_GAP if placed else top)
        placed.append((round(y, 2), text, bold))
    overflow = placed[-1][0] - bottom if placed else 0
    if overflow > 0:  # pushed past the bottom: move the stack up, as far as the top allows
        placed = [(round(max(top, y - overflow), 2), text, bold) for y, text, bold in placed]
    return placed


def _planner_words(plan: Plan):
    """The chart's title and description, and its axes' titles, for the plan's goal."""
    power = plan.quantity == "power"
    title = (
        _(
            "Power against respondents per group: the chance of detecting a difference of "
            "%(difference)s points"
        )
        % {"difference": _points(plan.difference)}
        if power  # a margin's plan has no difference
        else _("Precision against respondents: half-width of the %(level)s interval")
        % {"level": f"{plan.confidence * 100:g}%"}
    )
    summary = (
        _("With ε = %(eps)s, %(n)s respondents per group give %(power)s power.")
        if power
        else _("With ε = %(eps)s, %(n)s respondents give ± %(m)s points.")
    )
    trend = (
        _(
            "Lines rise as respondents grow: more respondents, more power. The solid line is "
            "the chosen design; the dashed and dotted lines are designs with half and twice its "
            "ε."
        )
        if power
        else _(
            "Lines fall as respondents grow: more respondents, narrower intervals. The "
            "solid line is the chosen design; the dashed and dotted lines are designs with "
            "half and twice its ε."
        )
    )
    if power:
        axes = _("Respondents per group"), _("Power (%)")
    else:
        axes = _("Respondents"), _("± percentage points")
    summaries = [
        summary
        % {
            "eps": epsilon_text(curve.epsilon),
            "n": grouped(plan.respondents),
            "power": percent(curve.at_plan, 0),
            "m": _points(curve.at_plan),
        }
        for curve in plan.curves
    ]
    return title, " ".join([trend, *summaries]), axes


def precision_chart(plan: Plan) -> SafeString:
    """The goal's quantity against respondents for the plan's three designs: the half-width
    (percentage points) for a margin, the power (percent) per group for a difference."""
    chosen = next(curve for curve in plan.curves if curve.chosen)
    power = plan.quantity == "power"
    if power:
        y_top, step = 100.0, 20.0
    else:
        # Vertical range: a little above where the chosen design starts to be useful.
        y_top = min(50.0, max(2.0, chosen.at_plan * 100 * 3))
        step = _nice_step(y_top)
        y_top = step * -(-y_top // step)
    left, plot_width, top = PLANNER.left, PLANNER.plot_width, PLANNER.top
    bottom = top + PLANNER_PLOT_HEIGHT

    def x_for(n):
        return round(left + n / plan.n_max * plot_width, 2)

    def y_for(points):
        return round(bottom - min(points, y_top) / y_top * PLANNER_PLOT_HEIGHT, 2)

    title, desc, (x_title, y_title) = _planner_words(plan)
    parts = svg_start(PLANNER, height=bottom + PLANNER_BOTTOM, title=title, desc=desc)
    # grid and axes
    tick = 0.0
    while tick <= y_top + 1e-9:
        y = y_for(tick)
        parts.append(
            f'<line x1="{left}" y1="{y}" x2="{left + plot_width}" y2="{y}" '
            f'stroke="{MUTED if tick == 0 else GRID}" stroke-width="1"/>'
        )
        tick_label = f"{tick:g}%" if power else f"±{tick:g}"
        parts.append(
            f'<text x="{left - 8}" y="{y + 5}" text-anchor="end" fill="{MUTED}">{tick_label}</text>'
        )
        tick += step
    for index in range(5):
        n = plan.n_max / 4 * index
        x = x_for(n)
        parts.append(
            f'<line x1="{x}" y1="{top}" x2="{x}" y2="{bottom}" stroke="{GRID}" stroke-width="1"/>'
        )
        parts.append(
            f'<text x="{x}" y="{bottom + 22}" text-anchor="middle" fill="{MUTED}">'
            f"{escape(grouped(n))}</text>"
        )
    middle = top + PLANNER_PLOT_HEIGHT / 2
    parts.append(axis_title(left + plot_width / 2, bottom + 52, x_title))
    parts.append(axis_title(16, middle, y_title, f' transform="rotate(-90 16 {middle:g})"'))
    # the needed sample size
    x_needed = x_for(plan.respondents)
    needed_label = (_("%(n)s per group") if plan.goal == "difference" else _("%(n)s needed")) % {
        "n": grouped(plan.respondents)
    }
    parts.append(
        f'<line class="chart-needed" x1="{x_needed}" y1="{top}" x2="{x_needed}" y2="{bottom}" '
        f'stroke="{INK}" stroke-width="1.5" stroke-dasharray="4 3"/>'
    )
    anchor = "end" if x_needed > left + plot_width * 0.7 else "start"
    offset = -6 if anchor == "end" else 6
    # Power curves fill the top of the plot, half-widths its bottom: the label goes where
    # the lines are not.
    needed_y = bottom - 10 if power else top + 16
    parts.append(
        f'<text x="{x_needed + offset}" y="{needed_y}" text-anchor="{anchor}" fill="{INK}" '
        f'font-weight="600">{escape(needed_label)}</text>'
    )
    # Labels in the right margin, (wanted y, text, bold), spread apart once all are known.
    right_labels = []
    if power:  # the power asked for, where the chosen line meets the needed respondents
        y_goal = y_for(plan.power * 100)
        parts.append(
            f'<line class="chart-goal" x1="{left}" y1="{y_goal}" x2="{left + plot_width}" '
            f'y2="{y_goal}" stroke="{INK}" stroke-width="1.5" stroke-dasharray="4 3"/>'
        )
        goal_label = _("%(power)s power") % {"power": percent(plan.power, 0)}
        right_labels.append((y_goal + 5, goal_label, False))
    # one line per design, labelled at its right end
    for curve in plan.curves:
        role = (
            "chosen" if curve.chosen else ("lower" if curve.epsilon < chosen.epsilon else "higher")
        )
        colour, width, dash = STYLES[role]
        visible = [(n, value * 100) for n, value in curve.points if value * 100 <= y_top]
        if len(visible) < 2:
            continue
        path = " ".join(f"{x_for(n)},{y_for(m)}" for n, m in visible)
        parts.append(
            f'<polyline class="chart-curve chart-curve--{role}" data-quantity="{plan.quantity}" '
            f'data-epsilon="{curve.epsilon!r}" points="{path}" fill="none" '
            f'stroke="{colour}" stroke-width="{width}" stroke-linejoin="round"{dash}/>'
        )
        label = _("ε = %(eps)s") % {"eps": epsilon_text(curve.epsilon)}
        if curve.chosen:
            label = _("%(label)s (chosen)") % {"label": label}
        right_labels.append((y_for(visible[-1][1]) + 5, label, curve.chosen))
    for label_y, label, bold in _spread(right_labels, top=top + 14, bottom=bottom + 5):
        weight = ' font-weight="700"' if bold else ""
        parts.append(
            f'<text x="{left + plot_width + 8}" y="{label_y:g}" fill="{INK}"{weight}>'
            f"{escape(label)}</text>"
        )
    return svg_end(parts)
