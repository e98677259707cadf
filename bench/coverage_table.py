"""Exact coverage of the prevalence intervals at 95 %: classic, asymmetric, every design.

Run: .venv/bin/python bench/coverage_table.py
Prints Markdown tables and writes them into docs/statistics.md between their markers: for the
classic and an asymmetric forced-response design, method x n -> minimum coverage, mean coverage,
mean width (coverage-table); for every yes/no design at its defaults, design x method x n ->
minimum / mean coverage (design-coverage). Nothing is simulated: each number is a sum over the
exact binomial distribution of the yes-report count. tests/test_readme.py checks the second
table, and the README's excerpt of it, against dpengine.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dpengine import CLASSIC, METHODS, ForcedResponse, exact_coverage  # noqa: E402
from dpengine import DESIGNS as YES_NO_DESIGNS  # noqa: E402

SIZES = (20, 50, 100, 500, 1000)
CONFIDENCE = 0.95
GRID = np.linspace(0.0, 1.0, 1001)
STATISTICS_PAGE = ROOT / "docs" / "statistics.md"
START = "<!-- coverage-table:start"
END = "<!-- coverage-table:end -->"
DESIGN_START = "<!-- design-coverage:start"
DESIGN_END = "<!-- design-coverage:end -->"
DESIGN_SIZES = (20, 100, 1000)
DESIGNS = (
    ("Classic design (`p_truth = 1/2`, `p_forced_yes = 1/2`, ε = ln 3)", CLASSIC),
    (
        "Asymmetric design (`p_truth = 0.6`, `p_forced_yes = 0.3`: a = 0.72, b = 0.12, ε = ln 6)",
        ForcedResponse(p_truth=0.6, p_forced_yes=0.3),
    ),
)


def coverage_table(design) -> str:
    lines = [
        "| method | n | min coverage | mean coverage | mean width | width / Wald |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    wald = {
        n: exact_coverage(design=design, n=n, confidence=CONFIDENCE, method="wald", p=GRID)
        for n in SIZES
    }
    for method in METHODS:
        for n in SIZES:
            profile = exact_coverage(
                design=design, n=n, confidence=CONFIDENCE, method=method, p=GRID
            )
            ratio = profile.mean_width / wald[n].mean_width
            lines.append(
                f"| {method} | {n} | {profile.min_coverage:.4f} | "
                f"{profile.mean_coverage:.4f} | {profile.mean_width:.4f} | {ratio:.3f} |"
            )
    return "\n".join(lines) + "\n"


def design_coverage_table() -> str:
    """Minimum / mean coverage of every yes/no design at its defaults."""
    sizes = " | ".join(f"n = {n}" for n in DESIGN_SIZES)
    lines = [f"| design | method | {sizes} |", "| --- | --- |" + " ---: |" * len(DESIGN_SIZES)]
    for cls in YES_NO_DESIGNS.values():
        for method in ("wilson", "exact", "jeffreys", "wald"):
            cells = []
            for n in DESIGN_SIZES:
                profile = exact_coverage(
                    design=cls(), n=n, confidence=CONFIDENCE, method=method, p=GRID
                )
                cells.append(f"{profile.min_coverage:.4f} / {profile.mean_coverage:.4f}")
            lines.append(f"| `{cls.__name__}` | {method} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def replace_between(text: str, start: str, end: str, block: str) -> str:
    head, rest = text.split(start, 1)
    marker_rest, rest = rest.split("\n", 1)
    _old, tail = rest.split(end, 1)
    return f"{head}{start}{marker_rest}\n{block}{end}{tail}"


def main() -> None:
    tables = "\n".join(f"#### {title}\n\n{coverage_table(design)}" for title, design in DESIGNS)
    every_design = design_coverage_table()
    print(tables, every_design, sep="\n", end="")
    text = STATISTICS_PAGE.read_text(encoding="utf-8")
    text = replace_between(text, START, END, tables)
    text = replace_between(text, DESIGN_START, DESIGN_END, every_design)
    STATISTICS_PAGE.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
