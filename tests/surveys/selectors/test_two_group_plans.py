"""The planner's lines for compared and cheating-detection questions (issue 33 item 4): each
question's own design and the survey's control share into dpengine's planners (whose numbers
tests/dpengine/test_control_planning.py and test_cheating_planning.py check by simulation)."""

import pytest

import dpengine
from surveys import selectors
from tests.helpers import CODED_QUESTIONS

pytestmark = pytest.mark.django_db

WARNER_COMPARED = {
    "text": "Padded a claim?",
    "compare_direct": True,
    "design": {"kind": "warner", "p": 0.8},
}


@pytest.fixture
def survey(make_survey):
    return make_survey(
        questions=[*CODED_QUESTIONS, WARNER_COMPARED], control_share=0.4, status="draft"
    )


def test_each_compared_question_is_planned_with_its_design_and_the_control_share(survey):
    plans = selectors.control_group_plans(
        survey=survey,
        questions=list(survey.questions.all()),
        difference=0.1,
        power=0.9,
        confidence=0.95,
        prevalence=0.2,
    )
    assert [plan.column for plan in plans] == ["Q2", "Q5"]
    forced, warner = plans
    expected = dpengine.required_sample_size_control_group(
        design=dpengine.Warner(p=0.8), difference=0.1, control_share=0.4, power=0.9, p=0.2
    )
    assert warner.respondents == expected
    assert warner.direct_respondents == round(expected * 0.4)
    assert 0.9 <= warner.power < 0.91
    # The survey's classic coins (a - b = 1/2) need more than Warner's p = 0.8 (a - b = 0.6).
    assert forced.respondents == dpengine.required_sample_size_control_group(
        design=selectors.survey_coins(survey), difference=0.1, control_share=0.4, power=0.9, p=0.2
    )
    assert forced.respondents > warner.respondents


def test_no_control_group_plans_without_a_control_group(make_survey):
    survey = make_survey(questions=CODED_QUESTIONS, control_share=0, status="draft")
    questions = list(survey.questions.all())
    assert (
        selectors.control_group_plans(
            survey=survey, questions=questions, difference=0.1, power=0.8, confidence=0.95
        )
        == []
    )


def test_each_cheating_question_is_planned_for_pi_at_the_margin(survey):
    plans = selectors.cheating_plans(
        survey=survey, questions=list(survey.questions.all()), margin=0.05, confidence=0.95
    )
    assert [(plan.column, plan.design) for plan in plans] == [("Q1", "cdm"), ("Q4", "sld")]
    cdm, sld = plans
    # CDM p = (1/4, 3/4): n = z^2 ((3/2)^2 / 4 / (1/2) + (1/2)^2 / 4 / (1/2)) / 0.05^2.
    assert cdm.respondents == 1921
    assert sld.respondents == dpengine.required_sample_size_cheating(
        design=dpengine.StochasticLieDetector(p=(0.3, 0.8)), margin=0.05
    )
    assert cdm.margin <= 0.05
