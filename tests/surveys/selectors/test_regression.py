"""Regression on the grouping questions: the selector and GET /api/v1/surveys/<id>/regression/."""

import numpy as np
import pytest
from scipy.special import expit

import dpengine
from surveys import selectors, services
from surveys.selectors import RegressionStatus
from surveys.services import grouping

pytestmark = pytest.mark.django_db


def regression_url(survey):
    return f"/api/v1/surveys/{survey.pk}/regression/"


def simulate_model(simulate, survey, options, *, n, coef, seed):
    """Respondents spread evenly over the options; true answers to Q1 from a logistic model
    with log-odds ``coef[0] + coef[option index]`` (reference: the first option), randomized
    with the survey's coins. Returns the stored option rows and reports."""
    rng = np.random.default_rng(seed)
    index = np.arange(n) % len(options)
    log_odds = coef[0] + np.array([0.0, *coef[1:]])[index]
    truth = rng.random((n, 2)) < np.column_stack([expit(log_odds), np.full(n, 0.3)])
    reports = dpengine.randomize(truth, dpengine.CLASSIC, rng)
    rows = [[options[i]] for i in index]
    simulate(survey, reports, rows)
    return index, reports


def test_the_fit_is_dpengines_fit_on_the_dummy_coded_reports(grouped_survey, options, simulate):
    index, reports = simulate_model(
        simulate, grouped_survey, options, n=900, coef=[-0.5, 1.0, -0.8], seed=5
    )
    result = selectors.survey_regression(
        survey=grouped_survey, question=grouped_survey.questions.first(), confidence=0.9
    )
    X = np.column_stack([index == 1, index == 2]).astype(float)
    direct = dpengine.fit_logistic(X, reports[:, 0], design=dpengine.CLASSIC)
    assert result.status == RegressionStatus.FITTED
    assert result.n == 900
    assert [c.estimate for c in result.coefficients] == pytest.approx(direct.coef, rel=1e-9)
    assert [c.std_error for c in result.coefficients] == pytest.approx(direct.std_error, rel=1e-9)
    low, high = direct.ci(0.9)
    # The Wald fit is kept (for agreement with R's rr and RRreg), not shown.
    assert [c.wald_low for c in result.coefficients] == pytest.approx(low, rel=1e-9)
    assert [c.wald_high for c in result.coefficients] == pytest.approx(high, rel=1e-9)
    research = result.coefficients[1]
    assert (research.term, research.level, research.reference) == (
        "Which department do you work in?",
        "Research",
        "Sales",
    )
    assert research.odds_ratio == pytest.approx(np.exp(research.estimate))


@pytest.mark.slow
def test_the_true_coefficients_are_recovered(grouped_survey, options, simulate):
    # Seeded; each estimate within 4 of its own standard errors (which must be small).
    truth = [-1.0, 1.2, -0.5]
    simulate_model(simulate, grouped_survey, options, n=9000, coef=truth, seed=21)
    result = selectors.survey_regression(
        survey=grouped_survey, question=grouped_survey.questions.first()
    )
    for coefficient, true_value in zip(result.coefficients, truth, strict=True):
        assert coefficient.std_error < 0.25
        assert abs(coefficient.estimate - true_value) < 4 * coefficient.std_error


def test_an_option_nobody_chose_is_left_out(grouped_survey, options, simulate):
    rng = np.random.default_rng(2)
    simulate(grouped_survey, rng.random((200, 2)) < 0.5, [[options[i % 2]] for i in range(200)])
    result = selectors.survey_regression(
        survey=grouped_survey, question=grouped_survey.questions.first()
    )
    [covariate] = result.covariates
    assert [(level.label, level.role, level.respondents) for level in covariate.levels] == [
        ("Sales", "reference", 100),
        ("Research", "coefficient", 100),
        ("Support", "dropped", 0),
    ]
    assert result.fitted and len(result.coefficients) == 2


def test_the_first_chosen_option_becomes_the_reference_when_the_first_is_empty(
    grouped_survey, options, simulate
):
    rng = np.random.default_rng(4)
    simulate(grouped_survey, rng.random((200, 2)) < 0.5, [[options[1 + i % 2]] for i in range(200)])
    result = selectors.survey_regression(
        survey=grouped_survey, question=grouped_survey.questions.first()
    )
    assert result.covariates[0].reference.label == "Research"
    assert result.coefficients[1].reference == "Research"


def test_too_few_responses_give_a_message_not_a_table(grouped_survey, options, simulate):
    simulate(grouped_survey, [[True, False]] * 4, [[options[0]], [options[1]]] * 2)
    result = selectors.survey_regression(
        survey=grouped_survey, question=grouped_survey.questions.first()
    )
    assert result.status == RegressionStatus.TOO_FEW
    assert result.coefficients == []
    assert "Too little data: 4 responses" in result.message


def test_separated_reports_give_a_clear_message(grouped_survey, options, simulate):
    # Every Research report is "yes": a rate of 1 lies beyond a = 3/4, so the fit runs off.
    rng = np.random.default_rng(8)
    reports = rng.random((120, 2)) < 0.5
    rows = [[options[i % 2]] for i in range(120)]
    reports[1::2, 0] = True
    simulate(grouped_survey, reports, rows)
    result = selectors.survey_regression(
        survey=grouped_survey, question=grouped_survey.questions.first()
    )
    assert result.status == RegressionStatus.SEPARATION
    assert "runs off to infinity" in result.message
    assert result.detail


def test_no_responses_yet(grouped_survey):
    result = selectors.survey_regression(
        survey=grouped_survey, question=grouped_survey.questions.first()
    )
    assert result.status == RegressionStatus.NO_RESPONSES
    assert result.message == "There are no responses yet, so there is nothing to fit."


def test_without_grouping_questions_the_model_is_the_intercept(open_survey):
    rng = np.random.default_rng(9)
    services.simulated_submissions_record(survey=open_survey, reports=rng.random((400, 2)) < 0.4)
    question = open_survey.questions.first()
    result = selectors.survey_regression(survey=open_survey, question=question)
    assert result.fitted and len(result.coefficients) == 1
    open_survey.refresh_from_db()
    overall = dpengine.estimate(
        yes=selectors.survey_tallies(survey=open_survey).of(question.pk)[1],
        n=400,
        design=dpengine.CLASSIC,
    )
    assert expit(result.coefficients[0].estimate) == pytest.approx(overall.estimate, abs=1e-6)


# --- the API ------------------------------------------------------------------------------


def test_the_api_returns_the_coefficient_table(owner_api, grouped_survey, options, simulate):
    simulate_model(simulate, grouped_survey, options, n=900, coef=[-0.5, 1.0, -0.8], seed=5)
    question = grouped_survey.questions.last()
    response = owner_api.get(
        regression_url(grouped_survey), {"question": question.pk, "confidence": "0.9"}
    )
    assert response.status_code == 200
    body = response.json()
    expected = selectors.survey_regression(survey=grouped_survey, question=question, confidence=0.9)
    assert body["status"] == "fitted" and body["message"] == ""
    assert body["question_id"] == question.pk
    assert body["n"] == 900 and body["confidence"] == 0.9
    assert [c["estimate"] for c in body["coefficients"]] == [
        c.estimate for c in expected.coefficients
    ]
    assert [c["level"] for c in body["coefficients"]] == [None, "Research", "Support"]
    assert body["coefficients"][1]["odds_ratio"] == pytest.approx(
        np.exp(body["coefficients"][1]["estimate"])
    )
    assert [level["role"] for level in body["covariates"][0]["levels"]] == [
        "reference",
        "coefficient",
        "coefficient",
    ]


def test_the_api_defaults_to_the_first_question_and_explains_an_impossible_fit(
    owner_api, grouped_survey
):
    body = owner_api.get(regression_url(grouped_survey)).json()
    assert body["question_id"] == grouped_survey.questions.first().pk
    assert body["status"] == "no_responses"
    assert body["coefficients"] == []
    assert body["message"]


@pytest.mark.parametrize(
    ("query", "field"),
    [({"question": "abc"}, "question"), ({"confidence": "2"}, "confidence")],
)
def test_bad_regression_queries_are_400_naming_the_field(owner_api, grouped_survey, query, field):
    response = owner_api.get(regression_url(grouped_survey), query)
    assert response.status_code == 400
    assert list(response.json()["errors"]) == [field]


def test_a_question_of_another_survey_is_a_400(owner_api, grouped_survey, make_survey):
    other = make_survey(title="Other")
    response = owner_api.get(
        regression_url(grouped_survey), {"question": other.questions.first().pk}
    )
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["question"]


def test_another_researchers_survey_is_404(other_api, grouped_survey):
    assert other_api.get(regression_url(grouped_survey)).status_code == 404


def test_grouping_questions_added_through_the_service_appear_as_covariates(owner_api, make_survey):
    survey = make_survey(status="draft")
    grouping.grouping_question_add(survey=survey, text="Age?", options=["Young", "Old"])
    grouping.grouping_question_add(survey=survey, text="Site?", options=["North", "South", "East"])
    body = owner_api.get(regression_url(survey)).json()
    assert [c["text"] for c in body["covariates"]] == ["Age?", "Site?"]
