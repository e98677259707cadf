"""Every dpengine refusal carries a reason code and the offending field (issue 16)."""

import numpy as np
import pytest

from dpengine import (
    CLASSIC,
    DPEngineError,
    FitError,
    ForcedResponse,
    Reason,
    binomial_interval,
    compare,
    estimate,
    exact_coverage,
    fit_logistic,
    geometric_mechanism,
    margin_for_sample_size,
    randomize,
    required_sample_size,
    required_sample_size_difference,
    sequential_composition,
    survey_epsilon,
)


@pytest.mark.parametrize(
    ("call", "reason", "field"),
    [
        (lambda: ForcedResponse(p_truth=1.0), Reason.OUT_OF_RANGE, "p_truth"),
        (lambda: ForcedResponse(p_forced_yes="x"), Reason.INVALID_TYPE, "p_forced_yes"),
        (lambda: ForcedResponse.for_epsilon(-1), Reason.OUT_OF_RANGE, "epsilon"),
        (lambda: estimate(yes=5, n=3, design=CLASSIC), Reason.OUT_OF_RANGE, "yes"),
        (lambda: estimate(yes=1.5, n=3, design=CLASSIC), Reason.INVALID_TYPE, "yes"),
        (
            lambda: estimate(yes=1, n=3, design=CLASSIC, method="agresti"),
            Reason.INVALID_CHOICE,
            "method",
        ),
        (
            lambda: estimate(yes=1, n=3, design=CLASSIC, confidence=1),
            Reason.OUT_OF_RANGE,
            "confidence",
        ),
        (lambda: binomial_interval(yes=[1.0], n=3), Reason.INVALID_TYPE, "yes"),
        (lambda: required_sample_size(design=CLASSIC, margin=0), Reason.OUT_OF_RANGE, "margin"),
        (lambda: margin_for_sample_size(design=CLASSIC, n=0), Reason.OUT_OF_RANGE, "n"),
        (
            lambda: required_sample_size_difference(design=CLASSIC, difference=0),
            Reason.OUT_OF_RANGE,
            "difference",
        ),
        (lambda: exact_coverage(design=CLASSIC, n=0), Reason.OUT_OF_RANGE, "n"),
        (
            lambda: randomize([1, 0], CLASSIC, np.random.default_rng(1)),
            Reason.INVALID_TYPE,
            "truth",
        ),
        (lambda: survey_epsilon(CLASSIC, questions=0), Reason.OUT_OF_RANGE, "questions"),
        (lambda: sequential_composition([1, -1]), Reason.OUT_OF_RANGE, "each epsilon"),
        (lambda: geometric_mechanism(3, epsilon=0), Reason.OUT_OF_RANGE, "epsilon"),
        (lambda: geometric_mechanism(3.5, epsilon=1), Reason.INVALID_TYPE, "value"),
        (
            lambda: fit_logistic(np.ones(4), [1, 0, 1, 0], design=CLASSIC),
            Reason.SHAPE_MISMATCH,
            "X",
        ),
        (
            lambda: fit_logistic(np.zeros((4, 1)), [1, 0, 2, 0], design=CLASSIC),
            Reason.INVALID_TYPE,
            "reports",
        ),
    ],
)
def test_refusals_carry_a_reason_and_the_field(call, reason, field):
    with pytest.raises(DPEngineError) as refused:
        call()
    assert refused.value.reason is reason
    assert refused.value.field == field


def test_typed_errors_are_value_errors_so_old_callers_keep_working():
    assert issubclass(DPEngineError, ValueError)
    assert issubclass(FitError, DPEngineError)
    with pytest.raises(ValueError, match="p_truth must be in"):
        ForcedResponse(p_truth=0)


def test_separation_is_told_apart_from_singularity_by_reason():
    # Covariate 1 rows all report yes and covariate 0 rows all report no: separated.
    X = np.repeat([[0.0], [1.0]], 50, axis=0)
    reports = np.repeat([0, 1], 50)
    with pytest.raises(FitError) as refused:
        fit_logistic(X, reports, design=CLASSIC)
    assert refused.value.reason is Reason.SEPARATION


def test_comparison_refusals_name_the_group():
    full = estimate(yes=3, n=10, design=CLASSIC)
    empty = estimate(yes=0, n=0, design=CLASSIC)
    with pytest.raises(DPEngineError) as refused:
        compare(group=empty, rest=full)
    assert (refused.value.reason, refused.value.field) == (Reason.NO_DATA, "group")
