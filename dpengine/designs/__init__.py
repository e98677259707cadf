"""Yes/no randomized-response designs and their privacy loss.

Every design turns a true yes/no answer into a reported yes/no with
``a = P(report yes | truth yes)`` and ``b = P(report yes | truth no)``, ``a > b``; the
estimators, intervals, sample sizes and the regression in this package depend on the
design only through ``(a, b)``, so they accept every design here. Each answer is
``epsilon``-locally differentially private with
``epsilon = ln(max(a / b, (1 - b) / (1 - a)))`` (Dwork & Roth 2014, section 3.2); a design
with ``b = 0`` or ``a = 1`` lets some report reveal the truth (infinite epsilon) and is
refused with reason ``NOT_DIFFERENTIALLY_PRIVATE``, one with ``a = b`` carries no
information and is refused with reason ``NO_INFORMATION``.

- :class:`ForcedResponse` (Boruch 1971; Greenberg et al. 1969): coin 1 says "answer
  truthfully" with ``p_truth``, otherwise coin 2 forces "yes" with ``p_forced_yes``.
- :class:`Warner` (Warner 1965): answer the statement with probability ``p``, its
  negation otherwise.
- :class:`UnrelatedQuestion` (Greenberg et al. 1969, known prevalence): answer the
  sensitive question with probability ``p``, otherwise an innocuous one whose answer is
  "yes" with known probability ``pi``; the device (the browser) draws that answer.
- :class:`Kuk` (Kuk 1990): a respondent whose truth is yes draws a card from a deck with
  red share ``theta1``, one whose truth is no from a deck with red share ``theta2``, and
  reports the colour (red = "yes").
- :class:`Mangat` (Mangat 1994), in a differentially private variant: see its docstring.

References: Warner (1965), "Randomized response: a survey technique for eliminating
evasive answer bias", JASA 60(309); Greenberg, Abul-Ela, Simmons & Horvitz (1969),
"The unrelated question randomized response model", JASA 64(326); Kuk (1990), "Asking
sensitive questions indirectly", Biometrika 77(2); Mangat (1994), "An improved randomized
response strategy", JRSS B 56(1); Blair, Imai & Zhou (2015), "Design and analysis of the
randomized response technique", JASA 110(511); Heck & Moshagen (2018), "RRreg: an R
package for correlation and regression analyses of randomized response data", Journal of
Statistical Software 85(2); Dwork & Roth (2014), "The Algorithmic Foundations of
Differential Privacy", section 3.2.
"""

import importlib
import pkgutil

from dpengine.designs.base import RModel, YesNoDesign
from dpengine.designs.forced_response import ForcedResponse
from dpengine.designs.kuk import Kuk
from dpengine.designs.mangat import Mangat
from dpengine.designs.registry import (
    CLASSIC,
    DEFAULT_PRESET,
    DESIGNS,
    PRESETS,
    R_MODEL_NAMES,
    Preset,
)
from dpengine.designs.unrelated_question import UnrelatedQuestion
from dpengine.designs.warner import Warner

# Every module of this package, so that every design in it is registered (``DESIGNS``) whether
# or not a name is imported above: a new design needs no line here.
for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")

__all__ = [
    "CLASSIC",
    "DEFAULT_PRESET",
    "DESIGNS",
    "PRESETS",
    "R_MODEL_NAMES",
    "ForcedResponse",
    "Kuk",
    "Mangat",
    "Preset",
    "RModel",
    "UnrelatedQuestion",
    "Warner",
    "YesNoDesign",
]
