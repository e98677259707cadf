"""Exact coverage of the prevalence intervals at 95 %, classic and an asymmetric design.

Run: .venv/bin/python bench/coverage_table.py
Prints a Markdown table (method x n -> minimum coverage, mean coverage, mean width) and
writes it into docs/statistics.md between the coverage-table markers. Nothing is simulated: each
number is a sum over the exact binomial distribution of the yes-report count.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dpengine import CLASSIC, METHODS, ForcedResponse, exact_coverage  # noqa: E402

SIZES = (20, 50, 100, 500, 1000)
CONFIDENCE = 0.95
GRID = np.linspace(0.0, 1.0, 1001)
STATISTICS_PAGE = ROOT / "docs" / "statistics.md"
START = "<!-- coverage-table:start"
END = "<!-- coverage-table:end -->"
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


def main() -> None:
    tables = "\n".join(f"#### {title}\n\n{coverage_table(design)}" for title, design in DESIGNS)
    print(tables, end="")
    text = STATISTICS_PAGE.read_text(encoding="utf-8")
    head, rest = text.split(START, 1)
    marker_rest, rest = rest.split("\n", 1)
    _old_tables, tail = rest.split(END, 1)
    STATISTICS_PAGE.write_text(f"{head}{START}{marker_rest}\n{tables}{END}{tail}", encoding="utf-8")


if __name__ == "__main__":
    main()
