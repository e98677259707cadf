"""What every server-drawn chart shares: the colours, a chart's frame, the rows' sizes, the
opening and closing markup, axis titles and how a share and a count are written.

A chart only draws what the page's table already states in numbers, so nothing depends on
seeing it: ``<title>`` and ``<desc>`` give screen readers the same summary, and every
interpolated text goes through ``escape``.
"""

from dataclasses import dataclass

from django.utils.formats import number_format
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

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


# The rows of the results charts (yes/no, choice, numeric) and the axis under them.
ROW_HEIGHT = 52
AXIS_HEIGHT = 64  # tick labels and the axis title under the rows
GRID_STEP = 10  # percentage points between gridlines
LABEL_STEP = 20  # percentage points between tick labels
POINT_RADIUS = 7
CAP_HALF = 7


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


def grouped(value):
    return number_format(int(value), force_grouping=True)
