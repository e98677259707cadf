"""What a released batch adds to the survey's tallies, counted (services/batches.py,
``batch_release``; docs/invitations.md, "Batches"): ``batch_counts`` counts the released
submissions from the rows the release returned, as the submission statement would have for
each; ``batch_tallies`` adds the counts to the tallies.
"""

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from itertools import zip_longest

from dpengine import report_tally

from .. import selectors
from ..models import GroupingQuestion, Question, group_cell_key, group_cells_kept, question_key
from ..selectors.public_results import RESPONDENTS, option_key, reports_key

_KINDS_MAX = 1024


@dataclass
class BatchCounts:
    """What some submissions add to the tallies (the submission statement's writes)."""

    responses: int = 0
    reports: dict = field(default_factory=dict)  # {question key: tally vector}
    group_tallies: Counter = field(default_factory=Counter)  # {(qid, oid, "n"|"yes"): count}
    cells: Counter = field(default_factory=Counter)  # {(qid, key, "n"|"yes"): count}
    histograms: Counter = field(default_factory=Counter)  # {(qid, report): count}
    # {(grouping question id, option id or None for "Prefer not to say"): respondents}
    groupings: Counter = field(default_factory=Counter)
    days: dict = field(default_factory=dict)  # {received on: day counts (tallies.day_counts)}


def _design(survey_id):
    """({question id: (the kind its report is tallied as, randomized)}, whether the survey
    keeps regression cells (``models.group_cells_kept``)): a cheating-detection question and
    one compared with asking directly send a code, tallied as a choice.

    Kept in this process: only a survey that has opened holds submissions, and its design
    (questions, kinds, mechanisms, grouping questions) is frozen from then on, so each
    release saves the queries."""
    design = _survey_designs.get(survey_id)
    if design is None:
        design = (
            _kinds_read(survey_id),
            group_cells_kept(GroupingQuestion.objects.filter(survey_id=survey_id).count()),
        )
        if len(_survey_designs) >= _KINDS_MAX:
            _survey_designs.clear()
        _survey_designs[survey_id] = design
    return design


_survey_designs: dict[int, tuple] = {}


def survey_designs_forget():
    """Forget every design kept (a test's rolled-back survey ids are handed out again)."""
    _survey_designs.clear()


def _kinds_read(survey_id):
    kinds = {}
    for question in Question.all_objects.filter(survey_id=survey_id).only(
        "id", "kind", "randomized", "design", "compare_direct"
    ):
        kind = question.kind
        if selectors.is_cheating_detection(question) or question.compare_direct:
            kind = selectors.report_range(question)[0]
        kinds[question.pk] = (kind, question.randomized)
    return kinds


def batch_counts(survey_id, rows, answers) -> BatchCounts:
    """What the submissions ``rows`` (``(pk, reports, received on)``) with their grouping
    ``answers`` (``(submission pk, grouping question id, option id)``) add to the tallies: what
    the submission statement adds for each, counted from the stored rows."""
    kinds, cells_kept = _design(survey_id)
    chosen = defaultdict(dict)
    for submission_id, gid, oid in answers:
        chosen[submission_id][gid] = oid
    counts = BatchCounts(responses=len(rows))
    # Counted in integers, and made tally vectors and day counts once at the end: building
    # and adding them for each report was most of a release's time in Python.
    yes_no = defaultdict(lambda: [0, 0])  # {question key: [reports, yes reports]}
    vectors = defaultdict(list)  # {question key: [tally vector of each report]}, other kinds
    days = defaultdict(_DayCounts)
    for pk, reports, received_on in rows:
        day = days[received_on]
        day.respondents += 1
        groups = chosen.get(pk, {})
        bits = {}
        for key, report in reports.items():
            qid = int(key[1:])
            kind, randomized = kinds.get(qid, _UNKNOWN_QUESTION)
            if kind == _YES_NO:
                bit = bits[qid] = int(report)
                tally = yes_no[key]
                tally[0] += 1
                tally[1] += bit
            else:
                vectors[key].append(report_tally(kind, report))
                if kind == _NUMERIC and randomized:
                    counts.histograms[qid, report] += 1
            if isinstance(report, bool):  # as services.tallies.day_counts counts a day
                day.reports[qid] += 1
                day.yes[qid] += int(report)
        for gid, oid in groups.items():
            counts.groupings[gid, oid] += 1
            if oid is not None:
                day.options[oid] += 1
                for qid, bit in bits.items():
                    counts.group_tallies[qid, oid, "n"] += 1
                    counts.group_tallies[qid, oid, "yes"] += bit
        if groups and cells_kept:
            cell = group_cell_key(groups)
            for qid, bit in bits.items():
                counts.cells[qid, cell, "n"] += 1
                counts.cells[qid, cell, "yes"] += bit
    counts.reports = {key: _tallies_sum(added) for key, added in vectors.items()}
    counts.reports.update((key, list(tally)) for key, tally in yes_no.items())
    counts.days = {received_on: day.counts() for received_on, day in days.items()}
    return counts


_YES_NO, _NUMERIC = Question.Kind.YES_NO.value, Question.Kind.NUMERIC.value
# A question the design does not know (removed from the survey meanwhile): a yes/no one, as
# the submission statement tallies it.
_UNKNOWN_QUESTION = (_YES_NO, True)


@dataclass
class _DayCounts:
    """What some submissions of one day add to its tally, as ``services.tallies.day_counts``
    summed over them: respondents, each yes/no report, each chosen option."""

    respondents: int = 0
    reports: Counter = field(default_factory=Counter)  # {question id: yes/no reports}
    yes: Counter = field(default_factory=Counter)  # {question id: yes reports}
    options: Counter = field(default_factory=Counter)  # {option id: respondents}

    def counts(self) -> dict:
        counts = {RESPONDENTS: self.respondents}
        counts.update((question_key(qid), n) for qid, n in self.yes.items())
        counts.update((reports_key(qid), n) for qid, n in self.reports.items())
        counts.update((option_key(oid), n) for oid, n in self.options.items())
        return counts


def _tallies_sum(vectors) -> list[int]:
    """``dpengine.tally_sum`` of many vectors at once, element by element, the shorter ones
    padded with zeros."""
    return [sum(column) for column in zip_longest(*vectors, fillvalue=0)]
