"""Researcher page forms: input shape at the edge. Meaning is checked again by the services."""

import math
from zoneinfo import ZoneInfo

from django import forms
from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .. import limits, selectors
from ..models import CI_METHODS, Question, Survey
from ..selectors import CUSTOM_DESIGN, design_presets, preset_for
from ..services.question_types import DEFAULT_EPSILON, MAX_NOT_ABOVE_MIN
from ..timezones import time_zone_names

# Translated names for the presets dpengine ships; an unknown future preset shows its own label.
PRESET_LABELS = {
    "classic": _("Classic two coins — half answer truthfully, ε = ln 3 ≈ 1.10"),
    "strong_privacy": _("Stronger privacy — a quarter answer truthfully, ε = ln(5/3) ≈ 0.51"),
    "high_precision": _("Weaker privacy, more precise — three quarters truthful, ε = ln 7 ≈ 1.95"),
}
COIN_LABELS = {
    "p_truth": _("Coin 1: probability of answering truthfully (p_truth)"),
    "p_forced_yes": _("Coin 2: probability of a forced “yes” (p_forced_yes)"),
}


def preset_choices():
    presets = design_presets()
    choices = [(key, PRESET_LABELS.get(key, preset.label)) for key, preset in presets.items()]
    return [*choices, (CUSTOM_DESIGN, _("Custom coins"))]


def confidence_choices(extra=None):
    levels = sorted({*limits.CONFIDENCE_LEVELS, *([extra] if extra else [])})
    return [(level, f"{level * 100:g} %") for level in levels]


def _clean_coin(value):
    if value is None:
        raise forms.ValidationError(_("Required when “Custom coins” is selected."))
    if not math.isfinite(value) or not 0 < value < 1:
        raise forms.ValidationError(
            _("Must lie strictly between 0 and 1, got %(value)s."), params={"value": f"{value:g}"}
        )
    if not limits.COIN_MIN <= value <= limits.COIN_MAX:
        raise forms.ValidationError(
            _("Must be between %(min)s and %(max)s, got %(value)s."),
            params={"min": limits.COIN_MIN, "max": limits.COIN_MAX, "value": f"{value:g}"},
        )
    return value


def resolve_coins(form, cleaned):
    """Turn the design choice into coins: a preset's own, or the custom coins validated.

    A preset wins over whatever the coin inputs hold (they may be stale without JS). Returns
    True when a preset supplied the coins.
    """
    preset = cleaned.get("preset")
    presets = design_presets()
    if preset in presets:
        design = presets[preset].design
        cleaned["p_truth"] = float(design.p_truth)
        cleaned["p_forced_yes"] = float(design.p_forced_yes)
        return True
    if preset == CUSTOM_DESIGN:
        for name in ("p_truth", "p_forced_yes"):
            if name in form.errors:
                continue
            try:
                cleaned[name] = _clean_coin(cleaned.get(name))
            except forms.ValidationError as exc:
                form.add_error(name, exc)
    return False


class PageForm(forms.Form):
    """Labels without the trailing colon, as on the rest of the pages."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)


class CoinField(forms.FloatField):
    widget = forms.NumberInput

    def __init__(self, **kwargs):
        super().__init__(required=False, **kwargs)
        self.widget.attrs.update({"step": "any", "inputmode": "decimal"})


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

    # shared_devices decides whether browsers keep their memo: switching it under respondents
    # would let the same browser draw fresh coins (services.DESIGN_FIELDS).
    # So does access: opening an invitation study to the link would break its promise.
    DESIGN_FIELDS = (
        "preset",
        "p_truth",
        "p_forced_yes",
        "shared_devices",
        "access",
        "consent_text",
    )

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
                "response_target",
            )
        }
        if not self.frozen:
            if self.cleaned_data.get("access"):
                data["access"] = self.cleaned_data["access"]
            data["p_truth"] = self.cleaned_data["p_truth"]
            data["p_forced_yes"] = self.cleaned_data["p_forced_yes"]
            data["consent_text"] = self.cleaned_data["consent_text"]
        return data


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


def required_answer_field(*, initial, help_text):
    """The builder's "Required" box of a yes/no or grouping question; ``initial`` is its
    default, ``help_text`` says what skipping that kind of question means."""
    return forms.BooleanField(
        label=_("Required: respondents must answer it"),
        required=False,
        initial=initial,
        help_text=help_text,
    )


def question_text_field(*, label, help_text, max_length=limits.QUESTION_TEXT_MAX_LENGTH):
    """The builder's text box of a question (yes/no or grouping): two rows to start with."""
    return forms.CharField(
        label=label,
        max_length=max_length,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text=help_text,
    )


# --- a question's type and design ----------------------------------------------------------

YES_NO, CHOICE, NUMERIC = Question.Kind.YES_NO, Question.Kind.CHOICE, Question.Kind.NUMERIC
TEXT = Question.Kind.TEXT
TYPE_CHOICES = [
    (YES_NO, _("Yes or no")),
    (CHOICE, _("Multiple choice")),
    (NUMERIC, _("Number in a range")),
    (TEXT, _("Short text (always asked directly)")),
]
SURVEY_COINS = "survey"  # the design choice "the survey's two coins": an empty design
# The yes/no designs offered, in the builder's order (dpengine kinds), and their names.
DESIGN_LABELS = {
    SURVEY_COINS: _("The survey’s two coins (forced response)"),
    "warner": _("Warner: answer the statement or its opposite"),
    "unrelated_question": _("Unrelated question with a known share of “yes”"),
    "kuk": _("Kuk: two decks of cards"),
    "mangat": _("Mangat (private variant)"),
    "forced_response": _("Forced response with this question’s own coins"),
}
PARAMETER_LABELS = {
    ("forced_response", "p_truth"): COIN_LABELS["p_truth"],
    ("forced_response", "p_forced_yes"): COIN_LABELS["p_forced_yes"],
    ("warner", "p"): _("p: probability of answering the statement as asked (else its opposite)"),
    ("unrelated_question", "p"): _("p: probability of answering the sensitive question"),
    ("unrelated_question", "pi"): _(
        "π: known probability of “yes” to the unrelated question (the device draws it)"
    ),
    ("kuk", "theta1"): _("θ₁: share of red cards in the deck of those whose answer is yes"),
    ("kuk", "theta2"): _("θ₂: share of red cards in the deck of those whose answer is no"),
    ("mangat", "p"): _("p: probability that the device says “I belong”"),
    ("mangat", "t"): _("t: probability that a member, too, uses the device (else says yes)"),
}
# Short names for the builder's question list.
TYPE_SHORT_LABELS = {
    YES_NO: _("Yes/no"),
    CHOICE: _("Multiple choice"),
    NUMERIC: _("Number"),
    TEXT: _("Short text"),
}
DESIGN_SHORT_LABELS = {
    SURVEY_COINS: _("survey coins (forced response)"),
    "warner": _("Warner"),
    "unrelated_question": _("unrelated question"),
    "kuk": _("Kuk"),
    "mangat": _("Mangat"),
    "forced_response": _("forced response, own coins"),
}
PARAMETER_SYMBOLS = {"pi": "π", "theta1": "θ₁", "theta2": "θ₂"}
# A yes/no design's refusals, by their code (dpengine.errors.Reason, which the services pass on),
# shown beside the parameter to blame.
DESIGN_ERROR_MESSAGES = {
    "out_of_range": _("Outside the values this design allows."),
    "invalid_type": _("Must be a number."),
    "no_information": _(
        "With this value a report would say nothing about the true answer. Choose another."
    ),
    "not_differentially_private": _(
        "With this value some report would reveal the true answer (ε would be infinite). "
        "Choose another."
    ),
}


def design_parameter_defaults() -> dict:
    """``{design kind: {parameter: default}}`` of the designs a question may name, from
    dpengine's own defaults (through the selectors)."""
    return {
        kind: selectors.yes_no_design(kind=kind, parameters={}).parameters
        for kind in DESIGN_LABELS
        if kind != SURVEY_COINS
    }


def parameter_field_name(kind, parameter) -> str:
    return f"{kind}_{parameter}"


class QuestionTypeForm(PageForm):
    """The type of a question and its parameters, turned into the spec the services check
    (``services.question_types``). Every field is on the page, so the form works without a
    script; builder.js shows only those of the chosen type and design."""

    question_type = forms.ChoiceField(
        label=_("Type of answer"),
        choices=TYPE_CHOICES,
        initial=YES_NO,
        widget=forms.RadioSelect,
        # A post without it (a script written before types) adds yes/no questions, edits none.
        required=False,
    )
    design = forms.ChoiceField(
        label=_("Randomization of a yes/no answer"),
        choices=list(DESIGN_LABELS.items()),
        initial=SURVEY_COINS,
        required=False,
        help_text=_(
            "How the respondent’s device randomizes the answer before it is sent. The survey’s "
            "coins are set under Settings; the other designs take the parameters below."
        ),
    )
    options = forms.CharField(
        label=_("Options (multiple choice), one per line"),
        required=False,
        max_length=limits.MAX_CHOICE_OPTIONS * (limits.OPTION_LABEL_MAX_LENGTH + 2),
        widget=forms.Textarea(attrs={"rows": 4}),
    )
    minimum = forms.IntegerField(
        label=_("Smallest answer (number)"),
        required=False,
        min_value=-limits.NUMERIC_BOUND,
        max_value=limits.NUMERIC_BOUND,
        help_text=_("Answers below it count as this value."),
    )
    maximum = forms.IntegerField(
        label=_("Largest answer (number)"),
        required=False,
        min_value=-limits.NUMERIC_BOUND,
        max_value=limits.NUMERIC_BOUND,
        help_text=_(
            "Answers above it count as this value. The noise grows with the range, so keep it "
            "as narrow as the question allows."
        ),
    )
    epsilon = forms.FloatField(
        label=_("ε of one answer (multiple choice and number)"),
        required=False,
        initial=DEFAULT_EPSILON,
    )
    asked_directly = forms.BooleanField(
        label=_("Ask directly (not randomized)"),
        required=False,
        help_text=_(
            "The respondent’s answer is sent as given, with no coins and no noise; the design "
            "and ε above are then not used."
        ),
    )
    direct_confirmed = forms.BooleanField(
        label=_(
            "I understand: a direct answer is stored exactly as the respondent gives it, no ε "
            "covers it, and in a small group it may identify them."
        ),
        required=False,
    )

    # The spec's field names (services.question_types) -> this form's fields.
    SPEC_FIELDS = {
        "type": "question_type",
        "design": "design",
        "design.kind": "design",
        "options": "options",
        "min": "minimum",
        "max": "maximum",
        "epsilon": "epsilon",
        "randomized": "asked_directly",
    }
    TYPE_FIELD_NAMES = (
        "question_type",
        "design",
        "options",
        "minimum",
        "maximum",
        "epsilon",
        "asked_directly",
        "direct_confirmed",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Formatted here, in the request's language (a lazy text formatted at import is not).
        self.fields["options"].help_text = _(
            "From %(min)d to %(max)d options. The respondent picks exactly one."
        ) % {"min": limits.MIN_CHOICE_OPTIONS, "max": limits.MAX_CHOICE_OPTIONS}
        self.fields["epsilon"].help_text = _(
            "Smaller: more privacy and noisier estimates. ln 3 ≈ 1.10 matches the classic "
            "coins; at most %(max)s on this site."
        ) % {"max": f"{settings.MAX_EPSILON_PER_ANSWER:g}"}
        self.fields["epsilon"].widget.attrs.update(
            {"step": "any", "inputmode": "decimal", "data-default": repr(DEFAULT_EPSILON)}
        )
        for kind, parameters in design_parameter_defaults().items():
            for parameter, default in parameters.items():
                field = CoinField(
                    label=PARAMETER_LABELS.get((kind, parameter), parameter), initial=default
                )
                field.widget.attrs.update(
                    {
                        "data-design": kind,
                        "data-parameter": parameter,
                        "data-default": repr(float(default)),
                    }
                )
                self.fields[parameter_field_name(kind, parameter)] = field

    def design_fields(self):
        """``[(kind, [bound parameter fields])]`` for the template, in the designs' order."""
        return [
            (kind, [self[parameter_field_name(kind, name)] for name in parameters])
            for kind, parameters in design_parameter_defaults().items()
        ]

    @staticmethod
    def type_initial(question) -> dict:
        """The type fields' initial values from a stored question."""
        initial = {"question_type": question.kind}
        if not question.randomized:
            initial["asked_directly"] = initial["direct_confirmed"] = True
        if question.kind == YES_NO:
            design = dict(question.design or {})
            kind = design.pop("kind", SURVEY_COINS)
            initial["design"] = kind
            for name, value in design.items():
                initial[parameter_field_name(kind, name)] = value
        elif question.kind == CHOICE:
            initial["options"] = "\n".join(question.options)
        if question.kind in (CHOICE, NUMERIC):
            initial["epsilon"] = question.epsilon
        if question.kind == NUMERIC:
            initial["minimum"], initial["maximum"] = question.min_value, question.max_value
        return initial

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("question_type") == NUMERIC:
            for name in ("minimum", "maximum"):
                if cleaned.get(name) is None and name not in self.errors:
                    self.add_error(name, _("Required for a number question."))
        if self.is_direct() and not cleaned.get("direct_confirmed"):
            # A direct question gives up the protection the rest of the page promises: the
            # researcher says so explicitly, not by a default.
            self.add_error(
                "direct_confirmed",
                _("Tick this to ask the question directly: its answers are not randomized."),
            )
        return cleaned

    def is_direct(self) -> bool:
        data = getattr(self, "cleaned_data", {})
        return bool(data.get("asked_directly")) or data.get("question_type") == TEXT

    def type_spec(self) -> dict | None:
        """The spec of the chosen type (``services.question_types.clean_question_type``):
        only the chosen type's fields; a blank parameter takes dpengine's default. None when
        no type was posted: the services then add yes/no questions and change no type."""
        data = self.cleaned_data
        kind = data.get("question_type")
        if not kind:
            return None
        if kind == TEXT:
            return {"type": TEXT, "randomized": False}
        if self.is_direct():
            spec = {"type": kind, "randomized": False}
            if kind == CHOICE:
                lines = (line.strip() for line in data.get("options", "").splitlines())
                spec["options"] = [line for line in lines if line]
            elif kind == NUMERIC:
                spec.update(min=data.get("minimum"), max=data.get("maximum"))
            return spec
        if kind == CHOICE:
            lines = (line.strip() for line in data.get("options", "").splitlines())
            spec = {"type": CHOICE, "options": [line for line in lines if line]}
        elif kind == NUMERIC:
            spec = {"type": NUMERIC, "min": data.get("minimum"), "max": data.get("maximum")}
        else:
            design = data.get("design") or SURVEY_COINS
            if design == SURVEY_COINS:
                return {"type": YES_NO, "design": {}}
            parameters = design_parameter_defaults()[design]
            values = {name: data.get(parameter_field_name(design, name)) for name in parameters}
            return {
                "type": YES_NO,
                "design": {
                    "kind": design,
                    **{name: value for name, value in values.items() if value is not None},
                },
            }
        if data.get("epsilon") is not None:
            spec["epsilon"] = data["epsilon"]
        return spec

    def message_for_service_error(self, error) -> str | None:
        """A service error about a type field, in this form's words (``None``: as it is).

        The services word their errors for the API, whose fields are ``min``, ``max``, ``p``;
        this page's are "Smallest answer", "Largest answer" and the parameters' long labels, and
        dpengine's messages are in English only."""
        if error.code == MAX_NOT_ABOVE_MIN:
            return _("Must be greater than “%(label)s” (%(lo)d).") % {
                "label": self.fields["minimum"].label,
                "lo": error.params["lo"],
            }
        # Shown beside the parameter it blames, so it need not name it.
        worded = DESIGN_ERROR_MESSAGES.get(error.code)
        return None if worded is None else str(worded)

    def field_for_service_error(self, name) -> str | None:
        """The field a service's error about ``name`` (a spec path: ``design.p``,
        ``options.2``) belongs next to, or None for the form's own errors."""
        if name in self.fields:
            return name
        if name in self.SPEC_FIELDS:
            return self.SPEC_FIELDS[name]
        head, _dot, tail = name.partition(".")
        if head == "options":
            return "options"
        if head == "design" and tail:
            field = parameter_field_name(self.cleaned_data.get("design") or "", tail)
            return field if field in self.fields else "design"
        return None


class QuestionForm(QuestionTypeForm):
    text = question_text_field(
        label=_("Question"),
        help_text=_("Ask about one thing, so that each answer has a single meaning."),
    )
    required = required_answer_field(
        initial=True,
        help_text=_(
            "Untick to let respondents skip it. A skipped question sends nothing, and its "
            "estimate counts only the people who answered it."
        ),
    )
    field_order = ["text", "required"]

    @classmethod
    def initial_for(cls, question):
        return {
            "text": question.text,
            "required": question.required,
            **cls.type_initial(question),
        }


QUESTIONS_PER_PASTE = limits.MAX_QUESTIONS  # no survey holds more


class QuestionAddForm(QuestionTypeForm):
    """The builder's add box: one question, or several pasted one per line (all of the type
    chosen below)."""

    text = question_text_field(
        label=_("Question"),
        # Room for a survey's worth of questions; each line is checked on its own below.
        max_length=QUESTIONS_PER_PASTE * (limits.QUESTION_TEXT_MAX_LENGTH + 2),
        help_text=_(
            "Ask about one thing, so that each answer has a single meaning. To add several "
            "questions of the same type at once, put one per line."
        ),
    )
    required = QuestionForm.base_fields["required"]
    field_order = ["text", "required"]

    def next_question_form(self):
        """An empty add box for the next question, with this one's type and parameters."""
        kept = {name: value for name, value in self.cleaned_data.items() if name != "text"}
        return type(self)(initial=kept)

    def clean_text(self):
        lines = [line.strip() for line in self.cleaned_data["text"].splitlines()]
        texts = [line for line in lines if line]
        if not texts:
            raise forms.ValidationError(_("This field may not be blank."))
        if len(texts) > QUESTIONS_PER_PASTE:
            raise forms.ValidationError(
                _("At most %(max)d questions at once, got %(n)d lines.")
                % {"max": QUESTIONS_PER_PASTE, "n": len(texts)}
            )
        for number, text in enumerate(texts, start=1):
            if len(text) > limits.QUESTION_TEXT_MAX_LENGTH:
                raise forms.ValidationError(
                    _("Question %(number)d has %(n)d characters; at most %(max)d are allowed.")
                    % {"number": number, "n": len(text), "max": limits.QUESTION_TEXT_MAX_LENGTH}
                )
        return texts


class MoveForm(PageForm):
    direction = forms.ChoiceField(choices=[("up", _("Up")), ("down", _("Down"))])

    @property
    def offset(self):
        return -1 if self.cleaned_data["direction"] == "up" else 1


class DesignPreviewForm(PageForm):
    """Query string of the builder's live privacy numbers."""

    p_truth = forms.FloatField(label=COIN_LABELS["p_truth"])
    p_forced_yes = forms.FloatField(label=COIN_LABELS["p_forced_yes"])
    questions = forms.IntegerField(
        label=_("Number of questions"), min_value=0, max_value=1000, required=False
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
        return _clean_coin(self.cleaned_data["p_truth"])

    def clean_p_forced_yes(self):
        return _clean_coin(self.cleaned_data["p_forced_yes"])


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
