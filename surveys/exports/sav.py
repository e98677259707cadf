"""An SPSS system file (.sav) written as it goes: the dictionary, then the cases in blocks, the
case count put into the header at the end. Memory does not grow with the cases.

Nothing here knows about surveys (``exports.spss_stata`` says what the file holds). The layout
is IBM SPSS Statistics' system file format as PSPP documents it ("System File Format") and
ReadStat writes it: the file header (176 bytes), one variable record per variable (and per
8 bytes of a string beyond the first, and per segment of a string longer than 255 bytes),
value labels (records 3 and 4), the document (the notes, 80-byte lines), the extension
records (7: machine integers and floats, display parameters, long names, very long strings,
the UTF-8 encoding), the dictionary's end (999), then the cases, uncompressed: 8 bytes a
number (IEEE little-endian), a string padded with spaces to a multiple of 8.

The cases are written a block at a time from columns (``write_columns``): each column put
into its bytes of every case at once by numpy, so that ten million cases take seconds, not
the minutes of one ``struct.pack`` per case; ``write_cases`` takes rows and writes them the
same way.
"""

import struct
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime
from itertools import islice

import numpy as np

# 8-byte values of the machine float record: system-missing, the largest and lowest numbers.
SYSMIS = -sys.float_info.max
_HIGHEST = sys.float_info.max
_LOWEST = struct.unpack("<d", struct.pack("<Q", 0xFFEFFFFFFFFFFFFE))[0]

# Format types (the print and write formats' high byte).
_FORMAT_A, _FORMAT_F, _FORMAT_DATE = 1, 5, 20
# Measurement levels of the display record.
MEASURE_UNKNOWN, MEASURE_NOMINAL, MEASURE_SCALE = 0, 1, 3
_ALIGN_LEFT, _ALIGN_RIGHT = 0, 1
# A string longer than this is a very long string, stored in segments of 255 bytes each
# (256 in the case), one segment per 252 bytes of its width (PSPP, ReadStat).
_SHORT_STRING = 255
_DOCUMENT_LINE = 80
# Days between SPSS's origin (the Gregorian calendar's first day) and a date's ordinal.
_ORIGIN = date(1582, 10, 14).toordinal()
# Cases are written this many at a time by ``write_cases``.
_CASES_PER_WRITE = 20_000
_SPACE = ord(" ")


def spss_dates(ordinals: np.ndarray) -> np.ndarray:
    """Days (``date.toordinal()``) as SPSS stores a date: seconds since 1582-10-14."""
    return (np.asarray(ordinals, dtype=np.int64) - _ORIGIN) * 86400.0


@dataclass(frozen=True)
class SavVariable:
    """One variable: a number (``width`` 0, shown F8.0 or as a date) or a string of ``width``
    bytes."""

    name: str
    label: str = ""
    width: int = 0
    is_date: bool = False
    value_labels: dict = field(default_factory=dict)  # {number: text}, text ≤ 120 bytes
    missing: tuple = ()  # up to three discrete user-missing numbers
    measure: int = MEASURE_UNKNOWN

    def segments(self) -> list[int]:
        """The widths of the string's segments (one for a number or a short string)."""
        if self.width <= _SHORT_STRING:
            return [self.width]
        count = (self.width + 251) // 252
        return [_SHORT_STRING] * (count - 1) + [self.width - 252 * (count - 1)]

    def case_bytes(self) -> int:
        """The bytes it takes in a case."""
        widths = self.segments()
        return sum(256 for _ in widths[:-1]) + max(8, _round8(widths[-1]))


def _round8(n: int) -> int:
    return (n + 7) // 8 * 8


def _format(variable: SavVariable, width: int | None = None) -> int:
    if variable.width:
        return (_FORMAT_A << 16) | (min(width or variable.width, 255) << 8)
    if variable.is_date:
        return (_FORMAT_DATE << 16) | (11 << 8)
    return (_FORMAT_F << 16) | (8 << 8)


def _record7(subtype: int, size: int, data: bytes) -> bytes:
    return struct.pack("<4i", 7, subtype, size, len(data) // size) + data


class SavWriter:
    """Writes the file into ``handle`` (binary, seekable): ``write_cases`` as often as needed,
    then ``close`` to put the case count into the header."""

    def __init__(self, handle, *, variables: list[SavVariable], file_label: str, notes: list[str]):
        self._handle = handle
        self._start = handle.tell()
        self._variables = variables
        self.cases = 0
        self._short = [f"V{number}" for number in range(1, len(variables) + 1)]
        handle.write(self._dictionary(file_label, notes))
        self._case_bytes = sum(v.case_bytes() for v in variables)
        self._encoders = [self._text_encoder(v) if v.width else None for v in variables]

    # --- the dictionary ---

    def _dictionary(self, file_label: str, notes: list[str]) -> bytes:
        units = sum(v.case_bytes() for v in self._variables) // 8
        now = datetime.now()
        header = struct.pack(
            "<4s60s5id9s8s64s3x",
            b"$FL2",
            b"@(#) SPSS DATA FILE - rrsurvey".ljust(60),
            2,  # layout code
            units,  # 8-byte units per case
            0,  # uncompressed
            0,  # no weight variable
            -1,  # cases: unknown until close()
            100.0,  # compression bias
            now.strftime("%d %b %y").encode(),
            now.strftime("%H:%M:%S").encode(),
            file_label.encode().ljust(64),
        )
        parts = [header]
        parts += [
            self._variable_records(v, short)
            for v, short in zip(self._variables, self._short, strict=True)
        ]
        parts += self._value_label_records()
        if notes:
            lines = [line.encode() for line in notes]
            assert all(len(line) <= _DOCUMENT_LINE for line in lines), "notes must fit 80 bytes"
            parts.append(struct.pack("<2i", 6, len(lines)))
            parts += [line.ljust(_DOCUMENT_LINE) for line in lines]
        parts.append(self._extension_records())
        parts.append(struct.pack("<2i", 999, 0))
        return b"".join(parts)

    def _variable_records(self, variable: SavVariable, short: str) -> bytes:
        label = variable.label.encode()
        first = variable.segments()[0]
        record = struct.pack(
            "<6i8s",
            2,
            first,
            1 if label else 0,
            len(variable.missing),
            _format(variable),
            _format(variable),
            short.encode().ljust(8),
        )
        if label:
            assert len(label) <= 256, "a variable label keeps 256 bytes"
            record += struct.pack("<i", len(label)) + label.ljust((len(label) + 3) // 4 * 4)
        record += b"".join(struct.pack("<d", value) for value in variable.missing)
        record += self._continuations(first)
        for segment, width in enumerate(variable.segments()[1:], start=1):
            name = f"{short}_{segment}".encode().ljust(8)
            fmt = _format(variable, width)
            record += struct.pack("<6i8s", 2, width, 0, 0, fmt, fmt, name)
            record += self._continuations(width)
        return record

    @staticmethod
    def _continuations(width: int) -> bytes:
        count = max(1, _round8(width) // 8) - 1 if width else 0
        return struct.pack("<6i8s", 2, -1, 0, 0, 0, 0, b" " * 8) * count

    def _value_label_records(self) -> list[bytes]:
        records, index = [], 1
        for variable in self._variables:
            if variable.value_labels:
                entries = [struct.pack("<2i", 3, len(variable.value_labels))]
                for value, text in variable.value_labels.items():
                    encoded = text.encode()
                    assert len(encoded) <= 120, "a value label keeps 120 bytes"
                    entry = struct.pack("<dB", value, len(encoded)) + encoded
                    entries.append(entry.ljust(8 + _round8(1 + len(encoded)), b" "))
                entries.append(struct.pack("<3i", 4, 1, index))
                records.append(b"".join(entries))
            index += variable.case_bytes() // 8
        return records

    def _extension_records(self) -> bytes:
        variables, shorts = self._variables, self._short
        integers = struct.pack("<8i", 20, 0, 0, -1, 1, 1, 2, 65001)  # IEEE, little, UTF-8
        floats = struct.pack("<3d", SYSMIS, _HIGHEST, _LOWEST)
        display = b"".join(
            struct.pack("<3i", v.measure, 8, _ALIGN_LEFT if v.width else _ALIGN_RIGHT)
            * len(v.segments())
            for v in variables
        )
        names = "\t".join(f"{short}={v.name}" for v, short in zip(variables, shorts, strict=True))
        long_strings = "".join(
            f"{short}={v.width:05d}\0\t"
            for v, short in zip(variables, shorts, strict=True)
            if v.width > _SHORT_STRING
        )
        records = [
            _record7(3, 4, integers),
            _record7(4, 8, floats),
            _record7(11, 4, display),
            _record7(13, 1, names.encode()),
        ]
        if long_strings:
            records.append(_record7(14, 1, long_strings.encode()))
        records.append(_record7(20, 1, b"UTF-8"))
        return b"".join(records)

    # --- the cases ---

    def _text_encoder(self, variable: SavVariable):
        size, widths = variable.case_bytes(), variable.segments()

        def text(value):
            data = (value or "").encode()
            if len(data) > variable.width:
                raise ValueError(f"{variable.name}: {len(data)} bytes, more than {variable.width}")
            if len(widths) == 1:
                return data.ljust(size)
            # A very long string: 255 bytes in each 256-byte segment (as ReadStat writes it).
            chunks = [data[at : at + 255].ljust(256) for at in range(0, len(data), 255)]
            return b"".join(chunks).ljust(size)[:size]

        return text

    def write_columns(self, columns: list, count: int) -> None:
        """``count`` cases given as one column per variable: for a number or a date an array
        of the numbers stored (``SYSMIS`` for system-missing, a date as ``spss_dates`` gives
        it); for a string a sequence of ``str`` (``None`` empty), or, for a string of at most
        255 bytes, a ``uint8`` array of ``count`` rows of its bytes, NUL the padding."""
        out = np.empty((count, self._case_bytes), dtype=np.uint8)
        at = 0
        for variable, column, encode in zip(self._variables, columns, self._encoders, strict=True):
            size = variable.case_bytes()
            cells = out[:, at : at + size]
            if not variable.width:
                numbers = np.ascontiguousarray(column, dtype="<f8")
                assert numbers.shape == (count,), (variable.name, numbers.shape)
                cells[:] = numbers.view(np.uint8).reshape(count, 8)
            elif isinstance(column, np.ndarray):
                width = column.shape[1]
                if column.shape[0] != count or width > min(variable.width, _SHORT_STRING):
                    raise ValueError(f"{variable.name}: {column.shape} bytes for {count} cases")
                cells[:, :width] = np.where(column == 0, _SPACE, column)
                cells[:, width:] = _SPACE
            else:
                data = b"".join([encode(value) for value in column])
                cells[:] = np.frombuffer(data, dtype=np.uint8).reshape(count, size)
            at += size
        self._handle.write(out.data)
        self.cases += count

    def write_cases(self, cases: Iterable[list]) -> None:
        """Each case a list of values, one per variable: a number or ``None`` (system-missing),
        a ``date`` or ``None``, or a string."""
        cases = iter(cases)
        while batch := list(islice(cases, _CASES_PER_WRITE)):
            columns = []
            for variable, column in zip(self._variables, zip(*batch, strict=True), strict=True):
                if variable.width:
                    columns.append(column)
                elif variable.is_date:
                    columns.append(
                        [
                            SYSMIS if day is None else (day.toordinal() - _ORIGIN) * 86400.0
                            for day in column
                        ]
                    )
                else:
                    columns.append([SYSMIS if number is None else number for number in column])
            self.write_columns(columns, len(batch))

    def close(self) -> None:
        """The case count into the header (at byte 80); the handle stays open."""
        end = self._handle.tell()
        self._handle.seek(self._start + 80)
        self._handle.write(struct.pack("<i", self.cases))
        self._handle.seek(end)
