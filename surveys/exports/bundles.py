"""Downloads that carry their codebook: a ZIP of the CSV files and an Excel workbook.

The ZIP is written as it is compressed (``zipfile`` writes to a sink that cannot seek, so
each member ends with a data descriptor), so a large survey costs memory for one chunk of rows.
The workbook is written with openpyxl's write-only mode, which keeps rows in temporary files
rather than in memory. Both are written into a file (``exports.kinds``): in the request for a
small survey, by the worker for a large one.
"""

import csv
import io
import unicodedata
import zipfile
from collections.abc import Iterable, Iterator
from itertools import chain, islice
from typing import NamedTuple

from django.utils import timezone
from django.utils.translation import gettext as _

from ..selectors import SurveyEstimates, survey_estimates
from .codebook import Codebook, codebook_rows, survey_codebook
from .csv import (
    csv_safe,
    estimate_csv_rows,
    report_rows,
)

XLSX_CONTENT_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
# An Excel sheet's row limit, header included.
XLSX_MAX_ROWS = 1_048_576
CHUNK_BYTES = 64 * 1024
_ROWS_PER_WRITE = 500
# A member this large needs ZIP64 fields; smaller ones go without, for the oldest unzippers.
_ZIP64_FROM_BYTES = 2**30


class _Echo:
    def write(self, value):
        return value


class _Sink(io.RawIOBase):
    """Collects what ``zipfile`` writes until the response takes it; cannot seek."""

    def __init__(self):
        super().__init__()
        self._chunks = []
        self.size = 0

    def writable(self):
        return True

    def write(self, data):
        self._chunks.append(bytes(data))
        self.size += len(data)
        return len(data)

    def take(self) -> bytes:
        data = b"".join(self._chunks)
        self._chunks.clear()
        self.size = 0
        return data


def reports_may_be_large(codebook: Codebook) -> bool:
    # A generous bound on a row's bytes: id, date, a bit per question, a quoted label per
    # grouping question (UTF-8, quotes doubled).
    longest = [max((len(o.label) for o in gq.options.all()), default=0) for gq in codebook.grouping]
    row_bytes = 64 + 2 * len(codebook.questions) + sum(8 * length + 3 for length in longest)
    return codebook.survey.response_count * row_bytes >= _ZIP64_FROM_BYTES


class EncodedCsv(NamedTuple):
    """A ZIP member already written as CSV: blocks of whole lines, encoded (the raw reports
    of ``exports.csv_blocks``), stored as they come."""

    blocks: Iterable[bytes]


def zip_stream(
    members: Iterable[tuple[str, Iterable[list] | EncodedCsv, bool]], *, digests=None
) -> Iterator[bytes]:
    """A ZIP archive of CSV files, yielded in chunks as it is written.

    ``members`` are ``(file name, rows or EncodedCsv, may exceed 2 GiB)``; cells of rows are
    neutralised as in every CSV (``exports.csv_safe``). ``digests`` (``{file name: hashlib
    object}``) are updated with those members' bytes as written, before compression.
    """
    digests = digests or {}
    sink = _Sink()
    writer = csv.writer(_Echo())
    stamp = timezone.localtime().timetuple()[:6]
    with zipfile.ZipFile(sink, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, rows, large in members:
            info = zipfile.ZipInfo(name, date_time=stamp)
            info.compress_type = zipfile.ZIP_DEFLATED
            digest = digests.get(name)
            with archive.open(info, "w", force_zip64=large) as member:
                if isinstance(rows, EncodedCsv):
                    for data in rows.blocks:
                        if digest is not None:
                            digest.update(data)
                        member.write(data)
                        if sink.size >= CHUNK_BYTES:
                            yield sink.take()
                    rows = ()
                lines = []
                for row in rows:
                    lines.append(writer.writerow([csv_safe(cell) for cell in row]))
                    if len(lines) >= _ROWS_PER_WRITE:
                        _write_member(member, lines, digest)
                        if sink.size >= CHUNK_BYTES:
                            yield sink.take()
                _write_member(member, lines, digest)
            yield sink.take()
    yield sink.take()


def _write_member(member, lines, digest):
    data = "".join(lines).encode()
    lines.clear()
    if digest is not None:
        digest.update(data)
    member.write(data)


def survey_bundle(*, survey, method=None, confidence=None, thresholds=None) -> dict:
    """What the ZIP and XLSX downloads hold: ``codebook`` and ``estimates`` at one interval
    method and confidence level (``None``: the survey's own) and the numeric questions'
    ``thresholds`` (``None``: the middle of each range), as their keyword arguments."""
    return {
        "codebook": survey_codebook(survey=survey, method=method, confidence=confidence),
        "estimates": survey_estimates(
            survey=survey, confidence=confidence, method=method, thresholds=thresholds
        ),
    }


# --- Excel ------------------------------------------------------------------------------------


def xlsx_fits(survey) -> bool:
    """Whether one sheet can hold every submission (and the header)."""
    return survey.response_count < XLSX_MAX_ROWS


def too_many_rows_message(survey) -> str:
    return _(
        "This survey has %(responses)s responses, more than an Excel sheet holds "
        "(%(rows)s rows). Download the ZIP of CSV files instead."
    ) % {"responses": f"{survey.response_count:,}", "rows": f"{XLSX_MAX_ROWS - 1:,}"}


# Column widths in characters: wide enough for a short label, never so wide that one long
# question text pushes every other column off the screen.
XLSX_MIN_WIDTH = 8
XLSX_MAX_WIDTH = 60
# Rows read before the first is written, to size the columns (write-only sheets take their
# widths before any row); the rest are streamed as before.
XLSX_WIDTH_SAMPLE_ROWS = 200


def _display_width(value) -> int:
    # A CJK character takes two columns of a spreadsheet's default font.
    text = "" if value is None else str(value)
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def column_widths(rows: list[list]) -> list[int]:
    """Each column's width from the header (``rows[0]``) and the sampled rows, within the
    bounds above. A header cell needs room for its filter button as well as its bold name."""
    count = max((len(row) for row in rows), default=0)
    widths = [XLSX_MIN_WIDTH] * count
    for number, row in enumerate(rows):
        margin = 5 if number == 0 else 2
        for index, value in enumerate(row):
            widths[index] = max(widths[index], _display_width(value) + margin)
    return [min(width, XLSX_MAX_WIDTH) for width in widths]


def _sheet_row(sheet, row):
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE

    cells = []
    for value in row:
        if isinstance(value, bool):
            value = int(value)  # 1/0 as in the CSV files and the codebook
        elif isinstance(value, str):
            # Characters XML cannot hold become U+FFFD rather than failing the download.
            value = ILLEGAL_CHARACTERS_RE.sub("\ufffd", value)
            if value.startswith("="):
                # openpyxl would store it as a formula; keep it text, exactly as written.
                cell = WriteOnlyCell(sheet, value=value)
                cell.data_type = "s"
                value = cell
        cells.append(value)
    return cells


def _header_row(sheet, header, *, notes):
    """The header in bold; a column with a note (the question it holds, in the survey's own
    words) carries it as a comment, so the sheet keeps one header row for programs that read
    it, while a person sees the question on hovering."""
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.comments import Comment
    from openpyxl.styles import Font

    cells = []
    for name in header:
        cell = WriteOnlyCell(sheet, value=name)
        cell.font = Font(bold=True)
        note = notes.get(name)
        if note:
            cell.comment = Comment(note, "rrsurvey", width=320, height=40 + 16 * (len(note) // 40))
        cells.append(cell)
    return cells


def _write_sheet(workbook, title, rows, *, notes):
    """One sheet: a frozen, filterable header row and columns sized to what they hold."""
    from openpyxl.utils import get_column_letter

    sheet = workbook.create_sheet(title)
    header = next(rows)
    sample = [header, *islice(rows, XLSX_WIDTH_SAMPLE_ROWS)]
    for index, width in enumerate(column_widths(sample), start=1):
        sheet.column_dimensions[get_column_letter(index)].width = width
    sheet.freeze_panes = "A2"
    sheet.append(_header_row(sheet, header, notes=notes))
    count = 1
    for row in chain(sample[1:], rows):
        sheet.append(_sheet_row(sheet, row))
        count += 1
    # Written at the sheet's end, so it can name the last row without holding the rows.
    sheet.auto_filter.ref = f"A1:{get_column_letter(max(len(header), 1))}{count}"


def column_notes(codebook: Codebook) -> dict[str, str]:
    """``{column: what it holds}`` of the raw reports, from the codebook's ``column`` rows."""
    rows = codebook_rows(codebook)
    header = next(rows)
    section, name, text = (header.index(key) for key in ("section", "name", "text"))
    return {row[name]: row[text] for row in rows if row[section] == "column"}


def write_workbook(handle, *, codebook: Codebook, estimates: SurveyEstimates, watch_reports=iter):
    """Sheets ``estimates``, ``reports`` and ``codebook``, as in the ZIP; labels as chosen.

    Each sheet has its header row frozen and filterable and columns sized to their contents;
    the reports sheet's ``Q``/``G`` headers carry their question as a comment. The reports
    rows pass through ``watch_reports`` (an export job counts them there for its progress)."""
    # Imported here: openpyxl adds about 6 MB to every worker that never writes a workbook.
    from openpyxl import Workbook

    workbook = Workbook(write_only=True)
    sheets = [
        ("estimates", estimate_csv_rows(estimates, label=str), {}),
        ("reports", report_rows(codebook, label=str), column_notes(codebook)),
        ("codebook", codebook_rows(codebook, label=str), {}),
    ]
    for title, rows, notes in sheets:
        rows = watch_reports(rows) if title == "reports" else rows
        _write_sheet(workbook, title, iter(rows), notes=notes)
    workbook.save(handle)
