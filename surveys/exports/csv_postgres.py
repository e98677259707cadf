"""The raw reports CSV written by PostgreSQL itself: one ``COPY (SELECT ...) TO STDOUT``.

The same bytes as Python's ``csv`` writer over ``exports.csv.report_csv_text_rows`` (the
SQLite path, and the oracle of tests/surveys/exports/test_csv_blocks.py), at a fraction of
the cost (issue 28): the database takes each report out of the JSON, writes it as the CSV
does (a yes/no report 1/0, a skip empty), puts each grouping answer's cell beside it (one
left join per grouping question, each at most one row: a submission answers a question once)
and joins the cells into the line; Python only moves large blocks of bytes into the file.

Each line is built whole in SQL and sent as the one column of ``COPY``'s text format, not
as ``COPY ... WITH CSV``: the CSV format would end lines with ``\\n`` where Python's writer
ends them with ``\\r\\n``, and nothing could tell a line's end from a newline inside a quoted
cell afterwards. In the text format a line's end is the only raw newline (a newline, carriage
return, tab or backslash in a cell comes escaped), so ``\\n`` becomes ``\\r\\n`` by a plain
byte replacement, and the rare block holding an escape is unescaped after that.

Cells are quoted as Python's writer quotes them (``csv.QUOTE_MINIMAL``, the ``excel``
dialect): when they hold a comma, a double quote, ``\\r`` or ``\\n``, with quotes doubled.
Only text can need it: a grouping option's cell is computed here in Python, once per option
(``exports.csv.escape_label`` and the csv module itself), and a direct text answer is escaped
and quoted in SQL by the same rules.
"""

import csv
import io
import re
from collections.abc import Iterator

from psycopg import sql

from ..models import PREFER_NOT_TO_SAY, GroupAnswer, Question, Submission, question_key
from .codebook import Codebook
from .csv import FORMULA_PREFIXES

# Bytes sent to the file at once: a few hundred kilobytes, thousands of rows.
BLOCK_BYTES = 512 * 1024

# COPY's text format escapes these in a value (PostgreSQL's CopyAttributeOutText).
_TEXT_ESCAPES = {
    b"\\": b"\\",
    b"b": b"\b",
    b"f": b"\f",
    b"n": b"\n",
    b"r": b"\r",
    b"t": b"\t",
    b"v": b"\v",
}
_ESCAPE = re.compile(rb"\\(.)", re.DOTALL)

# A cell starting with one of these is escaped with a leading quote (exports.csv.escape_label,
# which also escapes a leading quote itself so that the escape can be undone).
_ESCAPED_STARTS = (*FORMULA_PREFIXES, "'")

# What makes Python's writer quote a cell: the delimiter, the quote, a line end's characters.
MUST_QUOTE = '[",\r\n]'


def csv_cell(text: str) -> str:
    """``text`` as Python's csv writer writes one cell of a row: quoted when it must be."""
    buffer = io.StringIO()
    csv.writer(buffer).writerow(["", text])
    return buffer.getvalue()[1:].removesuffix("\r\n")


def header_line(codebook: Codebook) -> bytes:
    buffer = io.StringIO()
    csv.writer(buffer).writerow(codebook.columns)
    return buffer.getvalue().encode()


def _report_cell(question) -> sql.Composable:
    """A report as the CSV writes it. A yes/no report 1/0 (JSON true/false), a number as
    PostgreSQL writes it (an option's index, an integer: no cell to quote), a skip empty; a
    direct text answer escaped like a label, then quoted when it must be."""
    report = sql.SQL("(s.reports ->> {key})").format(key=sql.Literal(question_key(question.pk)))
    if question.kind == Question.Kind.TEXT:
        escaped = sql.SQL("CASE WHEN left({r}, 1) IN ({starts}) THEN '''' || {r} ELSE {r} END")
        escaped = escaped.format(
            r=report, starts=sql.SQL(", ").join(sql.Literal(s) for s in _ESCAPED_STARTS)
        )
        return sql.SQL(
            "CASE WHEN {r} IS NULL THEN '' WHEN {e} ~ {must_quote} "
            "THEN '\"' || replace({e}, '\"', '\"\"') || '\"' ELSE {e} END"
        ).format(r=report, e=escaped, must_quote=sql.Literal(MUST_QUOTE))
    return sql.SQL(
        "CASE {r} WHEN 'true' THEN '1' WHEN 'false' THEN '0' ELSE coalesce({r}, '') END"
    ).format(r=report)


def _grouping_cell(alias: sql.Identifier, grouping_question, label) -> sql.Composable:
    """A grouping answer's cell: its option's label (escaped by ``label``, quoted as the CSV
    quotes it, computed once per option), ``prefer_not_to_say`` for an answer without an
    option, empty when the submission has no answer to the question."""
    choices = [
        sql.SQL("WHEN {id} THEN {cell}").format(
            id=sql.Literal(option.pk), cell=sql.Literal(csv_cell(label(option.label)))
        )
        for option in grouping_question.options.all()
    ]
    chosen = (
        sql.SQL("CASE {a}.option_id {choices} END").format(
            a=alias, choices=sql.SQL(" ").join(choices)
        )
        if choices
        else sql.SQL("NULL")
    )
    return sql.SQL(
        "CASE WHEN {a}.id IS NULL THEN '' WHEN {a}.option_id IS NULL THEN {prefer} "
        "ELSE coalesce({chosen}, '') END"
    ).format(a=alias, prefer=sql.Literal(PREFER_NOT_TO_SAY), chosen=chosen)


def report_lines_query(codebook: Codebook, *, label) -> sql.Composed:
    """One row per submission of the survey, ordered by submission id (the random order of
    every raw export): the CSV line without its end, as one text column."""
    cells = [
        sql.SQL("s.submission_id::text"),
        # YYYY-MM-DD as date.isoformat() writes it: DateStyle is ISO for the COPY (cheaper
        # than to_char on every row).
        sql.SQL("s.received_on::text"),
        # The comprehension check's hidden answers (C1, ...) follow the questions' (the header).
        *(_report_cell(q) for q in [*codebook.questions, *codebook.comprehension]),
    ]
    # Where the page showed each question (a whole number), empty when not recorded.
    return released_rows_query(
        codebook,
        leading=cells,
        grouping_cell=lambda alias, grouping_question, _index: _grouping_cell(
            alias, grouping_question, label
        ),
        position_cell=lambda key: sql.SQL("coalesce(s.positions ->> {key}, '')").format(key=key),
        separator=sql.SQL(" || ',' || "),
    )


def released_rows_query(
    codebook: Codebook, *, leading, grouping_cell, position_cell, separator
) -> sql.Composed:
    """The select every raw export on PostgreSQL reads: one row per released submission of the
    survey, ordered by submission id, of the ``leading`` expressions, then
    ``grouping_cell(alias, grouping question, index)`` for each grouping question (its answer
    joined as ``alias``), then ``position_cell(key)`` for each question's place on the page,
    joined by ``separator`` (``, `` for columns; the CSV line's ``|| ',' ||``)."""
    cells = list(leading)
    joins = []
    for index, grouping_question in enumerate(codebook.grouping):
        alias = sql.Identifier(f"g{index}")
        joins.append(
            sql.SQL(
                "LEFT JOIN {answers} {a} "
                "ON {a}.submission_id = s.id AND {a}.grouping_question_id = {gq}"
            ).format(
                answers=sql.Identifier(GroupAnswer._meta.db_table),
                a=alias,
                gq=sql.Literal(grouping_question.pk),
            )
        )
        cells.append(grouping_cell(alias, grouping_question, index))
    cells += [position_cell(sql.Literal(question_key(q.pk))) for q in codebook.questions]
    return sql.SQL(
        "SELECT {cells} FROM {submissions} s {joins} "
        # Released submissions only (services/batches.py), as ``Submission.objects``.
        "WHERE s.survey_id = {survey} AND NOT s.held ORDER BY s.submission_id"
    ).format(
        cells=separator.join(cells),
        submissions=sql.Identifier(Submission._meta.db_table),
        joins=sql.SQL(" ").join(joins),
        survey=sql.Literal(codebook.survey.pk),
    )


def copy_csv_blocks(cursor, query: sql.Composable, *, rows_per_block: int) -> Iterator[tuple]:
    """``query``'s one text column as CSV lines ending ``\\r\\n``, read through
    ``COPY (query) TO STDOUT`` on ``cursor`` (a psycopg cursor, in a transaction):
    ``(bytes, rows)`` blocks of whole lines, at most ``rows_per_block`` rows or about
    ``BLOCK_BYTES`` each."""
    # In the caller's transaction only (SET LOCAL): the date as the query expects it.
    cursor.execute("SET LOCAL datestyle TO ISO")
    statement = sql.SQL("COPY ({query}) TO STDOUT").format(query=query)
    with cursor.copy(statement) as copy:
        pending, rows = bytearray(), 0
        # PostgreSQL sends each row of a COPY as a message of its own, which psycopg gives as
        # a view of libpq's buffer: copied at once, never kept. Keeping thousands of views
        # until a block is whole made the job twice as slow as the bare COPY (profiled at
        # 300,000 rows: 9-16 s against 4-6 s; copied, 4-5 s).
        for data in copy:
            pending += data
            rows += 1
            if len(pending) >= BLOCK_BYTES or rows >= rows_per_block:
                yield _csv_block(pending), rows
                pending, rows = bytearray(), 0
        if rows:
            yield _csv_block(pending), rows


def _csv_block(pending: bytearray) -> bytes:
    # Line ends first: until unescaped, a raw newline is only ever a line's end.
    block = bytes(pending.replace(b"\n", b"\r\n"))
    if b"\\" in block:
        block = _ESCAPE.sub(lambda match: _TEXT_ESCAPES[match.group(1)], block)
    return block
