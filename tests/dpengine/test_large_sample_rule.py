"""The large-sample rule of ``dpengine.guarantee`` (from LARGE_SAMPLE_REPORTS reports of the
rarest kind on, a textbook interval is shown unchecked), derived from an exact sweep: beyond
the rule every method keeps the floor. Exact: coverage enumerated from the binomial. In a file
of its own so that the suite's workers share the sweeps (tests/dpengine/test_guarantee.py
holds the rest).
"""

import math

import numpy as np
import pytest

from dpengine import (
    DESIGNS,
    LARGE_SAMPLE_REPORTS,
    ForcedResponse,
    KaryRandomizedResponse,
    binomial_interval,
    choice_interval_method,
    interval_minimum_coverage,
)
from tests.dpengine.sweeps import LEVELS, TEXTBOOK, rarest


def sweep_designs():
    """The yes/no presets, custom coins down to a rarest report of 5 %, and multiple choice
    with 2 to 20 options: (name, a, b, k). (Rarer reports push the rule's first n, and the
    cost of each enumeration, past 24,000.)"""
    designs = [(kind, DESIGNS[kind]().p_yes_given_yes, DESIGNS[kind]().p_yes_given_no, 1)
               for kind in DESIGNS]  # fmt: skip
    for p_truth, p_forced_yes in ((0.05, 0.5), (0.2, 0.1), (0.5, 0.1), (0.3, 0.9)):
        coins = ForcedResponse(p_truth=p_truth, p_forced_yes=p_forced_yes)
        designs.append((f"coins {p_truth}, {p_forced_yes}", coins.p_yes_given_yes,
                        coins.p_yes_given_no, 1))  # fmt: skip
    for k, epsilon in ((2, 0.1), (3, 2.2), (4, math.log(3)), (8, 0.5), (12, 2.2), (20, 1.0)):
        mechanism = KaryRandomizedResponse(k=k, epsilon=epsilon)
        designs.append((f"k = {k}, eps = {epsilon:.2f}", mechanism.keep_probability,
                        mechanism.other_probability, k))  # fmt: skip
    return designs


def least_coverage(*, a, b, k, n, confidence, method):
    """The exact least coverage of one interval (of k, at the Bonferroni level)."""
    level = 1 - (1 - confidence) / k
    interval = binomial_interval(yes=np.arange(n + 1), n=n, confidence=level, method=method)
    low = np.clip((interval.low - b) / (a - b), 0, 1)
    high = np.clip((interval.high - b) / (a - b), 0, 1)
    return interval_minimum_coverage(low=low, high=high, n=n, a=a, b=b)


def beyond_the_rule(v):
    """Sizes from the rule's first n: the next 12 one by one, then 8 spread up to 4 times it."""
    first = math.ceil(LARGE_SAMPLE_REPORTS / v)
    return sorted({*range(first, first + 12), *np.geomspace(first, 4 * first, 8).astype(int)})


# Every design and level of the sweep at 20 sizes beyond the rule: a few minutes on one core.
@pytest.mark.slow
@pytest.mark.parametrize("confidence", LEVELS)
def test_every_method_keeps_the_floor_where_the_large_sample_rule_skips_the_check(confidence):
    short = []
    for name, a, b, k in sweep_designs():
        for method in TEXTBOOK:
            if k > 1 and method == "wald":
                continue  # never skipped (see dpengine.guarantee)
            per_option_floor = 1 - (1 - (confidence - 0.02)) / k
            for n in beyond_the_rule(rarest(a, b)):
                least = least_coverage(a=a, b=b, k=k, n=n, confidence=confidence, method=method)
                if least < per_option_floor - 1e-12:
                    short.append((name, method, n, least))
    assert short == []


def test_the_rule_is_not_much_lower_than_the_sweeps_last_shortfall():
    # Wilson over 20 options at ln 3 and 80 %, 4980 reports (226 expected of the rarest; found
    # by scanning n in the sweep): short of the
    # per-option floor, so a rule below 226 would skip an interval that falls short.
    mechanism = KaryRandomizedResponse(k=20, odds=3)
    a, b = mechanism.keep_probability, mechanism.other_probability
    least = least_coverage(a=a, b=b, k=20, n=4980, confidence=0.8, method="wilson")
    assert 4980 * rarest(a, b) == pytest.approx(226.4, abs=0.1)
    assert least < 1 - (1 - 0.78) / 20
    assert choice_interval_method(
        mechanism=mechanism, n=4980, confidence=0.8, method="wilson"
    ).replaced
