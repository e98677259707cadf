"""The browser's memo for numeric questions of 0-1000: its size and the time of a first attempt,
against the table of every possible report it replaced (issue 28).

    .venv/bin/python bench/bench_memo.py          # or: make bench

Runs the respondent page's own modules under node (no browser, no server). The baseline is
the previous memo (v2), rebuilt with the same samplers: a table of one report per whole number
of each question's range (`randomizer.draw` for every index, fresh random words), kept as JSON
under ``tables``. The measured memo is today's: one secret per question, and the reports of
the answers given derived from it (static/js/coins.js ``memoReports``). Ratio = baseline /
measured (higher is better). ``BENCH_MEMO_QUESTIONS`` questions (default 5; issue 28 measured
677k characters for 100, the baseline's size is linear in it).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SCRIPT = """
const { memoReports, newSubmissionId } = await import(process.argv[1] + "/static/js/coins.js");
const { numericRandomizer } = await import(process.argv[1] + "/static/js/designs.js");
const questions = Number(process.argv[2]);
const randomizers = Object.fromEntries(
  Array.from({ length: questions }, (_, i) => [String(1000 + i),
    numericRandomizer({ min: 0, max: 1000, epsilon: 1 })]),
);
const truths = Object.fromEntries(Object.keys(randomizers).map((id, i) => [id, (i * 389) % 1001]));
// Warm the samplers and the HMAC up, so neither column pays the JIT.
memoReports({ randomizers, truths, memo: null, randomSource: crypto });

let start = performance.now();
const tables = Object.fromEntries(Object.entries(randomizers).map(([id, randomizer]) => [
  id, Array.from({ length: randomizer.size }, (_, index) => randomizer.draw(index, crypto)),
]));
const baseline = {
  ms: performance.now() - start,
  chars: JSON.stringify({ submissionId: newSubmissionId(crypto), sent: false, pairs: {}, tables })
    .length,
};
start = performance.now();
const { memo } = memoReports({ randomizers, truths, memo: null, randomSource: crypto });
const measured = {
  ms: performance.now() - start,
  chars: JSON.stringify(memo).length,
  fixed: JSON.stringify({ ...memo, secrets: {} }).length,
};
console.log(JSON.stringify({ baseline, measured }));
"""


def main():
    node = shutil.which("node")
    if node is None:
        raise SystemExit("node is not installed: the memo is the browser's")
    questions = int(os.environ.get("BENCH_MEMO_QUESTIONS", "5"))
    output = subprocess.run(
        [node, "--input-type=module", "-e", SCRIPT, str(ROOT), str(questions)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    result = json.loads(output)
    base, new = result["baseline"], result["measured"]
    print(f"{questions} numeric questions of 0-1000, first attempt, every question answered")
    print(f"{'':32} {'measured':>12} {'baseline':>12} {'ratio':>8}")
    print(
        f"{'memo size (characters)':32} {new['chars']:>12,} {base['chars']:>12,} "
        f"{base['chars'] / new['chars']:>8.1f}"
    )
    print(
        f"{'drawing the reports (ms)':32} {new['ms']:>12.1f} {base['ms']:>12.1f} "
        f"{base['ms'] / new['ms']:>8.1f}"
    )
    per_question = (new["chars"] - new["fixed"]) / questions
    print(f"characters per question: {per_question:.0f} (whatever the range), plus {new['fixed']}")


if __name__ == "__main__":
    sys.exit(main())
