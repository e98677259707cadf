"""The survey's coins and the privacy they give: the forced-response design of its two coins,
the presets the forms offer, and the privacy summary (ε per answer, the total, the odds) every
page that states the guarantee reads.

Reads only.
"""

import math
from dataclasses import dataclass

from django.conf import settings

import dpengine
from dpengine import PRESETS, ForcedResponse

from .mechanisms import PrivacyLedger, exceeds_epsilon_ceiling, privacy_ledger

# The precision the planner and the privacy summary quote: respondents for ±5 points at 95 %.
PLANNING_MARGIN = 0.05
PLANNING_CONFIDENCE = 0.95


@dataclass(frozen=True)
class PrivacySummary:
    per_answer_epsilon: float
    total_epsilon: float
    questions: int
    odds_ratio: float  # e^epsilon: how much more likely any report is under one truth
    respondents_for_margin: int  # for ±PLANNING_MARGIN at PLANNING_CONFIDENCE
    margin: float
    confidence: float
    epsilon_ceiling: float  # the site's MAX_EPSILON_PER_ANSWER
    # e^(k epsilon) from dpengine's privacy report: the bound on everything one respondent who
    # answers all k questions sends; 1 with no questions, inf beyond the float range.
    total_odds: float = 1.0
    # Per question ε, whatever its type and design (selectors.mechanisms); total_epsilon and
    # total_odds are its sum when it is given. None for an unsaved design (the new-survey page).
    ledger: PrivacyLedger | None = None

    @property
    def exceeds_ceiling(self) -> bool:
        return exceeds_epsilon_ceiling(self.per_answer_epsilon, ceiling=self.epsilon_ceiling)


def design_from_coins(*, p_truth, p_forced_yes) -> ForcedResponse:
    """The forced-response design of these two coins."""
    return ForcedResponse(p_truth=p_truth, p_forced_yes=p_forced_yes)


def survey_design(*, survey) -> ForcedResponse:
    return design_from_coins(p_truth=survey.p_truth, p_forced_yes=survey.p_forced_yes)


# --- the designs dpengine ships (the forms' choices) ----------------------------------------

CUSTOM_DESIGN = "custom"  # the choice of coins that match no preset


def design_presets() -> dict:
    """``{key: preset}``: each with ``.label`` and ``.design``, in dpengine's order."""
    return dict(PRESETS)


def preset_for(*, p_truth, p_forced_yes) -> str:
    """The key of the preset with exactly these coins, or ``CUSTOM_DESIGN``."""
    for key, preset in PRESETS.items():
        design = preset.design
        if float(design.p_truth) == p_truth and float(design.p_forced_yes) == p_forced_yes:
            return key
    return CUSTOM_DESIGN


def preset_coins() -> dict:
    """``{key: {"p_truth": ..., "p_forced_yes": ...}}`` for the builder's preset buttons."""
    return {
        key: {
            "p_truth": float(preset.design.p_truth),
            "p_forced_yes": float(preset.design.p_forced_yes),
        }
        for key, preset in PRESETS.items()
    }


def design_privacy(*, design, questions, ledger=None) -> PrivacySummary:
    """The privacy of ``questions`` questions randomized with ``design`` (the survey's coins);
    with a ``ledger`` (``selectors.mechanisms.privacy_ledger``), the totals are its sums, so
    questions of other designs and types count with their own ε."""
    epsilon = design.epsilon
    report = dpengine.privacy_report(design, questions=questions) if questions else None
    total_odds = report.total_odds if report else 1.0
    total_epsilon = epsilon * questions
    if ledger is not None:
        total_epsilon, total_odds = ledger.total_epsilon, ledger.total_odds
    return PrivacySummary(
        per_answer_epsilon=epsilon,
        total_epsilon=total_epsilon,
        questions=questions,
        odds_ratio=math.exp(epsilon),
        respondents_for_margin=dpengine.required_sample_size(
            design=design, margin=PLANNING_MARGIN, confidence=PLANNING_CONFIDENCE
        ),
        margin=PLANNING_MARGIN,
        confidence=PLANNING_CONFIDENCE,
        epsilon_ceiling=settings.MAX_EPSILON_PER_ANSWER,
        total_odds=total_odds,
        ledger=ledger,
    )


def survey_privacy(*, survey, ledger=None) -> PrivacySummary:
    """The survey's privacy; ``ledger``: its privacy ledger when the caller holds it already
    (a page sums it once)."""
    ledger = privacy_ledger(survey=survey) if ledger is None else ledger
    return design_privacy(
        design=survey_design(survey=survey), questions=ledger.questions, ledger=ledger
    )
