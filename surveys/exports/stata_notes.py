"""Notes in a Stata file: pyreadstat writes none to a .dta file, so they are put in as
Stata's own ``notes`` command stores them (for spss_stata.py's ``write_dta``).
"""

import struct

from .format_limits import shorten

# The <map> of a dta 117+ file: 14 little- or big-endian 8-byte offsets, of which these
# follow the characteristics and move when notes are put in them (Stata's "help dta": data,
# strls, value labels, the closing tag, the end of file).
_MAP_ENTRIES = 14
# Stata keeps a characteristic's text up to 67,784 bytes.
STATA_NOTE_MAX_BYTES = 67_784


def stata_notes_add(path, texts: list[str]) -> None:
    """Put ``texts`` into a dta 117–119 file's characteristics as Stata's ``notes`` stores
    them: ``_dta[note0]`` the count, ``_dta[note1]``… the texts; the map's later offsets
    move by as much. The file must have no characteristics yet (pyreadstat writes none)."""
    with open(path, "rb") as handle:
        data = handle.read()
    release = int(data[data.index(b"<release>") + 9 : data.index(b"</release>")])
    order = "<" if b"<byteorder>LSF</byteorder>" in data[:200] else ">"
    name_bytes = 33 if release == 117 else 129
    empty = b"<characteristics></characteristics>"
    at = data.index(empty) + len(b"<characteristics>")

    def characteristic(name, text):
        encoded = shorten(text, limit=STATA_NOTE_MAX_BYTES - 1, in_bytes=True).encode()
        body = b"_dta".ljust(name_bytes, b"\0") + name.encode().ljust(name_bytes, b"\0")
        body += encoded + b"\0"
        return b"<ch>" + struct.pack(order + "I", len(body)) + body + b"</ch>"

    blob = characteristic("note0", str(len(texts))) + b"".join(
        characteristic(f"note{number}", text) for number, text in enumerate(texts, start=1)
    )
    start = data.index(b"<map>") + len(b"<map>")
    fmt = f"{order}{_MAP_ENTRIES}Q"
    offsets = struct.unpack(fmt, data[start : start + struct.calcsize(fmt)])
    moved = struct.pack(fmt, *(o + len(blob) if o >= at else o for o in offsets))
    data = data[:start] + moved + data[start + len(moved) : at] + blob + data[at:]
    with open(path, "wb") as handle:
        handle.write(data)
