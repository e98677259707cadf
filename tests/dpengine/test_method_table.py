"""docs/statistics.md's table of the largest n at which each textbook method is replaced by
the exact one (``dpengine.guarantee``), computed: every n up to the large-sample rule. In a
file of its own so that the suite's workers share the scans."""

import functools
import math
import re
from pathlib import Path

import pytest

from dpengine import (
    DESIGNS,
    LARGE_SAMPLE_REPORTS,
    KaryRandomizedResponse,
    choice_interval_method,
    interval_method,
)
from tests.dpengine.sweeps import rarest
from tests.helpers import table_under

# Each scan's result by the design's chances of a yes report (a, b), k and the method: the
# decision reads nothing else of the design (dpengine.guarantee), so the rows of designs with
# the same chances (forced response, Warner and crosswise: 0.75 and 0.25) share one scan.
_scanned = {}


def last_replaced(choose, *, a, b, method, k):
    """The largest n at which ``choose(n)`` replaces the method: every n up to where nothing is
    enumerated any more (the large-sample rule), or up to 1500 for Wald on choice questions
    (enumerated up to CHECK_LIMIT; the full scan would take minutes)."""
    if (a, b, method, k) not in _scanned:
        top = math.ceil(LARGE_SAMPLE_REPORTS / rarest(a, b))
        if k > 1 and method == "wald":
            top = 1500
        found = max((n for n in range(1, top + 1) if choose(n).replaced), default=0)
        _scanned[a, b, method, k] = found
    return _scanned[a, b, method, k]


STATISTICS_PAGE = Path(__file__).resolve().parents[2] / "docs" / "statistics.md"


def method_table():
    rows = table_under(STATISTICS_PAGE.read_text("utf-8"), "<!-- method-replaced:start -->")
    return {row[0]: row[1:] for row in rows}


def test_the_table_of_when_each_method_is_shown_has_every_design():
    assert set(method_table()) == {f"`{kind}`" for kind in DESIGNS} | {
        "choice, k = 3, ε = ln 3",
        "choice, k = 4, ε = ln 3",
    }


# Every n up to the large-sample rule (1200 to 2400 reports): 15 s to 2 min a row.
@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(method_table()))
def test_the_statistics_pages_table_of_when_each_method_is_shown_is_computed(name):
    if name.startswith("choice"):
        k = int(re.search(r"k = (\d+)", name).group(1))
        mechanism = KaryRandomizedResponse(k=k, odds=3)
        a, b = mechanism.keep_probability, mechanism.other_probability

        def choose(n, method):
            return choice_interval_method(mechanism=mechanism, n=n, method=method)
    else:
        k, design = 1, DESIGNS[name.strip("`")]()
        a, b = design.p_yes_given_yes, design.p_yes_given_no

        def choose(n, method):
            return interval_method(design=design, n=n, method=method)

    for method, cell in zip(("wilson", "jeffreys", "wald"), method_table()[name], strict=True):
        found = last_replaced(
            functools.partial(choose, method=method), a=a, b=b, method=method, k=k
        )
        assert int(cell) == found, (method, found)
