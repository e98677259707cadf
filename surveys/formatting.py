"""The one way an ε is written for people: rounded up, never down.

A privacy loss rounded to nearest reads below the true loss about half the time (ln 3 =
1.0986... is fine at "1.10", but 0.5049... would read "0.50"). As OpenDP rounds its privacy
maps outward, every ε on a page, in an admin list, in a chart label or in a message goes
through :func:`epsilon_text`, which rounds up (``dpengine.rounding.ceil_decimal``) and then
localises the digits. JSON and CSV carry the float itself, which dpengine already rounds up.
"""

from django.utils.formats import number_format

from dpengine.rounding import ceil_decimal


def epsilon_text(value, digits=2) -> str:
    """``value`` (an ε, or a total of ε) rounded up to ``digits`` decimals, localised."""
    if value is None or value != value:
        return "—"
    if value == float("inf"):
        return "∞"
    return number_format(ceil_decimal(value, int(digits)), int(digits))
