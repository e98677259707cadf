"""The survey's settings form (title, texts, coins, defaults)."""

from django import forms
from django.conf import settings
from django.utils.translation import gettext_lazy as _

from .. import limits
from ..models import CI_METHODS, Survey
from ..selectors import preset_for
from ..services import validation
from .fields import (
    COIN_LABELS,
    CoinField,
    PageForm,
    confidence_choices,
    preset_choices,
    resolve_coins,
)


class SurveyForm(PageForm):
    """Survey settings; with ``frozen=True`` the coins are shown but cannot change."""

    title = forms.CharField(label=_("Title"), max_length=limits.TITLE_MAX_LENGTH)
    intro = forms.CharField(
        label=_("Introduction shown to respondents"),
        required=False,
        max_length=limits.INTRO_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text=_("Who runs the survey, what it is for, how long it takes."),
    )
    language = forms.ChoiceField(
        label=_("Language of the respondent page"),
        choices=settings.LANGUAGES,
        help_text=_(
            "The language the survey is written in. On the Translations page you can add the "
            "other languages; respondents then see the survey in theirs."
        ),
    )
    preset = forms.ChoiceField(
        label=_("Choose a design"), widget=forms.RadioSelect, choices=preset_choices
    )
    p_truth = CoinField(
        label=COIN_LABELS["p_truth"],
        help_text=_("Used with “Custom coins”. Higher: more precise estimates, weaker privacy."),
    )
    p_forced_yes = CoinField(
        label=COIN_LABELS["p_forced_yes"],
        help_text=_("When coin 1 says “don’t answer truthfully”, the chance the report is “yes”."),
    )
    shared_devices = forms.BooleanField(
        label=_("Several people answer on the same device"),
        required=False,
        help_text=_(
            "Tick this for a lab tablet, a kiosk or a family computer. The browser then keeps "
            "nothing about a respondent once their answers are sent, so the next person's "
            "coins are fresh. Leave it unticked when each person uses their own device: a "
            "retake there sends the first answers again and is counted once."
        ),
    )
    shuffle_questions = forms.BooleanField(
        label=_("Show the questions in a random order"),
        required=False,
        help_text=_(
            "Each respondent's browser draws its own order, against order effects; it is never "
            "sent. Questions about the respondent (groups) keep their places, and results "
            "keep your order."
        ),
    )
    control_share = forms.FloatField(
        label=_("Direct-questioning control group"),
        required=False,  # blank: none (0)
        min_value=0,
        max_value=limits.CONTROL_SHARE_MAX,
        widget=forms.NumberInput(attrs={"step": "0.05", "inputmode": "decimal"}),
        help_text=_(
            "The share of respondents, from 0 (none) to 0.5, whose browser asks the questions "
            "you mark “Compare with asking directly” directly instead of with coins. Their "
            "answers to those questions are sent as given, and the page tells every "
            "respondent this chance beforehand. Results compare the two groups."
        ),
    )
    comprehension_check = forms.BooleanField(
        label=_("Check that respondents understand the procedure"),
        required=False,
        help_text=_(
            "Before the questions, a practice round of each design your questions use, with "
            "feedback. Whether the first try was right is sent, as given, so you can report "
            "how many understood; nothing else about the practice is sent."
        ),
    )
    access = forms.ChoiceField(
        label=_("Who may answer"),
        choices=Survey.Access.choices,
        widget=forms.RadioSelect,
        required=False,  # left out: unchanged (a new survey: the link)
        help_text=_(
            "Invitation only: each invitee answers once with a personal link or a printed "
            "code, and nobody, you included, can tell which answer came from which "
            "invitation. Locked when the survey opens."
        ),
    )
    ci_method = forms.ChoiceField(label=_("Default interval method"), choices=CI_METHODS)
    confidence = forms.TypedChoiceField(label=_("Default confidence level"), coerce=float)
    min_n = forms.IntegerField(
        label=_("Minimum responses before a question’s estimate is shown"),
        min_value=0,
        max_value=limits.MIN_N_MAX,
        help_text=_("Below this number of responses the results page withholds the numbers."),
    )
    consent_text = forms.CharField(
        label=_("Consent text (optional)"),
        required=False,
        max_length=limits.CONSENT_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text=_(
            "When set, respondents read it first and see the questions only after ticking "
            "that they agree. Each change makes a new version; it is locked with the questions "
            "when the survey opens. Nothing about consent is stored per respondent."
        ),
    )
    response_target = forms.IntegerField(
        label=_("Response target (optional)"),
        required=False,
        min_value=1,
        max_value=limits.RESPONSE_TARGET_MAX,
        help_text=_(
            "How many responses you aim for: shown as progress on the dashboard and results."
        ),
    )

    # What an opened survey keeps (services.DESIGN_FIELDS: shared_devices decides whether
    # browsers keep their memo, access whom the study promised what, ...), those of them this
    # form has, with the preset that sets the coins and the consent text respondents agreed to.
    DESIGN_FIELDS = ("preset", *validation.DESIGN_FIELDS, "consent_text")

    def __init__(
        self, *args, frozen=False, current_confidence=None, suggested_target=None, **kwargs
    ):
        super().__init__(*args, **kwargs)
        self.frozen = frozen
        self.fields["confidence"].choices = confidence_choices(current_confidence)
        if suggested_target:
            field = self.fields["response_target"]
            field.widget.attrs["placeholder"] = str(suggested_target)
            field.help_text = _(
                "How many responses you aim for: shown as progress on the dashboard and "
                "results. The planner suggests %(n)s respondents for estimates within ±5 "
                "points (95 %% confidence) with these coins."
            ) % {"n": suggested_target}
        if frozen:
            for name in self.DESIGN_FIELDS:
                if name in self.fields:
                    self.fields[name].disabled = True

    @classmethod
    def initial_for(cls, survey):
        return {
            "title": survey.title,
            "intro": survey.intro,
            "language": survey.language,
            "preset": preset_for(p_truth=survey.p_truth, p_forced_yes=survey.p_forced_yes),
            "p_truth": survey.p_truth,
            "p_forced_yes": survey.p_forced_yes,
            "ci_method": survey.ci_method,
            "confidence": survey.confidence,
            "min_n": survey.min_n,
            "shared_devices": survey.shared_devices,
            "shuffle_questions": survey.shuffle_questions,
            "control_share": survey.control_share,
            "comprehension_check": survey.comprehension_check,
            "access": survey.access,
            "consent_text": survey.consent_text,
            "response_target": survey.response_target,
        }

    def clean(self):
        cleaned = super().clean()
        if self.frozen:
            return cleaned
        resolve_coins(self, cleaned)
        return cleaned

    def service_data(self):
        """The cleaned values the survey services take (coins only when they may change)."""
        data = {
            name: self.cleaned_data[name]
            for name in (
                "title",
                "intro",
                "language",
                "ci_method",
                "confidence",
                "min_n",
                "shared_devices",
                "shuffle_questions",
                "comprehension_check",
                "response_target",
            )
        }
        if not self.frozen:
            if self.cleaned_data.get("access"):
                data["access"] = self.cleaned_data["access"]
            data["p_truth"] = self.cleaned_data["p_truth"]
            data["p_forced_yes"] = self.cleaned_data["p_forced_yes"]
            data["consent_text"] = self.cleaned_data["consent_text"]
            data["control_share"] = self.cleaned_data.get("control_share") or 0.0
        return data
