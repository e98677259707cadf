"""Number formatting for the breakdown, regression, planner and public results pages."""

import math

from django import template
from django.utils.formats import number_format

from .researcher_tags import _fixed, _missing

register = template.Library()


@register.filter
def pvalue(value):
    """A p-value as people read it: 0.0312 -> "0.031", 2e-7 -> "< 0.001"."""
    if _missing(value):
        return "—"
    if value < 0.001:
        return f"< {number_format(0.001, 3)}"
    return _fixed(value, 3)


@register.filter
def signed_points(value, digits=1):
    """A difference of shares in percentage points with its sign: 0.032 -> "+3.2"."""
    if _missing(value):
        return "—"
    text = _fixed(value * 100, digits)
    return text if text.startswith(("-", "−")) or float(value) == 0 else f"+{text}"


@register.filter
def ratio(value, digits=2):
    """An odds ratio: 1.5 -> "1.50"; huge or infinite values are written as such."""
    if _missing(value):
        return "—"
    if math.isinf(value) or value > 1e6:
        return "> 1,000,000"
    return _fixed(value, digits)
