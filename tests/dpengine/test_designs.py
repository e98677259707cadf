import dataclasses
import math
from decimal import Decimal
from fractions import Fraction

import pytest

from dpengine import CLASSIC, DEFAULT_PRESET, PRESETS, ForcedResponse


def test_classic_design_reports_yes_with_three_quarters_and_one_quarter():
    assert CLASSIC.exact_p_yes_given_yes == Fraction(3, 4)
    assert CLASSIC.exact_p_yes_given_no == Fraction(1, 4)
    assert CLASSIC.p_yes_given_yes == 0.75
    assert CLASSIC.p_yes_given_no == 0.25
    assert CLASSIC.information == 0.5


def test_classic_design_costs_ln_3_per_answer():
    assert CLASSIC.likelihood_ratio == 3
    assert CLASSIC.epsilon == math.log(3)


def test_default_arguments_give_the_classic_design():
    assert ForcedResponse() == CLASSIC


def test_asymmetric_design_takes_the_larger_of_both_likelihood_ratios():
    # By hand: a = 0.6 + 0.4 * 0.3 = 18/25, b = 0.4 * 0.3 = 3/25;
    # a / b = 6 and (1 - b) / (1 - a) = 22/7, so epsilon = ln 6.
    design = ForcedResponse(p_truth=0.6, p_forced_yes=0.3)
    assert design.exact_p_yes_given_yes == Fraction(18, 25)
    assert design.exact_p_yes_given_no == Fraction(3, 25)
    assert design.likelihood_ratio == 6
    assert design.epsilon == pytest.approx(math.log(6), rel=1e-15)


def test_decimal_probabilities_are_taken_at_their_decimal_value():
    design = ForcedResponse(p_truth=0.1, p_forced_yes=0.5)
    assert design.exact_p_yes_given_no == Fraction(9, 20)


def test_decimals_are_accepted_at_their_exact_value():
    design = ForcedResponse(p_truth=Decimal("0.6"), p_forced_yes=Decimal("0.3"))
    assert design == ForcedResponse(p_truth=0.6, p_forced_yes=0.3)
    assert design.exact_p_yes_given_yes == Fraction(18, 25)


def test_fractions_are_kept_exactly():
    design = ForcedResponse(p_truth=Fraction(1, 3), p_forced_yes=Fraction(1, 2))
    assert design.exact_p_yes_given_yes == Fraction(2, 3)
    assert design.likelihood_ratio == 2


def test_out_of_range_probability_error_repeats_field_and_value():
    with pytest.raises(ValueError, match=r"^p_truth must be in \(0, 1\), got 1\.0$"):
        ForcedResponse(p_truth=1.0)


@pytest.mark.parametrize("field", ["p_truth", "p_forced_yes"])
@pytest.mark.parametrize(
    ("bad", "shown"),
    [
        (0, "0"),
        (1, "1"),
        (0.0, "0.0"),
        (-0.25, "-0.25"),
        (1.5, "1.5"),
        (math.nan, "nan"),
        (math.inf, "inf"),
        ("0.5", "'0.5'"),
        (None, "None"),
        (True, "True"),
    ],
)
def test_probabilities_outside_the_open_unit_interval_are_rejected(field, bad, shown):
    with pytest.raises(ValueError, match=rf"^{field} must be .*\(0, 1\), got {shown}$"):
        ForcedResponse(**{field: bad})


def test_design_is_immutable():
    with pytest.raises(dataclasses.FrozenInstanceError):
        CLASSIC.p_truth = 0.9


def test_for_epsilon_ln_3_recovers_the_classic_design():
    design = ForcedResponse.for_epsilon(math.log(3))
    assert design.p_truth == pytest.approx(0.5, abs=1e-15)
    assert design.epsilon <= math.log(3)


@pytest.mark.parametrize("epsilon", [0.01, 0.5, 1.0, 2.0, 5.0])
@pytest.mark.parametrize("p_forced_yes", [0.5, 0.3, 0.8])
def test_for_epsilon_meets_the_target_without_exceeding_it(epsilon, p_forced_yes):
    design = ForcedResponse.for_epsilon(epsilon, p_forced_yes=p_forced_yes)
    assert design.p_forced_yes == p_forced_yes
    assert design.epsilon <= epsilon
    assert design.epsilon == pytest.approx(epsilon, rel=1e-12)


@pytest.mark.parametrize("bad", [0, -1.0, math.inf, math.nan, "1", None, 1000.0])
def test_for_epsilon_rejects_unusable_epsilon(bad):
    with pytest.raises(ValueError, match="epsilon"):
        ForcedResponse.for_epsilon(bad)


def test_presets_span_stronger_and_weaker_privacy_around_the_classic_design():
    epsilons = {name: preset.design.epsilon for name, preset in PRESETS.items()}
    assert epsilons["strong_privacy"] == pytest.approx(math.log(5 / 3), rel=1e-15)
    assert epsilons["classic"] == math.log(3)
    assert epsilons["high_precision"] == pytest.approx(math.log(7), rel=1e-15)
    assert list(epsilons.values()) == sorted(epsilons.values())
    assert PRESETS[DEFAULT_PRESET].design == CLASSIC


def test_preset_entries_unpack_to_label_and_design():
    label, design = PRESETS["classic"]
    assert "ln 3" in label
    assert design is CLASSIC


def test_presets_cannot_be_modified():
    with pytest.raises(TypeError):
        PRESETS["mine"] = PRESETS["classic"]
