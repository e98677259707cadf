"""What a respondent sent, checked for shape and against the survey's questions.

The pieces of ``submissions.submission_validate``: each returns the cleaned value or raises a
``ValidationError`` naming the field (``answers``, ``answers.<id>``, ``groups``,
``groups.<id>``, ``submission_id``, ``design_fingerprint``).
"""

import base64
import binascii
import uuid
from collections.abc import Mapping

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from .. import limits
from ..models import PREFER_NOT_TO_SAY


def clean_submission_id(value):
    if isinstance(value, uuid.UUID):
        return value
    if not isinstance(value, str):
        raise ValidationError({"submission_id": [_("Must be a UUID string.")]})
    try:
        return uuid.UUID(value)
    except ValueError:
        raise ValidationError(
            {"submission_id": [_("Must be a UUID, got %(v)r.") % {"v": value[:64]}]}
        ) from None


def clean_fingerprint(value):
    if value is None:
        return None
    if not isinstance(value, str) or not 0 < len(value) <= 64:
        message = _("Must be the design_fingerprint of the survey's definition.")
        raise ValidationError({"design_fingerprint": [message]})
    return value


def _whole_key(key):
    """The id a key of ``answers`` or ``groups`` names, or None: a whole number written as
    one (no sign tricks, no fractions), within the range of a database id."""
    try:
        value = int(key)
    except (TypeError, ValueError):
        return None
    if str(value) != str(key).strip() or not limits.ID_MIN <= value <= limits.ID_MAX:
        return None
    return value


_NOT_AN_OPTION = object()


def _option_value(value):
    """The option id a ``groups`` value names (None for ``PREFER_NOT_TO_SAY``), or
    ``_NOT_AN_OPTION``."""
    if value == PREFER_NOT_TO_SAY:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        return int(value.strip())
    return _NOT_AN_OPTION


def _not_a_question(key):
    return ValidationError(
        {"answers": [_("%(k)r is not a question id of this survey.") % {"k": str(key)[:32]}]}
    )


def text_answer_encode(text) -> str:
    """A direct text answer as the page sends it: its UTF-8 bytes padded with NUL bytes to
    ``limits.DIRECT_TEXT_MAX_BYTES``, base64url-encoded. Every text answer then has one
    length on the wire (``limits.DIRECT_TEXT_WIRE_LENGTH``, ASCII, nothing JSON escapes),
    whatever its script or length: a length would otherwise say what was written."""
    data = text.encode()
    if len(data) > limits.DIRECT_TEXT_MAX_BYTES:
        raise ValueError(f"a text answer has at most {limits.DIRECT_TEXT_MAX_BYTES} bytes")
    padded = data + b"\0" * (limits.DIRECT_TEXT_MAX_BYTES - len(data))
    return base64.urlsafe_b64encode(padded).decode()


def text_answer_decode(value) -> str | None:
    """The text a wire value (``text_answer_encode``) carries, or None when it is not one:
    not exactly ``DIRECT_TEXT_WIRE_LENGTH`` base64url characters, not UTF-8, or a NUL before
    the padding."""
    if not isinstance(value, str) or len(value) != limits.DIRECT_TEXT_WIRE_LENGTH:
        return None
    if not value.isascii() or not all(char.isalnum() or char in "-_" for char in value):
        return None
    try:
        data = base64.urlsafe_b64decode(value).rstrip(b"\0")
        text = data.decode()
    except (binascii.Error, UnicodeDecodeError):
        return None
    return None if "\0" in text else text


def answer_reports(answers):
    """``{question id: report}`` from what the client sent, checking only its shape: every key
    a question id and every value a boolean, a 64-bit integer or a text answer (decoded,
    ``text_answer_decode``): what the SQL can take; which fits which question is checked by
    ``submissions.postgres`` or ``answer_values``. None if some value is none of these."""
    if not isinstance(answers, Mapping):
        return None
    reports = {}
    for key, value in answers.items():
        question_id = _whole_key(key)
        if question_id is None:
            return None
        if isinstance(value, str):
            text = text_answer_decode(value)
            if text is None:
                return None
            reports[question_id] = text
            continue
        if not isinstance(value, int):  # bool is an int too
            return None
        if not isinstance(value, bool) and not limits.ID_MIN <= value <= limits.ID_MAX:
            return None
        reports[question_id] = value
    return reports


def _text_report(question_id, value, highest):
    text = text_answer_decode(value)
    if text is None:
        raise ValidationError(
            {
                f"answers.{question_id}": [
                    _(
                        "The answer to question %(k)s must be text of at most %(n)d bytes, "
                        "padded and encoded as the page encodes it (docs/api.md, "
                        "“Direct questions”)."
                    )
                    % {"k": question_id, "n": highest}
                ]
            }
        )
    return text


def _typed_report(question_id, value, allowed):
    """A multiple-choice or numeric report: a whole number within ``allowed``
    (``(kind, lowest, highest)``, ``selectors.mechanisms.report_range``); a text answer."""
    kind, lowest, highest = allowed
    if kind == "text":
        return _text_report(question_id, value, highest)
    if isinstance(value, bool) or not isinstance(value, int) or not lowest <= value <= highest:
        raise ValidationError(
            {
                f"answers.{question_id}": [
                    _(
                        "The answer to question %(k)s must be a whole number from %(lo)d to "
                        "%(hi)d (the randomized report your page drew)."
                    )
                    % {"k": question_id, "lo": lowest, "hi": highest}
                ]
            }
        )
    return value


def answer_values(answers, *, ranges):
    """``{question id: report}`` from what the client sent: a boolean for a yes/no question,
    a whole number within its range for a question in ``ranges`` (``{question id: (kind,
    lowest, highest)}``, ``SubmissionTarget.report_ranges``)."""
    if not isinstance(answers, Mapping):
        raise ValidationError(
            {"answers": [_("Must be an object mapping question id to its randomized answer.")]}
        )
    values = {}
    for key, value in answers.items():
        question_id = _whole_key(key)
        if question_id is None:
            raise _not_a_question(key)
        if question_id in ranges:
            values[question_id] = _typed_report(question_id, value, ranges[question_id])
            continue
        if not isinstance(value, bool):
            raise ValidationError(
                {
                    f"answers.{question_id}": [
                        _("Answer to question %(k)s must be true or false.") % {"k": question_id}
                    ]
                }
            )
        values[question_id] = value
    return values


def clean_answers(answers, question_ids, required=frozenset(), ranges=None):
    """``{question id: report}``: only the survey's ``question_ids``, every ``required`` one,
    each report of its question's type (``answer_values``)."""
    cleaned = answer_values(answers, ranges=ranges or {})
    unknown = cleaned.keys() - question_ids
    if unknown:
        raise _not_a_question(min(unknown))
    missing = required - cleaned.keys()
    if missing:
        # Named one by one (``answers.<id>``); an optional question left out is no error.
        message = _("This question is required; the submission has no answer to it.")
        raise ValidationError({f"answers.{qid}": [message] for qid in sorted(missing)})
    return cleaned


def order_ids(order) -> tuple | None:
    """The question ids of an ``order`` as sent (a list of whole numbers, the order shown),
    ``()`` when there is none, or None when it is not of that shape."""
    if order is None:
        return ()
    if not isinstance(order, list) or len(order) > limits.ORDER_MAX_LENGTH:
        return None
    ids = tuple(
        _whole_key(value) if isinstance(value, int) and not isinstance(value, bool) else None
        for value in order
    )
    return None if None in ids else ids


def clean_order(order, question_ids) -> tuple:
    """The question ids in the order the page showed them: every one of ``question_ids``
    once (a permutation), or ``()`` when the client sent no order."""
    ids = order_ids(order)
    if ids is None:
        raise ValidationError(
            {"order": [_("Must be a list of question ids, in the order the page showed them.")]}
        )
    if ids and (len(ids) != len(question_ids) or set(ids) != question_ids):
        raise ValidationError(
            {"order": [_("Must list every question id of this survey once, in the order shown.")]}
        )
    return ids


def order_positions(order) -> dict:
    """``{"q<id>": position from 1}`` of an order (``clean_order``), as stored."""
    return {f"q{question_id}": position for position, question_id in enumerate(order, start=1)}


def group_choices(groups):
    """``{grouping question id: option id}`` from what the client sent, checking only its shape
    (every key and value a whole number as ``clean_groups`` reads them, or the value
    ``PREFER_NOT_TO_SAY``, read as None), or None."""
    if groups is None:
        return {}
    if not isinstance(groups, Mapping):
        return None
    chosen = {}
    for key, value in groups.items():
        grouping_id, option_id = _whole_key(key), _option_value(value)
        if grouping_id is None or option_id is _NOT_AN_OPTION:
            return None
        chosen[grouping_id] = option_id
    return chosen


def _clean_group_entry(key, value, options):
    """``(grouping question id, option id)`` from one entry of the ``groups`` object."""
    grouping_id = _whole_key(key)
    if grouping_id not in options:
        raise ValidationError(
            {
                "groups": [
                    _("%(k)r is not a grouping question id of this survey.") % {"k": str(key)[:32]}
                ]
            }
        )
    option_id = _option_value(value)
    if option_id is not None and option_id not in options[grouping_id]:
        raise ValidationError(
            {
                "groups": [
                    _(
                        "The answer to grouping question %(k)s must be one of its option ids "
                        "or “%(decline)s”."
                    )
                    % {"k": grouping_id, "decline": PREFER_NOT_TO_SAY}
                ]
            }
        )
    return grouping_id, option_id


def clean_groups(groups, *, options, required=frozenset()):
    """``{grouping question id: option id or None}``: every ``required`` grouping question
    answered, nothing but the survey's; None is "Prefer not to say".

    ``options`` is ``{grouping question id: {option ids}}`` (``SubmissionTarget.options``).
    """
    if groups is None:
        groups = {}
    if not isinstance(groups, Mapping):
        raise ValidationError(
            {"groups": [_("Must be an object mapping grouping question id to option id.")]}
        )
    if groups and not options:
        raise ValidationError({"groups": [_("This survey has no grouping questions.")]})
    chosen = dict(_clean_group_entry(key, value, options) for key, value in groups.items())
    missing = required - chosen.keys()
    if missing:
        message = _(
            "This grouping question is required; answer it with one of its option ids or "
            "“%(decline)s”."
        ) % {"decline": PREFER_NOT_TO_SAY}
        raise ValidationError({f"groups.{gid}": [message] for gid in sorted(missing)})
    return chosen
