"""The raw reports as blocks of columns of numbers, for the SPSS and Stata files
(``exports.spss_stata``): each block's submission ids, days received and, per later column of
the file, one value per submission.

A cell of a question's, a comprehension check's, a grouping question's or a position's column
is a float: the report (a yes/no report 1/0, an option's index, a number), a grouping answer's
code (1…k in the codebook's order, ``exports.spss_stata``), ``SKIPPED`` (NaN) for an empty cell,
``PREFER_NOT`` (-inf) for ``prefer_not_to_say``, ``NOT_IN_CODEBOOK`` (+inf) for an option the
codebook does not list. A direct text answer's column is a list of ``str`` (``None`` skipped).

On PostgreSQL, for a survey without text answers, the database computes those numbers itself
and sends them in one ``COPY (SELECT ...) TO STDOUT (FORMAT BINARY)``: every field a fixed size
and never NULL, so every row is the same number of bytes and a block of rows is read by numpy
in one call, nothing done per row or per cell in Python (issue 34: ten million rows in
seconds, as the CSV's ``COPY``, ``exports.csv_postgres``). Otherwise (SQLite, a survey with
text answers) the rows of ``exports.csv.report_rows`` are turned into the same columns, which
is what the tests hold the database's columns to.
"""

import math
from collections.abc import Iterator
from datetime import date
from itertools import islice
from typing import NamedTuple

import numpy as np
from django.db import connection, transaction
from psycopg import sql

from ..models import PREFER_NOT_TO_SAY, question_key
from .codebook import TYPE_DIRECT_TEXT, Codebook
from .csv import report_rows
from .csv_blocks import READ_ROWS
from .csv_postgres import released_rows_query

SKIPPED = math.nan
PREFER_NOT = -math.inf
NOT_IN_CODEBOOK = math.inf
# A submission id as text: a UUID's 36 characters.
ID_BYTES = 36
# Bytes of rows read at once from the COPY: about 6,000 rows of a ten-question survey.
BLOCK_BYTES = 1024 * 1024

# The binary COPY's header (PostgreSQL's "COPY" page, "Binary Format") and trailer.
_SIGNATURE = b"PGCOPY\n\xff\r\n\x00"
_TRAILER = b"\xff\xff"
# A date in the binary format: days since 2000-01-01.
_POSTGRES_EPOCH = date(2000, 1, 1).toordinal()


class ReportColumns(NamedTuple):
    """``rows`` submissions: ``ids`` (``rows`` × 36 bytes, ASCII), ``days`` (each day
    received as ``date.toordinal()``) and ``cells``, one column per later column of the file
    (a float array, or a list of ``str`` for a text answer's)."""

    rows: int
    ids: np.ndarray
    days: np.ndarray
    cells: list


def report_column_blocks(
    codebook: Codebook, kinds: list[str], codes: list[dict], *, rows_per_block: int = READ_ROWS
) -> Iterator[ReportColumns]:
    """The raw reports in blocks of columns, in the file's row order (by submission id).
    ``kinds`` and ``codes`` hold, per column after the date, the codebook's type and, for a
    grouping question's column, its ``{label: code}`` (empty for any other column).

    On PostgreSQL the connection is in a ``COPY`` until the last block is read: read it to the
    end or close it (``contextlib.closing``) before using the connection again."""
    if connection.vendor == "postgresql" and TYPE_DIRECT_TEXT not in kinds:
        yield from _copied_blocks(codebook, codes)
        return
    yield from _python_blocks(codebook, kinds, codes, rows_per_block=rows_per_block)


# --- from the rows, in Python -----------------------------------------------------------------


def cell_number(cell, codes: dict) -> float:
    """A raw reports cell (``report_rows(label=str)``) as this module's float."""
    if cell is None:
        return SKIPPED
    if cell == PREFER_NOT_TO_SAY:
        return PREFER_NOT
    if codes:
        return float(codes.get(cell, NOT_IN_CODEBOOK))
    return float(cell)


def _python_blocks(codebook, kinds, codes, *, rows_per_block):
    text = {index for index, kind in enumerate(kinds) if kind == TYPE_DIRECT_TEXT}
    rows = report_rows(codebook, label=str, chunk_size=rows_per_block)
    next(rows)
    while block := list(islice(rows, rows_per_block)):
        ids = "".join(str(row[0]) for row in block).encode()
        columns = list(zip(*block, strict=True))
        cells = [
            list(column)
            if index in text
            else np.array([cell_number(cell, code) for cell in column], dtype=np.float64)
            for index, (column, code) in enumerate(zip(columns[2:], codes, strict=True))
        ]
        yield ReportColumns(
            rows=len(block),
            ids=np.frombuffer(ids, dtype=np.uint8).reshape(len(block), ID_BYTES),
            days=np.array([day.toordinal() for day in columns[1]], dtype=np.int64),
            cells=cells,
        )


# --- from PostgreSQL, by a binary COPY --------------------------------------------------------


def _float(expression: sql.Composable) -> sql.Composable:
    return sql.SQL("({e})::float8").format(e=expression)


def _report_cell(key: str) -> sql.Composable:
    """A report as a float: a yes/no report 1/0 (JSON true/false), a number as it is, a skip
    NaN (the key absent)."""
    report = sql.SQL("(s.reports ->> {key})").format(key=sql.Literal(key))
    return sql.SQL(
        "CASE {r} WHEN 'true' THEN 1::float8 WHEN 'false' THEN 0::float8 "
        "ELSE coalesce({r}::float8, 'NaN'::float8) END"
    ).format(r=report)


def _grouping_cell(alias: sql.Identifier, grouping_question, code: dict) -> sql.Composable:
    """A grouping answer's code: NaN with no answer, -inf for an answer without an option
    (prefer not to say), +inf for an option the codebook does not list."""
    choices = [
        sql.SQL("WHEN {id} THEN {code}").format(
            id=sql.Literal(option.pk), code=sql.Literal(float(code[option.label]))
        )
        for option in grouping_question.options.all()
        if option.label in code
    ]
    chosen = (
        sql.SQL("CASE {a}.option_id {choices} END").format(
            a=alias, choices=sql.SQL(" ").join(choices)
        )
        if choices
        else sql.SQL("NULL")
    )
    return sql.SQL(
        "CASE WHEN {a}.id IS NULL THEN 'NaN'::float8 "
        "WHEN {a}.option_id IS NULL THEN '-Infinity'::float8 "
        "ELSE coalesce(({chosen})::float8, 'Infinity'::float8) END"
    ).format(a=alias, chosen=chosen)


def report_columns_query(codebook: Codebook, codes: list[dict]) -> sql.Composed:
    """One row per released submission of the survey, ordered by submission id (the order of
    every raw export): its id as text, its day, then one float per column, never NULL."""
    fields = [sql.SQL("s.submission_id::text"), sql.SQL("s.received_on")]
    fields += [
        _float(_report_cell(question_key(question.pk)))
        for question in [*codebook.questions, *codebook.comprehension]
    ]
    first_grouping = len(codebook.questions) + len(codebook.comprehension)
    return released_rows_query(
        codebook,
        leading=fields,
        grouping_cell=lambda alias, grouping_question, index: _grouping_cell(
            alias, grouping_question, codes[first_grouping + index]
        ),
        position_cell=lambda key: sql.SQL(
            "coalesce((s.positions ->> {key})::float8, 'NaN'::float8)"
        ).format(key=key),
        separator=sql.SQL(", "),
    )


def binary_row_type(columns: int) -> np.dtype:
    """One row of the binary COPY: the field count, then each field's length and value
    (big-endian): the id's 36 bytes of text, the date, ``columns`` float8s."""
    fields = [("count", ">i2"), ("id_length", ">i4"), ("id", "u1", (ID_BYTES,))]
    fields += [("day_length", ">i4"), ("day", ">i4")]
    for index in range(columns):
        fields += [(f"length_{index}", ">i4"), (f"cell_{index}", ">f8")]
    return np.dtype(fields)


def parse_binary_rows(data, columns: int) -> ReportColumns:
    """Whole rows of the binary COPY (``binary_row_type``) as columns; checks that every
    field has the length it must (a NULL, or a value of another type, would not)."""
    row_type = binary_row_type(columns)
    rows = np.frombuffer(data, dtype=row_type)
    lengths = [("count", 2 + columns), ("id_length", ID_BYTES), ("day_length", 4)]
    lengths += [(f"length_{index}", 8) for index in range(columns)]
    for name, length in lengths:
        if not (rows[name] == length).all():
            raise ValueError(f"binary COPY: a field {name} other than {length}")
    return ReportColumns(
        rows=len(rows),
        ids=rows["id"],
        days=rows["day"].astype(np.int64) + _POSTGRES_EPOCH,
        cells=[rows[f"cell_{index}"].astype(np.float64) for index in range(columns)],
    )


def binary_blocks(chunks, columns: int, *, block_bytes: int = BLOCK_BYTES):
    """The ``ReportColumns`` of a binary COPY's bytes, given as ``chunks`` of any size, in
    blocks of about ``block_bytes``."""
    row_bytes = binary_row_type(columns).itemsize
    pending, started = bytearray(), False
    for chunk in chunks:
        pending += chunk
        if not started:
            if len(pending) < len(_SIGNATURE) + 8:
                continue
            if not pending.startswith(_SIGNATURE):
                raise ValueError("binary COPY: not PostgreSQL's binary format")
            extension = int.from_bytes(pending[len(_SIGNATURE) + 4 : len(_SIGNATURE) + 8], "big")
            del pending[: len(_SIGNATURE) + 8 + extension]
            started = True
        if len(pending) >= block_bytes:
            # The trailer's 2 bytes may be the last ones: never taken for a row's.
            whole = (len(pending) - len(_TRAILER)) // row_bytes * row_bytes
            if whole:
                yield parse_binary_rows(bytes(pending[:whole]), columns)
                del pending[:whole]
    whole = (len(pending) - len(_TRAILER)) // row_bytes * row_bytes
    if not started or pending[whole:] != _TRAILER:
        raise ValueError("binary COPY: the data does not end with the trailer")
    if whole:
        yield parse_binary_rows(bytes(pending[:whole]), columns)


def _copied_blocks(codebook, codes):
    query = report_columns_query(codebook, codes)
    statement = sql.SQL("COPY ({query}) TO STDOUT (FORMAT BINARY)").format(query=query)
    # In a savepoint of its own, as the CSV's COPY (``exports.csv_blocks``): a COPY left
    # half-read is cancelled, and that must not abort the caller's transaction.
    with (
        transaction.atomic(),
        connection.cursor() as cursor,
        cursor.cursor.copy(statement) as copy,
    ):
        # Each message is a view of libpq's buffer: copied into the block at once.
        yield from binary_blocks(copy, len(codes), block_bytes=BLOCK_BYTES)
