"""The time zones a survey's schedule can be given and shown in: IANA names (``Asia/Seoul``).

A survey's times are stored as instants (UTC in the database); its ``time_zone`` only says in
which zone the researcher types them and everyone reads them.
"""

from functools import cache
from zoneinfo import ZoneInfo, available_timezones


@cache
def time_zone_names() -> tuple[str, ...]:
    """Every IANA zone this system knows, sorted; ``UTC`` among them."""
    return tuple(sorted(available_timezones() | {"UTC"}))


def is_time_zone(name) -> bool:
    return isinstance(name, str) and name in time_zone_names()


def survey_zone(survey) -> ZoneInfo:
    """The zone a survey's schedule is shown in (UTC until the researcher chooses one)."""
    return ZoneInfo(survey.zone_name)
