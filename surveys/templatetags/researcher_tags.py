"""Number formatting for the researcher pages: shares as percentages, counts with grouping."""

from django import template
from django.conf import settings
from django.utils.formats import number_format

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
def grouped(value):
    """A count with thousands separators: 1537 -> "1,537"."""
    return "—" if value is None else number_format(value, force_grouping=True)


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
