"""The fields of a question's type spec in the API (``type``, ``design``, ``options``,
``min``, ``max``, ``epsilon``, ``randomized``): their shapes and schemas; the services check
the meaning (``services.question_types``)."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from ... import limits
from ...designs import design_rows
from ...models import Question
from ...services.question_types import DESIGN_KINDS


class SpecField(serializers.Field):
    """A part of a question's type spec, passed to the services as sent: they check it
    (``services.question_types``) and name the field, ``questions.<index>.<field>``."""

    def __init__(self, **kwargs):
        kwargs.setdefault("required", False)
        kwargs.setdefault("allow_null", True)
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        return data

    def to_representation(self, value):
        return value


def _design_parameters() -> dict[str, str]:
    """Each parameter name a design takes, described by the designs that take it: the yes/no
    designs' from their rows of the design table (surveys/designs.py), then CDM's and SLD's."""
    about: dict[str, list[str]] = {}
    for row in design_rows():
        for name, parameter in row.parameters.items():
            about.setdefault(name, []).append(parameter.about)
    about.setdefault("group_share", []).append(
        "cdm, sld: probability that the browser puts a respondent in group 1 (default 0.5)"
    )
    return {name: "; ".join(texts) for name, texts in about.items()}


def _design_defaults() -> str:
    """``warner p=0.75; kuk theta1=0.625, theta2=0.25; ...``: each design's defaults."""
    return "; ".join(
        f"{row.kind} " + ", ".join(f"{name}={value:g}" for name, value in row.defaults().items())
        for row in design_rows()
    )


DESIGN_PARAMETERS = _design_parameters()
# The cheating-detection designs' p: a pair, one probability per group (RRreg's p = c(p1, p2)).
CHEATING_P = {
    "type": "array",
    "items": {"type": "number", "format": "double"},
    "minItems": 2,
    "maxItems": 2,
    "description": "cdm, sld: [p1, p2], one probability per group (RRreg's parametrisation)",
}


@extend_schema_field(
    {
        "type": "string",
        "enum": list(Question.Kind.values),
        "default": Question.Kind.YES_NO,
        "description": "`yes_no` (the default), `choice` (one of `options`), `numeric` (a "
        "whole number in [`min`, `max`]) or `text` (a short text of at most "
        f"{limits.DIRECT_TEXT_MAX_BYTES} bytes of UTF-8; asked directly only, so it needs "
        "`randomized: false`).",
    }
)
class QuestionTypeField(SpecField):
    pass


@extend_schema_field(
    {
        "type": "object",
        "nullable": True,
        "description": "A yes/no question's randomization: `{}` (or absent) for the survey's "
        "two coins (forced response), else `kind` and that design's parameters, each a "
        f"probability; a missing parameter takes its default ({_design_defaults()}; cdm and sld "
        "p=[0.25, 0.75], group_share=0.5: cheating detection, no finite ε). Null for the other "
        "types.",
        "properties": {
            "kind": {"type": "string", "enum": list(DESIGN_KINDS)},
            **{
                name: {"type": "number", "format": "double", "description": text}
                for name, text in DESIGN_PARAMETERS.items()
            },
            # A number for the yes/no designs that take it; a pair for cdm and sld.
            "p": {
                "oneOf": [
                    {"type": "number", "format": "double", "description": DESIGN_PARAMETERS["p"]},
                    CHEATING_P,
                ]
            },
        },
        "additionalProperties": False,
        "example": {"kind": "warner", "p": 0.75},
    }
)
class DesignField(SpecField):
    pass


@extend_schema_field(
    {
        "type": "array",
        "nullable": True,
        "items": {"type": "string", "maxLength": limits.OPTION_LABEL_MAX_LENGTH},
        "minItems": limits.MIN_CHOICE_OPTIONS,
        "maxItems": limits.MAX_CHOICE_OPTIONS,
        "description": "A multiple-choice question's option labels, each its own; null for "
        "the other types. The respondent picks exactly one.",
    }
)
class OptionsField(SpecField):
    pass


def _bound_schema(which):
    return {
        "type": "integer",
        "nullable": True,
        "minimum": -limits.NUMERIC_BOUND,
        "maximum": limits.NUMERIC_BOUND,
        "description": f"A numeric question's {which} answer (answers beyond it count as it; "
        f"`max` − `min` at most {limits.NUMERIC_RANGE_MAX}); null for the other types.",
    }


@extend_schema_field(_bound_schema("smallest"))
class MinimumField(SpecField):
    pass


@extend_schema_field(_bound_schema("largest"))
class MaximumField(SpecField):
    pass


@extend_schema_field(
    {
        "type": "number",
        "format": "double",
        "nullable": True,
        "minimum": limits.QUESTION_EPSILON_MIN,
        "description": "The privacy loss ε of one answer. Written for `choice` and `numeric` "
        "questions (default ln 3 ≈ 1.0986, at most the site's ceiling); for a `yes_no` "
        "question it is read-only, its design's ε (echoing it back is ignored).",
    }
)
class EpsilonField(SpecField):
    pass


@extend_schema_field(
    {
        "type": "boolean",
        "default": True,
        "description": "False: the question is asked directly, without randomization. The "
        "answer is sent and stored as the respondent gives it, the page says so at the "
        "question, and no ε covers it (the privacy ledger lists it apart). No `design` or "
        "`epsilon` then. `text` questions are only asked directly.",
    }
)
class RandomizedField(SpecField):
    pass


@extend_schema_field(
    {
        "type": "boolean",
        "default": False,
        "description": "True: a randomized yes/no question compared with asking directly. "
        "With the survey's `control_share` above 0, that share of respondents is asked it "
        "directly (their answer sent as given, labelled so at the question); results show "
        "the randomized estimate, the direct share and their difference with a one-sided "
        'test of "more is better". Its reports are codes: 0/1 the randomized report no/yes, '
        "2/3 the direct answer no/yes. 400 naming the field on any other question.",
    }
)
class CompareDirectField(SpecField):
    pass


@extend_schema_field(
    {
        "type": "string",
        "enum": list(Question.Procedure.values),
        "nullable": True,
        "description": "A randomized yes/no question: who carries out the design. `device` (the "
        "default; CDM and SLD refuse it): the respondent enters the true answer and the browser "
        "randomizes it. `respondent` (the default for CDM and SLD): the browser draws the "
        "randomizer's outcome and shows it as an instruction (\"The coin says: press Yes, "
        'whatever the truth"), the respondent presses the answer it gives, and that answer is '
        "sent; the true answer is never entered. Null for the other questions.",
    }
)
class ProcedureField(SpecField):
    pass


# The type spec's fields (services.question_types) and the question's attribute of each.
SPEC_SOURCES = {
    "type": "kind",
    "randomized": "randomized",
    "design": "design",
    "options": "options",
    "min": "min_value",
    "max": "max_value",
    "epsilon": "epsilon",
    "compare_direct": "compare_direct",
    "procedure": "procedure",
}
# The fields each type uses; the others read as null.
TYPE_SPEC_FIELDS = {
    Question.Kind.YES_NO: (
        "type",
        "randomized",
        "design",
        "epsilon",
        "compare_direct",
        "procedure",
    ),
    Question.Kind.CHOICE: ("type", "randomized", "options", "epsilon", "compare_direct"),
    Question.Kind.NUMERIC: ("type", "randomized", "min", "max", "epsilon", "compare_direct"),
    Question.Kind.TEXT: ("type", "randomized", "compare_direct"),
}
