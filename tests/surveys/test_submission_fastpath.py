"""The submission write path: all or nothing and idempotent, on the one-statement path
(PostgreSQL, surveys/fastpath.py) as on the ORM transaction (SQLite, grouping answers)."""

import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from surveys import fastpath, services
from surveys.models import GroupingQuestion, Question, Submission, Survey
from tests.conftest import answers_for, question_tallies


def stored_state(survey):
    tallies = question_tallies(survey)
    reports = sum(len(bits) for bits in Submission.objects.values_list("reports", flat=True))
    return Submission.objects.count(), reports, tallies, survey.response_count


@pytest.mark.django_db
def test_replay_through_the_endpoint_stores_nothing_and_counts_nothing(open_survey, submit):
    sid = uuid.uuid4()
    first = submit(open_survey, [True, False], submission_id=sid)
    before = stored_state(open_survey)
    again = submit(open_survey, [False, True], submission_id=sid)
    assert first.status_code == again.status_code == 201
    assert stored_state(open_survey) == before == (1, 2, [(1, 1), (1, 0)], 1)


postgresql_only = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="the one-statement path"
)


def fastpath_insert(survey, answers, **changes):
    kwargs = {
        "slug": survey.slug,
        "submission_uuid": uuid.uuid4(),
        "received_on": survey.created_at.date(),
        "answers": answers,
    }
    return fastpath.submission_insert(**kwargs | changes)


@pytest.mark.django_db
@postgresql_only
def test_one_statement_insert_is_idempotent(frozen_survey):
    answers = dict.fromkeys(frozen_survey.questions.values_list("id", flat=True), True)
    sid = uuid.uuid4()
    assert fastpath_insert(frozen_survey, answers, submission_uuid=sid) is True
    assert fastpath_insert(frozen_survey, answers, submission_uuid=sid) is False
    assert stored_state(frozen_survey) == (2, 4, [(2, 2), (2, 1)], 2)


@pytest.mark.django_db
@postgresql_only
@pytest.mark.parametrize(
    "case",
    [
        "fewer answers",
        "an unknown question",
        "another survey's question",
        "no such slug",
        "draft",
        "closed",
        "grouping questions",
        "its first response",
    ],
)
def test_one_statement_stores_nothing_that_the_survey_does_not_take_as_is(
    case, frozen_survey, make_survey
):
    open_survey = frozen_survey
    other = make_survey(title="Other")
    ids = list(open_survey.questions.values_list("id", flat=True))
    answers = dict.fromkeys(ids, True)
    changes = {}
    if case == "fewer answers":
        answers = {ids[0]: True}
    elif case == "an unknown question":
        answers[max(Question.objects.values_list("id", flat=True)) + 1] = False
    elif case == "another survey's question":
        answers = {ids[0]: True, other.questions.first().pk: False}
    elif case == "no such slug":
        changes["slug"] = "NoSuchSurvey1234"
    elif case in ("draft", "closed"):
        Survey.objects.filter(pk=open_survey.pk).update(status=case)
    elif case == "grouping questions":
        GroupingQuestion.objects.create(survey=open_survey, position=0, text="Department?")
    else:  # the survey's questions may still change: the ORM path holds its row and checks
        services.survey_open(survey=other)
        answers = dict.fromkeys(other.questions.values_list("id", flat=True), True)
        changes["slug"] = other.slug
    assert fastpath_insert(open_survey, answers, **changes) is False
    assert stored_state(open_survey) == (1, 2, [(1, 1), (1, 0)], 1)


@pytest.mark.django_db
@postgresql_only
def test_a_connection_that_lost_its_prepared_statement_still_stores(frozen_survey):
    # What a connection pooler's reset (DISCARD ALL) or a new server session does to it.
    answers = dict.fromkeys(frozen_survey.questions.values_list("id", flat=True), False)
    assert fastpath_insert(frozen_survey, answers) is True
    with connection.cursor() as cursor:
        cursor.execute("DEALLOCATE ALL")
    assert fastpath_insert(frozen_survey, answers) is True  # run unprepared, prepared again
    assert fastpath_insert(frozen_survey, answers) is True
    assert stored_state(frozen_survey) == (4, 8, [(4, 1), (4, 0)], 4)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("change", ["deleted", "added"])
def test_a_question_changed_after_validation_refuses_the_whole_submission(open_survey, change):
    question_ids, options = services._submission_inputs(open_survey)  # read, then the change
    if change == "deleted":
        Question.objects.filter(pk=max(question_ids)).delete()
    else:  # past the services, which refuse it for an opened survey (e.g. a database shell)
        Question.objects.create(survey=open_survey, position=2, text="A late question?")
    with pytest.raises(services.SurveyConflict):
        services.submission_record(
            survey=open_survey,
            submission_id=uuid.uuid4(),
            answers={str(qid): True for qid in question_ids},
            inputs=(question_ids, options),
        )
    assert stored_state(open_survey) == (
        (0, 0, [(0, 0)], 0) if change == "deleted" else (0, 0, [(0, 0)] * 3, 0)
    )


@pytest.mark.django_db
def test_public_submission_is_few_statements(frozen_survey, respondent):
    open_survey = frozen_survey
    body = {"submission_id": str(uuid.uuid4()), "answers": answers_for(open_survey, [True, True])}
    url = f"/api/v1/public/surveys/{open_survey.slug}/responses/"
    with CaptureQueriesContext(connection) as queries:
        response = respondent.post(url, body, format="json")
    assert response.status_code == 201
    assert stored_state(open_survey) == (2, 4, [(2, 2), (2, 1)], 2)
    # The survey's own statements, not the throttle's cache nor the test's savepoints; the
    # statement is prepared once per database connection, not per request.
    ours = [
        q["sql"]
        for q in queries.captured_queries
        if ("surveys_" in q["sql"] or q["sql"].startswith("EXECUTE"))
        and not q["sql"].startswith("PREPARE")
    ]
    # PostgreSQL: one statement that checks and writes; SQLite: a read of the survey, one of
    # its questions, then in a transaction the survey's tallies, its questions again (the
    # answers must still fit), the INSERT and the UPDATE of the tallies.
    assert len(ours) == (1 if connection.vendor == "postgresql" else 6), ours
