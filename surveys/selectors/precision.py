"""How precise the results page's intervals are at the current sample size, against what the
planner says each question needs for ±5 points (``planning.question_plans``).

Reads the estimates already computed for the page; no database read of its own beyond the
questions.
"""

from dataclasses import dataclass

from .estimates import SurveyEstimates
from .mechanisms import CHOICE, NUMERIC
from .planning import question_plans
from .privacy import PLANNING_MARGIN


@dataclass(frozen=True)
class QuestionPrecision:
    """One question's interval now and the planner's respondents for ``margin``.

    ``half_width``: half the interval shown, in points of a share (yes/no; choice: its widest
    option) or in the answer's units (numeric: the mean); None while the question shows no
    numbers. ``needed``: respondents for a half-width of ``margin`` (numeric: the mean within
    ``margin`` of the range, ``units_margin``) at the page's confidence level, worst case.
    """

    question_id: int
    column: str
    kind: str
    n: int
    half_width: float | None
    needed: int
    margin: float
    units_margin: float | None = None

    @property
    def more(self) -> int:
        """Respondents still missing for the margin (0 once there are enough)."""
        return max(0, self.needed - self.n)


def _half_width(row) -> float | None:
    if row.suppressed or not row.has_data:
        return None
    if row.kind == CHOICE:
        return max((option.ci_high - option.ci_low) / 2 for option in row.options)
    interval = row.mean if row.kind == NUMERIC else row.estimate
    return (interval.ci_high - interval.ci_low) / 2


def results_precision(
    *, survey, estimates: SurveyEstimates, margin=PLANNING_MARGIN
) -> list[QuestionPrecision]:
    """Per question of ``estimates``: its interval's half-width now and the respondents the
    planner says it needs for ±``margin`` at the estimates' confidence level."""
    questions = list(survey.questions.all())
    plans = {
        plan.question_id: plan
        for plan in question_plans(
            survey=survey, questions=questions, margin=margin, confidence=estimates.confidence
        )
    }
    precision = []
    for row in estimates.rows:
        plan = plans.get(row.question_id)
        if plan is None:  # a question added since the estimates were read
            continue
        precision.append(
            QuestionPrecision(
                question_id=row.question_id,
                column=row.column,
                kind=row.kind,
                n=row.n,
                half_width=_half_width(row),
                needed=plan.respondents,
                margin=margin,
                units_margin=plan.units_margin,
            )
        )
    return precision
