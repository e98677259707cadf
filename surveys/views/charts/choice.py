"""The results chart of one multiple-choice question: a dot and an interval per option, on
0–100%."""

from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from .dots import DotRow, dot_rows, empty_message, percent_ticks, share_x
from .svg import AXIS_HEIGHT, ROW_HEIGHT, Frame, percent, svg_end, svg_start

# Room on the left for option labels (cut at dots.LABEL_CHARACTERS, the whole label in the
# row's title and in the table under the chart).
OPTIONS = Frame("choice-chart", font_size=14, left=250, plot_width=410, right=30, top=12)


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
            summary = f"{option.label}: {empty_message(row, min_n)}"
        rows.append(
            DotRow(
                label=option.label,
                summary=summary,
                point=option.consistent if shown else None,
                low=option.consistent_low,
                high=option.consistent_high,
                empty=empty_message(row, min_n) if option.index == 0 else "",
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
    dot_rows(
        parts,
        OPTIONS,
        top=OPTIONS.top,
        rows=rows,
        x_of=share_x(OPTIONS),
        ticks=percent_ticks(),
        axis_text=_("Estimated share choosing the option"),
    )
    return svg_end(parts)
