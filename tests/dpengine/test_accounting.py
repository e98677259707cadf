import math

import pytest

from dpengine import (
    CLASSIC,
    PRESETS,
    group_privacy_epsilon,
    per_answer_epsilon,
    privacy_report,
    sequential_composition,
    survey_epsilon,
)


def test_per_answer_epsilon_is_the_design_epsilon():
    assert per_answer_epsilon(CLASSIC) == math.log(3)


def test_answering_k_questions_costs_k_times_epsilon():
    assert survey_epsilon(CLASSIC, questions=1) == math.log(3)
    assert survey_epsilon(CLASSIC, questions=4) == pytest.approx(4 * math.log(3), rel=1e-15)


def test_sequential_composition_adds_the_losses_of_mixed_designs():
    epsilons = [preset.design.epsilon for preset in PRESETS.values()]
    # ln(5/3) + ln 3 + ln 7 = ln 35
    assert sequential_composition(epsilons) == pytest.approx(math.log(35), rel=1e-15)
    assert sequential_composition([]) == 0.0


def test_group_of_g_people_is_protected_at_g_times_epsilon():
    assert group_privacy_epsilon(math.log(3), group_size=3) == pytest.approx(math.log(27))
    assert group_privacy_epsilon(0.5, group_size=1) == 0.5


@pytest.mark.parametrize("bad", [0, -1, 2.5, True, "2"])
def test_question_and_group_counts_must_be_positive_integers(bad):
    with pytest.raises(ValueError, match=r"^questions must be a positive integer, got "):
        survey_epsilon(CLASSIC, questions=bad)
    with pytest.raises(ValueError, match=r"^group_size must be a positive integer, got "):
        group_privacy_epsilon(1.0, group_size=bad)


@pytest.mark.parametrize("bad", [-0.1, math.inf, math.nan, "1"])
def test_epsilons_must_be_non_negative_and_finite(bad):
    with pytest.raises(ValueError, match="epsilon must be a non-negative finite number"):
        group_privacy_epsilon(bad, group_size=2)
    with pytest.raises(ValueError, match="each epsilon must be a non-negative finite number"):
        sequential_composition([1.0, bad])


def test_privacy_report_states_the_odds_in_plain_language():
    report = privacy_report(CLASSIC, questions=2)
    assert report.per_answer_epsilon == math.log(3)
    assert report.total_epsilon == pytest.approx(2 * math.log(3), rel=1e-15)
    assert report.per_answer_odds == pytest.approx(3)
    assert report.total_odds == pytest.approx(9)
    assert "at most 3 times as likely" in report.summary
    assert "all 2 questions" in report.summary
    assert "9 times" in report.summary


def test_single_question_report_does_not_mention_a_total():
    assert "questions" not in privacy_report(CLASSIC, questions=1).summary


def test_astronomical_total_odds_are_reported_as_infinite_instead_of_crashing():
    report = privacy_report(PRESETS["high_precision"].design, questions=400)
    assert report.total_odds == math.inf
