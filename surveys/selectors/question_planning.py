"""How many respondents each question needs for the builder's planning margin, whatever its type.

The builder's privacy ledger says, beside each question's ε, the respondents it needs for
estimates within ±``PLANNING_MARGIN`` at ``PLANNING_CONFIDENCE`` in the worst case, from
dpengine's planners: a yes/no question's share (any design: only P(yes | yes) and
P(yes | no) matter), every option's share of a multiple-choice question at once (Bonferroni),
and a numeric question's mean within the margin's fraction of its range (±5 % of max − min,
the counterpart of ±5 points). Reads only.
"""

import dpengine

from ..models import Question
from .estimates import PLANNING_CONFIDENCE, PLANNING_MARGIN
from .mechanisms import question_mechanism


def question_sample_size(question, *, survey) -> int:
    """Respondents ``question`` needs for ±``PLANNING_MARGIN`` (of its range, if numeric)."""
    mechanism = question_mechanism(question, survey=survey)
    if question.kind == Question.Kind.CHOICE:
        return dpengine.required_sample_size_choice(
            mechanism=mechanism, margin=PLANNING_MARGIN, confidence=PLANNING_CONFIDENCE
        )
    if question.kind == Question.Kind.NUMERIC:
        return dpengine.required_sample_size_mean(
            question=mechanism,
            margin=PLANNING_MARGIN * (question.max_value - question.min_value),
            confidence=PLANNING_CONFIDENCE,
        )
    return dpengine.required_sample_size(
        design=mechanism, margin=PLANNING_MARGIN, confidence=PLANNING_CONFIDENCE
    )


def question_sample_sizes(*, survey, questions=None) -> dict[int, int]:
    """``{question id: respondents needed}`` for ``questions`` (the survey's by default) under
    ``survey``'s coins (an unsaved survey carries the coins of a live preview)."""
    questions = survey.questions.all() if questions is None else questions
    return {question.pk: question_sample_size(question, survey=survey) for question in questions}
