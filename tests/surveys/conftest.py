"""A survey with one grouping question (``DEPARTMENTS``), a respondent who answers it, and
simulated submissions."""

import uuid

import numpy as np
import pytest

from surveys import services
from surveys.selectors.comprehension import comprehension_questions
from surveys.services import grouping
from tests.helpers import (
    CODED_QUESTIONS,
    CODED_ROWS,
    DEPARTMENTS,
    MIXED_QUESTIONS,
    simulate_responses,
    with_responses,
)


@pytest.fixture
def grouped_draft(make_survey):
    """The cast's two-question survey, still a draft, with a grouping question "Department"."""
    survey = make_survey(status="draft", min_n=5)
    grouping.grouping_question_add(
        survey=survey, text="Which department do you work in?", options=DEPARTMENTS
    )
    return survey


@pytest.fixture
def grouped_survey(grouped_draft):
    """``grouped_draft``, opened."""
    return services.survey_open(survey=grouped_draft)


@pytest.fixture
def options(grouped_survey):
    """Option ids of the department question, in order."""
    gq = grouped_survey.grouping_questions.get()
    return list(gq.options.values_list("id", flat=True))


@pytest.fixture
def submit_grouped(respondent):
    """POST randomized bits (question order) and one option id per grouping question."""

    def post(survey, answers, groups, *, submission_id=None):
        question_ids = list(survey.questions.values_list("id", flat=True))
        grouping_ids = list(survey.grouping_questions.values_list("id", flat=True))
        body = {
            "submission_id": str(submission_id or uuid.uuid4()),
            "answers": {str(q): bit for q, bit in zip(question_ids, answers, strict=True)},
            "groups": {str(g): str(o) for g, o in zip(grouping_ids, groups, strict=True)},
        }
        return respondent.post(
            f"/api/v1/public/surveys/{survey.slug}/responses/", body, format="json"
        )

    return post


@pytest.fixture
def simulate():
    """Store n simulated submissions: reports (n × questions bools) and option ids (n × G)."""

    def store(survey, reports, option_rows):
        services.simulated_submissions_record(
            survey=survey, reports=np.asarray(reports, dtype=bool), options=option_rows
        )
        survey.refresh_from_db()
        return survey

    return store


@pytest.fixture
def mixed_grouped(make_survey):
    """A survey of every question type with a grouping question (Department: Sales, Office)
    and 400 simulated respondents split between its options."""
    survey = make_survey(questions=MIXED_QUESTIONS, min_n=10, status="draft")
    department = grouping.grouping_question_add(
        survey=survey, text="Department?", options=["Sales", "Office"]
    )
    survey = services.survey_open(survey=survey)
    options = [option.pk for option in department.options.all()]
    return simulate_responses(survey, n=400, seed=9, options=options)


@pytest.fixture
def answered_survey(make_survey):
    """The cast's open two-question survey with one response: its questions and coins are
    frozen (tests/helpers.py's ``FROZEN_WHY``)."""
    return with_responses(make_survey(), [[1, 0]])


@pytest.fixture
def coded_survey(make_survey):
    """A survey of CDM, compared, yes/no and SLD questions with a comprehension check and a
    grouping question (Sales, Office), answered by hand as ``CODED_ROWS`` says: ``(survey,
    grouping question)``."""
    survey = make_survey(
        questions=CODED_QUESTIONS,
        status="draft",
        min_n=5,
        control_share=0.3,
        comprehension_check=True,
    )
    department = grouping.grouping_question_add(
        survey=survey, text="Department?", options=["Sales", "Office"]
    )
    survey = services.survey_open(survey=survey)
    option_ids = {option.label: option.pk for option in department.options.all()}
    question_ids = [question.pk for question in survey.questions.all()]
    hidden = [question.pk for question in comprehension_questions(survey=survey)]
    for label, rows in CODED_ROWS.items():
        for index, (codes, count) in enumerate(rows):
            for _ in range(count):
                answers = {str(qid): code for qid, code in zip(question_ids, codes, strict=True)}
                # The first practice right on the first try in the first two rows of a group.
                answers[str(hidden[0])] = index < 2
                services.submission_receive(
                    slug=survey.slug,
                    submission_id=str(uuid.uuid4()),
                    answers=answers,
                    groups={str(department.pk): str(option_ids[label])},
                )
    survey.refresh_from_db()
    return survey, department
