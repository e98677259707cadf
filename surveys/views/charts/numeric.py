"""The results chart of one numeric question: the mean on the question's range and the share
above the threshold on 0–100%, each with its interval."""

from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from .dots import DotRow, dot_rows, empty_message, percent_ticks, share_x
from .svg import AXIS_HEIGHT, ROW_HEIGHT, Frame, grouped, percent, svg_end, svg_start

NUMERIC = Frame("numeric-chart", font_size=14, left=250, plot_width=410, right=30, top=12)


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
    empty = empty_message(row, min_n)
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
                "lo": grouped(row.min),
                "hi": grouped(row.max),
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
    span = row.max - row.min

    def x_of_value(value):
        return round(NUMERIC.left + (value - row.min) / span * NUMERIC.plot_width, 2)

    middle = dot_rows(
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
        ticks=_range_ticks(row.min, row.max),
        axis_text=_("Mean of the true answers"),
    )
    dot_rows(
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
        x_of=share_x(NUMERIC),
        ticks=percent_ticks(),
        axis_text=_("Share of true answers above the threshold"),
    )
    return svg_end(parts)
