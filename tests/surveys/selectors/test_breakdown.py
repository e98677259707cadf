"""The breakdown selector: per-group estimates from the tallies, comparisons, suppression."""

import numpy as np
import pytest

import dpengine
from surveys import selectors
from surveys.selectors import CellStatus, ComparisonStatus

pytestmark = pytest.mark.django_db


def breakdown_of(survey, **kwargs):
    return selectors.survey_breakdown(
        survey=survey, grouping_question=survey.grouping_questions.get(), **kwargs
    )


def store(simulate, survey, options, groups):
    """``groups``: [(option index, [(bit q1, bit q2), ...])] stored as simulated submissions."""
    reports, rows = [], []
    for index, bits in groups:
        reports += bits
        rows += [[options[index]]] * len(bits)
    return simulate(survey, reports, rows)


def test_each_group_is_estimated_from_its_own_reports_and_compared_with_the_rest(
    grouped_survey, options, simulate
):
    survey = store(
        simulate,
        grouped_survey,
        options,
        [
            (0, [(True, False)] * 7 + [(False, False)] * 3),  # Sales: 7 of 10 yes on Q1
            (1, [(True, True)] * 2 + [(False, True)] * 6),  # Research: 2 of 8 yes on Q1
            (2, [(False, False)] * 6),  # Support: 0 of 6 yes on Q1
        ],
    )
    result = breakdown_of(survey, confidence=0.9, method="wald")
    design = dpengine.CLASSIC
    first = result.rows[0]
    sales, research, support = first.cells
    assert [c.label for c in first.cells] == ["Sales", "Research", "Support"]
    # So few reports that Wald cannot keep 90 % (dpengine.guarantee): the exact interval.
    assert sales.estimate == dpengine.estimate_with_coverage(
        yes=7, n=10, design=design, confidence=0.9, method="wald"
    )
    assert (sales.estimate.method, sales.estimate.requested_method) == ("exact", "wald")
    assert sales.estimate.ci == dpengine.prevalence_interval(
        yes=7, n=10, design=design, confidence=0.9, method="exact"
    )
    assert sales.rest == dpengine.estimate_with_coverage(
        yes=2, n=14, design=design, confidence=0.9, method="wald"
    )
    assert sales.comparison == dpengine.compare(
        group=sales.estimate, rest=sales.rest, confidence=0.9
    )
    # What the page shows: the exact product interval, not Wald's.
    assert sales.difference == dpengine.difference_interval(
        first=sales.estimate, second=sales.rest, confidence=0.9
    )
    assert sales.difference.method == "exact-product"
    assert research.estimate.n == 8 and support.estimate.n == 6
    assert first.overall == dpengine.estimate_with_coverage(
        yes=9, n=24, design=design, confidence=0.9, method="wald"
    )
    assert [o.respondents for o in result.options] == [10, 8, 6]
    assert result.respondents == 24


def test_groups_below_the_minimum_n_are_withheld_and_not_compared(
    grouped_survey, options, simulate
):
    grouped_survey.min_n = 7
    grouped_survey.save()
    survey = store(
        simulate,
        grouped_survey,
        options,
        [(0, [(True, False)] * 8 + [(False, True)] * 8), (1, [(True, True)] * 3)],
    )
    sales, research, support = breakdown_of(survey).rows[0].cells
    assert sales.status == CellStatus.SHOWN
    assert research.status == CellStatus.TOO_FEW and research.suppressed
    assert research.comparison is None
    assert research.comparison_status == ComparisonStatus.GROUP_WITHHELD
    assert support.status == CellStatus.NO_DATA and support.estimate.n == 0


def test_a_group_is_not_compared_with_a_rest_below_the_minimum(grouped_survey, options, simulate):
    survey = store(
        simulate,
        grouped_survey,
        options,
        [(0, [(True, False)] * 20), (1, [(False, False)] * 4)],
    )
    sales = breakdown_of(survey).rows[0].cells[0]
    assert sales.status == CellStatus.SHOWN
    assert sales.comparison_status == ComparisonStatus.REST_TOO_FEW
    assert sales.rest.n == 4


def test_identical_reports_on_both_sides_still_show_the_exact_difference(
    grouped_survey, options, simulate
):
    survey = store(
        simulate, grouped_survey, options, [(0, [(True, True)] * 6), (1, [(True, True)] * 6)]
    )
    sales = breakdown_of(survey).rows[0].cells[0]
    # Wald's standard error is 0 on both sides: its test is undefined, the exact one is not.
    assert sales.comparison is None
    assert sales.comparison_status == ComparisonStatus.SHOWN
    shown = sales.difference
    assert shown == dpengine.difference_interval(first=sales.estimate, second=sales.rest)
    # Both all-yes: both shares shown as 100 %, difference 0, inside a non-degenerate interval.
    assert shown.low < shown.estimate == 0.0 <= shown.high
    assert shown.p_value == 1.0


@pytest.mark.slow
def test_a_breakdown_costs_the_same_queries_at_any_number_of_responses(
    grouped_survey, options, simulate, django_assert_num_queries
):
    rng = np.random.default_rng(3)
    survey = simulate(grouped_survey, rng.random((30, 2)) < 0.5, [[options[0]]] * 30)
    gq = survey.grouping_questions.get()
    # options, tallies, respondents per option, questions, and the response count (its tally
    # shards: who is in no group)
    with django_assert_num_queries(5):
        selectors.survey_breakdown(survey=survey, grouping_question=gq)
    simulate(survey, rng.random((3000, 2)) < 0.5, [[options[i % 3]] for i in range(3000)])
    with django_assert_num_queries(5):
        selectors.survey_breakdown(survey=survey, grouping_question=gq)
