"""Simulated submissions stored in bulk, one chunk per transaction (``simulation``'s
``simulated_submissions_record``): the chunk's rows, then every count a submission adds to.

The rows: on PostgreSQL, the chunk's arrays go by one binary ``COPY`` into a temporary table,
and one ``INSERT ... SELECT`` per table makes the submissions (their reports as JSON, their
ids drawn by the server, ``gen_random_uuid``) and grouping answers from it; on SQLite, the
ORM's ``bulk_create``. The counts: one function per table (``TALLY_WRITERS``), each adding to
its table, from the chunk's arrays, what the chunk's submissions stored one by one (the
submission statement, ``submissions/statement.py``) would have added, so the tables end as
they would have (``tests/surveys/services/test_simulation_bulk.py`` holds the two paths
equal). Sharded tables get it all in shard 0: a reader sums the shards.
"""

import os
import struct
import uuid
from dataclasses import dataclass
from datetime import date

import numpy as np
from django.db import IntegrityError, connection, transaction

from .. import selectors
from ..models import (
    GroupAnswer,
    Question,
    Submission,
    group_cell_key,
    group_cells_kept,
    question_key,
)
from ..selectors.public_results import RESPONDENTS, option_key, reports_key
from .group_tallies import group_tallies_add
from .tallies import (
    day_tally_add,
    group_cells_bulk_add,
    grouping_tallies_add,
    numeric_tallies_bulk_add,
    tally_add,
)


@dataclass(frozen=True)
class Chunk:
    """Simulated submissions of one survey, stored and counted together: ``reports`` (n ×
    questions, as ``simulation.simulated_reports_draw`` draws them), ``options`` (n × grouping
    questions, option ids), all received on ``received_on``."""

    survey_id: int
    questions: list
    grouping: list
    reports: np.ndarray
    options: np.ndarray
    received_on: date

    @property
    def size(self) -> int:
        return int(self.reports.shape[0])

    @property
    def kinds(self) -> list:
        """Per question, how its report is stored: ``bool`` for a yes/no bit, ``int`` for the
        rest (an option's index, a number, a cheating-detection or compared question's code)."""
        return [report_kind(question) for question in self.questions]

    def bit_columns(self):
        """(column, question) of every question whose report is a bit."""
        return [
            (column, question)
            for column, (question, kind) in enumerate(zip(self.questions, self.kinds, strict=True))
            if kind is bool
        ]


def report_kind(question):
    if (
        question.kind == Question.Kind.YES_NO
        and not question.compare_direct
        and not selectors.is_cheating_detection(question)
    ):
        return bool
    return int


# --- the counts: one function per table ---------------------------------------------------


def simulated_tallies(questions, reports, total) -> dict:
    """The tally vector of each question's column of reports (``dpengine.report_tally``
    summed over the rows, as the statement sums them: a choice or code vector as long as its
    highest report needs)."""
    tallies = {}
    for question, column in zip(questions, reports.T, strict=True):
        values = column.astype(np.int64)
        if (
            selectors.is_cheating_detection(question)
            or question.compare_direct
            or question.kind == Question.Kind.CHOICE
        ):
            tallies[question.pk] = [total, *map(int, np.bincount(values))]
        elif question.kind == Question.Kind.NUMERIC:
            tallies[question.pk] = [total, int(values.sum()), int((values * values).sum())]
        else:
            tallies[question.pk] = [total, int(values.sum())]
    return tallies


def simulated_histograms(questions, reports) -> dict:
    """``{(question id, report): reports}`` of each randomized numeric question's column."""
    counts = {}
    for question, column in zip(questions, reports.T, strict=True):
        if question.kind == Question.Kind.NUMERIC and question.randomized:
            values, numbers = np.unique(column.astype(np.int64), return_counts=True)
            for value, number in zip(values.tolist(), numbers.tolist(), strict=True):
                counts[question.pk, value] = number
    return counts


@transaction.atomic
def _tally_shard_add(chunk):
    tally_add(
        chunk.survey_id,
        responses=chunk.size,
        reports=simulated_tallies(chunk.questions, chunk.reports, chunk.size),
    )


def _day_tally_add(chunk):
    """``tallies.day_counts`` summed over the chunk."""
    counts = {RESPONDENTS: chunk.size}
    for column, question in chunk.bit_columns():
        counts[question_key(question.pk)] = int(np.count_nonzero(chunk.reports[:, column]))
        counts[reports_key(question.pk)] = chunk.size
    values, numbers = np.unique(chunk.options, return_counts=True)
    for option, number in zip(values.tolist(), numbers.tolist(), strict=True):
        counts[option_key(option)] = number
    day_tally_add(chunk.survey_id, day=chunk.received_on, counts=counts)


def _numeric_tally_add(chunk):
    numeric_tallies_bulk_add(simulated_histograms(chunk.questions, chunk.reports))


def _bit_counts(chunk, rows_in):
    """``{(question id, cell): (reports, yes reports)}`` of each bit question, per cell of
    ``rows_in`` (an index per row, its cell; ``cells`` of them)."""
    index, cells = rows_in
    reports = np.bincount(index, minlength=len(cells))
    counts = {}
    for column, question in chunk.bit_columns():
        yes = np.bincount(index, weights=chunk.reports[:, column], minlength=len(cells))
        for cell, n, y in zip(cells, reports.tolist(), yes.tolist(), strict=True):
            if n:
                counts[question.pk, cell] = (n, int(y))
    return counts


@transaction.atomic
def _group_tally_add(chunk):
    """Per (bit question, chosen option): reports and yes reports."""
    counts = {}
    for position in range(len(chunk.grouping)):
        options, index = np.unique(chunk.options[:, position], return_inverse=True)
        counts.update(_bit_counts(chunk, (index, options.tolist())))
    group_tallies_add(counts)


def _group_cell_add(chunk):
    """Per (bit question, whole combination of grouping answers): the regression's cells, in
    a survey that keeps them (``models.group_cells_kept``)."""
    if not group_cells_kept(len(chunk.grouping)):
        return
    combinations, index = np.unique(chunk.options, axis=0, return_inverse=True)
    gids = [gq.pk for gq in chunk.grouping]
    keys = [group_cell_key(dict(zip(gids, row, strict=True))) for row in combinations.tolist()]
    group_cells_bulk_add(_bit_counts(chunk, (index.reshape(-1), keys)))


def _option_count_add(chunk):
    """Per (grouping question, chosen option): respondents, in shard 0."""
    counts = {}
    for position, grouping in enumerate(chunk.grouping):
        values, numbers = np.unique(chunk.options[:, position], return_counts=True)
        pairs = zip(values.tolist(), numbers.tolist(), strict=True)
        counts.update({(grouping.pk, option): n for option, n in pairs})
    grouping_tallies_add(counts)


# Every table a submission counts itself in, in the order the statement locks their rows. Its
# declined counts are not here: a simulated respondent answers every grouping question.
TALLY_WRITERS = (
    _group_tally_add,
    _group_cell_add,
    _option_count_add,
    _numeric_tally_add,
    _day_tally_add,
    _tally_shard_add,
)


def chunk_record(chunk):
    """Store ``chunk``'s submissions and add them to every count, in the caller's transaction."""
    if connection.vendor == "postgresql":
        _rows_copy(chunk)
    else:
        _rows_create(chunk)
    for writer in TALLY_WRITERS:
        writer(chunk)


# --- the rows ------------------------------------------------------------------------------


def _rows_create(chunk):
    keys = [question_key(question.pk) for question in chunk.questions]
    kinds = chunk.kinds
    submissions = Submission.objects.bulk_create(
        Submission(
            survey_id=chunk.survey_id,
            submission_id=uuid.uuid4(),
            received_on=chunk.received_on,
            reports={key: kind(value) for key, kind, value in zip(keys, kinds, row, strict=True)},
        )
        for row in chunk.reports.tolist()
    )
    GroupAnswer.objects.bulk_create(
        GroupAnswer(submission=submission, grouping_question=gq, option_id=option)
        for submission, row in zip(submissions, chunk.options.tolist(), strict=True)
        for gq, option in zip(chunk.grouping, row, strict=True)
    )


_STAGING = "rrsurvey_simulated"
# PostgreSQL's binary COPY: a signature, flags, a header extension's length; -1 at the end.
_COPY_HEADER = b"PGCOPY\n\xff\r\n\x00" + struct.pack(">ii", 0, 0)
_COPY_TRAILER = struct.pack(">h", -1)


def copy_binary(columns) -> bytes:
    """``columns`` (equal-length integer arrays) as the rows of a binary COPY of bigints:
    per row the field count, then each field's length (8) and value, big-endian."""
    dtype = np.dtype(
        [("fields", ">i2")]
        + [
            (f"{kind}{i}", f">i{size}")
            for i in range(len(columns))
            for kind, size in (("length", 4), ("value", 8))
        ]
    )
    rows = np.empty(len(columns[0]) if columns else 0, dtype=dtype)
    rows["fields"] = len(columns)
    for i, values in enumerate(columns):
        rows[f"length{i}"] = 8
        rows[f"value{i}"] = values
    return _COPY_HEADER + rows.tobytes() + _COPY_TRAILER


def _random_keys(n):
    """``n`` keys as ``models.random_key`` draws them: 63 random bits from the system."""
    return np.frombuffer(os.urandom(8 * n), dtype=np.uint64) >> np.uint64(1)


def _rows_copy(chunk):
    """The chunk's submissions and grouping answers, through a temporary table of its
    arrays: key, one report per question, then per grouping question an answer key and the
    option."""
    n, grouping = chunk.size, chunk.grouping
    reports = [f"r{j}" for j in range(len(chunk.questions))]
    answers = [(f"a{j}", f"o{j}") for j in range(len(grouping))]
    columns = ["id", *reports, *(name for pair in answers for name in pair)]
    # In key order, each table's keys drawn sorted (still random, and unrelated to the order
    # the rows were drawn in): a chunk then adds to each key index page by page, where keys
    # in draw order touch a page of a large index for nearly every row.
    values = [np.sort(_random_keys(n)), *chunk.reports.T.astype(np.int64)]
    for position in range(len(grouping)):
        values += [np.sort(_random_keys(n)), chunk.options[:, position]]
    pairs = [
        f"'{question_key(question.pk)}', {f'{r} <> 0' if kind is bool else r}"
        for question, kind, r in zip(chunk.questions, chunk.kinds, reports, strict=True)
    ]
    # A function takes at most 100 arguments: the object built 50 pairs at a time, joined.
    stored = " || ".join(
        f"jsonb_build_object({', '.join(pairs[start : start + 50])})"
        for start in range(0, max(len(pairs), 1), 50)
    )
    with connection.cursor() as cursor:
        # Simulated rows: a crash may lose the last chunks committed, never half of one.
        cursor.execute("SET LOCAL synchronous_commit = off")
        cursor.execute(
            f"CREATE TEMPORARY TABLE {_STAGING} ({', '.join(f'{c} bigint' for c in columns)})"
            " ON COMMIT DROP"
        )
        with cursor.copy(f"COPY {_STAGING} FROM STDIN (FORMAT BINARY)") as copy:
            copy.write(copy_binary(values))
        # A key drawn twice (about n²/2⁶⁴) stores fewer rows: the chunk is refused whole.
        cursor.execute(
            f"INSERT INTO {Submission._meta.db_table}"
            " (id, survey_id, submission_id, received_on, reports, positions, held)"
            f" SELECT id, %s, gen_random_uuid(), %s, {stored}, '{{}}', false"
            f" FROM {_STAGING} ORDER BY id ON CONFLICT DO NOTHING",
            [chunk.survey_id, chunk.received_on],
        )
        if cursor.rowcount != n:
            raise IntegrityError(f"{n - cursor.rowcount} simulated submission keys taken")
        for gq, (a, o) in zip(grouping, answers, strict=True):
            cursor.execute(
                f"INSERT INTO {GroupAnswer._meta.db_table}"
                " (id, submission_id, grouping_question_id, option_id)"
                f" SELECT {a}, id, %s, {o} FROM {_STAGING} ORDER BY id",
                [gq.pk],
            )
        cursor.execute(f"DROP TABLE {_STAGING}")
