"""A Stata data file (.dta, format 118: Stata 14 and later) written as it goes: the
descriptors, then the observations in blocks, then the value labels; the number of
observations and the map's later offsets put in at the end. Memory does not grow with the
observations.

Nothing here knows about surveys (``exports.spss_stata`` says what the file holds). The layout
is Stata's "help dta" for release 118, as ReadStat and pandas' ``StataWriter117`` write it:
``<header>`` (K, N, the label, the time stamp), ``<map>`` (14 offsets), the variable types,
names (129 bytes), sort list, formats (57), value-label names (129), variable labels (321),
``<characteristics>`` (the notes, as Stata's ``notes`` command stores them: ``_dta[note0]`` the
count, ``_dta[note1]``… the texts), ``<data>`` (little-endian, fixed width), ``<strls>``
(none: text answers fit a ``str#``), ``<value_labels>``.

The observations are written a block at a time from columns (``write_columns``): each column
put into its bytes of every observation at once by numpy, so that ten million take seconds,
not the minutes of one ``struct.pack`` per row; ``write_rows`` takes rows and writes them the
same way.
"""

import struct
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime
from itertools import islice

import numpy as np

from .format_limits import shorten

RELEASE = 118
# Variable types of a dta 117+ file; 1…2045 is a str# of that many bytes.
TYPE_DOUBLE, TYPE_LONG = 65526, 65528
_STR_MAX = 2045
# Missing values: "." and the extended ".a", ".b"… of each type (Stata's "help dta").
_LONG_MISSING = 0x7FFFFFE5
_DOUBLE_MISSING = 0x7FE0000000000000
_DOUBLE_STEP = 0x010000000000
_NAME_BYTES, _FORMAT_BYTES, _LABEL_BYTES = 129, 57, 321
# Stata keeps a characteristic's text up to 67,784 bytes.
NOTE_MAX_BYTES = 67_784
_EPOCH = date(1960, 1, 1).toordinal()
_ROWS_PER_WRITE = 20_000
_INT32 = np.iinfo(np.int32)


def stata_dates(ordinals: np.ndarray) -> np.ndarray:
    """Days (``date.toordinal()``) as Stata stores a date (``%td``): days since 1960-01-01."""
    return (np.asarray(ordinals, dtype=np.int64) - _EPOCH).astype(np.float64)


def long_missing(letter: str) -> int:
    """The stored value of the extended missing value ``.letter`` in a long (and in a value
    label's table)."""
    return _LONG_MISSING + 1 + ord(letter) - ord("a")


def double_missing(letter: str) -> float:
    """The stored value of the extended missing value ``.letter`` in a double."""
    bits = _DOUBLE_MISSING + _DOUBLE_STEP * (1 + ord(letter) - ord("a"))
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


@dataclass(frozen=True)
class DtaVariable:
    """One variable: a long (``TYPE_LONG``), a double (``TYPE_DOUBLE``, also a date) or a
    ``str#`` of ``width`` bytes."""

    name: str
    type: int
    format: str
    label: str = ""
    value_labels: dict = field(default_factory=dict)  # {int or missing letter: text}

    @property
    def width(self) -> int:
        return {TYPE_DOUBLE: 8, TYPE_LONG: 4}.get(self.type, self.type)


def _fixed(text: str, size: int) -> bytes:
    data = text.encode()
    assert len(data) < size, f"{text!r} is longer than {size - 1} bytes"
    return data.ljust(size, b"\0")


def _tag(name: str, data: bytes) -> bytes:
    return f"<{name}>".encode() + data + f"</{name}>".encode()


def _characteristic(name: str, text: str) -> bytes:
    encoded = shorten(text, limit=NOTE_MAX_BYTES - 1, in_bytes=True).encode()
    body = _fixed("_dta", _NAME_BYTES) + _fixed(name, _NAME_BYTES) + encoded + b"\0"
    return _tag("ch", struct.pack("<I", len(body)) + body)


class DtaWriter:
    """Writes the file into ``handle`` (binary, seekable): ``write_rows`` as often as needed,
    then ``close`` for the value labels, the count and the map."""

    def __init__(self, handle, *, variables: list[DtaVariable], file_label: str, notes: list[str]):
        self._handle = handle
        self._start = handle.tell()
        self._variables = variables
        self.rows = 0
        self._row_bytes = sum(v.width for v in variables)
        self._encoders = [self._encoder(v) for v in variables]
        self._map = [0] * 14
        self._write(b"<stata_dta>")
        label = file_label.encode()
        stamp = datetime.now().strftime("%d %b %Y %H:%M").encode()
        header = (
            _tag("release", str(RELEASE).encode())
            + _tag("byteorder", b"LSF")
            + _tag("K", struct.pack("<H", len(variables)))
        )
        self._write(b"<header>" + header + b"<N>")
        self._rows_at = self._tell()
        self._write(struct.pack("<Q", 0) + b"</N>")
        self._write(
            _tag("label", struct.pack("<H", len(label)) + label)
            + _tag("timestamp", struct.pack("<B", len(stamp)) + stamp)
            + b"</header>"
        )
        self._map[1] = self._tell()
        self._write(_tag("map", bytes(8 * 14)))
        names = [v.name for v in variables]
        labelled = [v.name if v.value_labels else "" for v in variables]
        sections = [
            ("variable_types", b"".join(struct.pack("<H", v.type) for v in variables)),
            ("varnames", b"".join(_fixed(name, _NAME_BYTES) for name in names)),
            ("sortlist", bytes(2 * (len(variables) + 1))),
            ("formats", b"".join(_fixed(v.format, _FORMAT_BYTES) for v in variables)),
            ("value_label_names", b"".join(_fixed(name, _NAME_BYTES) for name in labelled)),
            ("variable_labels", b"".join(_fixed(v.label, _LABEL_BYTES) for v in variables)),
        ]
        notes_blob = _characteristic("note0", str(len(notes))) if notes else b""
        notes_blob += b"".join(
            _characteristic(f"note{number}", text) for number, text in enumerate(notes, start=1)
        )
        sections.append(("characteristics", notes_blob))
        for number, (name, data) in enumerate(sections, start=2):
            self._map[number] = self._tell()
            self._write(_tag(name, data))
        self._map[9] = self._tell()
        self._write(b"<data>")

    def _tell(self) -> int:
        return self._handle.tell() - self._start

    def _write(self, data: bytes) -> None:
        self._handle.write(data)

    def _encoder(self, variable: DtaVariable):
        """A row's value to the column ``write_columns`` takes."""
        if variable.type == TYPE_LONG:
            letters = {letter: long_missing(letter) for letter in "ab"}
            return lambda value: letters[value] if isinstance(value, str) else value
        if variable.type == TYPE_DOUBLE:
            letters = {letter: double_missing(letter) for letter in "ab"}

            def number(value):
                if isinstance(value, str):
                    return letters[value]
                if isinstance(value, date):
                    return float(value.toordinal() - _EPOCH)
                return float(value)

            return number
        return lambda value: value

    def _text(self, variable: DtaVariable, column) -> bytes:
        width, data = variable.type, []
        for value in column:
            encoded = (value or "").encode()
            if len(encoded) > width:
                raise ValueError(f"{variable.name}: {len(encoded)} bytes, more than {width}")
            data.append(encoded.ljust(width, b"\0"))
        return b"".join(data)

    def write_columns(self, columns: list, count: int) -> None:
        """``count`` observations given as one column per variable: for a long an array of
        integers, for a double one of numbers (an extended missing value as ``long_missing``
        and ``double_missing`` give it, a date as ``stata_dates``); for a ``str#`` a sequence
        of ``str`` (``None`` empty) or a ``uint8`` array of ``count`` rows of its bytes, NUL
        the padding."""
        out = np.empty((count, self._row_bytes), dtype=np.uint8)
        at = 0
        for variable, column in zip(self._variables, columns, strict=True):
            size = variable.width
            cells = out[:, at : at + size]
            if variable.type in (TYPE_LONG, TYPE_DOUBLE):
                kind = "<i4" if variable.type == TYPE_LONG else "<f8"
                if kind == "<i4":
                    column = np.asarray(column, dtype=np.int64)
                    if column.size and not _INT32.min <= column.min() <= column.max() <= _INT32.max:
                        raise ValueError(f"{variable.name}: a value beyond a long's 4 bytes")
                numbers = np.ascontiguousarray(column, dtype=kind)
                assert numbers.shape == (count,), (variable.name, numbers.shape)
                cells[:] = numbers.view(np.uint8).reshape(count, size)
            elif isinstance(column, np.ndarray):
                width = column.shape[1]
                if column.shape[0] != count or width > size:
                    raise ValueError(f"{variable.name}: {column.shape} bytes for {count} rows")
                cells[:, :width] = column
                cells[:, width:] = 0
            else:
                data = self._text(variable, column)
                cells[:] = np.frombuffer(data, dtype=np.uint8).reshape(count, size)
            at += size
        self._write(out.data)
        self.rows += count

    def write_rows(self, rows: Iterable[list]) -> None:
        """Each row a list of values, one per variable: an int or a missing letter (a long),
        a number, a ``date`` or a missing letter (a double), a string."""
        rows = iter(rows)
        while batch := list(islice(rows, _ROWS_PER_WRITE)):
            columns = [
                [encode(value) for value in column]
                for encode, column in zip(self._encoders, zip(*batch, strict=True), strict=True)
            ]
            self.write_columns(columns, len(batch))

    def close(self) -> None:
        """The value labels and the end; then N and the map at their places."""
        self._write(b"</data>")
        self._map[10] = self._tell()
        self._write(b"<strls></strls>")
        self._map[11] = self._tell()
        self._write(
            _tag(
                "value_labels",
                b"".join(self._label_table(v) for v in self._variables if v.value_labels),
            )
        )
        self._map[12] = self._tell()
        self._write(b"</stata_dta>")
        self._map[13] = self._tell()
        end = self._handle.tell()
        self._handle.seek(self._start + self._rows_at)
        self._write(struct.pack("<Q", self.rows))
        self._handle.seek(self._start + self._map[1] + len(b"<map>"))
        self._write(struct.pack("<14Q", *self._map))
        self._handle.seek(end)

    @staticmethod
    def _label_table(variable: DtaVariable) -> bytes:
        entries = sorted(
            (long_missing(value) if isinstance(value, str) else value, text)
            for value, text in variable.value_labels.items()
        )
        offsets, text = [], b""
        for _value, label in entries:
            offsets.append(len(text))
            text += label.encode() + b"\0"
        table = struct.pack(
            f"<2i{len(entries)}i{len(entries)}i",
            len(entries),
            len(text),
            *offsets,
            *[v for v, _ in entries],
        )
        table += text
        body = struct.pack("<i", len(table)) + _fixed(variable.name, _NAME_BYTES) + bytes(3) + table
        return _tag("lbl", body)
