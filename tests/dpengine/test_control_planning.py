"""The control-group planner (dpengine.control_planning): its power agrees with the test it
plans for, run on simulated split ballots at the planned n."""

import numpy as np
import pytest

import dpengine
from dpengine import ForcedResponse, Warner
from dpengine.errors import DPEngineError

CLASSIC = ForcedResponse(p_truth=0.5, p_forced_yes=0.5)
REPLICATIONS = 3000


def simulated_power(*, design, n, difference, control_share, p, confidence, seed):
    """The share of simulated surveys of ``n`` respondents in which dpengine.compare_direct's
    one-sided p-value is below 1 - confidence: each respondent joins the control group with
    ``control_share`` (as the browser draws it), the direct arm says yes with ``p``, the
    randomized arm's truth is ``p + difference``."""
    rng = np.random.default_rng(seed)
    a, b = design.p_yes_given_yes, design.p_yes_given_no
    rate = b + (a - b) * (p + difference)
    rejected = 0
    for _ in range(REPLICATIONS):
        direct_n = int(rng.binomial(n, control_share))
        randomized_n = n - direct_n
        direct_yes = int(rng.binomial(direct_n, p))
        randomized = dpengine.estimate(
            yes=int(rng.binomial(randomized_n, rate)), n=randomized_n, design=design
        )
        try:
            comparison = dpengine.compare_direct(
                estimate=randomized.estimate,
                std_error=randomized.std_error,
                direct_yes=direct_yes,
                direct_n=direct_n,
                confidence=confidence,
            )
        except DPEngineError:
            continue  # both standard errors zero: no test, not rejected
        rejected += comparison.p_value < 1 - confidence
    return rejected / REPLICATIONS


# About 2 s of CPU each (3,000 simulated surveys through dpengine.compare_direct): slow.
@pytest.mark.slow
@pytest.mark.parametrize(
    ("design", "difference", "control_share", "p", "power", "seed"),
    [
        (CLASSIC, 0.10, 0.3, 0.20, 0.8, 1),
        (Warner(p=0.75), 0.15, 0.5, 0.10, 0.9, 2),
        pytest.param(CLASSIC, 0.25, 0.2, 0.05, 0.8, 3, id="small-n"),
    ],
)
def test_power_at_the_planned_n_agrees_with_a_simulation(
    design, difference, control_share, p, power, seed
):
    n = dpengine.required_sample_size_control_group(
        design=design, difference=difference, control_share=control_share, power=power, p=p
    )
    planned = dpengine.power_control_group(
        design=design, n=n, difference=difference, control_share=control_share, p=p
    )
    assert power <= planned < power + 0.01  # the smallest n that reaches the power
    simulated = simulated_power(
        design=design,
        n=n,
        difference=difference,
        control_share=control_share,
        p=p,
        confidence=0.95,
        seed=seed,
    )
    assert simulated == pytest.approx(planned, abs=0.03)


def test_required_n_is_the_smallest_that_reaches_the_power():
    arguments = {"design": CLASSIC, "difference": 0.1, "control_share": 0.3, "p": 0.2}
    n = dpengine.required_sample_size_control_group(**arguments, power=0.8)
    assert dpengine.power_control_group(**arguments, n=n) >= 0.8
    assert dpengine.power_control_group(**arguments, n=n - 1) < 0.8


def test_worst_case_needs_more_than_any_anticipated_share():
    arguments = {"design": CLASSIC, "difference": 0.1, "control_share": 0.3}
    worst = dpengine.required_sample_size_control_group(**arguments)
    for p in (0.0, 0.2, 0.4, 0.45, 0.9):
        assert dpengine.required_sample_size_control_group(**arguments, p=p) <= worst


def test_worst_case_formula_by_hand():
    # n = (z_0.95 + z_0.8)^2 (v_r / 0.7 + v_d / 0.3) / 0.1^2 with v_r = 0.25 / 0.5^2 = 1 and
    # v_d = 0.25: (1.6448536 + 0.8416212)^2 * (1 / 0.7 + 0.25 / 0.3) / 0.01 = 1397.9...
    n = dpengine.required_sample_size_control_group(
        design=CLASSIC, difference=0.1, control_share=0.3
    )
    z = 1.6448536269514722 + 0.8416212335729143
    assert n == int(np.ceil(z**2 * (1 / 0.7 + 0.25 / 0.3) / 0.01))


@pytest.mark.parametrize(
    ("field", "arguments"),
    [
        ("difference", {"difference": 0.0}),
        ("difference", {"difference": -0.1}),
        ("difference", {"difference": 0.5, "p": 0.6}),
        ("control_share", {"control_share": 0.0}),
        ("control_share", {"control_share": 1.0}),
        ("confidence", {"confidence": 0.4}),
        ("power", {"power": 1.0}),
    ],
)
def test_bad_input_names_the_field(field, arguments):
    values = {"design": CLASSIC, "difference": 0.1, "control_share": 0.3, **arguments}
    with pytest.raises(DPEngineError) as error:
        dpengine.required_sample_size_control_group(**values)
    assert error.value.field == field
