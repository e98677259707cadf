"""A direct-questioning control group (split ballot): per compared question, the randomized
estimate, the direct share and whether randomized response revealed more.

Each respondent's browser asks the questions marked ``compare_direct`` directly with the
survey's ``control_share``, else randomized (static/js/control.js), and sends one code per
question (``control_arms``). The arms are independent samples of the same population, so the
randomized arm's estimate (its question's design, codes 0/1) minus the direct arm's share
(codes 2/3, an ordinary binomial share) estimates how much asking directly under-reports:
``dpengine.compare_direct`` gives the difference, its interval (exact product interval,
coverage kept at every n) and the one-sided p-value of "more is better" (Lensvelt-Mulders
et al. 2005). Each question's comparison reads its own codes only: a submission whose
questions came from different arms (none the browser sends, but a hand-made one could)
adds one independent report to each arm's sample of that question and biases nothing.
"""

from dataclasses import dataclass

import dpengine
from dpengine import DirectComparison, DirectShare, DPEngineError, Estimate

from ..models import Survey
from .columns import question_column
from .control_arms import ArmCounts, arm_counts
from .estimates import estimator, survey_tallies
from .mechanisms import question_design

# Why a comparison shows no numbers (the page words each).
COMPARED, NO_CONTROL_GROUP, SUPPRESSED, NO_TEST = (
    "compared",
    "no_control_group",
    "suppressed",
    "no_test",
)


@dataclass(frozen=True)
class ControlComparison:
    """One compared question: both arms, and their comparison when it can be shown."""

    question_id: int
    position: int
    text: str
    column: str
    arms: ArmCounts
    status: str  # COMPARED, or why not: NO_CONTROL_GROUP, SUPPRESSED (an arm below min_n), NO_TEST
    randomized: Estimate | None = None  # the randomized arm's estimate under its design
    direct: DirectShare | None = None  # the direct arm's share of "yes"
    comparison: DirectComparison | None = None

    @property
    def shown(self):
        """The difference's interval to show (exact product, coverage kept), or None."""
        return None if self.comparison is None else self.comparison.shown

    def as_dict(self) -> dict:
        """The API's and the JSON export's form."""
        shown = self.shown
        return {
            "question_id": self.question_id,
            "column": self.column,
            "text": self.text,
            "status": self.status,
            "randomized_n": self.arms.randomized_n,
            "randomized_yes_reports": self.arms.randomized_yes,
            "direct_n": self.arms.direct_n,
            "direct_yes": self.arms.direct_yes,
            "randomized_estimate": None if self.randomized is None else self.randomized.clamped,
            "randomized_ci": None
            if self.randomized is None
            else [self.randomized.ci_low, self.randomized.ci_high],
            "direct_share": None if self.direct is None else self.direct.share,
            "direct_ci": None if self.direct is None else [self.direct.ci_low, self.direct.ci_high],
            "difference": None if shown is None else shown.estimate,
            "difference_ci": None if shown is None else [shown.low, shown.high],
            "difference_method": None if shown is None else shown.method,
            "p_value_more_is_better": None if self.comparison is None else self.comparison.p_value,
        }


@dataclass(frozen=True)
class ControlGroupResults:
    control_share: float
    confidence: float
    method: str
    min_n: int
    rows: list  # ControlComparison, in the survey's order

    @property
    def has_control_group(self) -> bool:
        return self.control_share > 0

    def as_dict(self) -> dict:
        return {
            "control_share": self.control_share,
            "confidence": self.confidence,
            "questions": [row.as_dict() for row in self.rows],
        }


def _compared(question, *, survey, arms, confidence, method, fields):
    if survey.control_share == 0:
        return ControlComparison(**fields, arms=arms, status=NO_CONTROL_GROUP)
    # min_n per arm: either arm's numbers alone would say as much as a question's estimate.
    if min(arms.randomized_n, arms.direct_n) < max(survey.min_n, 1):
        return ControlComparison(**fields, arms=arms, status=SUPPRESSED)
    design = question_design(question, survey=survey)
    randomized = estimator(design=design, confidence=confidence, method=method)(
        yes=arms.randomized_yes, n=arms.randomized_n
    )
    (direct, _no) = dpengine.direct_shares(
        counts=[arms.direct_yes, arms.direct_n - arms.direct_yes],
        confidence=confidence,
        method=method,
    )
    try:
        comparison = dpengine.compare_direct(
            estimate=randomized.estimate,
            std_error=randomized.std_error,
            direct_yes=arms.direct_yes,
            direct_n=arms.direct_n,
            confidence=confidence,
            randomized=randomized,
        )
    except DPEngineError:
        # Both standard errors zero (every report of each arm alike): no test to show.
        return ControlComparison(
            **fields, arms=arms, status=NO_TEST, randomized=randomized, direct=direct
        )
    return ControlComparison(
        **fields,
        arms=arms,
        status=COMPARED,
        randomized=randomized,
        direct=direct,
        comparison=comparison,
    )


def survey_control_group(*, survey: Survey, confidence=None, method=None) -> ControlGroupResults:
    """The comparison of every question marked ``compare_direct``, from the running tallies
    (cost independent of the number of responses)."""
    confidence = survey.confidence if confidence is None else confidence
    method = survey.ci_method if method is None else method
    questions = list(survey.questions.all())
    # The tallies only when some question is compared (the results page asks every time).
    tallies = survey_tallies(survey=survey) if any(q.compare_direct for q in questions) else None
    rows = []
    for index, question in enumerate(questions):
        if not question.compare_direct:
            continue
        fields = {
            "question_id": question.pk,
            "position": question.position,
            "text": question.text,
            "column": question_column(index),
        }
        rows.append(
            _compared(
                question,
                survey=survey,
                arms=arm_counts(tallies, question.pk),
                confidence=confidence,
                method=method,
                fields=fields,
            )
        )
    return ControlGroupResults(
        control_share=survey.control_share,
        confidence=confidence,
        method=method,
        min_n=survey.min_n,
        rows=rows,
    )
