"""The crosswise model: whether two statements are both true or both false (Yu, Tian & Tang
2008)."""

from __future__ import annotations

from dataclasses import dataclass

from dpengine._rational import fmt
from dpengine.designs.base import RModel
from dpengine.designs.warner import Warner


@dataclass(frozen=True)
class Crosswise(Warner):
    """The crosswise model (Yu, Tian & Tang 2008): the respondent is shown the sensitive
    statement and an innocuous one that holds with a known probability ``p`` (here the
    respondent's device draws it), and reports only whether the two agree ("yes": both true
    or both false), never either answer.

    ``a = p`` and ``b = 1 - p``: Warner's probabilities, checks and estimator (so it is
    written as Warner's subclass, under its own kind). ``p`` must lie in (1/2, 1); ``p < 1/2``
    is the same design with the innocuous statement negated: use ``1 - p``. Default
    ``p = 3/4``: ``a = 3/4``, ``b = 1/4``, ``epsilon = ln 3``. RRreg fits it as its
    ``"Crosswise"`` model with the same ``p``.
    """

    kind = "crosswise"

    @property
    def description(self) -> str:
        return (
            f"Your device draws a hidden statement that is true with probability "
            f"{fmt(self.p)}; you say only whether your answer and it agree (both true or both "
            "false). Nobody can tell your answer from that."
        )

    @property
    def r_model(self) -> RModel:
        """RRreg's ``"Crosswise"``: ``p`` = probability that the innocuous statement holds."""
        return RModel("Crosswise", (float(self.p),))
