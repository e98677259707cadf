"""The raw exports as files: one registry that both the direct download and the worker use.

Every raw export (the responses CSV, the CSV for R, the ZIP, the Excel workbook) is written by
``ExportKind.write(handle, survey=..., options=..., progress=...)`` into a binary file:

- in the request, for a survey below ``settings.EXPORT_JOB_THRESHOLD`` responses, into a
  temporary file with a time budget (``build_direct``): the response is sent only once the
  file is whole, with its length, so a download is never a truncated 200; past the budget the
  export becomes a job instead;
- by the worker (``exports.jobs``) into the job's file, reporting progress.

Adding an export (SPSS, Stata...) is one entry in ``EXPORT_KINDS``: a function writing the file
from the survey and the request's options, calling ``progress(rows)`` as rows go out.
"""

import dataclasses
import hashlib
import io
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.http import FileResponse

from . import spss_stata
from .bundles import (
    XLSX_CONTENT_TYPE,
    survey_bundle,
    write_workbook,
    xlsx_fits,
    zip_members,
    zip_stream,
)
from .codebook import RawFileFacts, survey_codebook
from .control_group import control_group_members
from .csv import (
    codebook_csv_rows,
    csv_safe,
    escape_label,
    export_filename,
    report_csv_text_rows,
)

# How often a running export reports its progress (a row update per report) and checks its
# time budget: often enough for a smooth progress bar, rare enough to cost nothing.
PROGRESS_EVERY_ROWS = 20_000
# Rows formatted per write: one large write per chunk, never one per row (issue 28).
ROWS_PER_WRITE = 5_000
# A direct export is built in memory up to this size, then in a temporary file on disk.
DIRECT_MEMORY_BYTES = 8 * 2**20

Progress = Callable[[int], None]


def no_progress(rows: int) -> None:
    """The progress callback of an export nobody watches."""


@dataclass(frozen=True)
class Written:
    """What an export wrote: the raw reports' data rows (None when the format's writer does
    not say) and their SHA-256 (of the CSV bytes: the whole file for a CSV, ``reports.csv``
    inside a ZIP; empty for the other formats)."""

    rows: int | None
    sha256: str = ""


@dataclass(frozen=True)
class ExportKind:
    name: str
    extension: str
    content_type: str
    filename_kind: str  # the middle of the file name (``exports.csv.export_filename``)
    write: Callable[..., Written]
    fits: Callable = lambda survey: True  # whether the format can hold the survey's rows

    def filename(self, survey) -> str:
        return export_filename(survey, kind=self.filename_kind, extension=self.extension)


def counted(rows: Iterable, progress: Progress) -> Iterator:
    """``rows`` unchanged, the header first, calling ``progress(data rows so far)`` every
    ``PROGRESS_EVERY_ROWS`` rows and once at the end."""
    count = -1  # the header is not a data row
    for count, row in enumerate(rows, start=-1):
        if count and count % PROGRESS_EVERY_ROWS == 0:
            progress(count)
        yield row
    progress(max(count + 1, 0))


def write_csv(
    handle, rows: Iterable[list], *, progress: Progress = no_progress, safe=False
) -> Written:
    """``rows`` (the header first) as CSV into the binary ``handle``, cells neutralised as in
    every CSV (``csv_safe``; ``safe=True``: the rows are text that needs none), in chunks of
    ``ROWS_PER_WRITE`` rows, hashing what is written."""
    import csv

    digest = hashlib.sha256()
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    count = -1
    chunk = []
    for count, row in enumerate(rows, start=-1):
        chunk.append(row if safe else [csv_safe(cell) for cell in row])
        if len(chunk) >= ROWS_PER_WRITE:
            _flush(writer, buffer, chunk, handle, digest)
            if count % PROGRESS_EVERY_ROWS < ROWS_PER_WRITE:
                progress(count + 1)
    _flush(writer, buffer, chunk, handle, digest)
    rows_written = max(count + 1, 0)
    progress(rows_written)
    return Written(rows=rows_written, sha256=digest.hexdigest())


def _flush(writer, buffer, chunk, handle, digest):
    writer.writerows(chunk)
    chunk.clear()
    data = buffer.getvalue().encode()
    buffer.seek(0)
    buffer.truncate()
    digest.update(data)
    handle.write(data)


def write_reports_csv(handle, *, survey, options, progress=no_progress) -> Written:
    rows = report_csv_text_rows(survey_codebook(survey=survey))
    return write_csv(handle, rows, progress=progress, safe=True)


def _interval(survey, options):
    thresholds = options.get("thresholds")
    return survey_bundle(
        survey=survey,
        method=options.get("method"),
        confidence=options.get("confidence"),
        thresholds=None if thresholds is None else {int(k): v for k, v in thresholds.items()},
    )


def write_zip(handle, *, survey, options, progress=no_progress) -> Written:
    """The ZIP of the results page; ``reports.csv`` is hashed as it is compressed and its rows
    and checksum go into ``codebook.csv``, which therefore comes last."""
    bundle = _interval(survey, options)
    members = {name: (rows, large) for name, rows, large in zip_members(**bundle)}
    digest = hashlib.sha256()
    counter = []

    def reports():
        rows, _large = members["reports.csv"]
        for count, row in enumerate(counted(rows, progress)):
            counter[:] = [count]
            yield row

    def codebook():
        facts = RawFileFacts(name="reports.csv", rows=counter[0], sha256=digest.hexdigest())
        yield from codebook_csv_rows(dataclasses.replace(bundle["codebook"], raw_file=facts))

    ordered = [
        ("reports.csv", reports(), members["reports.csv"][1]),
        ("estimates.csv", *members["estimates.csv"]),
        *control_group_members(survey, options, label=escape_label),
        ("codebook.csv", codebook(), False),
    ]
    for chunk in zip_stream(ordered, digests={"reports.csv": digest}):
        handle.write(chunk)
    return Written(rows=counter[0], sha256=digest.hexdigest())


def write_xlsx(handle, *, survey, options, progress=no_progress) -> Written:
    """The workbook, written in openpyxl's write-only mode straight into ``handle``."""
    counter = []

    def watch(rows):
        for count, row in enumerate(counted(rows, progress)):
            counter[:] = [count]
            yield row

    write_workbook(handle, **_interval(survey, options), watch_reports=watch)
    return Written(rows=counter[0] if counter else 0)


def labelled_writer(extension):
    """The SPSS (``sav``) or Stata (``dta``) file of ``exports.spss_stata``, which writes to a
    path: written in a temporary directory, then copied into ``handle``."""

    def write(handle, *, survey, options, progress=no_progress) -> Written:
        write_file, _content_type = spss_stata.FORMATS[extension]
        with tempfile.TemporaryDirectory(prefix="rrsurvey-export-") as directory:
            path = Path(directory) / f"reports.{extension}"
            write_file(survey_codebook(survey=survey), path)
            with open(path, "rb") as source:
                shutil.copyfileobj(source, handle, 2**20)
        return Written(rows=None)

    return write


EXPORT_KINDS = {
    kind.name: kind
    for kind in (
        ExportKind("reports", "csv", "text/csv; charset=utf-8", "reports", write_reports_csv),
        ExportKind("for-r", "csv", "text/csv; charset=utf-8", "for-r", write_reports_csv),
        ExportKind("zip", "zip", "application/zip", "export", write_zip),
        ExportKind("xlsx", "xlsx", XLSX_CONTENT_TYPE, "export", write_xlsx, xlsx_fits),
        ExportKind("sav", "sav", spss_stata.SPSS_CONTENT_TYPE, "reports", labelled_writer("sav")),
        ExportKind("dta", "dta", spss_stata.STATA_CONTENT_TYPE, "reports", labelled_writer("dta")),
    )
}


def file_response(handle, *, size, filename, content_type) -> FileResponse:
    """A whole file with its length: a client that receives less knows it was cut."""
    response = FileResponse(handle, as_attachment=True, filename=filename)
    response["Content-Type"] = content_type
    response["Content-Length"] = str(size)
    response["Cache-Control"] = "no-store"
    return response


class DirectExportTooSlow(Exception):
    """A direct export ran past ``settings.EXPORT_DIRECT_SECONDS``: make it a job instead."""


def build_direct(*, kind: ExportKind, survey, options, clock=time.monotonic):
    """The whole file of a direct download, in a temporary file at its start, or
    ``DirectExportTooSlow`` once building it takes longer than the budget (checked at each
    progress report, so also before the first row)."""
    deadline = clock() + settings.EXPORT_DIRECT_SECONDS

    def within_budget(rows):
        if clock() >= deadline:
            raise DirectExportTooSlow(rows)

    handle = tempfile.SpooledTemporaryFile(max_size=DIRECT_MEMORY_BYTES)  # noqa: SIM115
    try:
        within_budget(0)
        kind.write(handle, survey=survey, options=options, progress=within_budget)
        within_budget(-1)
    except BaseException:
        handle.close()
        raise
    size = handle.tell()
    handle.seek(0)
    return handle, size
