"""Template helpers for the respondent page (templates/respond/), shared with the preview.

Both take only what the page's context already holds (survey, questions, privacy), so the
researcher's preview renders the same template without extra setup.
"""

import math
from dataclasses import dataclass

from django import template
from django.urls import reverse
from django.utils.html import json_script

from .. import selectors
from ..api.serializers import PublicSurveySerializer
from ..formatting import epsilon_text, percent_text
from ..models import PREFER_NOT_TO_SAY

register = template.Library()

DEFINITION_ELEMENT_ID = "respond-definition"


@register.simple_tag
def respond_definition(survey, preview=False, ledger=None):
    """The survey as respond.js reads it: a ``<script type="application/json">`` block.

    Its ``survey`` member is serialized by the public API's own serializer, so the page and
    ``GET /api/v1/public/surveys/<slug>/`` cannot drift apart; ``ledger``: the survey's privacy
    ledger, which the page has summed already.
    """
    payload = {
        "survey": PublicSurveySerializer(survey, context={"ledger": ledger}).data,
        "submit_url": reverse("api:public-responses", kwargs={"slug": survey.slug}),
        # A pilot's page asks for the definition again before sending (static/js/submit.js).
        "definition_url": reverse("api:public-survey", kwargs={"slug": survey.slug}),
        "preview": bool(preview),
    }
    if survey.access != "link":
        # Where an invitee's page trades its code for a blind signature (respond.js).
        payload["tokens_url"] = reverse("api:public-tokens", kwargs={"slug": survey.slug})
        # Where it asks what its code can still do, before any question (invitation.js).
        payload["invitation_status_url"] = reverse(
            "api:public-invitation-status", kwargs={"slug": survey.slug}
        )
    return json_script(payload, DEFINITION_ELEMENT_ID)


@register.simple_tag
def optional_count(questions):
    """How many of ``questions`` a respondent may skip."""
    return sum(not question.required for question in questions)


@register.simple_tag
def prefer_not_to_say_value():
    """What the page sends for a grouping question answered "Prefer not to say"."""
    return PREFER_NOT_TO_SAY


@dataclass(frozen=True)
class RespondentNumbers:
    """The design in the respondent's terms: chances of each coin and of each report."""

    p_truth: float
    p_lie: float
    p_forced_yes: float
    p_forced_no: float
    yes_if_yes: float  # a = P(report yes | truth yes)
    yes_if_no: float  # b = P(report yes | truth no)
    per_answer_epsilon: float
    total_epsilon: float
    per_answer_odds: float  # e^epsilon
    total_odds: float  # e^(k epsilon), inf when it does not fit a float
    questions: int
    # How the page words the cover the coins give: "strong" up to the classic design's odds
    # of 3 (ln 3), "moderate" up to 9 (ln 9, the default ceiling), "weak" beyond (a site that
    # raised MAX_EPSILON_PER_ANSWER).
    cover: str


@register.filter
def epsilon(value, digits=2):
    """An ε rounded up to ``digits`` decimals (``surveys.formatting``)."""
    return epsilon_text(value, digits)


@register.simple_tag
def respondent_numbers(survey, privacy):
    design = selectors.survey_design(survey=survey)
    return RespondentNumbers(
        p_truth=design.p_truth,
        p_lie=1 - design.p_truth,
        p_forced_yes=design.p_forced_yes,
        p_forced_no=1 - design.p_forced_yes,
        yes_if_yes=design.p_yes_given_yes,
        yes_if_no=design.p_yes_given_no,
        per_answer_epsilon=privacy.per_answer_epsilon,
        total_epsilon=privacy.total_epsilon,
        per_answer_odds=privacy.odds_ratio,
        total_odds=privacy.total_odds,
        questions=privacy.questions,
        cover=cover_of(privacy.odds_ratio),
    )


STRONG_COVER_ODDS = 3.0
MODERATE_COVER_ODDS = 9.0


def cover_of(odds_ratio) -> str:
    """The words for e^ε: how much more likely a report is under one truth than the other."""
    # A hair of tolerance: the classic design's odds compute as 3.0000000000000004.
    if odds_ratio <= STRONG_COVER_ODDS * (1 + 1e-9):
        return "strong"
    if odds_ratio <= MODERATE_COVER_ODDS * (1 + 1e-9):
        return "moderate"
    return "weak"


@register.filter
def percent(value):
    """A chance as the respondent page quotes it (``formatting.percent_text``): 0.75 -> "75%"."""
    return percent_text(value)


@register.filter
def times(value):
    """An odds ratio e^ε as plain digits, rounded UP like every ε shown (a bound must not read
    lower than it is): 1.6487 -> "1.7", 9.4 -> "9.4", 1e9 -> "1,000,000,000". The odds of a
    rounded-up ε carry float noise (e^ln3 = 3.0000000000000004); a value within 1e-9 of the
    number shown is that number, so the classic design reads "3"."""
    value = float(value)
    if math.isinf(value) or value >= 1e15:
        return "> 10¹⁵"
    digits = 0 if value >= 100 else 1
    scale = 10**digits
    nearest = round(value * scale)
    shown = (
        nearest
        if abs(value * scale - nearest) <= 1e-9 * value * scale
        else math.ceil(value * scale)
    )
    if digits == 0:
        return f"{shown:,}"
    return f"{shown / scale:.1f}".rstrip("0").rstrip(".")
