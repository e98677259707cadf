"""The regression of a question compared with asking directly (issue 33 item 4): fitted on its
randomized arm alone, which the result, the page and the API say; the control group's direct
answers change nothing."""

import math
import uuid

import pytest

import dpengine
from surveys import selectors, services
from surveys.models import PREFER_NOT_TO_SAY
from surveys.selectors.regression import survey_regression
from surveys.services import grouping
from tests.helpers import CODED_QUESTIONS

pytestmark = pytest.mark.django_db


def _send(survey, department, option_ids, rows):
    """``rows``: (option label or None for "Prefer not to say", code of Q2, count)."""
    q1, q2 = survey.questions.all()
    for label, code, count in rows:
        for _ in range(count):
            services.submission_receive(
                slug=survey.slug,
                submission_id=str(uuid.uuid4()),
                answers={str(q1.pk): True, str(q2.pk): code},
                groups={
                    str(department.pk): PREFER_NOT_TO_SAY
                    if label is None
                    else str(option_ids[label])
                },
            )


@pytest.fixture
def compared(make_survey):
    survey = make_survey(
        questions=[{"text": "Q1?"}, {"text": "Left early?", "compare_direct": True}],
        control_share=0.3,
        min_n=5,
        status="draft",
    )
    department = grouping.grouping_question_add(
        survey=survey, text="Department?", options=["Sales", "Office"]
    )
    survey = services.survey_open(survey=survey)
    option_ids = {option.label: option.pk for option in department.options.all()}
    # Randomized arm: Sales 6 yes of 20, Office 14 yes of 20; direct arm: all "yes" in Sales.
    _send(
        survey,
        department,
        option_ids,
        [
            *[("Sales", 1, 6), ("Sales", 0, 14), ("Office", 1, 14), ("Office", 0, 6)],
            *[("Sales", 3, 9), (None, 1, 3)],
        ],
    )
    survey.refresh_from_db()
    return survey


def test_the_randomized_arm_alone_is_fitted_and_said_so(compared):
    question = list(compared.questions.all())[1]
    assert question in selectors.regression_questions(compared.questions.all())
    result = survey_regression(survey=compared, question=question)
    assert result.arm == "randomized"
    assert result.n == 40  # the direct arm's 9 answers are in no cell
    assert result.left_out == 3  # randomized reports whose respondent declined the grouping
    assert result.fitted
    # Saturated model: the intercept is the reference group's log-odds, the coefficient the
    # log odds ratio, each from that group's randomized reports under the question's design.
    design = selectors.question_design(question, survey=compared)
    sales = dpengine.estimate(yes=6, n=20, design=design).estimate  # 2 * 0.3 - 0.5 = 0.1
    office = dpengine.estimate(yes=14, n=20, design=design).estimate  # 0.9
    intercept, office_coefficient = result.coefficients
    assert intercept.estimate == pytest.approx(math.log(sales / (1 - sales)), abs=1e-5)
    assert office_coefficient.estimate == pytest.approx(
        math.log(office / (1 - office)) - math.log(sales / (1 - sales)), abs=1e-5
    )


def test_the_api_says_which_arm_and_offers_compared_questions(compared, owner_api):
    question = list(compared.questions.all())[1]
    response = owner_api.get(
        f"/api/v1/surveys/{compared.pk}/regression/", {"question": question.pk}
    )
    assert response.status_code == 200
    body = response.json()
    assert (body["arm"], body["n"], body["left_out"], body["status"]) == (
        "randomized",
        40,
        3,
        "fitted",
    )
    first = next(iter(compared.questions.all()))
    assert (
        owner_api.get(f"/api/v1/surveys/{compared.pk}/regression/", {"question": first.pk}).json()[
            "arm"
        ]
        is None
    )


def test_the_page_says_the_randomized_arm_alone(compared, owner_client):
    question = list(compared.questions.all())[1]
    response = owner_client.get(f"/surveys/{compared.pk}/regression/", {"question": question.pk})
    page = response.content.decode()
    assert response.status_code == 200
    assert 'data-arm="randomized"' in page
    assert 'data-stat="n">40<' in page
    assert 'data-left-out="compared"' not in page
    # The R snippet keeps the randomized arm's codes only.
    assert "d$Q2 &lt;= 1, ]  # the randomized arm" in page


def test_a_cheating_detection_question_is_not_offered_to_the_regression(make_survey, owner_api):
    survey = make_survey(questions=CODED_QUESTIONS, control_share=0.3)
    cdm, compared, bit, sld = survey.questions.all()
    assert selectors.regression_questions(survey.questions.all()) == [compared, bit]
    for cheating in (cdm, sld):
        refused = owner_api.get(
            f"/api/v1/surveys/{survey.pk}/regression/", {"question": cheating.pk}
        )
        assert refused.status_code == 400 and list(refused.json()["errors"]) == ["question"]
