"""The README's worked example is executed, so the numbers it shows cannot drift."""

import doctest
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_dpengine_example_runs_as_shown():
    result = doctest.testfile(str(README), module_relative=False, verbose=False)
    assert result.attempted >= 5
    assert result.failed == 0
