"""The SPSS and Stata files as pyreadstat writes them from a whole pandas frame: the writer
``exports.spss_stata`` used before it streamed, kept only as the oracle of
test_spss_stata_streamed.py (the streamed files read back must equal these). pyreadstat
writes no notes to a .dta file: the oracle's have none."""

import pandas as pd
import pyreadstat

from surveys.exports import spss_stata
from surveys.exports.csv import report_rows
from surveys.exports.format_limits import note_lines
from surveys.exports.spss_stata import (
    LIMITS,
    SPSS_PREFER_NOT,
    SPSS_SKIPPED,
    STATA_PREFER_NOT,
    STATA_SKIPPED,
    _file_label,
    _value_labels,
    _variable_labels,
    labelled_variables,
)
from surveys.models import PREFER_NOT_TO_SAY


def _cell(variable, cell, *, stata):
    if variable.is_text or variable.is_date:
        return "" if cell is None else cell
    if cell is None or cell == PREFER_NOT_TO_SAY:
        if stata:
            return STATA_PREFER_NOT if cell == PREFER_NOT_TO_SAY else STATA_SKIPPED
        if cell == PREFER_NOT_TO_SAY:
            return SPSS_PREFER_NOT
        return float("nan") if variable.is_number else SPSS_SKIPPED
    if isinstance(cell, bool):
        return int(cell)
    return variable.codes[cell] if variable.codes else cell


def _frame(codebook, variables, *, stata):
    rows = report_rows(codebook, label=str)
    next(rows)
    columns = {v.name: [] for v in variables}
    for row in rows:
        for variable, cell in zip(variables, row, strict=True):
            columns[variable.name].append(_cell(variable, cell, stata=stata))
    frame = {}
    for variable in variables:
        values = columns[variable.name]
        if variable.is_text or variable.is_date:
            frame[variable.name] = pd.Series(values, dtype=object)
        elif stata:
            if variable.is_number:
                values = [v if isinstance(v, str) else float(v) for v in values]
            frame[variable.name] = pd.Series(values, dtype=object)
        else:
            frame[variable.name] = pd.Series(values, dtype="float64")
    return pd.DataFrame(frame, columns=[v.name for v in variables])


def oracle_sav(codebook, path):
    limits = LIMITS["sav"]
    variables = labelled_variables(codebook)
    codes = [v for v in variables if not (v.is_text or v.is_date)]
    pyreadstat.write_sav(
        _frame(codebook, variables, stata=False),
        path,
        file_label=_file_label(codebook, limits),
        column_labels=_variable_labels(variables, limits),
        note=[
            line
            for note in spss_stata.notes(codebook, variables, stata=False)
            for line in note_lines(note, limit=limits.note)
        ],
        variable_value_labels={
            v.name: _value_labels(v, stata=False, limits=limits) for v in codes if v.labelled
        },
        missing_ranges={
            v.name: [SPSS_SKIPPED, SPSS_PREFER_NOT] if v.prefer_not else [SPSS_SKIPPED]
            for v in codes
            if v.labelled
        },
        variable_measure={
            v.name: "scale" if v.is_number else "nominal" for v in variables if not v.is_date
        },
        variable_format={v.name: "F8.0" for v in codes},
    )


def oracle_dta(codebook, path):
    limits = LIMITS["dta"]
    variables = labelled_variables(codebook)
    codes = [v for v in variables if not (v.is_text or v.is_date)]
    pyreadstat.write_dta(
        _frame(codebook, variables, stata=True),
        path,
        file_label=_file_label(codebook, limits),
        column_labels=_variable_labels(variables, limits),
        version=14,
        variable_value_labels={
            v.name: labels for v in codes if (labels := _value_labels(v, stata=True, limits=limits))
        },
        missing_user_values={
            v.name: [STATA_SKIPPED, STATA_PREFER_NOT] if v.prefer_not else [STATA_SKIPPED]
            for v in codes
        },
        variable_format={v.name: "%9.0g" for v in codes},
    )
