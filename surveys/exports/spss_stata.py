"""The raw reports as labelled data files for SPSS (.sav) and Stata (.dta), written by pyreadstat.

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
  cut labels short (``LIMITS``, in ``format_limits.py``). pyreadstat writes no notes to a .dta
  file, so they are added as Stata writes them (``stata_notes.py``): ``notes`` lists them in
  Stata.

The writers take a path (pyreadstat writes to one), so a background job can write into its own
file; the responses send a temporary file.
"""

from dataclasses import dataclass, field

from django.utils.translation import gettext as _

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
from .csv import report_rows
from .format_limits import LIMITS, Limits, note_lines, shorten
from .stata_notes import stata_notes_add

SPSS_CONTENT_TYPE = "application/x-spss-sav"
STATA_CONTENT_TYPE = "application/x-stata-dta"

# SPSS: codes no option or report can take (options are 1…k, indices 0…k-1, yes/no 1/0).
SPSS_SKIPPED = -1
SPSS_PREFER_NOT = -2
# Stata: extended missing values, written as their letter.
STATA_SKIPPED = "a"
STATA_PREFER_NOT = "b"
# Stata 14's format (dta 118): read by Stata 14 and later, R's haven and pandas.
STATA_VERSION = 14


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


# --- values -----------------------------------------------------------------------------------


def _code(variable: Variable, cell):
    """The number a CSV cell (as ``report_rows`` yields it) is written as; None when missing."""
    if isinstance(cell, bool):
        return int(cell)
    if variable.codes:
        try:
            return variable.codes[cell]
        except KeyError:
            raise ValueError(f"{variable.name}: {cell!r} is not in the codebook") from None
    return cell


def _missing(variable: Variable, cell, *, stata: bool):
    """The value of a skipped (``None``) or prefer-not cell in each format."""
    prefer = cell == PREFER_NOT_TO_SAY
    if stata:
        return STATA_PREFER_NOT if prefer else STATA_SKIPPED
    if prefer:
        return SPSS_PREFER_NOT
    return float("nan") if variable.is_number else SPSS_SKIPPED


def data_columns(codebook: Codebook, variables: list[Variable], *, stata: bool) -> dict:
    """``{name: values}``: the raw reports' rows, column by column, in the file's values."""
    columns = {v.name: [] for v in variables}
    rows = report_rows(codebook, label=str)
    next(rows)
    for row in rows:
        for variable, cell in zip(variables, row, strict=True):
            values = columns[variable.name]
            if variable.is_text or variable.is_date:
                # A skipped text answer is an empty string (a text column has no missing code).
                values.append("" if cell is None else cell)
            elif cell is None or cell == PREFER_NOT_TO_SAY:
                values.append(_missing(variable, cell, stata=stata))
            else:
                values.append(_code(variable, cell))
    return columns


def _frame(columns: dict, variables: list[Variable], *, stata: bool):
    # Imported here: pandas (which pyreadstat writes from) costs every other worker ~40 MB.
    import pandas as pd

    frame = {}
    for variable in variables:
        values = columns[variable.name]
        if variable.is_text or variable.is_date:
            frame[variable.name] = pd.Series(values, dtype=object)
        elif stata:
            # Numbers beside the missing letters: pyreadstat's way to write .a/.b. Codes stay
            # small ints (Python shares them: 8 bytes a cell); a reported number is a float,
            # since pyreadstat stores ints as 32-bit and a report is not bounded.
            if variable.is_number:
                values = [v if isinstance(v, str) else float(v) for v in values]
            frame[variable.name] = pd.Series(values, dtype=object)
        else:
            frame[variable.name] = pd.Series(values, dtype="float64")
    return pd.DataFrame(frame, columns=[v.name for v in variables])


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


def write_sav(codebook: Codebook, path) -> None:
    """The raw reports as an SPSS system file at ``path``."""
    import pyreadstat

    limits = LIMITS["sav"]
    variables = labelled_variables(codebook)
    frame = _frame(data_columns(codebook, variables, stata=False), variables, stata=False)
    lines = [
        line
        for note in notes(codebook, variables, stata=False)
        for line in note_lines(note, limit=limits.note)
    ]
    codes = [v for v in variables if not (v.is_text or v.is_date)]
    pyreadstat.write_sav(
        frame,
        path,
        file_label=_file_label(codebook, limits),
        column_labels=_variable_labels(variables, limits),
        note=lines,
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


def write_dta(codebook: Codebook, path) -> None:
    """The raw reports as a Stata 14+ data file at ``path``, with its notes."""
    import pyreadstat

    limits = LIMITS["dta"]
    variables = labelled_variables(codebook)
    frame = _frame(data_columns(codebook, variables, stata=True), variables, stata=True)
    codes = [v for v in variables if not (v.is_text or v.is_date)]
    pyreadstat.write_dta(
        frame,
        path,
        file_label=_file_label(codebook, limits),
        column_labels=_variable_labels(variables, limits),
        version=STATA_VERSION,
        variable_value_labels={
            v.name: labels for v in codes if (labels := _value_labels(v, stata=True, limits=limits))
        },
        missing_user_values={
            v.name: [STATA_SKIPPED, STATA_PREFER_NOT] if v.prefer_not else [STATA_SKIPPED]
            for v in codes
        },
        variable_format={v.name: "%9.0g" for v in codes},
    )
    stata_notes_add(path, notes(codebook, variables, stata=True))


# --- downloads --------------------------------------------------------------------------------

FORMATS = {
    "sav": (write_sav, SPSS_CONTENT_TYPE),
    "dta": (write_dta, STATA_CONTENT_TYPE),
}
