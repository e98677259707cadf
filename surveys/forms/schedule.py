"""The survey's schedule form (opening and closing times, in the survey's time zone)."""

from zoneinfo import ZoneInfo

from django import forms
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from ..timezones import time_zone_names
from .fields import PageForm


class ScheduleForm(PageForm):
    """When an open survey takes responses, typed in the survey's time zone (chosen here;
    builder's script proposes the browser's while none is chosen)."""

    opens_at = forms.DateTimeField(
        label=_("Opens at (in the survey's time zone)"),
        required=False,
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
        help_text=_(
            "Leave empty to open by hand. Setting it opens the survey for the real study now "
            "(pilot responses are discarded and the questions lock); respondents can answer "
            "from this time on."
        ),
    )
    closes_at = forms.DateTimeField(
        label=_("Closes at (in the survey's time zone)"),
        required=False,
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
        help_text=_("Leave empty to close by hand. No responses are taken from this time on."),
    )
    time_zone = forms.ChoiceField(
        label=_("Survey's time zone"),
        required=False,
        help_text=_(
            "The opening and closing times are typed in this zone, and the pages and "
            "respondents are shown them in it, with its name."
        ),
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["time_zone"].choices = [
            ("", _("UTC (no time zone chosen yet)")),
            *((name, name.replace("_", " ")) for name in time_zone_names()),
        ]

    def clean(self):
        cleaned = super().clean()
        # The inputs carry no zone: Django read them in the page's zone (UTC); they mean the
        # same wall-clock time in the survey's zone.
        zone = ZoneInfo(cleaned.get("time_zone") or "UTC")
        for name in ("opens_at", "closes_at"):
            value = cleaned.get(name)
            if value is not None:
                wall_clock = timezone.make_naive(value, timezone.get_current_timezone())
                cleaned[name] = timezone.make_aware(wall_clock, zone)
        return cleaned
