"""The raw reports as blocks of columns (``exports.report_columns``): PostgreSQL's binary COPY
gives the columns the Python path gives (which test_spss_stata_streamed.py holds, through the
SPSS and Stata files, to pyreadstat), read whatever sizes its messages come in; a NULL or a
short stream is refused."""

import math
import struct
import uuid
from contextlib import closing
from datetime import date

import numpy as np
import pytest
from django.db import connection

from surveys.exports import report_columns, spss_stata
from surveys.exports.codebook import survey_codebook
from surveys.exports.report_columns import (
    NOT_IN_CODEBOOK,
    PREFER_NOT,
    SKIPPED,
    binary_blocks,
    cell_number,
    report_column_blocks,
)
from surveys.exports.spss_stata import labelled_variables
from surveys.models import PREFER_NOT_TO_SAY, Submission
from tests.surveys.exports import test_comprehension_exports, test_spss_stata

pytestmark = pytest.mark.django_db

HEADER = b"PGCOPY\n\xff\r\n\x00" + struct.pack(">ii", 0, 0)


def binary_row(submission_id, day, cells):
    """One row as PostgreSQL's binary COPY sends it."""
    data = struct.pack(">h", 2 + len(cells))
    data += struct.pack(">i", 36) + str(submission_id).encode()
    data += struct.pack(">ii", 4, (day - date(2000, 1, 1)).days)
    for cell in cells:
        data += struct.pack(">id", 8, cell)
    return data


def joined(blocks):
    blocks = list(blocks)
    assert all(block.rows for block in blocks), "an empty block"
    return (
        sum(block.rows for block in blocks),
        np.concatenate([block.ids for block in blocks]).tobytes(),
        np.concatenate([block.days for block in blocks]),
        [np.concatenate([block.cells[i] for block in blocks]) for i in range(len(blocks[0].cells))],
    )


def only_on_postgresql():
    if connection.vendor != "postgresql":
        pytest.skip("the binary COPY is PostgreSQL's")


def stream(rows):
    return HEADER + b"".join(binary_row(*row) for row in rows) + b"\xff\xff"


ROWS = [
    (uuid.UUID(int=n), date(2026, 1, 1 + n % 28), [n % 2, math.nan, -math.inf, n * 1.5])
    for n in range(500)
]


@pytest.mark.parametrize("chunk", [1, 7, 113, 10_000])
def test_a_binary_stream_read_in_chunks_of_any_size(chunk):
    data = stream(ROWS)
    chunks = [data[at : at + chunk] for at in range(0, len(data), chunk)]
    rows, ids, days, cells = joined(binary_blocks(iter(chunks), 4, block_bytes=1000))
    assert rows == len(ROWS)
    assert ids == "".join(str(row[0]) for row in ROWS).encode()
    assert days.tolist() == [row[1].toordinal() for row in ROWS]
    for index in range(4):
        expected = np.array([row[2][index] for row in ROWS])
        np.testing.assert_array_equal(cells[index], expected)


def test_an_empty_stream_has_no_block_and_a_cut_one_is_refused():
    assert list(binary_blocks(iter([stream([])]), 4)) == []
    with pytest.raises(ValueError, match="trailer"):
        list(binary_blocks(iter([stream(ROWS)[:-5]]), 4))


def test_a_null_field_is_refused():
    row = binary_row(uuid.UUID(int=1), date(2026, 1, 1), [1.0])
    # The last float NULL: length -1 and no value, so the row is 8 bytes short.
    null = row[:-12] + struct.pack(">i", -1)
    data = HEADER + (null + row) * 3 + b"\xff\xff"
    with pytest.raises(ValueError):
        list(binary_blocks(iter([data]), 1))


def test_a_cell_as_a_number():
    codes = {"Sales": 1, "Research": 2}
    assert math.isnan(cell_number(None, {}))
    assert cell_number(PREFER_NOT_TO_SAY, codes) == PREFER_NOT
    assert [cell_number(cell, {}) for cell in (True, False, 3, -1)] == [1, 0, 3, -1]
    assert cell_number("Research", codes) == 2
    assert cell_number("Other", codes) == NOT_IN_CODEBOOK
    assert math.isnan(SKIPPED)


@pytest.mark.parametrize(
    "make_study", [test_spss_stata.make_study, test_comprehension_exports.make_study]
)
def test_the_binary_copy_gives_the_python_columns(make_survey, make_study):
    only_on_postgresql()
    codebook = survey_codebook(survey=make_study(make_survey))
    later = labelled_variables(codebook)[2:]
    kinds, codes = [v.kind for v in later], [v.codes for v in later]
    copied = joined(report_column_blocks(codebook, kinds, codes))
    # The Python path (SQLite's) on the same rows, two at a time.
    python = report_columns._python_blocks(codebook, kinds, codes, rows_per_block=2)
    rows, ids, days, cells = joined(python)
    assert copied[0] == rows == Submission.objects.filter(survey=codebook.survey).count()
    assert copied[1] == ids and copied[2].tolist() == days.tolist()
    assert len(copied[3]) == len(cells) == len(codebook.columns) - 2
    for got, expected in zip(copied[3], cells, strict=True):
        np.testing.assert_array_equal(got, expected)
    # Every kind of cell is there: a skip, a yes and a no (and a prefer-not in the first).
    every = np.concatenate(cells)
    assert np.isnan(every).any() and {0, 1} <= set(every.tolist())
    assert np.isneginf(every).any() == (make_study is test_spss_stata.make_study)


def test_a_copy_closed_half_way_leaves_the_connection_usable(make_survey, monkeypatch):
    only_on_postgresql()
    survey = test_spss_stata.make_study(make_survey)
    codebook = survey_codebook(survey=survey)
    later = labelled_variables(codebook)[2:]
    monkeypatch.setattr(report_columns, "BLOCK_BYTES", 100)
    blocks = report_column_blocks(codebook, [v.kind for v in later], [v.codes for v in later])
    with closing(blocks):
        assert next(blocks).rows >= 1
    assert Submission.objects.filter(survey=survey).count() == 5


def test_an_option_the_codebook_does_not_list_is_refused(make_survey):
    codebook = survey_codebook(survey=test_spss_stata.make_study(make_survey))
    variables = labelled_variables(codebook)
    codes = [dict(v.codes) for v in variables[2:]]
    team = [v.name for v in variables[2:]].index("G1")
    del codes[team]["Research"]
    blocks = list(report_column_blocks(codebook, [v.kind for v in variables[2:]], codes))
    assert np.isposinf(np.concatenate([block.cells[team] for block in blocks])).sum() == 1
    for columns in (spss_stata._spss_columns, spss_stata._stata_columns):
        with pytest.raises(ValueError, match=r"G1: row .* not in the codebook"):
            for block in blocks:
                columns(block, variables)
