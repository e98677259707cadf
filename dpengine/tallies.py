"""Tally vectors: what a question's reports add up to, one vector per question, so that its
estimate reads a few counts instead of every report.

- yes/no: ``[reports, yes reports]``;
- multiple choice: ``[reports, count of option 0, ..., count of option k - 1]`` (a vector
  shorter than ``k + 1`` counts the options past its end as zero);
- numeric: ``[reports, sum of reports, sum of squared reports]``;
- text (a question asked directly whose answers are words): ``[answers]``, a count only.

These are the sufficient statistics of the estimators in ``estimation``, ``choice`` and
``numeric``. One report's vector is :func:`report_tally`; vectors add element by element
(:func:`tally_sum`), so any split of the reports (tally shards, batches) adds up the same.
"""

YES_NO = "yes_no"
CHOICE = "choice"
NUMERIC = "numeric"
TEXT = "text"
KINDS = (YES_NO, CHOICE, NUMERIC, TEXT)


def report_tally(kind: str, report: int | str) -> list[int]:
    """The tally vector of one report to a question of ``kind`` (``YES_NO``: a bool, ``CHOICE``:
    an option index >= 0, ``NUMERIC``: any integer, ``TEXT``: a string): ``[1, yes]``,
    ``[1, 0, ..., 0, 1]`` (the one at place ``report + 1``), ``[1, report, report²]`` or
    ``[1]``."""
    if kind == TEXT:
        if not isinstance(report, str):
            raise ValueError(f"a text report must be a string, got {report!r}")
        return [1]
    if kind == CHOICE:
        if isinstance(report, bool) or report < 0:
            raise ValueError(f"a choice report must be an option index >= 0, got {report!r}")
        return [1] + [0] * report + [1]
    if kind == NUMERIC:
        return [1, report, report * report]
    if kind == YES_NO:
        return [1, int(report)]
    raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")


def tally_sum(have, added) -> list[int]:
    """Two tally vectors added element by element, the shorter padded with zeros."""
    width = max(len(have), len(added))
    have = list(have) + [0] * (width - len(have))
    return [a + b for a, b in zip(have, list(added) + [0] * (width - len(added)), strict=True)]
