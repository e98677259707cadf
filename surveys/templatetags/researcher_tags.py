"""Number formatting for the researcher and public results pages (shares as percentages,
counts with grouping, p-values, odds ratios), and what a survey's page says of its state."""

import math

from django import template
from django.conf import settings
from django.utils.formats import number_format

from ..formatting import epsilon_text

register = template.Library()


def _fixed(value, digits):
    # number_format truncates extra decimals (ln 3 would read 1.09); round first, and never
    # print "-0.0" for a value that rounds to zero.
    digits = int(digits)
    rounded = round(float(value), digits) + 0.0
    return number_format(0.0 if rounded == 0 else rounded, digits)


def _missing(value):
    return value is None or value != value


@register.filter
def pct(value, digits=1):
    """A share in [0, 1] (or slightly outside) as a percentage: 0.2634 -> "26.3%"."""
    return "—" if _missing(value) else f"{_fixed(value * 100, digits)}%"


@register.filter
def points(value, digits=1):
    """A difference of shares in percentage points: 0.0161 -> "1.6"."""
    return "—" if _missing(value) else _fixed(value * 100, digits)


@register.filter
def decimal(value, digits=2):
    """A plain number with a fixed number of decimals, rounded: 1.0986 -> "1.10"."""
    return "—" if _missing(value) else _fixed(value, digits)


@register.filter
def epsilon(value, digits=2):
    """An ε rounded UP to ``digits`` decimals (never shows less privacy loss than the true
    one): 1.0986 -> "1.10", 0.5049 -> "0.51"; see ``surveys.formatting``."""
    return epsilon_text(value, digits)


@register.filter
def grouped(value):
    """A count with thousands separators: 1537 -> "1,537"."""
    return "—" if value is None else number_format(value, force_grouping=True)


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


@register.simple_tag
def signup_enabled():
    """Read at render time, so switching SIGNUP_ENABLED off hides every sign-up link."""
    return settings.SIGNUP_ENABLED


@register.simple_tag
def password_reset_enabled():
    return settings.PASSWORD_RESET_ENABLED


@register.filter
def survey_phase(survey):
    """What the survey's link does now: draft, pilot, scheduled, open, ended or closed."""
    from ..services import schedule

    return schedule.phase_of(survey)


@register.simple_tag
def target_progress(survey):
    """``(responses, target, percent)`` towards the survey's response target, or None."""
    if not survey.response_target or survey.status in ("draft", "pilot"):
        return None
    count = survey.response_count
    return count, survey.response_target, min(100, round(100 * count / survey.response_target))


@register.filter
def scheduled_close_passed(survey):
    """The scheduled close time once it has passed (what closed the survey), else None."""
    from django.utils import timezone

    closes_at = survey.closes_at
    return closes_at if closes_at is not None and closes_at <= timezone.now() else None
