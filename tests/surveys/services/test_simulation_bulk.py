"""Simulated submissions stored in bulk (surveys/services/simulation_bulk.py) leave every
table as the same submissions stored one by one through the public path do: the rows, each
write-time tally summed over its shards, the option counts, and the estimates and regression
read from them. On SQLite and on PostgreSQL (where the rows go by COPY)."""

import csv
import io
import uuid
from collections import Counter

import numpy as np
import pytest

from dpengine import tally_sum
from surveys import services
from surveys.models import (
    DayTally,
    GroupAnswer,
    GroupCell,
    GroupingOption,
    GroupingTally,
    GroupTally,
    NumericTally,
    Submission,
    TallyShard,
    group_cell_options,
)
from surveys.services import grouping
from surveys.services.simulation_bulk import copy_binary, report_kind
from tests.helpers import CODED_QUESTIONS, MIXED_QUESTIONS, MIXED_SHARES

N = 2000
# Besides every type, a cheating-detection question and one compared with asking directly:
# their reports are codes, not bits.
QUESTIONS = (*MIXED_QUESTIONS, CODED_QUESTIONS[0], CODED_QUESTIONS[1])
SHARES = (*MIXED_SHARES, 0.2, (0.3, 0.2))


def _demo_shaped(make_survey):
    survey = make_survey(status="draft", questions=QUESTIONS, min_n=5)
    grouping.grouping_question_add(survey=survey, text="Team?", options=["A", "B", "C"])
    grouping.grouping_question_add(survey=survey, text="Site?", options=["North", "South"])
    return services.survey_open(survey=survey)


class _Names:
    """Each id of a survey's rows by its position, so two surveys' tables compare."""

    def __init__(self, survey):
        self.questions = {q.pk: i for i, q in enumerate(survey.questions.all())}
        self.groupings = {g.pk: i for i, g in enumerate(survey.grouping_questions.all())}
        self.options = {
            o.pk: (self.groupings[o.grouping_question_id], o.position)
            for o in GroupingOption.objects.filter(grouping_question__survey=survey)
        }

    def key(self, key):
        """A stored JSON key (``q<id>``, ``nq<id>``, ``o<id>``, ``respondents``) by position."""
        for prefix, ids in (("nq", self.questions), ("q", self.questions), ("o", self.options)):
            if key.startswith(prefix) and key[len(prefix) :].isdigit():
                return prefix, ids[int(key[len(prefix) :])]
        return key

    def cell(self, key):
        return tuple(
            sorted(
                (self.groupings[gid], None if oid is None else self.options[oid])
                for gid, oid in group_cell_options(key).items()
            )
        )


def _tables(survey):
    names = _Names(survey)
    questions = list(names.questions)
    reports, responses = {}, 0
    for shard in TallyShard.objects.filter(survey=survey):
        responses += shard.responses
        for key, vector in shard.reports.items():
            reports[names.key(key)] = tally_sum(reports.get(names.key(key), ()), vector)
    days = {}
    for tally in DayTally.objects.filter(survey=survey):
        day = days.setdefault(tally.day, Counter())
        day.update({names.key(key): n for key, n in tally.counts.items()})
    return {
        "responses": responses,
        "reports": {key: [int(x) for x in vector] for key, vector in reports.items()},
        "days": days,
        # Each summed over its shards: one by one a submission adds to a shard drawn at
        # random, in bulk to shard 0.
        "histograms": {
            (names.questions[qid], report): count
            for qid, report, count in NumericTally.objects.filter(
                question_id__in=questions
            ).totals()
        },
        "group tallies": {
            (names.questions[qid], names.options[oid]): (n, yes)
            for qid, oid, n, yes in GroupTally.objects.totals(question_ids=questions)
        },
        "cells": {
            (names.questions[qid], names.cell(key)): (n, yes)
            for qid, key, n, yes in GroupCell.objects.filter(question_id__in=questions).totals()
        },
        "options": {
            names.options[oid]: n
            for _gid, oid, n in GroupingTally.objects.filter(
                grouping_question__survey=survey, option__isnull=False
            ).totals()
        },
        "declined": sorted(
            n
            for _gid, _oid, n in GroupingTally.objects.filter(
                grouping_question__survey=survey, option__isnull=True
            ).totals()
        ),
        "submissions": Counter(
            (received_on, tuple(sorted((names.key(k), v) for k, v in reports.items())))
            for received_on, reports in Submission.objects.filter(survey=survey).values_list(
                "received_on", "reports"
            )
        ),
        "answers": Counter(
            (names.groupings[gid], names.options[oid])
            for gid, oid in GroupAnswer.objects.filter(submission__survey=survey).values_list(
                "grouping_question_id", "option_id"
            )
        ),
    }


def _read(api, survey):
    base = f"/api/v1/surveys/{survey.pk}/"
    estimates = api.get(f"{base}estimates.csv")
    assert estimates.status_code == 200
    regression = api.get(f"{base}regression/")
    assert regression.status_code == 200
    rows = csv.DictReader(io.StringIO(b"".join(estimates.streaming_content).decode()))
    # Every column but the question's id, which differs between the two surveys.
    return [{k: v for k, v in row.items() if k != "question_id"} for row in rows], regression.json()


def _comparable(value):
    """The regression's JSON without the ids that differ between two surveys, each number to
    nine significant digits (the fit sums the cells in the order they are read)."""
    if isinstance(value, dict):
        return {k: _comparable(v) for k, v in value.items() if not (k == "id" or k.endswith("_id"))}
    if isinstance(value, list):
        return [_comparable(v) for v in value]
    if isinstance(value, float):
        return float(f"{value:.9g}")
    return value


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_bulk_store_leaves_every_table_as_one_by_one_submissions(make_survey, owner_api):
    one_by_one, bulk = _demo_shaped(make_survey), _demo_shaped(make_survey)
    rng = np.random.default_rng(34)
    reports = services.simulated_reports_draw(survey=one_by_one, shares=list(SHARES), n=N, rng=rng)
    choices = [
        list(g.options.values_list("id", flat=True)) for g in one_by_one.grouping_questions.all()
    ]
    picked = np.column_stack([rng.integers(len(ids), size=N) for ids in choices])
    questions = list(one_by_one.questions.all())
    groupings = list(one_by_one.grouping_questions.values_list("id", flat=True))
    for row, pick in zip(reports.tolist(), picked.tolist(), strict=True):
        outcome = services.submission_receive(
            slug=one_by_one.slug,
            submission_id=str(uuid.uuid4()),
            answers={str(q.pk): report_kind(q)(v) for q, v in zip(questions, row, strict=True)},
            groups={
                str(g): str(ids[i]) for g, ids, i in zip(groupings, choices, pick, strict=True)
            },
        )
        assert outcome.created
    (day,) = set(Submission.objects.filter(survey=one_by_one).values_list("received_on", flat=True))
    bulk_choices = [
        list(g.options.values_list("id", flat=True)) for g in bulk.grouping_questions.all()
    ]
    bulk_options = [
        [ids[i] for ids, i in zip(bulk_choices, pick, strict=True)] for pick in picked.tolist()
    ]
    services.simulated_submissions_record(
        survey=bulk, reports=reports, options=bulk_options, received_on=day, chunk_size=700
    )
    assert _tables(bulk) == _tables(one_by_one)
    expected_estimates, expected_regression = _read(owner_api, one_by_one)
    estimates, regression = _read(owner_api, bulk)
    assert estimates == expected_estimates
    assert _comparable(regression) == _comparable(expected_regression)


def test_copy_binary_is_postgresql_binary_copy_of_bigints():
    data = copy_binary([np.array([1, -2]), np.array([2**62, 0])])
    # Signature, flags and extension length; per row 2 fields of (length 8, value); -1.
    assert data[:19] == b"PGCOPY\n\xff\r\n\x00" + bytes(8)
    row = (2).to_bytes(2, "big") + (8).to_bytes(4, "big") + (1).to_bytes(8, "big", signed=True)
    row += (8).to_bytes(4, "big") + (2**62).to_bytes(8, "big")
    assert data[19 : 19 + len(row)] == row
    assert data[-2:] == b"\xff\xff"
    assert len(data) == 19 + 2 * len(row) + 2
