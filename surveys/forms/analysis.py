"""Forms of the grouping, breakdown, regression, planner and public-results pages.

Input shape at the edge; meaning is checked again by the services and selectors.
"""

from collections.abc import Callable
from typing import NamedTuple

from django import forms
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from .. import limits
from ..models import CI_METHODS, Question
from ..selectors import default_threshold, design_from_coins
from ..selectors.columns import grouping_column, question_column
from .fields import (
    COIN_LABELS,
    CoinField,
    PageForm,
    confidence_choices,
    preset_choices,
    question_text_field,
    required_answer_field,
    resolve_coins,
)


class GroupingQuestionForm(PageForm):
    text = question_text_field(
        label=_("Grouping question"),
        help_text=_("For example “Which department do you work in?”"),
    )
    options = forms.CharField(
        label=_("Options, one per line"),
        # Room for every option and its line break, with some slack for spaces around labels.
        max_length=limits.MAX_OPTIONS * (limits.OPTION_LABEL_MAX_LENGTH + 10),
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text=format_lazy(
            _("From 2 to {max} options. The first one is the reference group in the regression."),
            max=limits.MAX_OPTIONS,
        ),
    )
    required = required_answer_field(
        initial=False,
        help_text=_(
            "Off by default: these answers are not randomized and may identify someone. "
            "Respondents can always choose “Prefer not to say”, which counts as no answer in "
            "breakdowns and regressions."
        ),
    )

    BUILDER_PREFIX = "grouping"  # the builder also holds the yes/no question form's "text"

    @classmethod
    def for_builder(cls, data=None):
        return cls(data, prefix=cls.BUILDER_PREFIX)

    def option_list(self):
        return self.cleaned_data["options"].splitlines()

    @classmethod
    def initial_for(cls, grouping_question):
        return {
            "text": grouping_question.text,
            "options": "\n".join(option.label for option in grouping_question.options.all()),
            "required": grouping_question.required,
        }


def _level_field():
    return forms.TypedChoiceField(label=_("Confidence level"), coerce=float)


class Offer(NamedTuple):
    """A query form's field offering the survey's questions or grouping questions, each
    labelled as the results name it ("Q1: …")."""

    field: str
    keyword: str  # the form's keyword argument that passes them in
    column: Callable[[int], str]  # the column name of the item at a 0-based index
    invalid: str  # the message for any other value


NOT_A_GROUPING_QUESTION = _(
    "Choose one of this survey’s grouping questions; %(value)s is not one of them."
)
NOT_A_QUESTION = _("Choose one of this survey’s yes/no questions; %(value)s is not one of them.")


class _SurveyQueryForm(PageForm):
    """A GET form whose missing values fall back to the survey's defaults."""

    OFFERS: Offer | None = None

    def __init__(self, data=None, *, survey, defaults=None, **kwargs):
        offered = kwargs.pop(self.OFFERS.keyword) if self.OFFERS else ()
        merged = {"level": survey.confidence}
        if "method" in self.base_fields:
            merged["method"] = survey.ci_method
        if self.OFFERS:
            merged[self.OFFERS.field] = offered[0].pk if offered else ""
        merged.update(defaults or {})
        if data is not None:
            merged.update({key: data[key] for key in merged if key in data})
        super().__init__(merged, **kwargs)
        self.survey = survey
        self.fields["level"].choices = confidence_choices(survey.confidence)
        self.fields["level"].error_messages["invalid_choice"] = _(
            "Choose one of the offered confidence levels; %(value)s is not one of them."
        )
        if "method" in self.fields:
            self.fields["method"].error_messages["invalid_choice"] = _(
                "Choose one of the offered interval methods; %(value)s is not one of them."
            )
        if self.OFFERS:
            field = self.fields[self.OFFERS.field]
            field.choices = [
                (item.pk, f"{self.OFFERS.column(index)}: {item.text}")
                for index, item in enumerate(offered)
            ]
            field.error_messages["invalid_choice"] = self.OFFERS.invalid


class BreakdownForm(_SurveyQueryForm):
    """Offers the grouping questions, then the direct yes/no and choice questions
    (``direct``, ``{question: "Q3"}``; their value ``d<id>``): results break down by either."""

    by = forms.ChoiceField(label=_("Break down by"))
    method = forms.ChoiceField(label=_("Interval method"), choices=CI_METHODS)
    level = _level_field()
    OFFERS = Offer("by", "grouping_questions", grouping_column, NOT_A_GROUPING_QUESTION)

    def __init__(self, data=None, *, direct=None, **kwargs):
        super().__init__(data, **kwargs)
        field = self.fields["by"]
        field.choices = [(str(value), label) for value, label in field.choices] + [
            (f"d{question.pk}", f"{column}: {question.text}")
            for question, column in (direct or {}).items()
        ]
        if data is None or "by" not in data:
            # The first offered, grouping or direct, as the unbound default.
            self.data = {**self.data, "by": field.choices[0][0] if field.choices else ""}


class RegressionForm(_SurveyQueryForm):
    """Offers the survey's yes/no questions (``questions``), each labelled with its column
    among all the survey's questions (``columns``: {id: "Q3"}), as the results name it."""

    question = forms.TypedChoiceField(label=_("Yes/no question"), coerce=int)
    level = _level_field()
    OFFERS = Offer("question", "questions", question_column, NOT_A_QUESTION)

    def __init__(self, data=None, *, survey, questions, columns=None, **kwargs):
        super().__init__(data, survey=survey, questions=questions, **kwargs)
        if columns is not None:
            self.fields["question"].choices = [
                (question.pk, f"{columns[question.pk]}: {question.text}") for question in questions
            ]


NUMERIC = Question.Kind.NUMERIC

GOAL_MARGIN = "margin"
GOAL_DIFFERENCE = "difference"
POWER_LEVELS = (0.8, 0.9, 0.95)


class PlannerForm(_SurveyQueryForm):
    """Design and goal for the planner; numbers a person types are in percent."""

    preset = forms.ChoiceField(label=_("Design"), widget=forms.RadioSelect, choices=preset_choices)
    p_truth = CoinField(label=COIN_LABELS["p_truth"])
    p_forced_yes = CoinField(label=COIN_LABELS["p_forced_yes"])
    goal = forms.ChoiceField(
        label=_("Goal"),
        widget=forms.RadioSelect,
        choices=[
            (GOAL_MARGIN, _("A precision: the confidence interval’s half-width")),
            (GOAL_DIFFERENCE, _("A difference between two groups I want to detect")),
        ],
    )
    margin = forms.FloatField(
        label=_("Half-width (percentage points, ±)"),
        min_value=limits.PLANNER_MARGIN_MIN,
        max_value=limits.PLANNER_MARGIN_MAX,
        help_text=_("5 means estimates like “20% ± 5 points”."),
    )
    difference = forms.FloatField(
        label=_("Smallest difference to detect (percentage points)"),
        min_value=limits.PLANNER_DIFFERENCE_MIN,
        max_value=limits.PLANNER_DIFFERENCE_MAX,
        help_text=_("For example 10: one group 30%, the other 40%."),
    )
    power = forms.TypedChoiceField(
        label=_("Power"),
        coerce=float,
        choices=[(level, f"{level * 100:g} %") for level in POWER_LEVELS],
        help_text=_("The chance of detecting a difference of that size if it is real."),
    )
    level = _level_field()
    prevalence = forms.FloatField(
        label=_("Anticipated share answering yes (percent, optional)"),
        min_value=0,
        max_value=100,
        required=False,
        help_text=_("Leave empty for the worst case (the largest sample)."),
    )

    def __init__(self, data=None, *, survey, preset):
        defaults = {
            "preset": preset,
            "p_truth": survey.p_truth,
            "p_forced_yes": survey.p_forced_yes,
            "goal": GOAL_MARGIN,
            "margin": 5,
            "difference": 10,
            "power": 0.8,
            "level": survey.confidence,
            "prevalence": "",
        }
        super().__init__(data, survey=survey, defaults=defaults)

    def clean(self):
        cleaned = super().clean()
        if resolve_coins(self, cleaned):
            # Show the preset's coins in the coin fields (there is no script to sync them).
            self.data.update(p_truth=cleaned["p_truth"], p_forced_yes=cleaned["p_forced_yes"])
        prevalence = cleaned.get("prevalence")
        difference = cleaned.get("difference")
        if (
            cleaned.get("goal") == GOAL_DIFFERENCE
            and prevalence is not None
            and difference is not None
            and prevalence + difference > 100
        ):
            self.add_error(
                "difference",
                _("The anticipated share plus the difference must stay at or below 100%."),
            )
        return cleaned

    def plan_arguments(self):
        data = self.cleaned_data
        prevalence = data.get("prevalence")
        return {
            "design": design_from_coins(p_truth=data["p_truth"], p_forced_yes=data["p_forced_yes"]),
            "goal": data["goal"],
            "confidence": data["level"],
            "margin": data["margin"] / 100,
            "difference": data["difference"] / 100,
            "power": data["power"],
            "prevalence": None if prevalence is None else prevalence / 100,
        }


class PublicResultsForm(PageForm):
    public_results = forms.BooleanField(
        label=_("Publish read-only results at a public link"), required=False
    )
    public_epsilon = forms.FloatField(
        label=_("Total ε for the public page (all publications together)"),
        min_value=limits.PUBLIC_EPSILON_MIN,
        max_value=limits.PUBLIC_EPSILON_MAX,
        help_text=_(
            "Smaller ε: more noise in the published counts, better protection of who took part."
        ),
    )
    public_epsilon.widget.attrs.update({"step": "any", "inputmode": "decimal"})
    public_release_days = forms.IntegerField(
        label=_("Publish every … days"),
        min_value=limits.PUBLIC_RELEASE_DAYS_MIN,
        max_value=limits.PUBLIC_RELEASE_DAYS_MAX,
        help_text=_("New results appear on this schedule, a few minutes after midnight UTC."),
    )
    public_releases_max = forms.IntegerField(
        label=_("Number of publications"),
        min_value=limits.PUBLIC_RELEASES_MIN,
        max_value=limits.PUBLIC_RELEASES_MAX,
        help_text=_(
            "The total ε is shared by this many publications; after the last one the results "
            "no longer change. More publications: a little more noise in each."
        ),
    )


def threshold_field_name(question_id) -> str:
    """The query parameter of a numeric question's share-above threshold: ``threshold_q<id>``."""
    return f"threshold_q{question_id}"


class ThresholdsForm(forms.Form):
    """The share-above threshold of each numeric question (query ``threshold_q<id>``), an
    integer from its minimum to its maximum − 1; missing ones are the middle of the range."""

    def __init__(self, data=None, *, questions):
        self.numeric = [question for question in questions if question.kind == NUMERIC]
        merged = {threshold_field_name(q.pk): default_threshold(q) for q in self.numeric}
        if data is not None:
            merged.update({key: data[key] for key in merged if key in data})
        super().__init__(merged)
        for column, question in self.numeric_columns(questions):
            self.fields[threshold_field_name(question.pk)] = forms.IntegerField(
                label=format_lazy(_("{column}: share above"), column=column),
                min_value=question.min_value,
                max_value=question.max_value - 1,
                help_text=format_lazy(
                    _("A whole number from {min} to {max}."),
                    min=question.min_value,
                    max=question.max_value - 1,
                ),
            )

    def numeric_columns(self, questions):
        return [
            (question_column(index), question)
            for index, question in enumerate(questions)
            if question.kind == NUMERIC
        ]

    def thresholds(self) -> dict:
        """``{question id: threshold}``: the valid values, the defaults otherwise."""
        valid = self.is_valid()
        return {
            q.pk: (self.cleaned_data[threshold_field_name(q.pk)] if valid else default_threshold(q))
            for q in self.numeric
        }

    def query(self) -> str:
        """The thresholds as a query string (``threshold_q12=40&…``), for links and refresh."""
        return "&".join(
            f"{threshold_field_name(pk)}={value}" for pk, value in self.thresholds().items()
        )
