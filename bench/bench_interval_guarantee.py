"""What choosing the interval shown costs (dpengine.guarantee), per question and n.

    .venv/bin/python bench/bench_interval_guarantee.py          # or: make bench

The first decision at a new n enumerates that n's least coverage (O(n)); later ones at the same
design, n, method and level are a cache hit. Printed for the classic design's Wilson interval
at growing n (from 1200 reports nothing is enumerated: the large-sample rule), and for coins
whose rarest report has probability 0.04 at the enumeration limit, each against
dpengine.estimate itself measured in the same run. Targets: the
first decision at n = 5000 (the enumeration limit) under 100 ms; a cached one under 10 times
the estimate's own time.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import dpengine
from dpengine import guarantee

REPEATS = 200


def median_ms(call, repeats=REPEATS):
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def main():
    rare = dpengine.ForcedResponse(p_truth=0.2, p_forced_yes=0.05)  # b = 0.04, epsilon = ln 6
    cases = [("classic", dpengine.CLASSIC, n) for n in (100, 500, 1000, 1199, 1200)]
    cases.append(("b = 0.04", rare, dpengine.CHECK_LIMIT))
    dpengine.minimum_coverage(design=rare, n=10)  # SciPy's import, not timed
    print("design | n | first decision ms | cached ms | estimate ms | cached / estimate | reason")
    for name, design, n in cases:
        yes = n // 3
        guarantee.clear_coverage_cache()
        start = time.perf_counter()
        chosen = dpengine.interval_method(design=design, n=n, method="wilson")
        first = (time.perf_counter() - start) * 1000
        cached = median_ms(lambda d=design, n=n: dpengine.interval_method(design=d, n=n))
        plain = median_ms(lambda d=design, n=n, y=yes: dpengine.estimate(yes=y, n=n, design=d))
        print(
            f"{name} | {n} | {first:.2f} | {cached:.4f} | {plain:.4f} | {cached / plain:.2f} | "
            f"{chosen.reason.value}"
        )


if __name__ == "__main__":
    main()
