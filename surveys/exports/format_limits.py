"""How much text SPSS and Stata files keep, and cutting text to fit (for spss_stata.py).

Labels longer than a format allows are refused or cut by pyreadstat; cutting them here, at
a character boundary and with a visible "…", keeps every file valid and says that it was cut.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """How much of a text a format keeps, and in what unit."""

    file_label: int
    variable_label: int
    value_label: int
    note: int | None  # one note's length (SPSS: a document line); None: no practical limit
    in_bytes: bool  # lengths in UTF-8 bytes (SPSS) or in characters (Stata)


# SPSS: file label 64 bytes, variable label 256, value label 120, document lines 80 (IBM SPSS
# Statistics' system file format); Stata 14+: 80 characters for file and variable labels,
# 32,000 for a value label (Stata's [D] limits). pyreadstat refuses or cuts longer ones.
LIMITS = {
    "sav": Limits(file_label=64, variable_label=256, value_label=120, note=80, in_bytes=True),
    "dta": Limits(file_label=80, variable_label=80, value_label=32000, note=None, in_bytes=False),
}
ELLIPSIS = "…"


def shorten(text: str, *, limit: int, in_bytes: bool) -> str:
    """``text`` cut to ``limit`` characters (or UTF-8 bytes), ending in "…" when cut; never
    in the middle of a character."""

    def size(value):
        return len(value.encode()) if in_bytes else len(value)

    if size(text) <= limit:
        return text
    room = limit - size(ELLIPSIS)
    kept = text
    while size(kept) > room:
        kept = kept[: max(0, len(kept) - max(1, (size(kept) - room) // 4))]
    return kept.rstrip() + ELLIPSIS


def note_lines(text: str, *, limit: int | None) -> list[str]:
    """``text`` as notes of at most ``limit`` UTF-8 bytes, broken between words where it can
    (SPSS's document lines); continuation lines are indented."""
    if limit is None or len(text.encode()) <= limit:
        return [text]
    lines, current = [], ""
    for word in text.split(" "):
        candidate = f"{current} {word}" if current else word
        if len(candidate.encode()) <= limit:
            current = candidate
            continue
        if current:
            lines.append(current)
        current = "  " + word
        while len(current.encode()) > limit:  # a word longer than a line: cut it
            head = shorten(current, limit=limit, in_bytes=True)[:-1]
            lines.append(head)
            current = "  " + current[len(head) :]
    lines.append(current)
    return lines
