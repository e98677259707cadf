"""The share above a threshold and the manipulation check from a histogram of the reports
(what the server keeps per numeric question) equal the same from the reports themselves."""

import numpy as np
import pytest

from dpengine import (
    BoundedNumeric,
    DPEngineError,
    estimate_share_above,
    estimate_share_above_from_histogram,
    histogram_share_above_counts,
    manipulation_check,
    manipulation_check_from_histogram,
    report_bounds,
    simulate_numeric_reports,
)

QUESTIONS = [
    BoundedNumeric(lo=0, hi=10, epsilon=1.0),
    BoundedNumeric(lo=-5, hi=30, epsilon=0.5),
    BoundedNumeric(lo=0, hi=1, epsilon=3.0),
]


def _histogram(reports, rng):
    """The reports' distinct values with their counts, in a shuffled order (a read from the
    database has none), with a zero-count value thrown in."""
    values, counts = np.unique(reports, return_counts=True)
    values, counts = np.append(values, values.max() + 7), np.append(counts, 0)
    order = rng.permutation(values.size)
    return values[order], counts[order]


def _assert_same(left, right):
    for field in ("n", "estimate", "clamped", "std_error", "ci_low", "ci_high"):
        a, b = getattr(left, field), getattr(right, field)
        assert (a is None) == (b is None), field
        if a is not None:
            assert a == pytest.approx(b, abs=1e-12, rel=0), field
    assert left.informative == right.informative


@pytest.mark.parametrize("question", QUESTIONS)
@pytest.mark.parametrize("n", [10, 11, 30, 100, 2000])
def test_share_above_from_the_histogram_is_the_share_above_from_the_reports(question, n):
    rng = np.random.default_rng(n * 7919 + question.hi)
    truths = rng.integers(question.lo, question.hi + 1, size=n)
    reports = simulate_numeric_reports(truths, question, rng)
    values, counts = _histogram(reports, rng)
    for threshold in range(question.lo, question.hi):
        for confidence in (0.9, 0.95):
            _assert_same(
                estimate_share_above_from_histogram(
                    values=values,
                    counts=counts,
                    question=question,
                    threshold=threshold,
                    confidence=confidence,
                ),
                estimate_share_above(
                    reports=reports, question=question, threshold=threshold, confidence=confidence
                ),
            )


@pytest.mark.parametrize("question", QUESTIONS)
@pytest.mark.parametrize("n", [10, 55, 100, 5000])
def test_manipulation_check_from_the_histogram_is_the_check_from_the_reports(question, n):
    rng = np.random.default_rng(n + 31 * question.hi)
    reports = simulate_numeric_reports(
        rng.integers(question.lo, question.hi + 1, size=n), question, rng
    )
    # A few reports pushed to the edge of what the server accepts, so some lie beyond.
    reports[: n // 10] = report_bounds(question).high
    values, counts = _histogram(reports, rng)
    for scales in (2, 10):
        from_histogram = manipulation_check_from_histogram(
            values=values, counts=counts, question=question, scales=scales
        )
        from_reports = manipulation_check(reports=reports, question=question, scales=scales)
        assert from_histogram.beyond == from_reports.beyond >= n // 10
        assert from_histogram.n == from_reports.n == n
        assert from_histogram.p_value == pytest.approx(from_reports.p_value, abs=1e-12, rel=0)
        assert from_histogram == from_reports


def test_an_empty_histogram_is_no_reports():
    question = QUESTIONS[0]
    empty = estimate_share_above_from_histogram(
        values=[], counts=[], question=question, threshold=3
    )
    assert empty == estimate_share_above(reports=[], question=question, threshold=3)
    assert empty.n == 0 and empty.estimate is None
    assert manipulation_check_from_histogram(
        values=[], counts=[], question=question
    ) == manipulation_check(reports=[], question=question)


def test_the_four_counts_of_a_histogram():
    # Reports 2, 3, 3, 4, 4, 4, 9 around t = 3: below t one (2), at t two, at t + 1 three,
    # above t + 1 one (9).
    counts = histogram_share_above_counts(values=[9, 4, 2, 3], counts=[1, 3, 1, 2], threshold=3)
    assert counts.tolist() == [1, 2, 3, 1]


@pytest.mark.parametrize(
    ("values", "counts"),
    [([1, 2], [1]), ([1.5], [1]), ([1], [-1]), ([[1]], [[1]]), ([1], [0.5]), ([True], [1])],
)
def test_a_malformed_histogram_is_refused_naming_the_counts(values, counts):
    with pytest.raises(DPEngineError) as raised:
        estimate_share_above_from_histogram(
            values=values, counts=counts, question=QUESTIONS[0], threshold=3
        )
    assert raised.value.field == "counts"
    with pytest.raises(DPEngineError):
        manipulation_check_from_histogram(values=values, counts=counts, question=QUESTIONS[0])
