import math

import pytest

from dpengine import (
    CLASSIC,
    ForcedResponse,
    margin_for_epsilon,
    margin_for_sample_size,
    power_difference,
    required_sample_size,
    required_sample_size_difference,
)

Z95 = 1.959963984540054  # scipy.stats.norm.ppf(0.975)
Z80 = 0.8416212335729143  # scipy.stats.norm.ppf(0.8)


def test_margin_is_the_inverse_of_the_required_sample_size():
    n = required_sample_size(design=CLASSIC, margin=0.05)
    assert margin_for_sample_size(design=CLASSIC, n=n) <= 0.05
    assert margin_for_sample_size(design=CLASSIC, n=n - 1) > 0.05


def test_margin_with_classic_design_is_twice_the_direct_margin():
    # z sqrt(1/4 / 400) / (1/2) = 1.96 * 0.025 * 2.
    assert margin_for_sample_size(design=CLASSIC, n=400) == pytest.approx(Z95 * 0.05, rel=1e-14)


def test_margin_shrinks_as_privacy_loss_grows():
    epsilons = [0.25, 0.5, 1.0, math.log(3), 2.0, 4.0]
    margins = [margin_for_epsilon(epsilon=e, n=1000) for e in epsilons]
    assert margins == sorted(margins, reverse=True)
    assert margins[3] == pytest.approx(margin_for_sample_size(design=CLASSIC, n=1000), rel=1e-12)


def test_two_group_sample_size_follows_the_unpooled_formula():
    # Worst case: (z_.975 + z_.8)^2 * (1/4 + 1/4) / (0.5^2 * 0.1^2) = 1569.8 -> 1570,
    # four times the 393 a direct (non-randomized) survey would need.
    expected = math.ceil((Z95 + Z80) ** 2 * 0.5 / (0.25 * 0.01))
    assert expected == 1570
    assert required_sample_size_difference(design=CLASSIC, difference=0.1) == 1570


def test_two_group_sample_size_uses_the_anticipated_prevalences():
    # p = 0.3 and 0.4 give yes-rates 0.4 and 0.45: variances 0.24 + 0.2475.
    expected = math.ceil((Z95 + Z80) ** 2 * (0.24 + 0.2475) / (0.25 * 0.01))
    assert required_sample_size_difference(design=CLASSIC, difference=0.1, p=0.3) == expected


def test_negative_differences_need_the_same_sample_size_as_positive_ones():
    up = required_sample_size_difference(design=CLASSIC, difference=0.1, p=0.3)
    down = required_sample_size_difference(design=CLASSIC, difference=-0.1, p=0.4)
    assert up == down


def test_power_rises_with_n_and_reaches_the_planned_power():
    design = ForcedResponse(p_truth=0.25)
    n = required_sample_size_difference(design=design, difference=0.2, power=0.9)
    assert power_difference(design=design, n=n, difference=0.2) >= 0.9
    assert power_difference(design=design, n=n - 5, difference=0.2) < 0.9
    assert power_difference(design=design, n=10, difference=0.2) < 0.2


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"difference": 0}, r"^difference must be non-zero and in \(-1, 1\), got 0$"),
        ({"difference": 1.5}, r"^difference must be non-zero and in \(-1, 1\), got 1\.5$"),
        ({"difference": 0.2, "p": 0.9}, r"^p \+ difference must be in \[0, 1\]"),
        ({"difference": 0.2, "power": 1}, r"^power must be in \(0, 1\), got 1$"),
    ],
)
def test_two_group_planning_rejects_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        required_sample_size_difference(design=CLASSIC, **kwargs)


def test_margin_needs_at_least_one_report():
    with pytest.raises(ValueError, match="n must be at least 1"):
        margin_for_sample_size(design=CLASSIC, n=0)
