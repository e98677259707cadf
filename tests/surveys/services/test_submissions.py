"""The submission write path: all or nothing and idempotent, on the one-statement path
(PostgreSQL, surveys/services/submissions/postgres.py), the SQLite writes
(surveys/services/submissions/sqlite.py) and the ORM transaction (the statement switched off)."""

import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from surveys import selectors, services
from surveys.models import (
    GroupAnswer,
    GroupingQuestion,
    GroupingTally,
    GroupTally,
    Question,
    Submission,
    Survey,
)
from surveys.services import grouping, submissions
from tests.helpers import answers_for, question_tallies, survey_statements


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
    connection.vendor != "postgresql", reason="PostgreSQL's prepared statement"
)


def statement_insert(survey, answers, *, slug=None, submission_uuid=None, **changes):
    """Whether the database's writer (PostgreSQL: the one statement) stored the submission."""
    clean = submissions.CleanSubmission(
        submission_uuid=submission_uuid or uuid.uuid4(),
        answers=answers,
        groups=changes.get("groups", {}),
        fingerprint=changes.get("design_fingerprint"),
    )
    prepared = submissions.PreparedSubmission(
        slug=slug or survey.slug, clean=clean, received=timezone.now()
    )
    return submissions.writer().write(prepared)


@pytest.mark.django_db
def test_one_statement_insert_is_idempotent(frozen_survey):
    answers = dict.fromkeys(frozen_survey.questions.values_list("id", flat=True), True)
    sid = uuid.uuid4()
    assert statement_insert(frozen_survey, answers, submission_uuid=sid) is True
    assert statement_insert(frozen_survey, answers, submission_uuid=sid) is False
    assert stored_state(frozen_survey) == (2, 4, [(2, 2), (2, 1)], 2)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "case",
    [
        "a required question unanswered",
        "an unknown question",
        "another survey's question",
        "no such slug",
        "draft",
        "closed",
        "a required grouping question unanswered",
        "another design",
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
    elif case == "grouping questions unanswered":
        GroupingQuestion.objects.create(survey=open_survey, position=0, text="Department?")
    else:
        changes["design_fingerprint"] = "0" * 32
    assert statement_insert(open_survey, answers, **changes) is False
    assert stored_state(open_survey) == (1, 2, [(1, 1), (1, 0)], 1)


@pytest.mark.django_db
@postgresql_only
def test_a_connection_that_lost_its_prepared_statement_still_stores(frozen_survey):
    # What a connection pooler's reset (DISCARD ALL) or a new server session does to it.
    answers = dict.fromkeys(frozen_survey.questions.values_list("id", flat=True), False)
    assert statement_insert(frozen_survey, answers) is True
    with connection.cursor() as cursor:
        cursor.execute("DEALLOCATE ALL")
    assert statement_insert(frozen_survey, answers) is True  # run unprepared, prepared again
    assert statement_insert(frozen_survey, answers) is True
    assert stored_state(frozen_survey) == (4, 8, [(4, 1), (4, 0)], 4)


@pytest.mark.django_db
@postgresql_only
def test_the_statement_runs_its_generic_plan_from_the_first_execute(grouped):
    # A custom plan (planned anew at each EXECUTE) costs the database more than running the
    # statement; left to choose, PostgreSQL may pick it (submission_statement._GENERIC_PLANS).
    survey, gq, (red, blue) = grouped
    first, second = survey.questions.values_list("id", flat=True)
    with connection.cursor() as cursor:
        cursor.execute("DEALLOCATE ALL")  # prepared afresh below, whatever ran before
        cursor.execute("RESET plan_cache_mode")
    for option in (red, blue, red, red, blue, red, blue):
        assert statement_insert(survey, {first: True, second: False}, groups={gq.pk: option})
    for _ in range(7):  # the form without grouping answers: refused, the question is required
        assert statement_insert(survey, {first: False, second: True}) is False
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT generic_plans, custom_plans FROM pg_prepared_statements"
            " WHERE name LIKE 'rrsurvey_submission_%%'"
        )
        plans = cursor.fetchall()
    assert len(plans) == 2  # with and without grouping answers
    assert all(custom == 0 and generic >= 6 for generic, custom in plans), plans
    assert group_state(survey)[2] == sorted([(red, 4), (blue, 3)])


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("writer", ["database", "oracle"])
@pytest.mark.parametrize("change", ["deleted", "added"])
def test_a_question_changed_after_the_body_was_made_refuses_the_whole_submission(
    open_survey, change, writer
):
    target = selectors.submission_target(slug=open_survey.slug)  # read, then the change
    question_ids = target.question_ids
    if change == "deleted":
        Question.objects.filter(pk=max(question_ids)).delete()
    else:  # past the services, which refuse it for an opened survey (e.g. a database shell)
        Question.objects.create(survey=open_survey, position=2, text="A late question?")
    prepared = submissions.PreparedSubmission(
        slug=open_survey.slug,
        clean=submissions.CleanSubmission(
            submission_uuid=uuid.uuid4(),
            answers=dict.fromkeys(question_ids, True),
            groups={},
            fingerprint=None,
        ),
        received=timezone.now(),
    )
    chosen = submissions.writer() if writer == "database" else submissions.oracle
    assert chosen.write(prepared) is False
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
    # The survey's own statements, not the rate limit's counter nor the test's savepoints;
    # the statement is prepared once per database connection, not per request.
    ours = survey_statements(queries.captured_queries)
    # PostgreSQL: one statement that checks and writes; SQLite: in one transaction, the survey
    # read for the contract (its row; its questions and options), the INSERT of the submission,
    # its tally row read and written, and its day's tally read and written.
    assert len(ours) == (1 if connection.vendor == "postgresql" else 7), ours


@pytest.mark.django_db
@postgresql_only
def test_a_first_response_is_one_statement(open_survey, respondent):
    # The design is frozen when the survey opens, so its first response needs no other path.
    body = {"submission_id": str(uuid.uuid4()), "answers": answers_for(open_survey, [True, False])}
    url = f"/api/v1/public/surveys/{open_survey.slug}/responses/"
    with CaptureQueriesContext(connection) as queries:
        response = respondent.post(url, body, format="json")
    assert response.status_code == 201
    assert stored_state(open_survey) == (1, 2, [(1, 1), (1, 0)], 1)
    # No read of the survey first: the statement checks that the survey is not batched
    # (statement._BATCHED), so this process need not have seen it.
    ours = survey_statements(queries.captured_queries)
    assert len(ours) == 1 and ours[0].startswith("EXECUTE"), ours
    second = {"submission_id": str(uuid.uuid4()), "answers": answers_for(open_survey, [True, True])}
    with CaptureQueriesContext(connection) as queries:
        assert respondent.post(url, second, format="json").status_code == 201
    # No read of the survey either: only the statement run by name.
    ours = survey_statements(queries.captured_queries)
    assert len(ours) == 1 and ours[0].startswith("EXECUTE"), ours


def held_statement_insert(survey, answers, *, held):
    """Whether the statement stored the submission in its held form (``held``) or not."""
    clean = submissions.CleanSubmission(
        submission_uuid=uuid.uuid4(), answers=answers, groups={}, fingerprint=None
    )
    prepared = submissions.PreparedSubmission(
        slug=survey.slug, clean=clean, received=timezone.now(), held=held
    )
    return submissions.writer().write(prepared)


@pytest.mark.django_db(transaction=True)
@postgresql_only
@pytest.mark.parametrize(
    ("status", "fields", "batched"),
    [
        ("open", {}, False),
        ("open", {"release_batch": 3}, True),
        ("open", {"access": "both"}, True),  # limits.RELEASE_BATCH_INVITATION
        ("pilot", {"release_batch": 3}, False),  # a pilot is never batched
    ],
)
def test_the_statement_stores_nothing_in_a_form_that_does_not_fit_the_surveys_batches(
    make_survey, status, fields, batched
):
    survey = make_survey(questions=("Q?",), status=status, **fields)
    answers = {survey.questions.get().pk: True}
    assert held_statement_insert(survey, answers, held=not batched) is False
    assert Submission.all_objects.filter(survey=survey).count() == 0
    assert held_statement_insert(survey, answers, held=batched) is True
    assert Submission.all_objects.filter(survey=survey, held=batched).count() == 1
    survey.refresh_from_db()
    assert survey.response_count == (0 if batched else 1)


@pytest.mark.django_db(transaction=True)
@postgresql_only
@pytest.mark.parametrize("fields", [{"release_batch": 3}, {"access": "both"}])
def test_a_batched_survey_this_process_has_not_seen_is_read_once_and_its_response_held(
    make_survey, respondent, fields
):
    # Without a token, a survey the process has not seen is taken for one that is not batched;
    # the statement stores nothing in that form, so the survey is read and the submission
    # stored held; the process then keeps the survey, and the next is one statement.
    survey = make_survey(questions=("Q?",), **fields)
    question = survey.questions.get().pk
    url = f"/api/v1/public/surveys/{survey.slug}/responses/"
    executed = []
    for bit in (True, False):
        body = {"submission_id": str(uuid.uuid4()), "answers": {str(question): bit}}
        with CaptureQueriesContext(connection) as queries:
            assert respondent.post(url, body, format="json").status_code == 201
        executed.append(
            (
                # A held submission's statement is sent as "BEGIN; EXECUTE ...; COMMIT; <count>"
                sum("EXECUTE rrsurvey_submission" in q["sql"] for q in queries.captured_queries),
                sum(
                    '"surveys_survey"."release_batch"' in q["sql"] for q in queries.captured_queries
                ),
            )
        )
    assert executed == [(2, 1), (1, 0)]
    assert Submission.all_objects.filter(survey=survey, held=True).count() == 2
    survey.refresh_from_db()
    assert survey.response_count == 0  # held for a batch of 3 (or 10)


@pytest.fixture
def grouped(make_survey):
    survey = make_survey(status="draft")
    gq = grouping.grouping_question_add(
        survey=survey, text="Team?", options=["Red", "Blue"], required=True
    )
    survey = services.survey_open(survey=survey)
    return survey, gq, list(gq.options.values_list("id", flat=True))


def group_state(survey):
    return (
        sorted(GroupAnswer.objects.values_list("option_id", flat=True)),
        sorted(GroupTally.objects.totals()),
        sorted(
            (oid, n) for _gid, oid, n in GroupingTally.objects.filter(option__isnull=False).totals()
        ),
    )


@pytest.mark.django_db
def test_grouping_answers_through_the_endpoint_are_stored_once_and_counted(grouped, respondent):
    survey, gq, (red, blue) = grouped
    first, second = survey.questions.values_list("id", flat=True)
    url = f"/api/v1/public/surveys/{survey.slug}/responses/"
    sid = str(uuid.uuid4())
    bodies = [
        {"submission_id": sid, "answers": {first: True, second: False}, "groups": {gq.pk: red}},
        {"submission_id": sid, "answers": {first: False, second: True}, "groups": {gq.pk: blue}},
        {
            "submission_id": str(uuid.uuid4()),
            "answers": {first: True, second: True},
            "groups": {str(gq.pk): str(red)},
        },
    ]
    with CaptureQueriesContext(connection) as queries:
        responses = [respondent.post(url, body, format="json") for body in bodies]
    assert [r.status_code for r in responses] == [201, 201, 201]
    assert stored_state(survey) == (2, 4, [(2, 2), (2, 1)], 2)
    assert group_state(survey) == (
        [red, red],
        sorted(
            [(first, red, 2, 2), (second, red, 2, 1), (first, blue, 0, 0), (second, blue, 0, 0)]
        ),
        sorted([(red, 2), (blue, 0)]),
    )
    if connection.vendor == "postgresql":
        # One statement per new submission; the replay's statement stores nothing, then the
        # survey is read (2) and the earlier submission found (1) to answer as the first time.
        executed = [q for q in queries.captured_queries if q["sql"].startswith("EXECUTE")]
        assert len(executed) == 3


@pytest.mark.django_db
@pytest.mark.parametrize("case", ["another question's option", "no answer", "unknown option"])
def test_a_bad_grouping_answer_stores_nothing_and_names_the_field(grouped, respondent, case):
    survey, gq, (red, _blue) = grouped
    other = grouping.grouping_question_add(
        survey=Survey.objects.create(owner=survey.owner, title="Other"),
        text="Age?",
        options=["Young", "Old"],
    )
    groups = {
        "another question's option": {gq.pk: other.options.first().pk},
        "no answer": {},
        "unknown option": {gq.pk: red + 1000},
    }[case]
    body = {
        "submission_id": str(uuid.uuid4()),
        "answers": answers_for(survey, [True, True]),
        "groups": groups,
    }
    response = respondent.post(
        f"/api/v1/public/surveys/{survey.slug}/responses/", body, format="json"
    )
    assert response.status_code == 400
    field = f"groups.{gq.pk}" if case == "no answer" else "groups"
    assert field in response.json()["errors"]
    assert stored_state(survey) == (0, 0, [(0, 0), (0, 0)], 0)
    assert group_state(survey)[0] == []


@pytest.mark.django_db
def test_tally_rows_missing_at_a_first_grouped_response_are_created(grouped):
    # A survey opened before tally rows were created at opening: the statement creates the
    # chosen option's rows and the service adds the zero rows of the others.
    survey, gq, (red, blue) = grouped
    GroupTally.objects.all().delete()
    first, second = survey.questions.values_list("id", flat=True)
    assert statement_insert(survey, {first: True, second: False}, groups={gq.pk: blue}) is True
    services.submission_receive(
        slug=survey.slug,
        submission_id=uuid.uuid4(),
        answers={first: False, second: False},
        groups={gq.pk: red},
    )
    assert group_state(survey)[1] == sorted(
        [(first, red, 1, 0), (second, red, 1, 0), (first, blue, 1, 1), (second, blue, 1, 0)]
    )


@pytest.mark.django_db
def test_the_orm_transaction_stores_what_the_statement_would(grouped, settings):
    settings.SUBMISSION_STATEMENT = False
    survey, gq, (red, _blue) = grouped
    first, second = survey.questions.values_list("id", flat=True)
    sid = uuid.uuid4()
    for _attempt in range(2):
        outcome = services.submission_receive(
            slug=survey.slug,
            submission_id=str(sid),
            answers={str(first): True, str(second): False},
            groups={str(gq.pk): red},
        )
        assert outcome.questions_answered == 2
    assert stored_state(survey) == (1, 2, [(1, 1), (1, 0)], 1)
    assert group_state(survey)[2][0] == (red, 1)


@pytest.mark.django_db(transaction=True)
@postgresql_only
@pytest.mark.parametrize("fields", [{}, {"release_batch": 3}])
def test_a_survey_this_process_has_answered_is_not_served_from_what_it_kept_once_it_changes(
    make_survey, respondent, fields
):
    # The first response reads nothing (a link survey) or keeps the survey's batches in the
    # process (batches.batch_target); what it kept must not let a closed, trashed or purged
    # survey take a response, nor keep a reopened one from taking one. Outside a test
    # transaction: the statement's own commit, as in production.
    survey = make_survey(questions=("Q?",), **fields)
    question = survey.questions.get().pk
    url = f"/api/v1/public/surveys/{survey.slug}/responses/"

    def status_of_a_submission():
        body = {"submission_id": str(uuid.uuid4()), "answers": {str(question): True}}
        return respondent.post(url, body, format="json").status_code

    def stored():
        return Submission.all_objects.filter(survey_id=survey.pk).count()

    assert [status_of_a_submission(), status_of_a_submission()] == [201, 201]
    services.survey_close(survey=survey)
    assert status_of_a_submission() == 409
    assert stored() == 2
    services.survey_open(survey=survey)  # reopened: it takes responses again
    assert status_of_a_submission() == 201
    assert stored() == 3
    services.survey_delete(survey=survey)  # to the trash
    assert status_of_a_submission() == 404
    Survey.all_objects.filter(pk=survey.pk).delete()  # purged
    assert status_of_a_submission() == 404
    assert stored() == 0
