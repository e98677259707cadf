"""No stored ordering follows the order in which submissions arrived (issue 24, item 3).

Submissions are sent in a known order and every ordering a reader of the database or of the
exports can use is compared with it: the submissions' keys, the grouping answers' keys (and,
on SQLite, the rowids and a plain table scan, which follows them), the raw reports export and
the same file over the API. No API route pages through submissions. The remaining limit,
PostgreSQL's physical row order, is in docs/respondent-page.md and tested at the end.

With n submissions and no relation, Spearman's ρ is about normal with standard deviation
1/√(n − 1): at n = 400 a bound of 0.2 is four standard deviations (a false alarm about once in
16,000 runs), while a counted key gives ρ = 1.
"""

import csv
import io
import uuid

import pytest
from django.db import connection
from django.test import override_settings
from django.urls import reverse
from scipy.stats import spearmanr

from surveys import services
from surveys.exports.codebook import survey_codebook
from surveys.exports.csv import report_csv_rows
from surveys.models import GroupAnswer, Submission
from surveys.services import grouping
from surveys.services.submissions import postgres, sqlite

pytestmark = pytest.mark.django_db

COUNT = 400
BOUND = 0.2
PATHS = pytest.mark.parametrize("statement", [True, False], ids=["statement", "orm"])


def send_in_order(survey, count):
    """Send ``count`` submissions one after another; their ids in sending order."""
    questions = list(survey.questions.values_list("id", flat=True))
    gq = survey.grouping_questions.get()
    options = list(gq.options.values_list("id", flat=True))
    sent = []
    for index in range(count):
        submission_id = uuid.uuid4()  # as the browser draws it
        services.submission_receive(
            slug=survey.slug,
            submission_id=str(submission_id),
            answers={str(qid): index % 3 == 0 for qid in questions},
            groups={str(gq.pk): options[index % 2]},
        )
        sent.append(submission_id)
    return sent


def rho(sent, ordered):
    """Spearman's ρ between the sending order and the order ``ordered`` lists them in."""
    position = {submission_id: index for index, submission_id in enumerate(sent)}
    assert sorted(position[sid] for sid in ordered) == list(range(len(sent)))
    return spearmanr(range(len(ordered)), [position[sid] for sid in ordered]).statistic


@pytest.fixture
def grouped_survey(make_survey):
    survey = make_survey(status="draft")
    grouping.grouping_question_add(survey=survey, text="Department?", options=("A", "B"))
    return services.survey_open(survey=survey)


@PATHS
@pytest.mark.slow
def test_no_key_follows_the_order_of_arrival(grouped_survey, statement):
    with override_settings(SUBMISSION_STATEMENT=statement):
        sent = send_in_order(grouped_survey, COUNT)
    by_key = list(
        Submission.objects.filter(survey=grouped_survey)
        .order_by("id")
        .values_list("submission_id", flat=True)
    )
    answers_by_key = list(
        GroupAnswer.objects.filter(submission__survey=grouped_survey)
        .order_by("id")
        .values_list("submission__submission_id", flat=True)
    )
    answers_by_submission_key = list(
        GroupAnswer.objects.filter(submission__survey=grouped_survey)
        .order_by("submission_id")
        .values_list("submission__submission_id", flat=True)
    )
    for name, ordered in {
        "submission keys": by_key,
        "grouping answer keys": answers_by_key,
        "grouping answers by their submission's key": answers_by_submission_key,
    }.items():
        assert abs(rho(sent, ordered)) < BOUND, name


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's rowid")
@pytest.mark.slow
def test_sqlite_rowids_and_table_scans_are_the_random_keys(grouped_survey):
    sent = send_in_order(grouped_survey, COUNT)
    tables = {
        "submission": (Submission._meta.db_table, "submission_id"),
        "grouping answer": (GroupAnswer._meta.db_table, "submission_id"),
    }
    with connection.cursor() as cursor:
        for name, (table, _column) in tables.items():
            cursor.execute(f"SELECT count(*) FROM {table} WHERE rowid <> id")
            assert cursor.fetchone() == (0,), f"{name}: the key is the rowid"
        # A scan without ORDER BY, as a reader of the file would walk the table.
        cursor.execute(f"SELECT submission_id FROM {tables['submission'][0]}")
        scanned = [uuid.UUID(value) for (value,) in cursor.fetchall()]
        cursor.execute(
            f"SELECT s.submission_id FROM {tables['grouping answer'][0]} AS a"
            f" JOIN {tables['submission'][0]} AS s ON s.id = a.submission_id ORDER BY a.rowid"
        )
        answers = [uuid.UUID(value) for (value,) in cursor.fetchall()]
    assert abs(rho(sent, scanned)) < BOUND
    assert abs(rho(sent, answers)) < BOUND


@pytest.mark.slow
def test_no_export_follows_the_order_of_arrival(grouped_survey, owner_api, owner_client):
    sent = send_in_order(grouped_survey, COUNT)
    files = {
        "reports file": list(report_csv_rows(survey_codebook(survey=grouped_survey))),
        "reports file, API": list(
            csv.reader(
                io.StringIO(
                    b"".join(
                        owner_api.get(
                            reverse(
                                "api:survey-responses-csv", kwargs={"survey_id": grouped_survey.pk}
                            )
                        ).streaming_content
                    ).decode()
                )
            )
        ),
        "reports file, page": list(
            csv.reader(
                io.StringIO(
                    b"".join(
                        owner_client.get(
                            reverse("surveys:responses-csv", kwargs={"pk": grouped_survey.pk})
                        ).streaming_content
                    ).decode()
                )
            )
        ),
    }
    for name, (header, *rows) in files.items():
        assert header[0] == "submission_id", name
        assert abs(rho(sent, [uuid.UUID(row[0]) for row in rows])) < BOUND, name


def test_a_key_already_taken_is_drawn_again(grouped_survey, monkeypatch):
    """Random keys can meet (about n²/2⁶⁴): the submission is then stored under a new draw,
    whole, never refused and never half-stored."""
    first = send_in_order(grouped_survey, 1)[0]
    taken = Submission.objects.get(submission_id=first).pk
    draws = iter([taken, 7, 8, 9, 10])
    for store in (postgres, sqlite):
        monkeypatch.setattr(store, "random_key", lambda: next(draws))
    second = send_in_order(grouped_survey, 1)[0]
    stored = Submission.objects.get(submission_id=second)
    assert stored.pk in (7, 8, 9, 10)  # a fresh draw (the grouping answer took the next)
    assert GroupAnswer.objects.filter(submission=stored).count() == 1
    assert Submission.objects.filter(survey=grouped_survey).count() == 2
