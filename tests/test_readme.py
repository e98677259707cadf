"""The documentation's worked examples are executed, so the numbers they show cannot drift.

Every Markdown file under docs/ that holds a ``>>>`` example is run as a doctest (today the
statistics page); the README itself holds none, and a test says so, so an example added there
is not silently left unchecked.
"""

import doctest
from pathlib import Path

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
