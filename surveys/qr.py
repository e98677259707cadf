"""QR code of a survey's respondent link, drawn server-side as SVG (no third-party request)."""

import io

import segno


def qr_svg(url, *, title="", scale=8) -> bytes:
    """An SVG document encoding ``url``; ``title`` is the code's accessible name."""
    # Medium error correction survives a smudged printout without making the code dense.
    code = segno.make(url, error="m", micro=False)
    buffer = io.BytesIO()
    code.save(
        buffer,
        kind="svg",
        scale=scale,
        border=4,
        dark="#000000",
        light="#ffffff",
        title=title or None,
        encoding="utf-8",
    )
    return buffer.getvalue()
