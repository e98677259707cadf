"""A question's type and randomization as the builder edits them: the type, the yes/no
design and its parameters, the options or range, ε; turned into the spec the services check."""

from django import forms
from django.conf import settings
from django.utils.translation import gettext_lazy as _

from .. import limits, selectors
from ..designs import cheating_row, design_row
from ..models import Question
from ..services.question_types import DEFAULT_EPSILON, MAX_NOT_ABOVE_MIN
from .fields import CoinField, PageForm

# --- a question's type and design ----------------------------------------------------------

YES_NO, CHOICE, NUMERIC = Question.Kind.YES_NO, Question.Kind.CHOICE, Question.Kind.NUMERIC
TEXT = Question.Kind.TEXT
TYPE_CHOICES = [
    (YES_NO, _("Yes or no")),
    (CHOICE, _("Multiple choice")),
    (NUMERIC, _("Number in a range")),
    (TEXT, _("Short text (always asked directly)")),
]
SURVEY_COINS = selectors.SURVEY_COINS
CHEATING_KINDS = selectors.CHEATING_KINDS
# Short names of the types for the builder's question list (a design's: selectors.DESIGN_LABELS).
TYPE_SHORT_LABELS = {
    YES_NO: _("Yes/no"),
    CHOICE: selectors.DESIGN_LABELS[CHOICE].short,
    NUMERIC: selectors.DESIGN_LABELS[NUMERIC].short,
    TEXT: _("Short text"),
}
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
    dpengine's own defaults (through the selectors); a cheating-detection design's pair ``p``
    as two fields, ``p1`` and ``p2``."""
    defaults = {
        kind: selectors.yes_no_design(kind=kind, parameters={}).parameters
        for kind in selectors.YES_NO_DESIGNS
        if kind != SURVEY_COINS
    }
    for kind in CHEATING_KINDS:
        design = selectors.cheating_design(kind=kind, parameters={})
        first, second = design.parameters["p"]
        defaults[kind] = {"p1": first, "p2": second, "group_share": design.parameters["share"]}
    return defaults


def parameter_field_name(kind, parameter) -> str:
    return f"{kind}_{parameter}"


def parameter_label(kind, parameter) -> str:
    """The builder's label of a design's parameter: its row's in the design table or its
    cheating-detection sibling (surveys/designs.py)."""
    row = design_row(kind) or cheating_row(kind)
    if row is not None and parameter in row.parameters:
        return row.parameters[parameter].label
    return parameter


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
        choices=[
            (kind, selectors.DESIGN_LABELS[kind].choice)
            for kind in (*selectors.YES_NO_DESIGNS, *CHEATING_KINDS)
        ],
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
    min = forms.IntegerField(
        label=_("Smallest answer (number)"),
        required=False,
        min_value=-limits.NUMERIC_BOUND,
        max_value=limits.NUMERIC_BOUND,
        help_text=_("Answers below it count as this value."),
    )
    max = forms.IntegerField(
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
    compare_direct = forms.BooleanField(
        label=_("Compare with asking directly (control group)"),
        required=False,
        help_text=_(
            "Randomized yes/no questions only. The survey’s control group (its share is in "
            "the survey’s settings) is asked this question directly; results show whether "
            "the coins revealed more."
        ),
    )
    respondent_procedure = forms.BooleanField(
        label=_("The respondent follows the coin (respondent procedure)"),
        required=False,
        help_text=_(
            "Randomized yes/no questions only; always for cheating detection (CDM, SLD). The "
            "page shows what the coin says (“answer truthfully”, “choose Yes”) and the "
            "respondent chooses the answer it gives, which is sent as it is: the true answer "
            "is never entered. Otherwise the respondent enters the true answer and the "
            "browser randomizes it."
        ),
    )
    pinned = forms.BooleanField(
        label=_("Keep this question in its place when the questions are shuffled"),
        required=False,
    )
    direct_confirmed = forms.BooleanField(
        label=_(
            "I understand: a direct answer is stored exactly as the respondent gives it, no ε "
            "covers it, and in a small group it may identify them."
        ),
        required=False,
    )
    cheating_confirmed = forms.BooleanField(
        label=_(
            "I understand: with cheating detection no ε covers this question, because a "
            "respondent who says “no” as instructed reveals that the true answer is no."
        ),
        required=False,
    )

    # The spec's field names (services.question_types) -> this form's fields.
    SPEC_FIELDS = {
        "type": "question_type",
        "design": "design",
        "design.kind": "design",
        "options": "options",
        "min": "min",
        "max": "max",
        "epsilon": "epsilon",
        "randomized": "asked_directly",
        "compare_direct": "compare_direct",
        "procedure": "respondent_procedure",
        "pinned": "pinned",
    }
    TYPE_FIELD_NAMES = (
        "question_type",
        "design",
        "options",
        "min",
        "max",
        "epsilon",
        "asked_directly",
        "compare_direct",
        "respondent_procedure",
        "pinned",
        "direct_confirmed",
        "cheating_confirmed",
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
                field = CoinField(label=parameter_label(kind, parameter), initial=default)
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
        initial["compare_direct"] = question.compare_direct
        initial["respondent_procedure"] = question.procedure == Question.Procedure.RESPONDENT
        initial["pinned"] = question.pinned
        if question.kind == YES_NO:
            design = dict(question.design or {})
            kind = design.pop("kind", SURVEY_COINS)
            initial["design"] = kind
            if kind in CHEATING_KINDS:
                design["p1"], design["p2"] = design.pop("p")
                initial["cheating_confirmed"] = True
            for name, value in design.items():
                initial[parameter_field_name(kind, name)] = value
        elif question.kind == CHOICE:
            initial["options"] = "\n".join(question.options)
        if question.kind in (CHOICE, NUMERIC):
            initial["epsilon"] = question.epsilon
        if question.kind == NUMERIC:
            # The model's columns are min_value and max_value; the form and the API say min and max.
            initial["min"], initial["max"] = question.min_value, question.max_value
        return initial

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("question_type") == NUMERIC:
            for name in ("min", "max"):
                if cleaned.get(name) is None and name not in self.errors:
                    self.add_error(name, _("Required for a number question."))
        if (
            cleaned.get("question_type") == YES_NO
            and cleaned.get("design") in CHEATING_KINDS
            and not self.is_direct()
            and not cleaned.get("cheating_confirmed")
        ):
            # As a direct question: the design gives up ε, so the researcher says so.
            self.add_error(
                "cheating_confirmed",
                _("Tick this to use cheating detection: no ε covers its answers."),
            )
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
        no type was posted: the services then add yes/no questions and change no type.
        ``compare_direct`` when ticked, whatever the type: the services refuse it on any
        question but a randomized yes/no one, naming the box."""
        spec = self._chosen_spec()
        if spec is not None and self.cleaned_data.get("compare_direct"):
            spec["compare_direct"] = True
        if spec is not None and self.cleaned_data.get("respondent_procedure"):
            # Unticked: the services' default (the device; the respondent for CDM and SLD).
            spec["procedure"] = Question.Procedure.RESPONDENT
        if spec is not None and self.cleaned_data.get("pinned"):
            spec["pinned"] = True
        return spec

    def _chosen_spec(self) -> dict | None:
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
                spec.update(min=data.get("min"), max=data.get("max"))
            return spec
        if kind == CHOICE:
            lines = (line.strip() for line in data.get("options", "").splitlines())
            spec = {"type": CHOICE, "options": [line for line in lines if line]}
        elif kind == NUMERIC:
            spec = {"type": NUMERIC, "min": data.get("min"), "max": data.get("max")}
        else:
            design = data.get("design") or SURVEY_COINS
            if design == SURVEY_COINS:
                return {"type": YES_NO, "design": {}}
            parameters = design_parameter_defaults()[design]
            values = {name: data.get(parameter_field_name(design, name)) for name in parameters}
            if design in CHEATING_KINDS:
                pair = [values.pop("p1"), values.pop("p2")]
                values["p"] = pair if None not in pair else None
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
                "label": self.fields["min"].label,
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
            if tail == "p" and self.cleaned_data.get("design") in CHEATING_KINDS:
                tail = "p1"  # the pair's first box: the message names the pair
            field = parameter_field_name(self.cleaned_data.get("design") or "", tail)
            return field if field in self.fields else "design"
        return None
