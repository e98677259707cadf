"""How every page, export and API response names a question's randomization: one table.

Keyed by what ``selectors.mechanisms.design_name`` returns (a yes/no design's dpengine kind,
or ``choice`` / ``numeric``), and by the builder's ``survey`` choice (a yes/no question on the
survey's two coins, which is forced response). A yes/no design's labels are its row of the
design table (``surveys/designs.py``); this module adds the other kinds'.
"""

from dataclasses import dataclass

from django.utils.translation import gettext_lazy as _

from ..designs import CHEATING_TABLE, DESIGN_TABLE
from .mechanisms import CHEATING_KINDS, CHOICE, DIRECT, NUMERIC

SURVEY_COINS = "survey"  # the builder's design choice "the survey's two coins": an empty design


@dataclass(frozen=True)
class DesignLabel:
    name: str  # the results, exports, API and planner: "Unrelated question"
    short: str  # the builder's question list and privacy ledger: "unrelated question"
    choice: str = ""  # a yes/no design as the builder offers it ("" for choice and numeric)


# In the builder's order of yes/no designs (the survey's coins, then the design table's rows),
# then the other question types.
DESIGN_LABELS = {
    SURVEY_COINS: DesignLabel(
        name=_("Forced response"),
        short=_("survey coins (forced response)"),
        choice=_("The survey’s two coins (forced response)"),
    ),
    # Every row of the design table (surveys/designs.py), where each yes/no design is named.
    **{
        row.kind: DesignLabel(name=row.name, short=row.short, choice=row.choice)
        for row in DESIGN_TABLE
    },
    # Cheating detection (dpengine.cheating), the design table's sibling rows.
    **{
        row.kind: DesignLabel(name=row.name, short=row.short, choice=row.choice)
        for row in CHEATING_TABLE
    },
    CHOICE: DesignLabel(
        name=_("Multiple choice (k-ary randomized response)"), short=_("Multiple choice")
    ),
    NUMERIC: DesignLabel(name=_("Number (discrete Laplace noise)"), short=_("Number")),
    # A question asked directly: no design, no ε (its answers are not randomized).
    DIRECT: DesignLabel(name=_("Asked directly (not randomized)"), short=_("asked directly, no ε")),
}
# The yes/no designs a question may name, in the builder's order (with a finite ε; the
# cheating-detection ones apart: CHEATING_DESIGNS).
CHEATING_DESIGNS = list(CHEATING_KINDS)
YES_NO_DESIGNS = [
    kind for kind in DESIGN_LABELS if kind not in (CHOICE, NUMERIC, DIRECT, *CHEATING_DESIGNS)
]
