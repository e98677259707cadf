"""The results page's interval method and confidence level."""

from django import forms
from django.utils.translation import gettext_lazy as _

from ..models import CI_METHODS
from .fields import PageForm, confidence_choices


class ResultsForm(PageForm):
    """The interval method and level a researcher picks on the results page and CSV."""

    method = forms.ChoiceField(label=_("Interval method"), choices=CI_METHODS)
    level = forms.TypedChoiceField(label=_("Confidence level"), coerce=float)

    def __init__(self, data=None, *, survey, **kwargs):
        self.survey = survey
        merged = {"method": survey.ci_method, "level": survey.confidence}
        if data is not None:
            merged.update({key: data[key] for key in ("method", "level") if key in data})
        super().__init__(merged, **kwargs)
        self.fields["level"].choices = confidence_choices(survey.confidence)
        self.fields["level"].error_messages["invalid_choice"] = _(
            "Choose one of the offered confidence levels; %(value)s is not one of them."
        )
        self.fields["method"].error_messages["invalid_choice"] = _(
            "Choose one of the offered interval methods; %(value)s is not one of them."
        )

    def selection(self):
        """(method, level) to use: the valid choices, the survey's defaults otherwise."""
        if self.is_valid():
            return self.cleaned_data["method"], self.cleaned_data["level"]
        return self.survey.ci_method, self.survey.confidence
