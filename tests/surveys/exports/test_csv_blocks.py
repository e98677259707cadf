"""The raw reports CSV in blocks (``exports.csv_blocks``): on PostgreSQL written by the database
itself (``exports.csv_postgres``, one COPY), on SQLite by Python; on both the bytes of the
csv writer over ``exports.csv.report_csv_rows``, whatever the cells hold (issue 28)."""

import csv
import io
import random
import uuid
from contextlib import closing
from datetime import date

import numpy as np
import pytest
from django.db import connection

from surveys import limits, services
from surveys.exports.codebook import survey_codebook
from surveys.exports.csv import csv_safe, report_csv_rows
from surveys.exports.csv_blocks import csv_blocks, report_csv_blocks
from surveys.exports.csv_postgres import csv_cell, report_lines_query
from surveys.models import GroupAnswer, GroupingOption, Submission, question_key
from surveys.services import grouping
from tests.helpers import MIXED_QUESTIONS, simulate_responses
from tests.surveys.exports import test_comprehension_exports

pytestmark = pytest.mark.django_db

# Everything a cell can hold that the CSV must quote or escape, or that COPY's text format
# escapes: commas, double quotes, line ends (LF, CR, both), tabs, backslashes (also at the
# end, before the line's own end), a formula's first characters, a leading quote, other
# control characters, other scripts.
HOSTILE = [
    "plain",
    "a,b",
    'say "hi"',
    "two\nlines",
    "carriage\rreturn",
    "windows\r\nline",
    "tab\there",
    "back\\slash",
    "ends with a backslash\\",
    "\\n is not a newline",
    "=HYPERLINK(1)",
    "+1",
    "-1",
    "@sum",
    "\tleading tab",
    "\rleading return",
    "'quoted already",
    "bell\x07 and \x08 backspace \x0b\x0c",
    '직장 내 괴롭힘, "없었다"',
    "",
    " spaced ",
]
TEXT_QUESTION = {"text": "Anything else?", "type": "text", "randomized": False, "required": False}


@pytest.fixture
def hostile(make_survey):
    """Every question type, a direct text question, and two grouping questions whose option
    labels are ``HOSTILE`` (stored as they are, past the builder's checks); 30 ordinary
    respondents, then one respondent per hostile text with every kind of grouping answer."""
    survey = make_survey(questions=[*MIXED_QUESTIONS, TEXT_QUESTION], min_n=1, status="draft")
    first = grouping.grouping_question_add(survey=survey, text="Team?", options=["x", "y"])
    second = grouping.grouping_question_add(survey=survey, text="Site?", options=["z", "w"])
    survey.status = "open"
    survey.save(update_fields=["status"])
    labels = iter(HOSTILE)
    for gq in (first, second):
        for position in range(len(HOSTILE) // 2):
            label = next(labels)
            GroupingOption.objects.update_or_create(
                grouping_question=gq, position=position, defaults={"label": label}
            )
    options = [list(gq.options.order_by("position")) for gq in (first, second)]
    keys = [question_key(pk) for pk in survey.questions.values_list("id", flat=True)]
    rng = random.Random(5)
    for _ in range(30):  # ordinary respondents (a text answer cannot be simulated)
        reports = {keys[0]: rng.random() < 0.5, keys[1]: rng.random() < 0.5}
        reports.update({keys[2]: rng.randrange(3), keys[3]: rng.randrange(-40, 70)})
        Submission.objects.create(
            survey=survey, submission_id=uuid.uuid4(), received_on=date(2026, 1, 8), reports=reports
        )
    for index, text in enumerate(HOSTILE):
        reports = {keys[0]: index % 2 == 0, keys[2]: index % 3, keys[3]: index - 10}
        if index % 5:
            reports[keys[1]] = False  # a skipped question otherwise
        if text or index % 2:
            reports[keys[4]] = text
        submission = Submission.objects.create(
            survey=survey, submission_id=uuid.uuid4(), received_on=date(2026, 1, 9), reports=reports
        )
        for gq, choices in zip((first, second), options, strict=True):
            kind = index % 4
            if kind == 3:
                continue  # no answer to this grouping question
            option = None if kind == 2 else choices[index % len(choices)]
            GroupAnswer.objects.create(submission=submission, grouping_question=gq, option=option)
    survey.refresh_from_db()
    return survey


def python_csv(survey) -> bytes:
    """The raw reports through Python's csv writer, every cell neutralised (the oracle)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    for row in report_csv_rows(survey_codebook(survey=survey)):
        writer.writerow([csv_safe(cell) for cell in row])
    return buffer.getvalue().encode()


@pytest.mark.parametrize("rows_per_block", [1, 7, 20000])
def test_the_blocks_are_the_python_writers_bytes(hostile, rows_per_block):
    blocks = list(report_csv_blocks(survey_codebook(survey=hostile), rows_per_block=rows_per_block))
    expected = python_csv(hostile)
    assert b"".join(block.data for block in blocks) == expected
    assert sum(block.rows for block in blocks) == 30 + len(HOSTILE)
    assert blocks[0].rows == 0  # the header
    assert all(0 < block.rows <= rows_per_block for block in blocks[1:])
    # Read back, every hostile text and label is there as written (escaped like a label).
    rows = list(csv.reader(io.StringIO(expected.decode(), newline="")))
    cells = {cell for row in rows[1:] for cell in row}
    for text in filter(None, HOSTILE):
        assert ("'" + text if text[0] in "=+-@\t\r'" else text) in cells


def test_the_python_path_writes_the_same_bytes(hostile):
    # On SQLite the only path, on PostgreSQL the COPY's twin: held to the same oracle.
    from surveys.exports.csv import report_csv_text_rows

    codebook = survey_codebook(survey=hostile)
    data = b"".join(b.data for b in csv_blocks(report_csv_text_rows(codebook), rows_per_block=4))
    assert data == python_csv(hostile)


def test_a_survey_without_grouping_questions_or_responses(make_survey):
    survey = make_survey()
    blocks = list(report_csv_blocks(survey_codebook(survey=survey), rows_per_block=10))
    assert [(block.data, block.rows) for block in blocks] == [
        (b"submission_id,received_on,Q1,Q2,P1,P2\r\n", 0)
    ]
    survey = simulate_responses(survey, n=25, seed=2, shares=[0.3, 0.6])
    data = b"".join(
        b.data for b in report_csv_blocks(survey_codebook(survey=survey), rows_per_block=10)
    )
    assert data == python_csv(survey)


def test_the_comprehension_checks_columns_are_written(make_survey):
    # C1, C2 after the questions: the COPY once wrote none of them under their header.
    survey = test_comprehension_exports.make_study(make_survey)
    data = b"".join(
        b.data for b in report_csv_blocks(survey_codebook(survey=survey), rows_per_block=2)
    )
    assert data == python_csv(survey)
    assert data.startswith(b"submission_id,received_on,Q1,Q2,C1,C2,P1,P2\r\n")


def test_a_survey_at_the_question_limits_is_joined_whole(make_survey):
    # More cells than one SQL function call takes (100 arguments): the line is joined in parts.
    survey = make_survey(
        questions=[f"Q{i}?" for i in range(limits.MAX_QUESTIONS)], min_n=1, status="draft"
    )
    for index in range(limits.MAX_GROUPING_QUESTIONS):
        grouping.grouping_question_add(survey=survey, text=f"G{index}?", options=["x", "y"])
    survey.status = "open"
    survey.save(update_fields=["status"])
    per_question = [list(gq.options.all()) for gq in survey.grouping_questions.all()]
    reports = services.simulated_reports_draw(
        survey=survey, shares=[0.4] * limits.MAX_QUESTIONS, n=12, rng=np.random.default_rng(4)
    )
    chosen = [[options[row % 2].pk for options in per_question] for row in range(12)]
    services.simulated_submissions_record(survey=survey, reports=reports, options=chosen)
    codebook = survey_codebook(survey=survey)
    assert len(codebook.columns) > 100
    data = b"".join(b.data for b in report_csv_blocks(codebook, rows_per_block=5))
    assert data == python_csv(survey)
    assert data.count(b"\r\n") == 13


def test_a_cell_is_quoted_as_the_csv_writer_quotes_it():
    assert [csv_cell(text) for text in ("a", "a,b", 'q"', "n\n", "r\r", "t\t", "")] == [
        "a",
        '"a,b"',
        '"q"""',
        '"n\n"',
        '"r\r"',
        "t\t",
        "",
    ]


@pytest.mark.skipif("connection.vendor != 'postgresql'")
def test_one_statement_reads_every_row_in_submission_id_order(hostile):
    codebook = survey_codebook(survey=hostile)
    with connection.cursor() as cursor:
        text = report_lines_query(codebook, label=str).as_string(cursor.cursor)
        cursor.execute(text)
        lines = [row[0] for row in cursor.fetchall()]
    ids = list(
        Submission.objects.filter(survey=hostile)
        .order_by("submission_id")
        .values_list("submission_id", flat=True)
    )
    assert [line[:36] for line in lines] == [str(pk) for pk in ids]
    assert text.count("SELECT") == 1


def test_blocks_closed_half_way_leave_the_connection_usable(hostile):
    # An export past its time stops reading (exports.kinds.build_direct): on PostgreSQL the
    # COPY is cancelled, in a savepoint of its own, and the request goes on to make a job.
    blocks = report_csv_blocks(survey_codebook(survey=hostile), rows_per_block=5)
    with closing(blocks):
        next(blocks)
        assert next(blocks).rows == 5
    assert Submission.objects.filter(survey=hostile).count() == 30 + len(HOSTILE)
    again = b"".join(
        b.data for b in report_csv_blocks(survey_codebook(survey=hostile), rows_per_block=5)
    )
    assert again == python_csv(hostile)


@pytest.mark.skipif("connection.vendor != 'postgresql'")
def test_a_copy_stopped_while_the_database_still_sends_leaves_the_transaction_usable(
    make_survey,
):
    # Enough rows that the database is still sending when reading stops: the COPY is
    # cancelled (not merely read to its end), inside a savepoint of its own.
    survey = make_survey()
    keys = [question_key(pk) for pk in survey.questions.values_list("id", flat=True)]
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO surveys_submission (id, survey_id, submission_id, received_on, reports) "
            "SELECT (random() * 9e18)::bigint, %s, gen_random_uuid(), current_date, "
            "jsonb_build_object(%s, random() < 0.5, %s, random() < 0.5) "
            "FROM generate_series(1, 200000)",
            [survey.pk, *keys],
        )
    blocks = report_csv_blocks(survey_codebook(survey=survey), rows_per_block=1000)
    with closing(blocks):
        assert [next(blocks).rows, next(blocks).rows] == [0, 1000]
        with connection.cursor() as cursor:
            assert cursor.connection.info.transaction_status.name == "ACTIVE"  # still sending
    assert Submission.objects.filter(survey=survey).count() == 200000
