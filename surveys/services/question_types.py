"""A question's type and randomization as a researcher writes it, checked before it is stored.

One spec, as the API and the builder send it (docs/api.md, "Question types"):

- ``{"text", "type": "yes_no", "design": {"kind": "warner", "p": 0.75}}``: ``type`` defaults
  to ``yes_no`` and ``design`` to the survey's two coins (forced response);
- ``{"text", "type": "choice", "options": [labels], "epsilon": 1.1}``;
- ``{"text", "type": "numeric", "min": 0, "max": 30, "epsilon": 1.1}``;
- any of these with ``"randomized": false``: asked directly, without design or ε (the answer
  is sent as given), and ``{"text", "type": "text", "randomized": false}``, a short text
  answer, only ever direct;
- a randomized yes/no question with ``"compare_direct": true``: compared with asking directly
  in the survey's control group (``Survey.control_share``; surveys/selectors/control_group.py);
- a randomized yes/no question with ``"procedure": "respondent"``: the page shows the
  randomizer's outcome as an instruction and the answer pressed is the report (the true answer
  is never entered); ``"device"`` (the browser carries out the design on the true answer) is the
  default, except for CDM and SLD, which require the respondent procedure: their cheaters and
  liars exist only when the respondent follows the coin (Clark & Desharnais 1998).

``epsilon`` defaults to ln 3, the classic design's. Every parameter is checked with the dpengine
constructor the question will randomize with (``selectors.mechanisms``), so a stored question
always builds; ε of every type is held to the site's ``MAX_EPSILON_PER_ANSWER``. Errors name
the field (``type``, ``design``, ``design.p``, ``options``, ``options.2``, ``min``, ``max``,
``epsilon``), prefixed by ``field`` when given (``questions.3.options``).
"""

import math
from collections.abc import Mapping

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from dpengine import DPEngineError

from .. import limits, selectors
from ..designs import design_kinds, design_row
from ..models import Question
from .validation import clean_text, ensure_within_epsilon_ceiling

YES_NO, CHOICE, NUMERIC = Question.Kind.YES_NO, Question.Kind.CHOICE, Question.Kind.NUMERIC
TEXT = Question.Kind.TEXT
TYPES = tuple(Question.Kind.values)
DEFAULT_EPSILON = math.log(3)  # the classic coins' ε, so a new question of any type matches them
# The yes/no designs a question may name (the design table's rows: surveys/designs.py), forced
# response with its own coins among them; and the cheating-detection designs (CDM, SLD:
# dpengine.cheating), whose parameters differ.
DESIGN_KINDS = design_kinds() + selectors.CHEATING_KINDS
# Fields of a question row that its type sets; the rest (text, required, position) stay.
TYPE_FIELDS = (
    "kind",
    "randomized",
    "design",
    "options",
    "epsilon",
    "min_value",
    "max_value",
    "compare_direct",
    "procedure",
    "pinned",
)
DEVICE, RESPONDENT = Question.Procedure.DEVICE, Question.Procedure.RESPONDENT


# The code of a range whose max is not above its min (the builder names its own fields).
MAX_NOT_ABOVE_MIN = "max_not_above_min"


def _error(field, prefix, message, *, code=None, params=None):
    """The error naming ``field``; a ``code`` (and ``params``) lets a page word it with its own
    labels where the message names another field as the API does."""
    return ValidationError({f"{prefix}{field}": [ValidationError(message, code, params)]})


def _is_number(value):
    return not isinstance(value, bool) and isinstance(value, int | float) and math.isfinite(value)


def _is_whole(value):
    return not isinstance(value, bool) and isinstance(value, int)


def _clean_epsilon(value, prefix):
    if value is None:
        return DEFAULT_EPSILON
    if not _is_number(value):
        raise _error("epsilon", prefix, _("Must be a number, got %(v)r.") % {"v": value})
    if value < limits.QUESTION_EPSILON_MIN:
        raise _error(
            "epsilon",
            prefix,
            _("Must be at least %(min)s, got %(v)r.")
            % {"min": limits.QUESTION_EPSILON_MIN, "v": value},
        )
    ensure_within_epsilon_ceiling(epsilon=value, field=f"{prefix}epsilon")
    return float(value)


def _clean_design(value, prefix):
    """``{}`` (the survey's coins) or ``{"kind", ...parameters}`` of a private, informative
    yes/no design within the ε ceiling."""
    if value is None or value == {}:
        return {}
    if not isinstance(value, Mapping):
        raise _error(
            "design", prefix, _('Must be an object such as {"kind": "warner", "p": 0.75}.')
        )
    kind = value.get("kind")
    if kind not in DESIGN_KINDS:
        raise _error(
            "design.kind",
            prefix,
            _("Must be one of %(kinds)s, got %(v)r.")
            % {"kinds": ", ".join(DESIGN_KINDS), "v": kind},
        )
    parameters = {key: item for key, item in value.items() if key != "kind"}
    if kind in selectors.CHEATING_KINDS:
        return _clean_cheating_design(kind, parameters, prefix)
    for name, item in parameters.items():
        if not _is_number(item):
            raise _error(f"design.{name}", prefix, _("Must be a number, got %(v)r.") % {"v": item})
    try:
        design = selectors.yes_no_design(kind=kind, parameters=parameters)
    except TypeError:
        allowed = ", ".join(design_row(kind).parameters)
        raise _error(
            "design",
            prefix,
            _("The %(kind)s design takes the parameters %(names)s.")
            % {"kind": kind, "names": allowed},
        ) from None
    except DPEngineError as exc:
        # dpengine's message is English and spells the parameters as the API does; the code
        # (its reason) lets the builder say it in the page's language and words.
        raise _error(
            f"design.{exc.field or 'kind'}", prefix, str(exc), code=exc.reason.value
        ) from None
    ensure_within_epsilon_ceiling(epsilon=design.epsilon, field=f"{prefix}design")
    return {"kind": kind, **{name: float(item) for name, item in design.parameters.items()}}


def _clean_cheating_design(kind, parameters, prefix):
    """``{"kind": "cdm" | "sld", "p": [p1, p2], "group_share": s}`` (RRreg's ``p``; the share
    of respondents in group 1, default ½), checked by dpengine. No finite ε covers these
    designs (an honest "no" is conclusive), so the ceiling holds the one-sided bound of a
    "yes" (``epsilon_yes``)."""
    p = parameters.get("p")
    if "p" in parameters and (
        not isinstance(p, list | tuple) or len(p) != 2 or not all(_is_number(q) for q in p)
    ):
        raise _error(
            "design.p",
            prefix,
            _("Must be a pair of probabilities [p1, p2], got %(v)r.") % {"v": p},
        )
    share = parameters.get(selectors.GROUP_SHARE)
    if share is not None and not _is_number(share):
        raise _error(
            f"design.{selectors.GROUP_SHARE}",
            prefix,
            _("Must be a number, got %(v)r.") % {"v": share},
        )
    try:
        design = selectors.cheating_design(kind=kind, parameters=parameters)
    except TypeError:
        raise _error(
            "design",
            prefix,
            _("The %(kind)s design takes the parameters %(names)s.")
            % {"kind": kind, "names": f"p, {selectors.GROUP_SHARE}"},
        ) from None
    except DPEngineError as exc:
        field = selectors.GROUP_SHARE if exc.field == "share" else (exc.field or "kind")
        raise _error(f"design.{field}", prefix, str(exc), code=exc.reason.value) from None
    ensure_within_epsilon_ceiling(epsilon=design.epsilon_yes, field=f"{prefix}design")
    return {
        "kind": kind,
        "p": [float(q) for q in design.p],
        selectors.GROUP_SHARE: float(design.share),
    }


def _clean_options(value, prefix):
    if isinstance(value, str | bytes) or not isinstance(value, list | tuple):
        raise _error("options", prefix, _("Must be a list of option labels."))
    if not limits.MIN_CHOICE_OPTIONS <= len(value) <= limits.MAX_CHOICE_OPTIONS:
        raise _error(
            "options",
            prefix,
            _("A multiple-choice question has from %(min)d to %(max)d options, got %(n)d.")
            % {
                "min": limits.MIN_CHOICE_OPTIONS,
                "max": limits.MAX_CHOICE_OPTIONS,
                "n": len(value),
            },
        )
    labels = [
        clean_text(f"{prefix}options.{index}", label, max_length=limits.OPTION_LABEL_MAX_LENGTH)
        for index, label in enumerate(value)
    ]
    if len(set(labels)) != len(labels):
        raise _error("options", prefix, _("Each option needs a label of its own."))
    return labels


def _clean_randomized(value, kind, prefix):
    if value is None:
        # A text answer has no randomization: it must say so, so no client sends one
        # believing it protected.
        if kind == TEXT:
            raise _error(
                "randomized",
                prefix,
                _("A text question is asked directly only: send randomized false."),
            )
        return True
    if not isinstance(value, bool):
        raise _error("randomized", prefix, _("Must be true or false, got %(v)r.") % {"v": value})
    if value and kind == TEXT:
        raise _error(
            "randomized", prefix, _("A text question cannot be randomized; it is asked directly.")
        )
    return value


def _clean_pinned(value, prefix):
    """Whether the question keeps its place when the survey shuffles its questions."""
    if not isinstance(value, bool):
        raise _error("pinned", prefix, _("Must be true or false, got %(v)r.") % {"v": value})
    return value


def _clean_compare_direct(value, kind, randomized, prefix):
    """Whether a question is compared with asking directly: only a randomized yes/no one (the
    comparison is of a randomized estimate with a direct share). Allowed while the survey's
    control_share is 0: nobody is then asked directly, and results say there is no control
    group yet (docs/researchers.md, "A direct-questioning control group")."""
    if value is None:
        return False
    if not isinstance(value, bool):
        raise _error(
            "compare_direct", prefix, _("Must be true or false, got %(v)r.") % {"v": value}
        )
    if value and (kind != YES_NO or not randomized):
        raise _error(
            "compare_direct",
            prefix,
            _(
                "Only a randomized yes/no question can be compared with asking directly; "
                "this one is %(type)s%(direct)s."
            )
            % {"type": kind, "direct": "" if randomized else _(", asked directly")},
        )
    return value


def _clean_procedure(value, *, kind, randomized, design, compare_direct, prefix):
    """Who carries out a randomized yes/no question's design: ``device`` (the default) or
    ``respondent`` (the default and the only choice for CDM and SLD)."""
    cheating = design.get("kind") in selectors.CHEATING_KINDS
    if value is None:
        return RESPONDENT if cheating else DEVICE
    if value not in Question.Procedure.values:
        raise _error(
            "procedure",
            prefix,
            _("Must be one of %(choices)s, got %(v)r.")
            % {"choices": ", ".join(Question.Procedure.values), "v": value},
        )
    if value == RESPONDENT and (kind != YES_NO or not randomized):
        raise _error(
            "procedure",
            prefix,
            _("Only a randomized yes/no question can be carried out by the respondent."),
        )
    if value == RESPONDENT and compare_direct:
        raise _error(
            "procedure",
            prefix,
            _(
                "A question compared with asking directly uses the device procedure: its "
                "control group answers directly."
            ),
        )
    if value == DEVICE and cheating:
        raise _error(
            "procedure",
            prefix,
            _(
                "A cheating-detection question (CDM, SLD) needs the respondent procedure: only "
                "a respondent who follows the coin can disobey it, so under the device "
                "procedure cheating cannot be estimated. Send procedure “respondent”."
            ),
        )
    return value


def _clean_range(low, high, prefix):
    for name, value in (("min", low), ("max", high)):
        if not _is_whole(value):
            raise _error(name, prefix, _("Must be a whole number, got %(v)r.") % {"v": value})
        if abs(value) > limits.NUMERIC_BOUND:
            raise _error(
                name,
                prefix,
                _("Must be between -%(b)d and %(b)d.") % {"b": limits.NUMERIC_BOUND},
            )
    if high <= low:
        raise _error(
            "max",
            prefix,
            _("Must be greater than min (%(lo)d)."),
            code=MAX_NOT_ABOVE_MIN,
            params={"lo": low},
        )
    if high - low > limits.NUMERIC_RANGE_MAX:
        raise _error(
            "max",
            prefix,
            _("The range may span at most %(n)d; the noise grows with it.")
            % {"n": limits.NUMERIC_RANGE_MAX},
        )
    return low, high


def clean_question_type(spec, *, prefix="") -> dict:
    """The type fields of a question row (``TYPE_FIELDS``) from a spec (see the module
    docstring), or a ``ValidationError`` naming the field. ``spec`` without ``type`` is a
    yes/no question with the survey's coins, as every question was before types existed."""
    if not isinstance(spec, Mapping):
        spec = {}
    kind = spec.get("type", YES_NO)
    if kind is None:
        kind = YES_NO
    if kind not in TYPES:
        raise _error(
            "type",
            prefix,
            _("Must be one of %(types)s, got %(v)r.") % {"types": ", ".join(TYPES), "v": kind},
        )
    randomized = _clean_randomized(spec.get("randomized"), kind, prefix)
    compare_direct = _clean_compare_direct(spec.get("compare_direct"), kind, randomized, prefix)
    fields = {
        "kind": kind,
        "randomized": randomized,
        "design": {},
        "options": [],
        "epsilon": None,
        "min_value": None,
        "max_value": None,
        "compare_direct": compare_direct,
        "procedure": DEVICE,
        "pinned": _clean_pinned(spec.get("pinned", False), prefix),
    }
    foreign = {
        YES_NO: ("options", "min", "max", "epsilon"),
        CHOICE: ("design", "min", "max"),
        NUMERIC: ("design", "options"),
        TEXT: ("design", "options", "min", "max", "epsilon"),
    }[kind]
    for name in foreign:
        if spec.get(name) not in (None, {}, []):
            raise _error(
                name,
                prefix,
                _("A %(type)s question takes no %(name)s.") % {"type": kind, "name": name},
            )
    if not randomized:
        # Nothing randomizes a direct answer: a design or an ε would promise a protection
        # it does not have.
        for name in ("design", "epsilon"):
            if spec.get(name) not in (None, {}):
                raise _error(
                    name, prefix, _("A direct question takes no %(name)s.") % {"name": name}
                )
    if spec.get("procedure") is not None and (kind != YES_NO or not randomized):
        _clean_procedure(
            spec.get("procedure"),
            kind=kind,
            randomized=randomized,
            design={},
            compare_direct=False,
            prefix=prefix,
        )
    if kind == TEXT:
        return fields
    if kind == YES_NO:
        if randomized:
            fields["design"] = _clean_design(spec.get("design"), prefix)
            if compare_direct and fields["design"].get("kind") in selectors.CHEATING_KINDS:
                # Both send a code 0-3 of their own: one question cannot carry both.
                raise _error(
                    "compare_direct",
                    prefix,
                    _(
                        "A cheating-detection question (CDM, SLD) cannot also be compared with "
                        "asking directly."
                    ),
                )
        fields["procedure"] = _clean_procedure(
            spec.get("procedure"),
            kind=kind,
            randomized=randomized,
            design=fields["design"],
            compare_direct=compare_direct,
            prefix=prefix,
        )
    elif kind == CHOICE:
        fields["options"] = _clean_options(spec.get("options"), prefix)
        if randomized:
            fields["epsilon"] = _clean_epsilon(spec.get("epsilon"), prefix)
    else:
        fields["min_value"], fields["max_value"] = _clean_range(
            spec.get("min"), spec.get("max"), prefix
        )
        if randomized:
            fields["epsilon"] = _clean_epsilon(spec.get("epsilon"), prefix)
    return fields


def question_type_spec(question) -> dict:
    """A stored question's type as a spec (the inverse of ``clean_question_type``): what the
    API returns and a duplicate copies."""
    if not question.randomized:
        spec = {"type": question.kind, "randomized": False}
        if question.kind == CHOICE:
            spec["options"] = list(question.options)
        elif question.kind == NUMERIC:
            spec.update(min=question.min_value, max=question.max_value)
        return spec
    if question.kind == CHOICE:
        return {"type": CHOICE, "options": list(question.options), "epsilon": question.epsilon}
    if question.kind == NUMERIC:
        return {
            "type": NUMERIC,
            "min": question.min_value,
            "max": question.max_value,
            "epsilon": question.epsilon,
        }
    spec = {"type": YES_NO, "design": dict(question.design)}
    if question.compare_direct:
        spec["compare_direct"] = True
    if question.procedure == RESPONDENT:
        spec["procedure"] = RESPONDENT
    return spec
