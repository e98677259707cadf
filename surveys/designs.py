"""Every yes/no design a question may name, declared once: one row per design.

A row holds what the app says about a design beyond its statistics (those are the dpengine
class it names: its ``kind``, its parameters under their names and defaults, and the checks of
their bounds): its labels in the pages and exports, each parameter's label in the builder and
description in the API, the respondent page's sentence and picture, its practice round
(``None``: it has none), and the respondent procedure's instructions.
Everything else reads this table, never a list of its own: the API's accepted kinds and
schema, the builder's fields, the labels (``selectors.design_labels``), the designs with a
practice round (``services.comprehension``), the public definition's practice texts, and the
browser's constants (``tools/constants.py`` writes ``static/js/constants.js`` from it).

Adding a yes/no design (docs/architecture.md, "Adding a yes/no design"): its dpengine module,
its row here, its entry in ``static/js/yes-no-designs.js``, its tests; then ``make constants``
and ``make messages``. The order of the rows is the builder's. The cheating-detection designs
(CDM, SLD) are the sibling table ``CHEATING_TABLE``, at the end.

It sits beneath every layer (models excepted, none of it is a database column), so that every
layer, and ``tools/constants.py``, reads the same rows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from django.utils.translation import gettext_lazy as _

from dpengine.cheating import CheatingDesign, CheatingDetection, StochasticLieDetector
from dpengine.designs import ForcedResponse, Kuk, Mangat, UnrelatedQuestion, Warner, YesNoDesign
from dpengine.designs.crosswise import Crosswise

from .formatting import percent_text


@dataclass(frozen=True)
class Parameter:
    """One of a design's parameters, under its dpengine name."""

    label: str  # the builder's field, in the page's language
    about: str  # the API schema's description (English, as the API's schema is)
    symbol: str = ""  # its short name where a page lists values ("π"); "" for its own name


@dataclass(frozen=True)
class Practice:
    """The device procedure's practice round: the case the respondent is asked about (the
    chance step sends the other answer) and why. ``%(truth)s`` and ``%(sent)s`` are the
    made-up answer and what is sent (“yes”/“no”), ``%(colour)s`` the card's colour."""

    question: str
    why: str


# The pictures the respondent page draws beside a design's sentence
# (templates/respond/_design_icon.html): two coins, two decks of cards, or a ring whose dash is
# one of the design's chances (``DesignRow.ring``).
ICONS = ("coins", "decks", "ring")


@dataclass(frozen=True)
class DesignRow:
    engine: type[YesNoDesign]  # the dpengine design: kind, parameters, defaults and bounds
    name: str  # the results, exports, API and planner: "Unrelated question"
    short: str  # the builder's question list and privacy ledger: "unrelated question"
    choice: str  # the design as the builder offers it
    parameters: dict[str, Parameter]  # every parameter of ``engine``, in its order
    # The respondent page's sentence under the device procedure (templates/respond/
    # _randomization.html), or a function of the chances choosing one: ``%(name)s`` is a
    # chance as a percentage, a parameter by its name, ``not_<name>`` its complement, and
    # ``yes_if_yes``/``yes_if_no`` P(yes | yes) and P(yes | no) (``explanation_numbers``).
    explanation: str | Callable[[dict], str] = ""
    practice: Practice | None = None
    icon: str = "ring"  # one of ``ICONS``
    ring: str = "yes_if_yes"  # the chance the ring shows, named as in ``explanation``
    # The respondent procedure's instruction for each outcome of the chance step, by the name
    # its browser randomizer gives the outcome (static/js/yes-no-designs.js ``instruction``).
    # In English here: ``make constants`` writes them into static/js/constants.js inside
    # ``gettext(...)``, so the browser's catalog (locale/*/djangojs.po) translates them.
    instructions: dict[str, str] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        return self.engine.kind

    def defaults(self) -> dict[str, float]:
        """The parameters at dpengine's defaults, by name."""
        return self.engine().parameters

    def sentence(self, numbers: dict) -> str:
        """The respondent page's sentence for ``numbers`` (``explanation_numbers``), in the
        active language, each chance written by ``formatting.percent_text``."""
        text = self.explanation(numbers) if callable(self.explanation) else self.explanation
        return str(text) % {name: percent_text(value) for name, value in numbers.items()}


def explanation_numbers(design: YesNoDesign) -> dict[str, float]:
    """The chances a row's sentence may quote for ``design`` (a dpengine design): P(yes | yes)
    as ``yes_if_yes``, P(yes | no) as ``yes_if_no``, and each parameter under its name with its
    complement as ``not_<name>``."""
    numbers = {"yes_if_yes": design.p_yes_given_yes, "yes_if_no": design.p_yes_given_no}
    for name, value in design.parameters.items():
        numbers[name] = value
        numbers[f"not_{name}"] = 1 - value
    return numbers


_OPPOSITE = Practice(
    question=_(
        "Suppose your true answer is “%(truth)s”. The spinner picks the opposite of the "
        "statement. What does your device send?"
    ),
    why=_(
        "Your device answers the opposite statement truthfully, so “%(truth)s” becomes "
        "“%(sent)s”. Nobody knows which statement was picked."
    ),
)

_SPINNER = _(
    "A spinner: with a %(p)s chance you answer the statement as written; otherwise "
    "(%(not_p)s) you answer its opposite, so your yes is sent as “no” and your no as “yes”. "
    "Only the result is sent, not which way the spinner landed."
)
_MANGAT = _(
    "If your answer is yes, your browser sends “yes” straight away with a %(not_t)s chance. "
    "Otherwise, and whenever your answer is no, a spinner decides: with a %(p)s chance you "
    "answer the statement as written, otherwise (%(not_p)s) its opposite."
)

_SPINNER_SAYS = {
    "as_written": "The spinner says: answer the statement as written.",
    "opposite": "The spinner says: answer the opposite statement: choose “Yes” if the "
    "statement is false for you, “No” if it is true.",
}

DESIGN_TABLE: tuple[DesignRow, ...] = (
    DesignRow(
        engine=Warner,
        name=_("Warner"),
        short=_("Warner"),
        choice=_("Warner: answer the statement or its opposite"),
        parameters={
            "p": Parameter(
                _("p: probability of answering the statement as asked (else its opposite)"),
                "warner: probability of answering the statement as asked",
            ),
        },
        explanation=_SPINNER,
        practice=_OPPOSITE,
        ring="p",
        instructions=_SPINNER_SAYS,
    ),
    DesignRow(
        engine=UnrelatedQuestion,
        name=_("Unrelated question"),
        short=_("unrelated question"),
        choice=_("Unrelated question with a known share of “yes”"),
        parameters={
            "p": Parameter(
                _("p: probability of answering the sensitive question"),
                "unrelated_question: probability of answering the sensitive question",
            ),
            "pi": Parameter(
                _("π: known probability of “yes” to the unrelated question (the device draws it)"),
                "unrelated_question: the known probability of 'yes' to the unrelated question",
                symbol="π",
            ),
        },
        explanation=_(
            "With a %(p)s chance your browser sends your true answer; otherwise your device "
            "answers an unrelated question in your place, whose answer is “yes” with a %(pi)s "
            "chance, whatever your answer. Only the result is sent, not which question was "
            "answered."
        ),
        ring="p",
        instructions={
            "this_question": "The coin says: answer this question truthfully.",
            "other_question": "The coin says: answer the other question instead, “Did the "
            "second coin land heads?” Its answer is “%(answer)s”: choose that, whatever your "
            "answer to this question.",
        },
        practice=Practice(
            question=_(
                "Suppose your true answer is “%(truth)s”. The device picks the other question, "
                "and its answer is “%(sent)s”. What does your device send?"
            ),
            why=_(
                "When the other question is picked, its answer is sent instead of yours. "
                "Nobody knows which question was answered."
            ),
        ),
    ),
    DesignRow(
        engine=Kuk,
        name=_("Kuk"),
        short=_("Kuk"),
        choice=_("Kuk: two decks of cards"),
        parameters={
            "theta1": Parameter(
                _("θ₁: share of red cards in the deck of those whose answer is yes"),
                "kuk: red share of the deck of those whose answer is yes",
                symbol="θ₁",
            ),
            "theta2": Parameter(
                _("θ₂: share of red cards in the deck of those whose answer is no"),
                "kuk: red share of the deck of those whose answer is no",
                symbol="θ₂",
            ),
        },
        explanation=_(
            "Two decks of cards: the first is %(theta1)s red, the second %(theta2)s red. Your "
            "browser deals one card from the first deck if your answer is yes, from the second "
            "if it is no, and sends only the card's colour: red means “yes”, black “no”."
        ),
        icon="decks",
        instructions={
            "cards": "Your cards: if your true answer is yes, your card is %(yes)s; if it is "
            "no, it is %(no)s. Report your card's colour: red is “Yes”, black is “No”.",
        },
        practice=Practice(
            question=_(
                "Suppose your true answer is “%(truth)s”. The card dealt from the deck for "
                "“%(truth)s” is %(colour)s (red means “yes”). What does your device send?"
            ),
            why=_(
                "The card's colour is sent, not your answer, and both decks hold red and black "
                "cards. Nobody knows which deck was used."
            ),
        ),
    ),
    DesignRow(
        engine=Mangat,
        name=_("Mangat"),
        short=_("Mangat"),
        choice=_("Mangat (private variant)"),
        parameters={
            "p": Parameter(
                _("p: probability that the device says “I belong”"),
                "mangat: probability that the Warner device says 'I belong'",
            ),
            "t": Parameter(
                _("t: probability that a member, too, uses the device (else says yes)"),
                "mangat: probability that a member, too, uses the Warner device",
            ),
        },
        # With t = 1 a "yes" is never sent straight away: it is Warner's spinner.
        explanation=lambda numbers: _SPINNER if numbers["t"] == 1 else _MANGAT,
        # The made-up answer is "no" whenever "yes" is sent, so the round is Warner's device.
        practice=_OPPOSITE,
        instructions={
            **_SPINNER_SAYS,
            "yes_or_as_written": "If your true answer is yes, choose “Yes”. If it is no, the "
            "spinner says: answer the statement as written.",
            "yes_or_opposite": "If your true answer is yes, choose “Yes”. If it is no, the "
            "spinner says: answer the opposite statement, so choose “Yes”.",
        },
    ),
    DesignRow(
        engine=Crosswise,
        name=_("Crosswise"),
        short=_("crosswise"),
        choice=_("Crosswise: say whether your answer and a hidden statement agree"),
        parameters={
            "p": Parameter(
                _("p: probability that the hidden statement the device draws is true"),
                "crosswise: probability that the innocuous statement (the device draws it) is true",
            ),
        },
        explanation=_(
            "Your device draws a hidden statement that is true with a %(p)s chance (false "
            "with %(not_p)s) and sends only whether your answer and it agree: “yes” when both "
            "are true or both false, “no” otherwise. Nobody learns your answer or the hidden "
            "statement."
        ),
        ring="p",
        practice=Practice(
            question=_(
                "Suppose your true answer is “%(truth)s”, and the hidden statement is false. "
                "What does your device send?"
            ),
            why=_(
                "Your device sends “yes” when your answer and the hidden statement agree, “no” "
                "when they do not, so “%(truth)s” becomes “%(sent)s”. Nobody knows which way "
                "the hidden statement went."
            ),
        ),
        instructions={
            "true": "The hidden statement is true: choose “Yes” if the statement is true for "
            "you, “No” if it is false.",
            "false": "The hidden statement is false: choose “Yes” if the statement is false "
            "for you, “No” if it is true.",
        },
    ),
    # A question's own two coins; the survey's coins are forced response too (the builder's
    # choice ``selectors.SURVEY_COINS``, labelled there).
    DesignRow(
        engine=ForcedResponse,
        name=_("Forced response"),
        short=_("forced response"),
        choice=_("Forced response with this question’s own coins"),
        parameters={
            "p_truth": Parameter(
                _("Coin 1: probability of answering truthfully (p_truth)"),
                "forced_response with the question's own coins: coin 1, answer truthfully",
            ),
            "p_forced_yes": Parameter(
                _("Coin 2: probability of a forced “yes” (p_forced_yes)"),
                "forced_response with the question's own coins: coin 2, a forced 'yes'",
            ),
        },
        explanation=_(
            "Two coins: with a %(p_truth)s chance your browser sends your true answer; "
            "otherwise a second coin sends “yes” (%(p_forced_yes)s) or “no” "
            "(%(not_p_forced_yes)s), whatever your answer."
        ),
        icon="coins",
        instructions={
            "truth": "The coin says: answer truthfully.",
            "yes": "The coin says: choose “Yes”, whatever the truth.",
            "no": "The coin says: choose “No”, whatever the truth.",
        },
        practice=Practice(
            question=_(
                "Suppose your true answer is “%(truth)s”. Coin 1 lands tails, and coin 2 says "
                "“%(sent)s”. What does your device send?"
            ),
            why=_(
                "When coin 1 lands tails, coin 2 decides, whatever your answer. So a "
                "“%(sent)s” does not show what you answered."
            ),
        ),
    ),
)
"""The yes/no designs, in the builder's order."""


def design_rows() -> tuple[DesignRow, ...]:
    """The table's rows, read when called (every reader goes through here or the table)."""
    return DESIGN_TABLE


def design_row(kind: str) -> DesignRow | None:
    """The row of the yes/no design ``kind``, or None when no row names it."""
    return next((row for row in DESIGN_TABLE if row.kind == kind), None)


def design_kinds() -> tuple[str, ...]:
    """The kinds of the yes/no designs a question may name, in the table's order."""
    return tuple(row.kind for row in DESIGN_TABLE)


def practised_kinds() -> tuple[str, ...]:
    """The designs the respondent page has a practice round for (under either procedure)."""
    return tuple(row.kind for row in DESIGN_TABLE if row.practice is not None)


def parameter_symbols() -> dict[str, str]:
    """A parameter's short name where a page lists values (``pi``: π), by dpengine name."""
    return {
        name: parameter.symbol
        for row in DESIGN_TABLE
        for name, parameter in row.parameters.items()
        if parameter.symbol
    }


@dataclass(frozen=True)
class CheatingRow:
    """A cheating-detection design: two groups, each with its own probability, asked under the
    respondent procedure only. Its statistics are its dpengine class; the builder asks its
    pair ``p`` as ``p1`` and ``p2``, and ``group_share``."""

    engine: type[CheatingDesign]
    name: str
    short: str
    choice: str
    parameters: dict[str, Parameter]  # the builder's fields: p1, p2, group_share
    # The respondent procedure's instruction for each outcome, as a yes/no row's; ``%(group)s``
    # is the group drawn.
    instructions: dict[str, str] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        return self.engine.kind


def _cheating_parameters(kind: str, asks_for: str) -> dict[str, Parameter]:
    return {
        "p1": Parameter(asks_for, f"{kind}: the probability p of group 1"),
        "p2": Parameter(
            _("p₂: the same in group 2 (must differ from p₁)"),
            f"{kind}: the probability p of group 2",
        ),
        "group_share": Parameter(
            _("Share of respondents the browser puts in group 1"),
            f"{kind}: the share of respondents in group 1",
        ),
    }


_IN_GROUP = "You are in group %(group)s. "
_IF_YES = "If your true answer is yes, choose “Yes”. If not, the coin says: "

CHEATING_TABLE: tuple[CheatingRow, ...] = (
    CheatingRow(
        engine=CheatingDetection,
        name=_("Cheating detection (CDM)"),
        short=_("cheating detection (CDM), no ε"),
        choice=_("Cheating detection model (Clark & Desharnais): two groups"),
        parameters=_cheating_parameters(
            "cdm", _("p₁: in group 1, probability that the device asks for “yes” (answer no)")
        ),
        instructions={
            "yes": _IN_GROUP + "The coin says: choose “Yes”, whatever the truth.",
            "truth": _IN_GROUP + "The coin says: answer truthfully.",
        },
    ),
    CheatingRow(
        engine=StochasticLieDetector,
        name=_("Stochastic lie detector (SLD)"),
        short=_("stochastic lie detector (SLD), no ε"),
        choice=_("Stochastic lie detector (Moshagen et al.): two groups"),
        parameters=_cheating_parameters(
            "sld", _("p₁: in group 1, probability that the device asks for the true “no”")
        ),
        instructions={
            "truth": _IN_GROUP + _IF_YES + "answer truthfully.",
            "yes": _IN_GROUP + _IF_YES + "choose “Yes”.",
        },
    ),
)
"""The cheating-detection designs, in the builder's order (after the yes/no designs)."""


def cheating_row(kind: str) -> CheatingRow | None:
    """The row of the cheating-detection design ``kind``, or None."""
    return next((row for row in CHEATING_TABLE if row.kind == kind), None)


def cheating_kinds() -> tuple[str, ...]:
    """The cheating-detection designs' kinds, all asked under the respondent procedure only."""
    return tuple(row.kind for row in CHEATING_TABLE)
