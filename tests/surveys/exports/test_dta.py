"""The Stata 118 writer on its own (``exports.dta``): read back with pyreadstat and pandas,
across its batches of rows, with extended missing values in longs and doubles."""

from datetime import date

import pandas as pd
import pyreadstat

from surveys.exports.dta import TYPE_DOUBLE, TYPE_LONG, DtaVariable, DtaWriter

VARIABLES = [
    DtaVariable(name="ident", type=36, format="%-9s", label="Ids, 设问"),
    DtaVariable(name="day", type=TYPE_DOUBLE, format="%td"),
    DtaVariable(name="code", type=TYPE_LONG, format="%9.0g", value_labels={1: "one", "a": "skip"}),
    DtaVariable(name="number", type=TYPE_DOUBLE, format="%9.0g"),
    DtaVariable(name="text", type=300, format="%-9s"),
]


def row(n):
    code = "a" if n % 7 == 0 else "b" if n % 11 == 0 else 1
    return [
        f"id-{n}",
        date(2026, 1, 1 + n % 28),
        code,
        "a" if n % 5 == 0 else n - 3,
        "설" * (n % 101),
    ]


def test_rows_read_back_across_batches(tmp_path):
    path = tmp_path / "rows.dta"
    rows = [row(n) for n in range(4_321)]
    with open(path, "w+b") as handle:
        writer = DtaWriter(handle, variables=VARIABLES, file_label="文件", notes=["a note", "설명"])
        writer.write_rows(iter(rows[:1000]))
        writer.write_rows(iter(rows[1000:]))
        writer.close()
    assert writer.rows == len(rows)
    frame, meta = pyreadstat.read_dta(str(path), user_missing=True)
    assert meta.number_rows == len(rows) and meta.file_label == "文件"
    assert meta.notes == ["a note", "설명"]
    assert meta.column_names_to_labels["ident"] == "Ids, 设问"
    assert meta.variable_value_labels == {"code": {1: "one", "a": "skip"}}
    for n, (ident, day, code, number, text) in enumerate(rows):
        got = frame.iloc[n]
        assert (got["ident"], got["day"], got["code"], got["text"]) == (ident, day, code, text)
        assert got["number"] == number
    # pandas reads the same file, the extended missing values told apart.
    read = pd.read_stata(path, convert_missing=True, convert_categoricals=False)
    assert len(read) == len(rows)
    assert str(read["number"].iloc[0]) == ".a" and read["number"].iloc[1] == -2
