"""The submission write path: all or nothing and idempotent, on the one-statement path
(PostgreSQL, surveys/fastpath.py) as on the ORM transaction (SQLite, grouping answers)."""

import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from surveys import fastpath, services
from surveys.models import Question, Report, Submission


def answers_for(survey, bits):
    ids = survey.questions.values_list("id", flat=True)
    return {str(qid): bit for qid, bit in zip(ids, bits, strict=True)}


def stored_state(survey):
    survey.refresh_from_db()
    tallies = list(survey.questions.values_list("report_count", "yes_count"))
    return Submission.objects.count(), Report.objects.count(), tallies, survey.response_count


@pytest.mark.django_db
def test_replay_through_the_endpoint_stores_nothing_and_counts_nothing(open_survey, submit):
    sid = uuid.uuid4()
    first = submit(open_survey, [True, False], submission_id=sid)
    before = stored_state(open_survey)
    again = submit(open_survey, [False, True], submission_id=sid)
    assert first.status_code == again.status_code == 201
    assert stored_state(open_survey) == before == (1, 2, [(1, 1), (1, 0)], 1)


@pytest.mark.django_db
@pytest.mark.skipif(connection.vendor != "postgresql", reason="the one-statement path")
def test_one_statement_insert_is_idempotent(open_survey):
    answers = dict.fromkeys(open_survey.questions.values_list("id", flat=True), True)
    kwargs = {
        "survey_id": open_survey.pk,
        "submission_uuid": uuid.uuid4(),
        "received_on": open_survey.created_at.date(),
        "answers": answers,
    }
    assert fastpath.submission_insert(**kwargs) is True
    assert fastpath.submission_insert(**kwargs) is False
    assert stored_state(open_survey) == (1, 2, [(1, 1), (1, 1)], 1)


@pytest.mark.django_db(transaction=True)  # foreign keys are checked when a transaction commits
def test_a_question_deleted_after_validation_refuses_the_whole_submission(open_survey):
    question_ids, options = services._submission_inputs(open_survey)  # read, then the change
    Question.objects.filter(pk=max(question_ids)).delete()
    with pytest.raises(services.SurveyConflict):
        services.submission_record(
            survey=open_survey,
            submission_id=uuid.uuid4(),
            answers={str(qid): True for qid in question_ids},
            inputs=(question_ids, options),
        )
    assert stored_state(open_survey) == (0, 0, [(0, 0)], 0)


@pytest.mark.django_db
def test_public_submission_reads_the_survey_and_writes_in_few_statements(open_survey, respondent):
    body = {"submission_id": str(uuid.uuid4()), "answers": answers_for(open_survey, [True, True])}
    url = f"/api/v1/public/surveys/{open_survey.slug}/responses/"
    with CaptureQueriesContext(connection) as queries:
        response = respondent.post(url, body, format="json")
    assert response.status_code == 201
    assert stored_state(open_survey) == (1, 2, [(1, 1), (1, 1)], 1)
    # The survey's own statements, not the throttle's cache nor the test's savepoints.
    ours = [q["sql"] for q in queries.captured_queries if "surveys_" in q["sql"]]
    # PostgreSQL: one read and one statement; SQLite: a read of the survey, one of its
    # questions, then 2 INSERTs and 2 UPDATEs in a transaction.
    assert len(ours) == (2 if connection.vendor == "postgresql" else 6), ours
