"""Every yes/no design by its ``kind``, its RRreg model name, and the presets the survey
builder offers.

No list of designs is written here: a design registers itself by being defined (a subclass
of ``YesNoDesign`` with a ``kind``), and ``dpengine.designs`` imports every module of its
package, so a new design is its own module and nothing else in dpengine.
"""

from __future__ import annotations

import types
from collections.abc import Iterator, Mapping
from typing import NamedTuple

from dpengine.designs.base import REGISTERED, YesNoDesign
from dpengine.designs.forced_response import ForcedResponse

DESIGNS: types.MappingProxyType[str, type[YesNoDesign]] = REGISTERED
"""Every yes/no design class by its ``kind`` (a read-only view of the registered designs)."""


class _RModelNames(Mapping[str, str]):
    """The RRreg model name (``RRuni(model=...)``) of each design ``kind``, read from the
    design's own ``r_model`` at its defaults (Mangat's own RRreg model is the non-private
    original, so it says ``FR``: see its docstring)."""

    def __getitem__(self, kind: str) -> str:
        return DESIGNS[kind]().r_model.name

    def __iter__(self) -> Iterator[str]:
        return iter(DESIGNS)

    def __len__(self) -> int:
        return len(DESIGNS)


R_MODEL_NAMES: Mapping[str, str] = _RModelNames()
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
