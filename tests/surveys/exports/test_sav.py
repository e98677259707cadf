"""The SPSS system file writer on its own (``exports.sav``): read back with pyreadstat, across
its batches of cases, with strings of every length up to three very long string segments."""

import io
import math
from datetime import date

import pyreadstat

from surveys.exports.sav import MEASURE_NOMINAL, MEASURE_SCALE, SavVariable, SavWriter

VARIABLES = [
    SavVariable(name="identifier_long_name", label="Ids, 설문", width=36, measure=MEASURE_NOMINAL),
    SavVariable(name="day", is_date=True),
    SavVariable(
        name="code",
        label="A code",
        value_labels={1: "one", -1: "skipped"},
        missing=(-1,),
        measure=MEASURE_NOMINAL,
    ),
    SavVariable(name="number", measure=MEASURE_SCALE),
    SavVariable(name="text", width=600, measure=MEASURE_NOMINAL),
]


def case(n):
    # Every length of text from 0 to 600 bytes, multi-byte characters across segment bounds.
    text = ("가" * (n % 201))[: 600 // 3] if n % 2 else "x" * (n % 601)
    return [
        f"id-{n}",
        date(2026, 1, 1 + n % 28),
        -1 if n % 7 == 0 else 1,
        None if n % 5 == 0 else n - 3,
        text,
    ]


def test_cases_read_back_across_batches_and_segments(tmp_path):
    path = tmp_path / "cases.sav"
    rows = [case(n) for n in range(4_321)]  # more than two batches of cases
    with open(path, "w+b") as handle:
        writer = SavWriter(handle, variables=VARIABLES, file_label="파일", notes=["a note", "설명"])
        writer.write_cases(iter(rows[:1000]))
        writer.write_cases(iter(rows[1000:]))
        writer.close()
    assert writer.cases == len(rows)
    frame, meta = pyreadstat.read_sav(str(path), user_missing=True)
    assert meta.number_rows == len(rows) and meta.file_label == "파일"
    assert meta.notes == ["a note", "설명"]
    assert meta.column_names_to_labels["identifier_long_name"] == "Ids, 설문"
    assert meta.variable_value_labels == {"code": {1.0: "one", -1.0: "skipped"}}
    assert meta.missing_ranges == {"code": [{"lo": -1.0, "hi": -1.0}]}
    assert meta.variable_measure["number"] == "scale"
    for n, row in enumerate(rows):
        ident, day, code, number, text = row
        got = frame.iloc[n]
        assert (got["identifier_long_name"], got["day"], got["code"]) == (ident, day, code)
        assert math.isnan(got["number"]) if number is None else got["number"] == number
        assert got["text"] == text, n


def test_the_case_count_goes_where_the_file_began():
    handle = io.BytesIO()
    handle.write(b"prefix")
    writer = SavWriter(handle, variables=VARIABLES[:1], file_label="", notes=[])
    writer.write_cases([["a"], ["b"]])
    writer.close()
    data = handle.getvalue()
    assert data[6:10] == b"$FL2"
    assert int.from_bytes(data[6 + 80 : 6 + 84], "little") == 2
