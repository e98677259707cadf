"""Every interval the product shows stays bounded in time and memory at any number of reports
(issue 34): each analysis is called from its tallies at 10^6 reports per group, as the
selectors call it. A guard against costs that grow with n (a table of (n_1 + 1) x (n_2 + 1)
counts took 33 GiB at 200,000 responses), not a benchmark: the bounds are loose."""

import math
import time
import tracemalloc

import numpy as np
import pytest

import dpengine
from dpengine import (
    CLASSIC,
    BoundedNumeric,
    CheatingDetection,
    ForcedResponse,
    KaryRandomizedResponse,
    StochasticLieDetector,
)

# Reports per group: a million, and the most the coverage checks enumerate.
SIZES = (10**6, dpengine.CHECK_LIMIT)
MEMORY_BYTES = 50 * 2**20  # peak Python allocations of one analysis
CPU_SECONDS = 5.0  # process time of one analysis (first call, nothing cached)


def estimates_at_scale(N):
    """``(name, call)`` for every analysis the pages and API compute, at N reports a group."""
    design = CLASSIC
    weak = ForcedResponse(p_truth=0.25)

    def yes_no(method):
        return lambda: dpengine.estimate_with_coverage(
            yes=N // 2 + 123, n=N, design=design, method=method
        )

    def choice(method):
        mechanism = KaryRandomizedResponse(k=3, epsilon=math.log(3))
        return lambda: dpengine.estimate_choice_with_coverage(
            counts=[N // 2, N // 3, N - N // 2 - N // 3], mechanism=mechanism, method=method
        )

    first = dpengine.estimate(yes=N // 2 + N // 100, n=N, design=design)
    second = dpengine.estimate(yes=N // 2 - N // 100, n=N, design=weak)
    question = BoundedNumeric(lo=0, hi=100, epsilon=2.0)
    values = np.arange(-200, 301)
    counts = np.full(values.size, N // values.size)
    cells = np.repeat(np.eye(3)[:, 1:], 2, axis=0)  # 3 groups x {no, yes}
    reports = np.tile([0, 1], 3)
    cell_counts = [N // 2, N // 2, N // 3, N - N // 3, N - N // 3, N // 3]
    calls = [
        *((f"yes/no {m}", yes_no(m)) for m in dpengine.METHODS),
        *((f"choice {m}", choice(m)) for m in dpengine.METHODS),
        ("difference", lambda: dpengine.difference_interval(first=first, second=second)),
        ("compare", lambda: dpengine.compare(group=first, rest=second)),
        (
            "control group",
            lambda: dpengine.compare_direct(
                estimate=first.estimate,
                std_error=first.std_error,
                direct_yes=N // 3,
                direct_n=N,
                randomized=first,
            ),
        ),
        ("log odds", lambda: dpengine.log_odds_interval(group=first)),
        ("log odds ratio", lambda: dpengine.log_odds_ratio_interval(first=first, second=second)),
        (
            "regression",
            lambda: dpengine.fit_logistic(cells, reports, counts=cell_counts, design=design),
        ),
        ("direct shares", lambda: dpengine.direct_shares(counts=[N // 3, N - N // 3])),
        (
            "numeric mean",
            lambda: dpengine.estimate_mean_from_sums(
                n=N, total=40 * N, total_squares=2500 * N, question=question
            ),
        ),
        (
            "numeric share above",
            lambda: dpengine.estimate_share_above_from_histogram(
                values=values, counts=counts, question=question, threshold=50
            ),
        ),
        (
            "manipulation check",
            lambda: dpengine.manipulation_check_from_histogram(
                values=values, counts=counts, question=question
            ),
        ),
    ]
    # The planner's lines of issue 33 (control group, CDM/SLD pi) at N respondents.
    calls += [
        (
            "control-group power",
            lambda: dpengine.power_control_group(
                design=design, n=N, difference=0.001, control_share=0.3, p=0.2
            ),
        ),
        (
            "control-group sample size",
            lambda: dpengine.required_sample_size_control_group(
                design=design, difference=1 / N, control_share=0.3
            ),
        ),
        (
            "cheating pi margin",
            lambda: dpengine.cheating_pi_margin(design=CheatingDetection(), n=N),
        ),
        (
            "cheating pi sample size",
            lambda: dpengine.required_sample_size_cheating(
                design=StochasticLieDetector(p=(0.2, 0.8)), margin=1 / N, pi=0.3, t=0.8
            ),
        ),
    ]
    # Per group (the breakdown's pi per group): one group of N, the other of 10.
    calls.append(
        (
            "CheatingDetection one small group",
            lambda: dpengine.estimate_cheating(
                design=CheatingDetection(), n1=N, yes1=N // 2, n2=10, yes2=7
            ),
        )
    )
    for cheating in (CheatingDetection(), StochasticLieDetector(p=(0.2, 0.8))):
        calls.append(
            (
                f"{type(cheating).__name__}",
                lambda cheating=cheating: dpengine.estimate_cheating(
                    design=cheating, n1=N, yes1=N // 2, n2=N, yes2=N // 3
                ),
            )
        )
    return calls


@pytest.fixture(scope="module", autouse=True)
def scipy_imported():
    """SciPy's modules imported before anything is measured: importing them is no analysis."""
    from scipy import optimize, special, stats  # noqa: F401


@pytest.mark.parametrize(
    "name, call",
    [(f"{name} n={n}", call) for n in SIZES for name, call in estimates_at_scale(n)],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_every_analysis_at_a_million_reports_per_group_is_bounded(name, call):
    dpengine.guarantee.clear_coverage_cache()
    tracemalloc.start()
    started = time.process_time()
    try:
        call()
        seconds = time.process_time() - started
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < MEMORY_BYTES, f"{name}: {peak / 2**20:.0f} MiB"
    assert seconds < CPU_SECONDS, f"{name}: {seconds:.1f} s"
