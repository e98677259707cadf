"""What the respondent page tells a respondent about each question's randomization, in numbers.

The page (templates/respond/) words every design in plain language; the chances it quotes
come from here, computed from the same dpengine mechanism the browser samples and the
estimates assume (``selectors.mechanisms``), so the page cannot promise other odds than the
ones used. Reads only.
"""

import math
from dataclasses import dataclass, field

from ..designs import design_row, explanation_numbers
from .mechanisms import (
    CHOICE,
    NUMERIC,
    PrivacyLedger,
    design_name,
    is_cheating_detection,
    numeric_range,
    privacy_ledger,
    question_mechanism,
    uses_survey_coins,
)

# How often the numeric noise is at least the "typical" size the page quotes: at least half
# of the time, and at least one time in ten for the larger figure.
TYPICAL_NOISE_SHARE = 0.5
LARGE_NOISE_SHARE = 0.1


@dataclass(frozen=True)
class QuestionExplanation:
    """One question's randomization in the respondent's terms.

    ``design`` is ``selectors.mechanisms.design_name`` (a yes/no design's kind, ``choice`` or
    ``numeric``); ``survey_coins`` is True for a yes/no question on the survey's two coins.
    ``numbers`` holds the chances (0..1) and sizes the page's sentence for that design uses:

    - every yes/no design: ``designs.explanation_numbers``, ``yes_if_yes`` (a) and
      ``yes_if_no`` (b), and its own parameters under dpengine's names with their complements
      (``not_p``); its row in the design table words them (``sentence``);
    - choice: ``keep``, ``switch`` (1 - keep), ``each_other`` and ``others`` (k - 1);
    - cheating detection (CDM, SLD): ``group_one`` and ``group_two`` (the chances of each
      group), ``yes_if_no_1`` and ``yes_if_no_2`` (a "no" sent as "yes" in each group; a
      "yes" is always sent as "yes") and ``yes_odds`` (e^epsilon_yes); ``epsilon`` is inf;
    - numeric: ``min``, ``max``, ``typical_noise`` (the largest m with P(|noise| >= m) >=
      1/2; 0 when the noise is zero more than half the time), ``large_noise`` (likewise
      with 1/10) and ``noise_sd``.
    """

    question_id: int
    design: str
    survey_coins: bool
    epsilon: float
    odds: float  # e^epsilon
    numbers: dict = field(default_factory=dict)

    @property
    def one_sided(self) -> bool:
        """A cheating-detection design: no finite ε; only a "yes" is bounded (yes_odds)."""
        return "yes_odds" in self.numbers

    @property
    def sentence(self) -> str:
        """A yes/no design's sentence from its row of the design table, in the active
        language; "" for the others (the page words them itself)."""
        row = design_row(self.design)
        return row.sentence(self.numbers) if row else ""

    @property
    def icon(self) -> str:
        """The picture beside the sentence (respond/_design_icon.html): a yes/no design's
        row's (``designs.ICONS``); ``groups`` for cheating detection, ``line`` for a number,
        and a ring for a choice."""
        row = design_row(self.design)
        if row:
            return row.icon
        if self.one_sided:
            return "groups"
        return "line" if self.design == NUMERIC else "ring"

    @property
    def ring(self) -> float:
        """The chance the ring shows: a yes/no design's row names it; a choice keeps its
        option with ``keep``."""
        row = design_row(self.design)
        return self.numbers[row.ring] if row else self.numbers.get("keep", 0.0)


@dataclass(frozen=True)
class QuestionRow:
    question: object
    explanation: QuestionExplanation | None  # None: asked directly, nothing to explain


@dataclass(frozen=True)
class RespondentExplanation:
    """The respondent page's explanation: one row per question, and the privacy ledger."""

    rows: tuple[QuestionRow, ...]
    ledger: PrivacyLedger

    @property
    def only_survey_coins(self) -> bool:
        """Every question is yes/no on the survey's two coins: the coins are explained once,
        above the questions, as they always were."""
        return all(row.explanation.survey_coins for row in self.rows if row.explanation)

    @property
    def kinds(self) -> frozenset:
        """The types of the randomized questions present (``yes_no``, ``choice``,
        ``numeric``)."""
        return frozenset(row.question.kind for row in self.rows if row.explanation)

    @property
    def has_one_sided(self) -> bool:
        """Whether some question's design (CDM, SLD) makes one report conclusive: an honest
        "no" there shows the true answer is no."""
        return bool(self.ledger.one_sided)

    @property
    def has_direct(self) -> bool:
        """Whether some question is asked directly (its answer sent as given)."""
        return any(row.explanation is None for row in self.rows)

    @property
    def control_share(self) -> float:
        """The chance that this respondent's browser asks the compared questions directly
        (the control group, static/js/control.js); 0 when it never does."""
        return self.ledger.control_share if self.ledger.compared else 0.0

    @property
    def only_yes_no(self) -> bool:
        return self.kinds <= {"yes_no"}

    @property
    def has_choice(self) -> bool:
        return CHOICE in self.kinds

    @property
    def has_numeric(self) -> bool:
        return NUMERIC in self.kinds

    @property
    def largest_odds(self) -> float:
        return math.exp(self.ledger.largest_epsilon)


def discrete_laplace_tail(*, alpha, magnitude) -> float:
    """P(|Z| >= m) for the discrete Laplace noise with ratio ``alpha``: 1 at m = 0, else
    ``2 alpha^m / (1 + alpha)`` (P(Z = z) = (1 - alpha) / (1 + alpha) alpha^|z|)."""
    if magnitude <= 0:
        return 1.0
    return 2 * alpha**magnitude / (1 + alpha)


def noise_reached(*, alpha, share) -> int:
    """The largest m with P(|Z| >= m) >= ``share``: noise this size or more is that common."""
    # From 2 a^m / (1 + a) >= s: m <= ln(s (1 + a) / 2) / ln a; then settle float rounding.
    magnitude = max(0, math.floor(math.log(share * (1 + alpha) / 2) / math.log(alpha)))
    while discrete_laplace_tail(alpha=alpha, magnitude=magnitude + 1) >= share:
        magnitude += 1
    while magnitude > 0 and discrete_laplace_tail(alpha=alpha, magnitude=magnitude) < share:
        magnitude -= 1
    return magnitude


def _cheating_numbers(design) -> dict:
    share = float(design.share)
    return {
        "group_one": share,
        "group_two": 1 - share,
        "yes_if_no_1": float(design.exact_randomized_yes(1)),
        "yes_if_no_2": float(design.exact_randomized_yes(2)),
        "yes_odds": math.exp(design.epsilon_yes),
    }


def _choice_numbers(mechanism) -> dict:
    return {
        "keep": mechanism.keep_probability,
        "switch": 1 - mechanism.keep_probability,
        "each_other": mechanism.other_probability,
        "others": mechanism.k - 1,
    }


def _numeric_numbers(mechanism) -> dict:
    alpha = mechanism.alpha
    return {
        **numeric_range(mechanism),
        "typical_noise": noise_reached(alpha=alpha, share=TYPICAL_NOISE_SHARE),
        "large_noise": noise_reached(alpha=alpha, share=LARGE_NOISE_SHARE),
        "noise_sd": math.sqrt(mechanism.noise_variance),
    }


def question_explanation(question, *, survey) -> QuestionExplanation | None:
    """What randomizes ``question``, in numbers; None for a question asked directly."""
    mechanism = question_mechanism(question, survey=survey)
    if mechanism is None:
        return None
    if is_cheating_detection(question):
        numbers = _cheating_numbers(mechanism)
    elif question.kind == CHOICE:
        numbers = _choice_numbers(mechanism)
    elif question.kind == NUMERIC:
        numbers = _numeric_numbers(mechanism)
    else:
        numbers = explanation_numbers(mechanism)
    epsilon = float(mechanism.epsilon)
    return QuestionExplanation(
        question_id=question.pk,
        design=design_name(question),
        survey_coins=uses_survey_coins(question),
        epsilon=epsilon,
        odds=math.exp(epsilon),
        numbers=numbers,
    )


def respondent_explanation(*, survey, questions=None) -> RespondentExplanation:
    """Every question of ``survey`` (or ``questions``, in page order) with its explanation,
    and the survey's privacy ledger."""
    questions = list(survey.questions.all()) if questions is None else list(questions)
    rows = tuple(
        QuestionRow(question=question, explanation=question_explanation(question, survey=survey))
        for question in questions
    )
    return RespondentExplanation(
        rows=rows, ledger=privacy_ledger(survey=survey, questions=questions)
    )
