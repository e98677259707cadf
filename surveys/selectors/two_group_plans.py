"""The planner's lines for the questions that split their respondents in two: a question
compared with asking directly (the control group and the randomized arm) and a cheating-
detection question (its two coin groups).

- Compared: the respondents, both arms together, for the one-sided test "randomized > direct"
  (``dpengine.compare_direct``, the control-group results' test) to detect the plan's difference
  with the plan's power, at the survey's control share (``dpengine.
  required_sample_size_control_group``).
- CDM/SLD: the respondents, both coin groups together, for π's interval to have the plan's
  half-width (``dpengine.required_sample_size_cheating``).

Pure computation over dpengine (no database reads beyond the questions given).
"""

from dataclasses import dataclass

import dpengine

from .columns import question_column
from .design_labels import DESIGN_LABELS
from .mechanisms import design_name, is_cheating_detection, question_design


@dataclass(frozen=True)
class ControlGroupPlan:
    """Respondents one compared question needs for the control-group comparison."""

    question_id: int
    column: str
    text: str
    design: str  # selectors.mechanisms.design_name
    control_share: float
    respondents: int  # both arms together
    power: float  # the one-sided test's power at ``respondents``

    @property
    def direct_respondents(self) -> int:
        """Of them, asked directly on average."""
        return round(self.respondents * self.control_share)

    @property
    def design_label(self):
        return DESIGN_LABELS[self.design].name


@dataclass(frozen=True)
class CheatingPlan:
    """Respondents one CDM/SLD question needs for π at the plan's half-width."""

    question_id: int
    column: str
    text: str
    design: str  # cdm or sld
    respondents: int  # both coin groups together
    margin: float  # π's half-width at ``respondents`` (at most the plan's)

    @property
    def design_label(self):
        return DESIGN_LABELS[self.design].name


def control_group_plans(
    *, survey, questions, difference, power, confidence, prevalence=None
) -> list[ControlGroupPlan]:
    """Per compared question, the respondents for the one-sided test to detect
    ``difference`` (randomized minus direct) with ``power`` at level ``1 - confidence``, at the
    survey's control share; ``prevalence`` the share anticipated when asking directly (None:
    the worst case). None of them without a control group (``control_share`` 0)."""
    if not survey.control_share:
        return []
    plans = []
    for index, question in enumerate(questions):
        if not (question.randomized and question.compare_direct):
            continue
        design = question_design(question, survey=survey)
        common = {
            "design": design,
            "difference": difference,
            "control_share": survey.control_share,
            "confidence": confidence,
            "p": prevalence,
        }
        respondents = dpengine.required_sample_size_control_group(**common, power=power)
        plans.append(
            ControlGroupPlan(
                question_id=question.pk,
                column=question_column(index),
                text=question.text,
                design=design_name(question),
                control_share=survey.control_share,
                respondents=respondents,
                power=dpengine.power_control_group(**common, n=respondents),
            )
        )
    return plans


def cheating_plans(*, survey, questions, margin, confidence) -> list[CheatingPlan]:
    """Per CDM/SLD question, the respondents for π's interval to be at most ``margin`` wide
    (half-width), in the worst case (each coin group's yes-rate near 1/2)."""
    plans = []
    for index, question in enumerate(questions):
        if not is_cheating_detection(question):
            continue
        design = question_design(question, survey=survey)
        respondents = dpengine.required_sample_size_cheating(
            design=design, margin=margin, confidence=confidence
        )
        plans.append(
            CheatingPlan(
                question_id=question.pk,
                column=question_column(index),
                text=question.text,
                design=design.kind,
                respondents=respondents,
                margin=dpengine.cheating_pi_margin(
                    design=design, n=respondents, confidence=confidence
                ),
            )
        )
    return plans
