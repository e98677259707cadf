"""The documentation's worked examples and tables of numbers are checked, so they cannot drift.

Every Markdown file under docs/ that holds a ``>>>`` example is run as a doctest (today the
statistics page); the README itself holds none, and a test says so, so an example added there
is not silently left unchecked. The README's table of designs and question types, its coverage
table and the statistics page's coverage table of every yes/no design are parsed and each
number compared with dpengine's, to the precision shown. The README's table of the numeric
statistics' coverage at small samples is checked where it is simulated,
tests/dpengine/test_small_sample_coverage.py (slow).
"""

import doctest
import math
import re
from pathlib import Path

import pytest

from dpengine import DESIGNS, METHODS, BoundedNumeric, KaryRandomizedResponse, exact_coverage
from tests.helpers import agrees, shown, table_under

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
STATISTICS = ROOT / "docs" / "statistics.md"


def doctested_pages():
    return sorted(page for page in (ROOT / "docs").glob("*.md") if ">>> " in page.read_text())


def test_statistics_examples_run_as_shown():
    result = doctest.testfile(str(STATISTICS), module_relative=False, verbose=False)
    assert result.attempted >= 5
    assert result.failed == 0


def test_every_other_page_with_examples_runs_as_shown():
    for page in doctested_pages():
        result = doctest.testfile(str(page), module_relative=False, verbose=False)
        assert result.failed == 0, page.name
    assert STATISTICS in doctested_pages()


def test_the_readme_holds_no_unchecked_example():
    assert ">>> " not in README.read_text(encoding="utf-8")


# --- the tables of numbers in the README and on the statistics page are dpengine's --------------


def tables_under(text, heading, *, until):
    """Every table row between ``heading`` and the next ``until`` heading."""
    start = text.index(heading)
    end = text.index(until, start + len(heading))
    rows = []
    for line in text[start:end].splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("|") and not set("".join(cells)) <= set("-: "):
            rows.append(cells)
    return rows


def test_number_reader_keeps_the_shown_precision():
    assert shown("0.9288 / 0.9372") == [(0.9288, 0.00005), (0.9372, 0.00005)]
    assert shown("1 + σ²/Var(X), σ² = 165.5") == [(1.0, 0.5), (165.5, 0.05)]
    assert agrees("7.11", 1 / (0.625 - 0.25) ** 2)
    assert not agrees("7.12", 1 / (0.625 - 0.25) ** 2)


# Any registered yes/no design's kind in backticks (a new design's row is read with no line here).
DESIGN_KIND = re.compile("`(" + "|".join(map(re.escape, DESIGNS)) + ")`")


def test_the_readmes_table_of_designs_and_types_is_dpengines():
    rows = table_under(README.read_text(encoding="utf-8"), "## Question types and designs")
    checked = set()
    for what, _does, a, b, epsilon, factor, _when in rows:
        kind = DESIGN_KIND.search(what)
        if kind:
            design = DESIGNS[kind.group(1)]()  # the defaults
            assert agrees(a, design.p_yes_given_yes), what
            assert agrees(b, design.p_yes_given_no), what
            assert agrees(epsilon, design.epsilon), what
            assert agrees(factor, design.variance_factor), what
            checked.add(kind.group(1))
        elif "`choice`" in what:
            assert "k = 4, ε = ln 3" in what
            mechanism = KaryRandomizedResponse(k=4, epsilon=math.log(3))
            assert agrees(a, mechanism.keep_probability), what
            assert agrees(b, mechanism.other_probability), what
            assert agrees(epsilon, mechanism.epsilon), what
            eight = KaryRandomizedResponse(k=8, epsilon=math.log(3))
            assert agrees(factor, mechanism.variance_factor)
            assert agrees(_when.partition("k = 8:")[2], eight.variance_factor), _when
            checked.add("choice")
        elif "`numeric`" in what:
            assert "0–10, ε = ln 3" in what
            question = BoundedNumeric(lo=0, hi=10, epsilon=math.log(3))
            assert (a, b) == ("—", "—")
            assert agrees(epsilon, question.epsilon), what
            assert agrees(factor, 1, question.noise_variance), factor
            checked.add("numeric")
    assert checked == {*DESIGNS, "choice", "numeric"}


def test_the_readmes_coverage_table_is_computed_exactly():
    rows = table_under(README.read_text(encoding="utf-8"), "minimum at n = 20 / n = 100")
    assert {DESIGN_KIND.search(row[0]).group(1) for row in rows} == set(DESIGNS)
    for row in rows:
        design = DESIGNS[DESIGN_KIND.search(row[0]).group(1)]()
        for method, cell in zip(("wilson", "exact", "jeffreys", "wald"), row[1:], strict=True):
            minima = [
                exact_coverage(design=design, n=n, method=method).min_coverage for n in (20, 100)
            ]
            assert agrees(cell, *minima), (row[0], method, cell, minima)


# The page's columns, one test each: n = 1000 takes most of the time (~3 s for every design and
# method), so it is slow and the two small columns stay in the inner loop.
COVERAGE_COLUMNS = (20, 100, 1000)


@pytest.mark.parametrize(
    "n", [20, 100, pytest.param(1000, marks=pytest.mark.slow)], ids=lambda n: f"n={n}"
)
def test_the_statistics_pages_coverage_table_of_every_design_is_computed_exactly(n):
    text = STATISTICS.read_text(encoding="utf-8")
    rows = tables_under(text, "### Coverage of every yes/no design", until="\n### ")
    designs = {cls.__name__: cls() for cls in DESIGNS.values()}
    seen = set()
    for name, method, *cells in rows[1:]:
        design = designs[name.strip("`")]
        assert len(cells) == len(COVERAGE_COLUMNS), (name, method, cells)
        cell = cells[COVERAGE_COLUMNS.index(n)]
        profile = exact_coverage(design=design, n=n, method=method)
        assert agrees(cell, profile.min_coverage, profile.mean_coverage), (name, method, n)
        seen.add((name.strip("`"), method))
    assert seen == {(name, method) for name in designs for method in METHODS}
