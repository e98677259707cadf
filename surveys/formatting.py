"""The one way an ε is written for people: rounded up, never down.

A privacy loss rounded to nearest reads below the true loss about half the time (ln 3 =
1.0986... is fine at "1.10", but 0.5049... would read "0.50"). As OpenDP rounds its privacy
maps outward, every ε on a page, in an admin list, in a chart label or in a message goes
through :func:`epsilon_text`, which rounds up (``dpengine.rounding.ceil_decimal``) and then
localises the digits. JSON and CSV carry the float itself, which dpengine already rounds up.

A chance the respondent page quotes is written by :func:`percent_text`, which never reads "0%"
or "100%" for a chance strictly between them.
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


def percent_text(value) -> str:
    """0.75 -> "75%", 0.125 -> "12.5%", 0.000125 -> "0.0125%", 0.99999 -> "99.999%".

    One decimal, or as many more as it takes for a chance strictly between 0 and 1 never to
    read "0%" or "100%" (a respondent must not be told an outcome is impossible or certain).
    """
    value = float(value)
    scaled = value * 100
    for decimals in range(1, 12):
        rounded = round(scaled, decimals)
        if not (0 < value < 1) or 0 < rounded < 100:
            break
    text = f"{rounded:.{decimals}f}".rstrip("0").rstrip(".")
    return f"{text}%"
