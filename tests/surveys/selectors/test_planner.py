"""The planner's selector: the sample sizes are dpengine's, the curves compare three designs."""

import pytest

import dpengine
from surveys import selectors


def test_the_margin_goal_needs_dpengines_sample_size():
    design = dpengine.ForcedResponse(0.5, 0.5)
    plan = selectors.study_plan(design=design, goal="margin", margin=0.05, confidence=0.95)
    assert plan.respondents == dpengine.required_sample_size(design=design, margin=0.05) == 1537
    assert plan.n_max >= 2 * plan.respondents


def test_the_difference_goal_needs_dpengines_per_group_size():
    design = dpengine.ForcedResponse(0.75, 0.5)
    plan = selectors.study_plan(
        design=design, goal="difference", difference=0.1, power=0.9, confidence=0.95, prevalence=0.2
    )
    assert plan.respondents == dpengine.required_sample_size_difference(
        design=design, difference=0.1, power=0.9, confidence=0.95, p=0.2
    )
    assert plan.total_for_two_groups == 2 * plan.respondents


def test_the_alternatives_have_half_and_twice_the_epsilon():
    design = dpengine.ForcedResponse(0.5, 0.5)
    plan = selectors.study_plan(design=design, goal="margin", margin=0.05)
    epsilons = [curve.epsilon for curve in plan.curves]
    assert epsilons == pytest.approx([design.epsilon / 2, design.epsilon, design.epsilon * 2])
    assert [curve.chosen for curve in plan.curves] == [False, True, False]
    # less privacy, fewer respondents for the same margin
    assert plan.curves[0].respondents > plan.curves[1].respondents > plan.curves[2].respondents


def test_each_curve_is_dpengines_margin_and_falls_with_n():
    design = dpengine.ForcedResponse(0.25, 0.5)
    plan = selectors.study_plan(design=design, goal="margin", margin=0.1, confidence=0.9)
    chosen = next(curve for curve in plan.curves if curve.chosen)
    sizes = [n for n, _margin in chosen.points]
    margins = [margin for _n, margin in chosen.points]
    assert sizes == sorted(sizes) and sizes[-1] == plan.n_max
    assert margins == sorted(margins, reverse=True)
    n, margin = chosen.points[10]
    assert margin == dpengine.margin_for_sample_size(design=design, n=n, confidence=0.9)
