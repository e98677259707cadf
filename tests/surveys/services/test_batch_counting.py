"""What a released batch adds to the tallies, counted (surveys/services/batch_counting.py): as
its submissions are counted one by one, for every kind of report, grouping answer and cell."""

import random
from datetime import date

import pytest

from dpengine import report_tally, tally_sum
from surveys.models import group_cell_key
from surveys.services import batch_counting
from surveys.services.tallies import day_counts, day_counts_sum


def _counts_one_by_one(kinds, cells_kept, rows, answers):
    """The oracle of ``batch_counts``: each submission's own tally vectors and day counts
    (``dpengine.report_tally``, ``services.tallies.day_counts``, as the submission statement
    adds them one at a time), added up one by one."""
    chosen = {}
    for pk, gid, oid in answers:
        chosen.setdefault(pk, {})[gid] = oid
    counts = batch_counting.BatchCounts(responses=len(rows))
    for pk, reports, day in rows:
        groups = chosen.get(pk, {})
        answered = {int(key[1:]): report for key, report in reports.items()}
        counts.days[day] = day_counts_sum(counts.days.get(day, {}), day_counts(answered, groups))
        bits = {}
        for key, report in reports.items():
            kind, randomized = kinds.get(int(key[1:]), ("yes_no", True))
            counts.reports[key] = tally_sum(counts.reports.get(key, ()), report_tally(kind, report))
            if kind == "yes_no":
                bits[int(key[1:])] = int(report)
            elif kind == "numeric" and randomized:
                counts.histograms[int(key[1:]), report] += 1
        for gid, oid in groups.items():
            counts.groupings[gid, oid] += 1
            for qid, bit in bits.items() if oid is not None else ():
                counts.group_tallies[qid, oid, "n"] += 1
                counts.group_tallies[qid, oid, "yes"] += bit
        for qid, bit in bits.items() if groups and cells_kept else ():
            counts.cells[qid, group_cell_key(groups), "n"] += 1
            counts.cells[qid, group_cell_key(groups), "yes"] += bit
    return counts


@pytest.mark.parametrize("seed", range(40))
def test_a_batch_counts_what_its_submissions_count_one_by_one(seed, monkeypatch):
    rng = random.Random(seed)  # seeded: forty batches of every kind of report and grouping
    kinds = {
        1: ("yes_no", True),
        2: ("yes_no", True),
        3: ("choice", True),
        4: ("numeric", True),
        5: ("numeric", False),
        6: ("text", False),
    }
    cells_kept = rng.random() < 0.5
    monkeypatch.setattr(batch_counting, "_design", lambda survey_id: (kinds, cells_kept))
    days = [date(2031, 1, 1), date(2031, 1, 2)]
    draw = {
        "yes_no": lambda: rng.random() < 0.5,
        "choice": lambda: rng.randrange(4),
        "numeric": lambda: rng.randint(-3, 9),
        "text": lambda: "words",
    }
    rows, answers = [], []
    for pk in range(rng.randint(0, 12)):
        reports = {f"q{q}": draw[kind]() for q, (kind, _) in kinds.items() if rng.random() < 0.8}
        if rng.random() < 0.1:
            reports["q99"] = rng.random() < 0.5  # a question the design does not know
        rows.append((pk, reports, rng.choice(days)))
        for gid in (11, 12):
            if rng.random() < 0.7:
                answers.append((pk, gid, rng.choice([None, gid * 10 + 1, gid * 10 + 2])))

    assert batch_counting.batch_counts(7, rows, answers) == _counts_one_by_one(
        kinds, cells_kept, rows, answers
    )
