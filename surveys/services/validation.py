"""The checks every write service shares: texts, flags, the coins, the survey's editable
fields, the frozen design and the per-account quotas.

Public, so each write module (and the admin's survey form) applies the same rules; the bounds
themselves are named once in ``surveys.limits``.
"""

import math
from functools import cache

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _
from django.utils.translation import override

from dpengine import ForcedResponse
from dpengine.errors import DPEngineError
from dpengine.rounding import ceil_decimal

from .. import limits, selectors
from ..models import CI_METHODS, PREFER_NOT_TO_SAY, Question, Survey
from ..timezones import is_time_zone
from .errors import FROZEN_MESSAGE, PILOT_RESPONSES_MESSAGE, Reason, SurveyFrozen

EDITABLE_SURVEY_FIELDS = (
    "title",
    "intro",
    "language",
    "p_truth",
    "p_forced_yes",
    "confidence",
    "ci_method",
    "min_n",
    "shared_devices",
    "shuffle_questions",
    "control_share",
    "comprehension_check",
    "access",
    "consent_text",
    "response_target",
    "release_batch",
)
# Changing any of these once the survey has been open would make reports mean something else,
# or (shared_devices) let one browser answer again with fresh coins, or delete its memo, or
# (access) let anyone with the link into a study whose invitees were promised one answer each.
# (control_share) change what a share of browsers asks, and how their reports are read.
DESIGN_FIELDS = (
    "p_truth",
    "p_forced_yes",
    "shared_devices",
    "shuffle_questions",
    "control_share",
    "comprehension_check",
    "access",
    "release_batch",
)


def clean_text(field, value, *, max_length, required=True):
    """``value`` stripped, refused (naming ``field``) unless text of at most ``max_length``."""
    if not isinstance(value, str):
        raise ValidationError({field: [_("Must be text.")]})
    value = value.strip()
    if required and not value:
        raise ValidationError({field: [_("This field may not be blank.")]})
    if len(value) > max_length:
        raise ValidationError(
            {
                field: [
                    _("At most %(max)d characters, got %(n)d.")
                    % {"max": max_length, "n": len(value)}
                ]
            }
        )
    return value


def _folded(label: str) -> str:
    # Case, spaces and punctuation aside: "Prefer not to say.", "PREFER-NOT-TO-SAY" alike.
    return "".join(char for char in label.casefold() if char.isalnum())


@cache
def _built_in_option_labels() -> frozenset[str]:
    """ "Prefer not to say" as every language of the site writes it, and its code."""
    labels = {PREFER_NOT_TO_SAY}
    for code, _name in settings.LANGUAGES:
        with override(code):
            labels.add(_("Prefer not to say"))
    return frozenset(_folded(label) for label in labels)


def refuse_built_in_option(label: str, *, field) -> None:
    """Refuse, naming ``field``, a grouping option that repeats the built-in "Prefer not to
    say" in any language: respondents would see two identical answers, and the typed one
    would count as a group of its own where the built-in one counts as missing."""
    if _folded(label) in _built_in_option_labels():
        message = _(
            "“%(label)s” is already offered with every grouping question: the built-in "
            "“Prefer not to say”, shown in each respondent's language and counted as missing, "
            "never as a group. Remove this option."
        )
        raise ValidationError({field: [message % {"label": label}]})


def clean_time_zone(value, *, field="time_zone") -> str:
    """An IANA time zone name (``Asia/Seoul``), or "" for none chosen (UTC)."""
    if value == "":
        return value
    if not is_time_zone(value):
        raise ValidationError(
            {
                field: [
                    _("Must be a time zone name such as “Asia/Seoul” or “UTC”, got %(v)r.")
                    % {"v": str(value)[:64]}
                ]
            }
        )
    return value


def clean_required(value, *, field="required"):
    """A question's ``required`` flag: true or false, nothing that merely looks like one."""
    if not isinstance(value, bool):
        raise ValidationError({field: [_("Must be true or false, got %(v)r.") % {"v": value}]})
    return value


def clean_design(*, p_truth, p_forced_yes):
    """The two coins as floats, refused unless dpengine accepts them, each within the coin
    bounds, and their ε within the site's ceiling."""
    for field, value in (("p_truth", p_truth), ("p_forced_yes", p_forced_yes)):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValidationError({field: [_("Must be a number, got %(v)r.") % {"v": value}]})
    try:
        ForcedResponse(p_truth=float(p_truth), p_forced_yes=float(p_forced_yes))
    except DPEngineError as exc:
        # dpengine's message is English for programmers; researchers get it in their language.
        field = "p_forced_yes" if exc.field == "p_forced_yes" else "p_truth"
        value = p_forced_yes if field == "p_forced_yes" else p_truth
        raise ValidationError(
            {field: [_("Must be strictly between 0 and 1, got %(v)r.") % {"v": value}]}
        ) from None
    # Mathematically any value inside (0, 1) works, but coins like 1e-200 make ε or the
    # sample size overflow and no survey could ever reach them: keep designs usable.
    for field, value in (("p_truth", p_truth), ("p_forced_yes", p_forced_yes)):
        if not limits.COIN_MIN <= value <= limits.COIN_MAX:
            raise ValidationError(
                {
                    field: [
                        _("Must be between %(lo)s and %(hi)s, got %(v)r.")
                        % {"lo": limits.COIN_MIN, "hi": limits.COIN_MAX, "v": value}
                    ]
                }
            )
    ensure_coins_within_epsilon_ceiling(p_truth=float(p_truth), p_forced_yes=float(p_forced_yes))
    return float(p_truth), float(p_forced_yes)


def ensure_within_epsilon_ceiling(*, epsilon, field, message=None):
    """Refuse a per-answer ``epsilon`` above the site's ``MAX_EPSILON_PER_ANSWER``, naming
    ``field``; every write that sets an ε (coins, a yes/no design, a question's ε) goes through
    here. ``message`` words the refusal for the caller (default: the ε and the ceiling)."""
    if not selectors.exceeds_epsilon_ceiling(epsilon):
        return
    ceiling = settings.MAX_EPSILON_PER_ANSWER
    if message is None:
        # %.2f of the rounded-up value prints the rounded-up digits: ε is never shown lower.
        message = _(
            "This gives ε = %(eps).2f per answer, above this site's ceiling of ε = %(max).2f."
        ) % {"eps": float(ceil_decimal(epsilon, 2)), "max": ceiling}
    raise ValidationError({field: [message]})


def ensure_coins_within_epsilon_ceiling(*, p_truth, p_forced_yes):
    """Refuse the survey's coins when their ε per answer is above the ceiling; named on
    ``p_truth``: coin 1 is what trades privacy for precision."""
    epsilon = ForcedResponse(p_truth=p_truth, p_forced_yes=p_forced_yes).epsilon
    ceiling = settings.MAX_EPSILON_PER_ANSWER
    ensure_within_epsilon_ceiling(
        epsilon=epsilon,
        field="p_truth",
        message=_(
            "These coins give ε = %(eps).2f per answer, above this site's ceiling "
            "of ε = %(max).2f: a report would be more than %(odds)s times as likely "
            "under one true answer as under the other. Lower coin 1 or bring "
            "coin 2 closer to one half."
        )
        % {
            "eps": float(ceil_decimal(epsilon, 2)),
            "max": ceiling,
            "odds": f"{math.exp(ceiling):.3g}",
        },
    )


def _is_number(value):
    return not isinstance(value, bool) and isinstance(value, int | float)


def _is_whole(value):
    return not isinstance(value, bool) and isinstance(value, int)


def _language(value):
    codes = [code for code, _name in settings.LANGUAGES]
    if value not in codes:
        raise ValidationError(
            {"language": [_("Must be one of %(codes)s.") % {"codes": ", ".join(codes)}]}
        )
    return value


def _ci_method(value):
    methods = [code for code, _label in CI_METHODS]
    if value not in methods:
        raise ValidationError(
            {"ci_method": [_("Must be one of %(m)s.") % {"m": ", ".join(methods)}]}
        )
    return value


def _flag(field, value):
    if not isinstance(value, bool):
        raise ValidationError({field: [_("Must be true or false.")]})
    return value


def _access(value):
    if value not in Survey.Access.values:
        raise ValidationError(
            {
                "access": [
                    _("Must be one of %(choices)s, got %(v)r.")
                    % {"choices": ", ".join(Survey.Access.values), "v": value}
                ]
            }
        )
    return value


def _control_share(value):
    # A number in [0, CONTROL_SHARE_MAX]: the chance a browser asks the compared questions
    # directly. Decimal-exact as typed (repr of the float), which is what the browser draws with.
    if not _is_number(value) or not 0 <= value <= limits.CONTROL_SHARE_MAX:
        raise ValidationError(
            {
                "control_share": [
                    _("Must be a number from 0 to %(max)s, got %(v)r.")
                    % {"max": limits.CONTROL_SHARE_MAX, "v": value}
                ]
            }
        )
    return float(value)


def _confidence(value):
    # The message keeps the bounds in its text (translated as such); limits names them.
    if not _is_number(value) or not limits.CONFIDENCE_MIN <= value <= limits.CONFIDENCE_MAX:
        raise ValidationError(
            {"confidence": [_("Must be a number from 0.5 to 0.999999, got %(v)r.") % {"v": value}]}
        )
    return float(value)


def _min_n(value):
    if not _is_whole(value) or not 0 <= value <= limits.MIN_N_MAX:
        raise ValidationError(
            {"min_n": [_("Must be a whole number from 0 to 100000, got %(v)r.") % {"v": value}]}
        )
    return value


def _response_target(value):
    if value is not None and (not _is_whole(value) or not 1 <= value <= limits.RESPONSE_TARGET_MAX):
        raise ValidationError(
            {
                "response_target": [
                    _("Must be empty or a whole number from 1 to 10000000, got %(v)r.")
                    % {"v": value}
                ]
            }
        )
    return value


def release_batch_clean(value, *, opening_access=None):
    """``release_batch``: empty (the default for the survey's access) or a whole number from 1
    to ``RELEASE_BATCH_MAX``. ``opening_access``: the access of a survey about to open, which
    takes invitations only with batches of at least ``RELEASE_BATCH_MIN``."""
    if value is not None and (not _is_whole(value) or not 1 <= value <= limits.RELEASE_BATCH_MAX):
        raise ValidationError(
            {
                "release_batch": [
                    _("Must be empty or a whole number from 1 to %(max)d, got %(v)r.")
                    % {"max": limits.RELEASE_BATCH_MAX, "v": value}
                ]
            }
        )
    if (
        opening_access not in (None, Survey.Access.LINK)
        and value is not None
        and value < limits.RELEASE_BATCH_MIN
    ):
        raise ValidationError(
            {
                "release_batch": [
                    _(
                        "A survey that takes invitations opens with batches of at least "
                        "%(min)d responses, got %(v)d: a smaller batch is easier to link to "
                        "the people who answered."
                    )
                    % {"min": limits.RELEASE_BATCH_MIN, "v": value}
                ]
            }
        )
    return value


# How each editable field other than the coins is cleaned (the coins are cleaned together,
# where "p_truth" stands in _CHECK_ORDER), in the order a request's fields are checked.
_CHECK_ORDER = (
    "title",
    "intro",
    "language",
    "p_truth",
    "confidence",
    "ci_method",
    "shared_devices",
    "shuffle_questions",
    "control_share",
    "comprehension_check",
    "access",
    "min_n",
    "consent_text",
    "response_target",
    "release_batch",
)
_FIELD_CLEANERS = {
    "title": lambda value: clean_text("title", value, max_length=limits.TITLE_MAX_LENGTH),
    "intro": lambda value: clean_text(
        "intro", value, max_length=limits.INTRO_MAX_LENGTH, required=False
    ),
    "language": _language,
    "confidence": _confidence,
    "ci_method": _ci_method,
    "shared_devices": lambda value: _flag("shared_devices", value),
    "shuffle_questions": lambda value: _flag("shuffle_questions", value),
    "control_share": _control_share,
    "comprehension_check": lambda value: _flag("comprehension_check", value),
    "access": _access,
    "min_n": _min_n,
    "consent_text": lambda value: clean_text(
        "consent_text", value, max_length=limits.CONSENT_MAX_LENGTH, required=False
    ),
    "response_target": _response_target,
    "release_batch": lambda value: release_batch_clean(value),
}


def clean_survey_fields(data, *, current=None):
    """Validate the editable fields present in ``data``; ``current`` supplies the other coin.

    Public: the admin's survey form validates with it too, so the rules exist once.
    """
    unknown = set(data) - set(EDITABLE_SURVEY_FIELDS)
    if unknown:
        field = sorted(unknown)[0]
        raise ValidationError({field: [_("Unknown field.")]})
    cleaned = {}
    for field in _CHECK_ORDER:
        if field in data and field in _FIELD_CLEANERS:
            cleaned[field] = _FIELD_CLEANERS[field](data[field])
        if field == "p_truth" and ("p_truth" in data or "p_forced_yes" in data):
            cleaned["p_truth"], cleaned["p_forced_yes"] = clean_design(
                p_truth=data.get("p_truth", current.p_truth if current else 0.5),
                p_forced_yes=data.get("p_forced_yes", current.p_forced_yes if current else 0.5),
            )
    return cleaned


def ensure_not_frozen(survey, *, field=None):
    """Refuse a change to the design of a survey that has been opened (or of a pilot that
    holds responses); ``field``, when given, is the one the change was to."""
    if survey.status == Survey.Status.PILOT and survey.opened_at is None and survey.is_frozen:
        raise SurveyFrozen(
            str(PILOT_RESPONSES_MESSAGE), reason=Reason.PILOT_HAS_RESPONSES, field=field
        )
    if survey.is_frozen:
        raise SurveyFrozen(str(FROZEN_MESSAGE), field=field)


def lock_for_design_change(survey_id) -> Survey:
    """The survey, its row locked for a change to its design, refused once that is frozen."""
    survey = Survey.objects.select_for_update().get(pk=survey_id)
    ensure_not_frozen(survey)
    return survey


def ensure_owner_room(*, owner, field, surveys=0, questions=0, replacing=None):
    """Refuse a write that would take ``owner`` past MAX_SURVEYS_PER_USER or
    MAX_QUESTIONS_PER_USER; ``replacing`` is a survey whose questions the write replaces."""
    # The owner's row serialises their concurrent writes, so two cannot both pass the counts.
    get_user_model().objects.select_for_update().filter(pk=owner.pk).first()
    if surveys:
        limit = settings.MAX_SURVEYS_PER_USER
        if Survey.objects.filter(owner=owner).count() + surveys > limit:
            raise ValidationError(
                _(
                    "You have reached the limit of %(max)d surveys per account; delete one "
                    "before creating another."
                )
                % {"max": limit}
            )
    if questions:
        limit = settings.MAX_QUESTIONS_PER_USER
        existing = Question.objects.filter(survey__owner=owner)
        if replacing is not None:
            existing = existing.exclude(survey=replacing)
        if existing.count() + questions > limit:
            raise ValidationError(
                {
                    field: [
                        _(
                            "Your surveys may hold at most %(max)d questions in all; this "
                            "would make %(n)d."
                        )
                        % {"max": limit, "n": existing.count() + questions}
                    ]
                }
            )
