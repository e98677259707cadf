"""Every yes/no design by its ``kind``, its RRreg model name, and the presets the survey
builder offers."""

from __future__ import annotations

import types
from typing import NamedTuple

from dpengine.designs.base import YesNoDesign
from dpengine.designs.forced_response import ForcedResponse
from dpengine.designs.kuk import Kuk
from dpengine.designs.mangat import Mangat
from dpengine.designs.unrelated_question import UnrelatedQuestion
from dpengine.designs.warner import Warner

DESIGNS: types.MappingProxyType[str, type[YesNoDesign]] = types.MappingProxyType(
    {cls.kind: cls for cls in (ForcedResponse, Warner, UnrelatedQuestion, Kuk, Mangat)}
)
"""Every yes/no design class by its ``kind``."""

R_MODEL_NAMES: types.MappingProxyType[str, str] = types.MappingProxyType(
    {
        "forced_response": "FR",
        "warner": "Warner",
        "unrelated_question": "UQTknown",
        "kuk": "Kuk",
        # Mangat's own RRreg model is the non-private original; see Mangat's docstring.
        "mangat": "FR",
    }
)
"""The RRreg model name (``RRuni(model=...)``) for each design ``kind``."""


class Preset(NamedTuple):
    """A named design offered in the survey builder."""

    label: str
    design: YesNoDesign


CLASSIC = ForcedResponse(p_truth=0.5, p_forced_yes=0.5)

PRESETS: types.MappingProxyType[str, Preset] = types.MappingProxyType(
    {
        "strong_privacy": Preset(
            "Stronger privacy: 1/4 truthful, ε = ln(5/3) ≈ 0.51",
            ForcedResponse(p_truth=0.25, p_forced_yes=0.5),
        ),
        "classic": Preset("Classic: 1/2 truthful, ε = ln 3 ≈ 1.10", CLASSIC),
        "high_precision": Preset(
            "More precise: 3/4 truthful, ε = ln 7 ≈ 1.95",
            ForcedResponse(p_truth=0.75, p_forced_yes=0.5),
        ),
    }
)

DEFAULT_PRESET = "classic"
