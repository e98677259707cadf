"""Reads that predate question types stay correct on a survey that mixes them: the
breakdown and regression take yes/no questions only (each with its own design), the public
results count yes/no questions only, the planner gives each question its own sample size."""

import datetime

import numpy as np
import pytest

import dpengine
from surveys import selectors
from surveys.selectors.public_results import count_keys, noisy_counts
from surveys.services import public_release


def test_breakdown_covers_yes_no_questions_with_their_own_designs(mixed_grouped):
    survey = mixed_grouped
    department = survey.grouping_questions.get()
    result = selectors.survey_breakdown(survey=survey, grouping_question=department)
    assert [row.column for row in result.rows] == ["Q1", "Q2"]
    assert result.left_out_questions == 2
    warner = result.rows[1]
    assert warner.overall.design == dpengine.Warner(p=0.75)
    tallies = selectors.survey_tallies(survey=survey)
    reports, yes = tallies.of(warner.question_id)
    assert warner.overall == dpengine.estimate_with_coverage(
        yes=yes, n=reports, design=dpengine.Warner(p=0.75), method=survey.ci_method
    )


@pytest.mark.slow
def test_regression_uses_the_questions_own_design(mixed_grouped):
    survey = mixed_grouped
    warner = survey.questions.all()[1]
    result = selectors.survey_regression(survey=survey, question=warner)
    assert result.design == dpengine.Warner(p=0.75)
    assert result.fitted and result.n == 400


def test_public_release_counts_yes_no_questions_only(mixed_grouped):
    survey = mixed_grouped
    questions, keys = count_keys(survey=survey)
    yes_no = [q.pk for q in survey.questions.all()[:2]]
    assert questions == [f"q{pk}" for pk in yes_no]
    # m: respondents, two yes/no questions, one grouping question (all required).
    assert noisy_counts(survey=survey) == 1 + 2 + 1
    today = datetime.date(2026, 1, 1)
    services_survey = public_release.public_results_update(
        survey=survey, enabled=True, epsilon=10.0, release_days=1, releases=4, today=today
    )
    release = public_release.public_results_release(
        survey=services_survey,
        today=today + datetime.timedelta(days=2),
        rng=np.random.default_rng(1),
    )
    assert release is not None
    assert set(release.counts) == set(keys)
    page = selectors.public_results(survey=services_survey)
    assert [row.question_id for row in page.rows] == yes_no
    assert page.left_out_questions == 2
    assert page.rows[1].estimate.design == dpengine.Warner(p=0.75)


def test_planner_gives_each_question_its_own_sample_size(mixed_grouped):
    survey = mixed_grouped
    questions = list(survey.questions.all())
    plans = selectors.question_plans(
        survey=survey, questions=questions, margin=0.05, confidence=0.95
    )
    assert [plan.kind for plan in plans] == ["yes_no", "yes_no", "choice", "numeric"]
    coins = selectors.survey_design(survey=survey)
    assert plans[0].respondents == dpengine.required_sample_size(design=coins, margin=0.05)
    assert plans[1].respondents == dpengine.required_sample_size(
        design=dpengine.Warner(p=0.75), margin=0.05
    )
    choice = selectors.question_mechanism(questions[2], survey=survey)
    assert plans[2].respondents == dpengine.required_sample_size_choice(
        mechanism=choice, margin=0.05
    )
    numeric = selectors.question_mechanism(questions[3], survey=survey)
    assert plans[3].units_margin == pytest.approx(1.5)
    assert plans[3].respondents == dpengine.required_sample_size_mean(question=numeric, margin=1.5)
    assert plans[3].share_respondents == dpengine.required_sample_size_share(
        question=numeric, margin=0.05
    )


def test_the_public_page_says_each_question_has_its_own_design(mixed_grouped, client):
    survey = mixed_grouped
    today = datetime.date(2026, 1, 1)
    survey = public_release.public_results_update(
        survey=survey, enabled=True, epsilon=1.0, release_days=1, releases=4, today=today
    )
    public_release.public_results_release(
        survey=survey, today=today + datetime.timedelta(days=1), rng=np.random.default_rng(2)
    )
    page = selectors.public_results(survey=survey)
    assert page.other_designs
    body = client.get(f"/r/{survey.slug}/").content.decode()
    assert 'id="own-designs"' in body and 'id="typed-questions-not-published"' in body
