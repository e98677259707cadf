"""The raw reports as labelled data files for SPSS (.sav) and Stata (.dta): what they hold.

The same rows as the CSV (``exports.csv.report_rows``) and the same meanings as the codebook
(``exports.codebook.codebook_rows``), read from them rather than derived again:

- variables are the CSV's columns (``submission_id``, ``received_on``, ``Q1``…, ``G1``…), each
  labelled with its question text (the description for the first two);
- a column whose codebook values are numbers (yes/no 1/0, a choice's option index) keeps them,
  labelled with the codebook's meaning; a column whose codebook values are labels (a grouping
  question's options) is coded 1…k in the codebook's order, each code labelled with its option;
  a reported number is kept as it is, unlabelled;
- "skipped" and "prefer not to say" stay apart, as the CSV keeps an empty cell apart from
  ``prefer_not_to_say``: in SPSS the codes -1 and -2, labelled and declared user-missing (SPSS
  leaves them out of every analysis but shows them), except that a reported number's skip is
  system-missing (any number can be a report, so no code is free); in Stata the extended missing
  values ``.a`` and ``.b``, labelled;
- the file label is the survey's title; the notes hold the codebook's facts about the survey
  (design, ε, interval method…), every column's full text and provenance (p_truth,
  p_forced_yes, a, b, ε, design, parameters) and every code's full meaning, because the formats
  cut labels short (``LIMITS``, in ``format_limits.py``); in Stata they are stored as its
  ``notes`` command stores them, so ``notes`` lists them.

The files are written as the rows come, a block of columns at a time, by ``sav.py`` and
``dta.py`` (which know nothing of surveys), so a worker's memory does not grow with the
responses; the blocks come from ``report_columns.py`` (on PostgreSQL one binary ``COPY`` whose
numbers the database computes), each column turned into the format's codes at once here.
The writers take a path or a binary file open for writing and seeking: they seek back to put
in the row count (and Stata's map) once the rows are written. Read back with pyreadstat, the
files equal what pyreadstat itself writes from the same table
(tests/surveys/exports/test_spss_stata_streamed.py).
"""

import contextlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from django.utils.translation import gettext as _

from ..limits import DIRECT_TEXT_MAX_BYTES
from ..models import PREFER_NOT_TO_SAY
from .codebook import (
    CODEBOOK_HEADER,
    TYPE_DATE,
    TYPE_DIRECT_NUMERIC,
    TYPE_DIRECT_TEXT,
    TYPE_IDENTIFIER,
    TYPE_NUMERIC,
    TYPE_POSITION,
    Codebook,
    codebook_rows,
)
from .dta import (
    TYPE_DOUBLE,
    TYPE_LONG,
    DtaVariable,
    DtaWriter,
    double_missing,
    long_missing,
    stata_dates,
)
from .format_limits import LIMITS, Limits, note_lines, shorten
from .report_columns import ReportColumns, report_column_blocks
from .sav import (
    MEASURE_NOMINAL,
    MEASURE_SCALE,
    MEASURE_UNKNOWN,
    SYSMIS,
    SavVariable,
    SavWriter,
    spss_dates,
)

SPSS_CONTENT_TYPE = "application/x-spss-sav"
STATA_CONTENT_TYPE = "application/x-stata-dta"

# SPSS: codes no option or report can take (options are 1…k, indices 0…k-1, yes/no 1/0).
SPSS_SKIPPED = -1
SPSS_PREFER_NOT = -2
# Stata: extended missing values, written as their letter.
STATA_SKIPPED = "a"
STATA_PREFER_NOT = "b"
# How often a writer reports the rows it has written (once per block that passes a multiple).
PROGRESS_ROWS = 20_000


@dataclass(frozen=True)
class Variable:
    """One column of the raw reports file as a labelled variable."""

    name: str
    kind: str  # the codebook's type
    text: str  # the question (or description), in full
    provenance: dict = field(default_factory=dict)  # codebook column cells that are set
    codes: dict = field(default_factory=dict)  # {CSV cell: numeric code}, label columns only
    value_labels: dict = field(default_factory=dict)  # {code: meaning}, in full
    meanings: dict = field(default_factory=dict)  # {CSV cell: the codebook's meaning}
    skipped: str = ""  # the codebook's meaning of an empty cell
    prefer_not: str = ""  # of prefer_not_to_say; "" when the column cannot hold it

    @property
    def is_text(self) -> bool:
        """Written as a string: the submission id, or a direct text answer."""
        return self.kind in (TYPE_IDENTIFIER, TYPE_DIRECT_TEXT)

    @property
    def is_date(self) -> bool:
        return self.kind == TYPE_DATE

    @property
    def is_number(self) -> bool:
        """A reported (or directly answered) number: any integer is a possible value."""
        return self.kind in (TYPE_NUMERIC, TYPE_DIRECT_NUMERIC, TYPE_POSITION)

    @property
    def labelled(self) -> bool:
        return not (self.is_text or self.is_date or self.is_number)


def labelled_variables(codebook: Codebook) -> list[Variable]:
    """Every column of the raw reports file, from the codebook's ``column`` and ``value`` rows
    (labels as chosen, without the CSV's leading ')."""
    rows = codebook_rows(codebook, label=str)
    header = next(rows)
    assert header == CODEBOOK_HEADER
    at = {name: index for index, name in enumerate(header)}
    provenance_names = header[at["p_truth"] :]
    columns: dict[str, dict] = {}
    for row in rows:
        section, name = row[at["section"]], row[at["name"]]
        if section == "column":
            columns[name] = {
                "name": name,
                "kind": row[at["type"]],
                "text": row[at["text"]],
                "provenance": {
                    key: row[at[key]]
                    for key in provenance_names
                    if row[at[key]] is not None and row[at[key]] != ""
                },
                "values": [],
            }
        elif section == "value":
            columns[name]["values"].append((row[at["value"]], row[at["text"]]))
    variables = [_variable(**column) for column in columns.values()]
    assert [v.name for v in variables] == codebook.columns
    return variables


def _variable(*, name, kind, text, provenance, values) -> Variable:
    codes, value_labels, meanings = {}, {}, {}
    skipped = prefer_not = ""
    for cell, meaning in values:
        if cell == "":
            skipped = meaning
        elif cell == PREFER_NOT_TO_SAY:
            prefer_not = meaning
        elif kind in (TYPE_NUMERIC, TYPE_DIRECT_NUMERIC, TYPE_DIRECT_TEXT, TYPE_POSITION):
            # "integer", "text": a description of any value, not a code
            meanings[cell] = meaning
        elif isinstance(cell, int) and not isinstance(cell, bool):
            value_labels[cell] = meaning
            meanings[cell] = meaning
        else:
            # A label (a grouping option): coded 1…k in the codebook's order.
            code = len(codes) + 1
            codes[cell] = code
            value_labels[code] = cell
            meanings[cell] = meaning
    return Variable(
        name=name,
        kind=kind,
        text=text,
        provenance=provenance,
        codes=codes,
        value_labels=value_labels,
        meanings=meanings,
        skipped=skipped,
        prefer_not=prefer_not,
    )


# --- labels and notes -------------------------------------------------------------------------


def _value_labels(variable: Variable, *, stata: bool, limits: Limits) -> dict:
    labels = dict(variable.value_labels)
    # SPSS's system-missing (a reported number's skip) cannot carry a label.
    if variable.skipped and (variable.labelled or stata):
        labels[STATA_SKIPPED if stata else SPSS_SKIPPED] = variable.skipped
    if variable.prefer_not:
        labels[STATA_PREFER_NOT if stata else SPSS_PREFER_NOT] = variable.prefer_not
    return {
        code: shorten(text, limit=limits.value_label, in_bytes=limits.in_bytes)
        for code, text in labels.items()
    }


def missing_values_note(*, stata: bool) -> str:
    if stata:
        return _(
            "Missing values: .a = skipped (not answered), .b = prefer not to say; both are "
            "labelled, and Stata leaves them out of every analysis."
        )
    return _(
        "Missing values: -1 = skipped (not answered), -2 = prefer not to say; both are labelled "
        "and declared user-missing, so SPSS leaves them out of every analysis. A reported "
        "number's skip is system-missing (.), since any number can be a report."
    )


def notes(codebook: Codebook, variables: list[Variable], *, stata: bool) -> list[str]:
    """The file's notes, one fact each: the codebook's facts about the survey, the missing
    values, then per column its full text, provenance and every code's meaning."""
    rows = codebook_rows(codebook, label=str)
    header = next(rows)
    at = {name: index for index, name in enumerate(header)}
    lines = [
        f"{row[at['name']]}: {row[at['value']]}" for row in rows if row[at["section"]] == "survey"
    ]
    lines.append(missing_values_note(stata=stata))
    for variable in variables:
        lines.append(f"{variable.name} ({variable.kind}): {variable.text}")
        if variable.provenance:
            facts = "; ".join(f"{key} = {value}" for key, value in variable.provenance.items())
            lines.append(f"{variable.name}: {facts}")
        for cell, meaning in variable.meanings.items():
            if variable.codes:
                lines.append(f"{variable.name} = {variable.codes[cell]}: {cell} — {meaning}")
            else:
                lines.append(f"{variable.name} = {cell}: {meaning}")
        if variable.skipped and not variable.is_text:
            missing = STATA_SKIPPED if stata else SPSS_SKIPPED
            if not stata and not variable.labelled:
                missing = "."
            lines.append(f"{variable.name} = {_missing_text(missing)}: {variable.skipped}")
        if variable.prefer_not:
            missing = STATA_PREFER_NOT if stata else SPSS_PREFER_NOT
            lines.append(f"{variable.name} = {_missing_text(missing)}: {variable.prefer_not}")
    return lines


def _missing_text(value) -> str:
    return f".{value}" if isinstance(value, str) and value != "." else str(value)


def _file_label(codebook: Codebook, limits: Limits) -> str:
    return shorten(codebook.survey.title, limit=limits.file_label, in_bytes=limits.in_bytes)


def _variable_labels(variables, limits: Limits) -> dict:
    return {
        v.name: shorten(v.text, limit=limits.variable_label, in_bytes=limits.in_bytes)
        for v in variables
    }


# --- writers ----------------------------------------------------------------------------------

# A text column's width in bytes: a submission id is a UUID's 36 characters; a direct text
# answer has at most DIRECT_TEXT_MAX_BYTES (the statement refuses more).
_TEXT_BYTES = {TYPE_IDENTIFIER: 36, TYPE_DIRECT_TEXT: DIRECT_TEXT_MAX_BYTES}


def _spss_columns(block: ReportColumns, variables: list[Variable]) -> list:
    """A block of the raw reports as the SPSS writer's columns: a code's skip -1 and
    prefer-not -2, a reported number's skip system-missing."""
    columns = [block.ids, spss_dates(block.days)]
    for variable, cells in zip(variables[2:], block.cells, strict=True):
        if variable.is_text:
            columns.append(cells)  # a skipped text answer is an empty string
            continue
        skipped = SYSMIS if variable.is_number else SPSS_SKIPPED
        columns.append(_coded(variable, cells, skipped=skipped, prefer_not=SPSS_PREFER_NOT))
    return columns


def _stata_columns(block: ReportColumns, variables: list[Variable]) -> list:
    """A block of the raw reports as the Stata writer's columns: a skip ``.a``, prefer-not
    ``.b``, in a long (a code) or a double (a number)."""
    columns = [block.ids, stata_dates(block.days)]
    for variable, cells in zip(variables[2:], block.cells, strict=True):
        if variable.is_text:
            columns.append(cells)
        elif variable.is_number:
            missing = [double_missing(letter) for letter in (STATA_SKIPPED, STATA_PREFER_NOT)]
            columns.append(_coded(variable, cells, skipped=missing[0], prefer_not=missing[1]))
        else:
            missing = [long_missing(letter) for letter in (STATA_SKIPPED, STATA_PREFER_NOT)]
            coded = _coded(variable, cells, skipped=missing[0], prefer_not=missing[1])
            columns.append(coded.astype(np.int64))
    return columns


def _coded(variable: Variable, cells: np.ndarray, *, skipped, prefer_not) -> np.ndarray:
    """A column of ``report_columns`` floats with its skips and prefer-nots as the format's."""
    if np.isposinf(cells).any():
        at = int(np.flatnonzero(np.isposinf(cells))[0])
        raise ValueError(f"{variable.name}: row {at} holds an option not in the codebook")
    coded = np.where(np.isnan(cells), skipped, cells)
    return np.where(np.isneginf(cells), prefer_not, coded)


def _blocks(codebook: Codebook, variables, *, progress: Callable[[int], None]):
    """The raw reports in blocks of columns (``exports.report_columns``), ``progress(rows so
    far)`` called after each."""
    later = variables[2:]
    blocks = report_column_blocks(codebook, [v.kind for v in later], [v.codes for v in later])
    count = 0
    # Read to the end, or closed: on PostgreSQL the connection is in a COPY until then.
    with contextlib.closing(blocks):
        for block in blocks:
            yield block
            if (count + block.rows) // PROGRESS_ROWS > count // PROGRESS_ROWS:
                progress(count + block.rows)
            count += block.rows
    progress(count)


def _open(target):
    """``target`` itself (a binary file open for writing and seeking), or the file at that
    path, created."""
    if isinstance(target, (str, os.PathLike)):
        return open(target, "w+b")
    return contextlib.nullcontext(target)


def write_sav(codebook: Codebook, target, *, progress=lambda rows: None) -> int:
    """The raw reports as an SPSS system file into ``target`` (a path, or a binary file open
    for writing and seeking), streamed; its number of cases."""
    limits = LIMITS["sav"]
    variables = labelled_variables(codebook)
    labels = _variable_labels(variables, limits)
    lines = [
        line
        for note in notes(codebook, variables, stata=False)
        for line in note_lines(note, limit=limits.note)
    ]
    specs = [
        SavVariable(
            name=v.name,
            label=labels[v.name],
            width=_TEXT_BYTES[v.kind] if v.is_text else 0,
            is_date=v.is_date,
            value_labels=_value_labels(v, stata=False, limits=limits) if v.labelled else {},
            missing=((SPSS_SKIPPED, SPSS_PREFER_NOT) if v.prefer_not else (SPSS_SKIPPED,))
            if v.labelled
            else (),
            measure=MEASURE_UNKNOWN
            if v.is_date
            else MEASURE_SCALE
            if v.is_number
            else MEASURE_NOMINAL,
        )
        for v in variables
    ]
    with _open(target) as handle:
        writer = SavWriter(
            handle, variables=specs, file_label=_file_label(codebook, limits), notes=lines
        )
        for block in _blocks(codebook, variables, progress=progress):
            writer.write_columns(_spss_columns(block, variables), block.rows)
        writer.close()
    return writer.cases


def write_dta(codebook: Codebook, target, *, progress=lambda rows: None) -> int:
    """The raw reports as a Stata 14+ data file (dta 118) into ``target`` (a path, or a binary
    file open for writing and seeking), with its notes, streamed; its number of observations."""
    limits = LIMITS["dta"]
    variables = labelled_variables(codebook)
    labels = _variable_labels(variables, limits)
    specs = []
    for v in variables:
        if v.is_text:
            kind, display = _TEXT_BYTES[v.kind], "%-9s"
        else:
            kind = TYPE_DOUBLE if v.is_date or v.is_number else TYPE_LONG
            display = "%td" if v.is_date else "%9.0g"
        value_labels = {} if v.is_text or v.is_date else _value_labels(v, stata=True, limits=limits)
        specs.append(
            DtaVariable(
                name=v.name,
                type=kind,
                format=display,
                label=labels[v.name],
                value_labels=value_labels,
            )
        )
    with _open(target) as handle:
        writer = DtaWriter(
            handle,
            variables=specs,
            file_label=_file_label(codebook, limits),
            notes=notes(codebook, variables, stata=True),
        )
        for block in _blocks(codebook, variables, progress=progress):
            writer.write_columns(_stata_columns(block, variables), block.rows)
        writer.close()
    return writer.rows


# --- downloads --------------------------------------------------------------------------------

FORMATS = {
    "sav": (write_sav, SPSS_CONTENT_TYPE),
    "dta": (write_dta, STATA_CONTENT_TYPE),
}
