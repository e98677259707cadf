"""Privacy accounting for randomized-response surveys.

Each answered question is an ``epsilon``-locally-differentially-private release; a
respondent who answers ``k`` questions has spent at most ``k epsilon`` (basic sequential
composition), and a group of ``g`` people who share an answer is protected at ``g
epsilon`` (group privacy). Anything computed from the randomized reports alone --
estimates, intervals, charts, CSV files -- is post-processing and costs nothing more.
Reference: Dwork & Roth (2014), "The Algorithmic Foundations of Differential Privacy",
Proposition 2.1 (post-processing), Theorem 2.2 (group privacy), Theorem 3.16
(composition).

Every loss here is rounded outward (up), as OpenDP rounds its privacy maps: a float ε is
read as the decimal it prints as (the reading the samplers, JSON and the browser use), each
per-question loss is at least the exact loss of what the sampler draws (an irrational loss
such as ``ln 3`` by the least float above it in both its binary and decimal readings), and
sums and multiples are computed exactly on those decimals and rounded up
(:mod:`dpengine.rounding`), so no total is below the exact total.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from dpengine._rational import as_fraction, fmt, is_integer, is_real_number
from dpengine._validation import check_design
from dpengine.designs import YesNoDesign
from dpengine.errors import DPEngineError, Reason
from dpengine.rounding import ceil_decimal, decimal_float_at_least, float_at_least

__all__ = [
    "PrivacyLedger",
    "PrivacyReport",
    "group_privacy_epsilon",
    "per_answer_epsilon",
    "privacy_ledger",
    "privacy_report",
    "question_epsilon",
    "sequential_composition",
    "survey_epsilon",
]


def _check_epsilon(value: object, name: str = "epsilon") -> float:
    if not is_real_number(value) or not math.isfinite(float(value)) or float(value) < 0:
        raise DPEngineError(
            f"{name} must be a non-negative finite number, got {fmt(value)}",
            reason=Reason.OUT_OF_RANGE,
            field=name,
        )
    if isinstance(value, Fraction | Decimal):
        # float() rounds to nearest, down half the time; the charge must not be below.
        return float_at_least(as_fraction(value))
    return float(value)


def _sum_up(epsilons: Iterable[float]) -> float:
    """The exact sum of the losses (floats read as their decimals), rounded up."""
    return decimal_float_at_least(sum((as_fraction(value) for value in epsilons), Fraction(0)))


def _check_positive_int(name: str, value: object) -> int:
    if not is_integer(value) or value < 1:
        raise DPEngineError(
            f"{name} must be a positive integer, got {fmt(value)}",
            reason=Reason.OUT_OF_RANGE,
            field=name,
        )
    return int(value)


def per_answer_epsilon(design: YesNoDesign) -> float:
    """Privacy loss of one randomized answer: ``ln(max(a / b, (1 - b) / (1 - a)))``.

    Reference: Dwork & Roth (2014), section 3.2 (randomized response).
    """
    check_design(design)
    return design.epsilon


def sequential_composition(epsilons: Iterable[float]) -> float:
    """Total loss of releases with the given losses: their sum (basic composition).

    Each value must be finite and non-negative. Reference: Dwork & Roth (2014), Thm 3.16.
    """
    values = [_check_epsilon(value, "each epsilon") for value in epsilons]
    return _sum_up(values)


def survey_epsilon(design: YesNoDesign, *, questions: int) -> float:
    """Total loss of a respondent answering ``questions >= 1`` questions: ``k epsilon``."""
    check_design(design)
    questions = _check_positive_int("questions", questions)
    return decimal_float_at_least(questions * as_fraction(design.epsilon))


def group_privacy_epsilon(epsilon: float, *, group_size: int) -> float:
    """Protection of a group of ``group_size >= 1`` people: ``g epsilon``.

    Reference: Dwork & Roth (2014), Theorem 2.2.
    """
    epsilon = _check_epsilon(epsilon)
    group_size = _check_positive_int("group_size", group_size)
    return decimal_float_at_least(group_size * as_fraction(epsilon))


def _odds(epsilon: float) -> float:
    try:
        # math.exp is within an ulp of e^epsilon; one step up keeps the bound a bound.
        return math.nextafter(math.exp(epsilon), math.inf)
    except OverflowError:
        # Dozens of questions at a weak design exceed the float range; the bound is
        # then meaningless anyway.
        return math.inf


def _up3(epsilon: float) -> str:
    """``epsilon`` to three significant digits, rounded up (an ε is never shown lower)."""
    if epsilon <= 0 or not math.isfinite(epsilon):
        return f"{epsilon:g}"
    decimals = 2 - math.floor(math.log10(epsilon))
    return format(ceil_decimal(epsilon, decimals).normalize(), "f")


@dataclass(frozen=True)
class PrivacyReport:
    """What the builder and the respondent page show about one survey's privacy."""

    per_answer_epsilon: float
    questions: int
    total_epsilon: float

    @property
    def per_answer_odds(self) -> float:
        """``e^epsilon``: the largest ratio of a report's probability under the two truths."""
        return _odds(self.per_answer_epsilon)

    @property
    def total_odds(self) -> float:
        """``e^(k epsilon)``: the same bound for everything one respondent sends."""
        return _odds(self.total_epsilon)

    @property
    def summary(self) -> str:
        """A plain-language sentence for researchers and respondents (English)."""
        answer = (
            f"Each answer you send is at most {self.per_answer_odds:.3g} times as likely "
            f"under one true answer as under the other (ε = {_up3(self.per_answer_epsilon)})."
        )
        if self.questions == 1:
            return answer
        return (
            f"{answer} Across all {self.questions} questions together the bound is "
            f"{self.total_odds:.3g} times (total ε = {_up3(self.total_epsilon)})."
        )


def privacy_report(design: YesNoDesign, *, questions: int) -> PrivacyReport:
    """The per-answer and total privacy loss of a survey with ``questions`` questions."""
    check_design(design)
    questions = _check_positive_int("questions", questions)
    return PrivacyReport(
        per_answer_epsilon=design.epsilon,
        questions=questions,
        total_epsilon=survey_epsilon(design, questions=questions),
    )


def question_epsilon(question: object) -> float:
    """Privacy loss of one randomized question of any type, or of a bare number.

    ``question`` is a yes/no design (:class:`dpengine.designs.YesNoDesign`), a
    multiple-choice :class:`dpengine.choice.KaryRandomizedResponse`, a numeric
    :class:`dpengine.numeric.BoundedNumeric`, any object with a finite non-negative
    ``epsilon`` attribute, or a finite non-negative number itself.
    """
    if is_real_number(question):
        return _check_epsilon(question)
    epsilon = getattr(question, "epsilon", None)
    if epsilon is None:
        raise DPEngineError(
            f"each question must be a number or have an epsilon, got {question!r}",
            reason=Reason.INVALID_TYPE,
            field="questions",
        )
    return _check_epsilon(epsilon, "question epsilon")


@dataclass(frozen=True)
class PrivacyLedger:
    """Per-question losses of one respondent's survey and their sum (basic composition)."""

    per_question: tuple[float, ...]
    total_epsilon: float

    @property
    def questions(self) -> int:
        return len(self.per_question)

    @property
    def total_odds(self) -> float:
        """``e^(total epsilon)``: the bound for everything one respondent sends."""
        return _odds(self.total_epsilon)


def privacy_ledger(questions: Iterable[object]) -> PrivacyLedger:
    """The ledger of a survey whose questions may be of different types.

    Each entry is :func:`question_epsilon` of one question (yes/no design, k-ary
    randomized response, bounded numeric, or a number); the total is their sum
    (sequential composition; Dwork & Roth 2014, Theorem 3.16). An empty survey costs 0.
    """
    per_question = tuple(question_epsilon(question) for question in questions)
    return PrivacyLedger(per_question=per_question, total_epsilon=_sum_up(per_question))
