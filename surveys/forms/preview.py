"""The builder's design preview: the privacy numbers of coins not yet saved."""

from django import forms
from django.utils.translation import gettext_lazy as _

from .. import limits
from .fields import COIN_LABELS, PageForm, clean_coin


class DesignPreviewForm(PageForm):
    """Query string of the builder's live privacy numbers."""

    p_truth = forms.FloatField(label=COIN_LABELS["p_truth"])
    p_forced_yes = forms.FloatField(label=COIN_LABELS["p_forced_yes"])
    questions = forms.IntegerField(
        label=_("Number of questions"),
        min_value=0,
        max_value=limits.PREVIEW_QUESTIONS_MAX,
        required=False,
    )
    # The builder's survey: its saved questions' own designs then count in the total.
    survey = forms.IntegerField(label=_("Survey"), min_value=1, required=False)

    def labelled_errors(self):
        """``{field: ["<label>: <message>", ...]}``, so every message names its field."""
        return {
            field: [f"{self.fields[field].label}: {message}" for message in errors]
            if field in self.fields
            else list(errors)
            for field, errors in self.errors.items()
        }

    def clean_p_truth(self):
        return clean_coin(self.cleaned_data["p_truth"])

    def clean_p_forced_yes(self):
        return clean_coin(self.cleaned_data["p_forced_yes"])
