"""The raw reports CSV as blocks of bytes, for the files that hold it whole: the responses CSV
(and the one for R) and the ZIP's ``reports.csv`` (issue 28: one large write per block,
never one per row).

On PostgreSQL the database writes the lines itself (``exports.csv_postgres``: one ``COPY``);
on SQLite Python's csv writer writes ``exports.csv.report_csv_text_rows``. Both are the bytes
of ``exports.csv.report_csv_rows`` through the csv writer, which tests hold them to.
"""

import csv
import io
from collections.abc import Iterable, Iterator
from itertools import islice
from typing import NamedTuple

from django.db import connection, transaction

from .codebook import Codebook
from .csv import csv_safe, escape_label, report_csv_text_rows
from .csv_postgres import copy_csv_blocks, header_line, report_lines_query

# Rows read at once on SQLite's paths (here and ``exports.report_columns``), each chunk held
# whole as Python tuples (about 1.7 kB a row of ten questions): 20,000 took a job from 86 to
# 150 MiB; 2,000 take it to 99 and read as fast.
READ_ROWS = 2_000


class CsvBlock(NamedTuple):
    """Whole lines of a CSV file, encoded, and how many data rows they hold (0: the header)."""

    data: bytes
    rows: int


def report_csv_blocks(codebook: Codebook, *, rows_per_block: int) -> Iterator[CsvBlock]:
    """The raw reports file, header first, in blocks of at most ``rows_per_block`` rows.

    On PostgreSQL the connection is in a ``COPY`` until the last block is read: read it to the
    end or close it (``contextlib.closing``) before using the connection again."""
    if connection.vendor != "postgresql":
        rows = report_csv_text_rows(codebook, chunk_size=READ_ROWS)
        yield from csv_blocks(rows, rows_per_block=rows_per_block)
        return
    yield CsvBlock(header_line(codebook), 0)
    query = report_lines_query(codebook, label=escape_label)
    # Within a transaction (a test's, or a caller's), in a savepoint of its own: a COPY left
    # half-read is cancelled, and that must not abort the caller's transaction.
    with transaction.atomic(), connection.cursor() as cursor:
        for data, rows in copy_csv_blocks(cursor.cursor, query, rows_per_block=rows_per_block):
            yield CsvBlock(data, rows)


def csv_blocks(rows: Iterable[list], *, rows_per_block: int, safe=True) -> Iterator[CsvBlock]:
    """``rows`` (the header first) through Python's csv writer, in blocks of at most
    ``rows_per_block`` rows; each cell neutralised (``exports.csv.csv_safe``) unless ``safe``
    (the rows are text that needs none)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    rows = iter(rows)

    def written():
        data = buffer.getvalue().encode()
        buffer.seek(0)
        buffer.truncate()
        return data

    header = next(rows, None)
    if header is None:
        return
    writer.writerow(header)
    yield CsvBlock(written(), 0)
    while True:
        # Written READ_ROWS at a time: a block's rows are never all held as lists at once,
        # only as the text written so far.
        count = 0
        while chunk := list(islice(rows, min(READ_ROWS, rows_per_block - count))):
            writer.writerows(chunk if safe else ([csv_safe(c) for c in row] for row in chunk))
            count += len(chunk)
        if not count:
            return
        yield CsvBlock(written(), count)
