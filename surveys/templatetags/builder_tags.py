"""What the builder says of a question's type and design, and of the privacy ledger."""

import math

from django import template
from django.utils.translation import gettext_lazy as _

from ..forms.researcher import DESIGN_SHORT_LABELS, TYPE_SHORT_LABELS

register = template.Library()

# The ledger's design names (selectors.mechanisms.design_name): a yes/no design's kind, or the
# type of a multiple-choice or numeric question.
LEDGER_LABELS = {
    **{kind: label for kind, label in DESIGN_SHORT_LABELS.items() if kind != "survey"},
    # The survey's coins or a question's own: both are forced response.
    "forced_response": _("forced response"),
    "choice": TYPE_SHORT_LABELS["choice"],
    "numeric": TYPE_SHORT_LABELS["numeric"],
    "direct": _("asked directly, no ε"),
}


@register.filter
def ledger_label(design_name):
    """A ledger entry's design in words: "Warner", "Multiple choice"."""
    return LEDGER_LABELS.get(design_name, design_name)


@register.filter
def odds(epsilon):
    """e^ε: how much more likely one report can be under one true answer than another."""
    try:
        return math.exp(float(epsilon))
    except OverflowError:
        return math.inf


@register.filter
def coins_only(privacy):
    """Whether every question of the ledger costs the survey coins' ε (or there is no ledger):
    then "questions × ε per answer" says the total."""
    ledger = getattr(privacy, "ledger", None)
    if ledger is None:
        return True
    return all(
        math.isclose(entry.epsilon, privacy.per_answer_epsilon, rel_tol=1e-12)
        for entry in ledger.entries
    )


@register.filter
def need_of(needs, question_id):
    """The respondents a question needs, from ``{question id: n}`` (None when not computed)."""
    return (needs or {}).get(question_id)
