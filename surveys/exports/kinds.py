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
``progress`` never uses this thread's database connection: on PostgreSQL the connection may be
in the middle of a ``COPY`` when it is called (``exports.csv_blocks``; a job records its
progress from a thread of its own, ``exports.jobs.job_progress``).
"""

import dataclasses
import hashlib
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import closing
from dataclasses import dataclass

from django.conf import settings
from django.http import FileResponse

from . import spss_stata
from .bundles import (
    XLSX_CONTENT_TYPE,
    EncodedCsv,
    reports_may_be_large,
    survey_bundle,
    write_workbook,
    xlsx_fits,
    zip_stream,
)
from .codebook import RawFileFacts, survey_codebook
from .control_group import control_group_members
from .csv import codebook_csv_rows, escape_label, estimate_csv_rows, export_filename
from .csv_blocks import CsvBlock, report_csv_blocks

# How often a running export reports its progress (a row update per report) and checks its
# time budget: often enough for a smooth progress bar, rare enough to cost nothing.
PROGRESS_EVERY_ROWS = 20_000
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


def write_blocks(handle, blocks: Iterator[CsvBlock], *, progress: Progress) -> Written:
    """CSV ``blocks`` (``exports.csv_blocks``) into the binary ``handle``, hashing what is
    written and reporting the rows so far after each block; ``blocks`` closed in any case."""
    digest = hashlib.sha256()
    rows = 0
    with closing(blocks):
        for block in blocks:
            handle.write(block.data)
            digest.update(block.data)
            rows += block.rows
            progress(rows)
    return Written(rows=rows, sha256=digest.hexdigest())


def write_reports_csv(handle, *, survey, options, progress=no_progress) -> Written:
    blocks = report_csv_blocks(survey_codebook(survey=survey), rows_per_block=PROGRESS_EVERY_ROWS)
    return write_blocks(handle, blocks, progress=progress)


def _interval(survey, options):
    thresholds = options.get("thresholds")
    return survey_bundle(
        survey=survey,
        method=options.get("method"),
        confidence=options.get("confidence"),
        thresholds=None if thresholds is None else {int(k): v for k, v in thresholds.items()},
    )


def write_zip(handle, *, survey, options, progress=no_progress) -> Written:
    """The ZIP of the results page; ``reports.csv`` (the same blocks as the responses CSV)
    is hashed as it is compressed and its rows and checksum go into ``codebook.csv``, which
    therefore comes last."""
    bundle = _interval(survey, options)
    digest = hashlib.sha256()
    counter = [0]

    def reports(blocks):
        for block in blocks:
            counter[0] += block.rows
            yield block.data
            progress(counter[0])

    def codebook():
        facts = RawFileFacts(name="reports.csv", rows=counter[0], sha256=digest.hexdigest())
        yield from codebook_csv_rows(dataclasses.replace(bundle["codebook"], raw_file=facts))

    blocks = report_csv_blocks(bundle["codebook"], rows_per_block=PROGRESS_EVERY_ROWS)
    with closing(blocks):
        ordered = [
            ("reports.csv", EncodedCsv(reports(blocks)), reports_may_be_large(bundle["codebook"])),
            ("estimates.csv", estimate_csv_rows(bundle["estimates"]), False),
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
    """The SPSS (``sav``) or Stata (``dta``) file of ``exports.spss_stata``, streamed into
    ``handle`` (which it seeks back into at the end, for the row count)."""

    def write(handle, *, survey, options, progress=no_progress) -> Written:
        write_file, _content_type = spss_stata.FORMATS[extension]
        return Written(rows=write_file(survey_codebook(survey=survey), handle, progress=progress))

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
