"""The dashboard's sort and filter."""

from django import forms
from django.utils.translation import gettext_lazy as _

from .. import limits
from .fields import PageForm


class DashboardForm(PageForm):
    """The dashboard's search, sort and page (GET parameters, so a list can be linked to)."""

    q = forms.CharField(
        label=_("Search by title or link"),
        required=False,
        max_length=limits.TITLE_MAX_LENGTH,
        widget=forms.SearchInput(attrs={"autocomplete": "off"}),
    )
    sort = forms.ChoiceField(
        label=_("Sort by"),
        required=False,
        choices=[
            ("newest", _("Newest first")),
            ("title", _("Title")),
            ("status", _("Status (open, draft, closed)")),
            ("responses", _("Most responses")),
        ],
    )
    page = forms.IntegerField(label=_("Page"), required=False, min_value=1, max_value=100000)

    def clean_sort(self):
        return self.cleaned_data["sort"] or "newest"
