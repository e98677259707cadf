"""The tally vector (dpengine/tallies.py): what one report adds, and how vectors add."""

import itertools

import pytest

from dpengine import report_tally, tally_sum
from dpengine.tallies import CHOICE, NUMERIC, YES_NO


def test_one_report_of_each_kind():
    assert report_tally(YES_NO, True) == [1, 1]
    assert report_tally(YES_NO, False) == [1, 0]
    assert report_tally(CHOICE, 0) == [1, 1]
    assert report_tally(CHOICE, 2) == [1, 0, 0, 1]
    assert report_tally(NUMERIC, -7) == [1, -7, 49]


@pytest.mark.parametrize("kind, report", [(CHOICE, -1), (CHOICE, True), ("ranking", 1)])
def test_a_report_of_no_kind_is_refused(kind, report):
    with pytest.raises(ValueError, match=repr(report) if kind == CHOICE else "kind"):
        report_tally(kind, report)


def test_vectors_add_to_the_counts_in_any_order_and_split():
    # Every sequence of three choice reports over four options: the summed vector is the
    # number of reports then each option's count, however the reports are grouped.
    for reports in itertools.product(range(4), repeat=3):
        counts = [len(reports)] + [reports.count(option) for option in range(4)]
        one_by_one = []
        for report in reports:
            one_by_one = tally_sum(one_by_one, report_tally(CHOICE, report))
        split = tally_sum(
            report_tally(CHOICE, reports[0]),
            tally_sum(report_tally(CHOICE, reports[1]), report_tally(CHOICE, reports[2])),
        )
        width = max(reports) + 2
        assert one_by_one == split == counts[:width]


def test_numeric_vectors_hold_the_sums_for_the_mean_and_variance():
    reports = [3, -2, 10, 0]
    total = []
    for report in reports:
        total = tally_sum(total, report_tally(NUMERIC, report))
    assert total == [4, sum(reports), sum(r * r for r in reports)]
