"""What a released batch adds to the tallies (surveys/services/batch_tallies.py): on PostgreSQL
the set-based statements add exactly what the ORM path adds, row for row, to every tally table:
shards, day tallies, per-option tallies and counts, regression cells and histograms (those two
folded from every shard into shard 0).
"""

from datetime import timedelta

import pytest
from django.conf import settings
from django.db import transaction

from surveys import selectors, services
from surveys.models import (
    DayTally,
    GroupCell,
    GroupingTally,
    GroupTally,
    NumericTally,
    TallyShard,
    group_cell_key,
)
from surveys.services import batch_counting, batch_tallies, grouping
from tests.surveys.services.test_batches import QUESTIONS


def _every_tally(survey):
    """Every tally row of ``survey``, keys left out (cells and histogram rows get new ones)."""
    questions = {"question__survey": survey}
    return {
        "shards": sorted(
            TallyShard.objects.filter(survey=survey).values_list("shard", "responses", "reports"),
            key=repr,
        ),
        "days": sorted(
            DayTally.objects.filter(survey=survey).values_list("day", "shard", "counts"), key=repr
        ),
        "group": sorted(
            GroupTally.objects.filter(option__grouping_question__survey=survey).values_list(
                "option_id", "shard", "reports"
            ),
            key=repr,
        ),
        "groupings": sorted(
            GroupingTally.objects.filter(grouping_question__survey=survey).values_list(
                "grouping_question_id", "option_id", "shard", "count"
            ),
            key=repr,
        ),
        "cells": sorted(
            GroupCell.objects.filter(**questions).values_list(
                "question_id", "key", "shard", "report_count", "yes_count"
            )
        ),
        "histograms": sorted(
            NumericTally.objects.filter(**questions).values_list(
                "question_id", "report", "shard", "count"
            )
        ),
    }


@pytest.mark.skipif(
    not settings.DATABASES["default"]["ENGINE"].endswith("postgresql"),
    reason="the set-based adds are PostgreSQL's",
)
def test_the_set_based_tally_adds_are_the_orm_ones(make_survey):
    questions = [*QUESTIONS, {"text": "Which?", "type": "choice", "options": ["a", "b", "c"]}]
    survey = make_survey(access="invitation", questions=questions, release_batch=5, status="draft")
    departments = grouping.grouping_question_add(
        survey=survey, text="Department?", options=["Sales", "Research"]
    )
    ages = grouping.grouping_question_add(survey=survey, text="Age?", options=["<40", "40+"])
    survey = services.survey_open(survey=survey)
    yes, other, drinks, which = survey.questions.order_by("id").values_list("id", flat=True)
    sales, research = departments.options.order_by("id").values_list("id", flat=True)
    young, _old = ages.options.order_by("id").values_list("id", flat=True)
    today = selectors.utc_today()  # the release adds the batch to its own day
    # What is stored already, in several shards: added to, and (cells, histograms) folded.
    TallyShard.objects.update_or_create(
        survey=survey, shard=0, defaults={"responses": 4, "reports": {f"q{which}": [4, 1, 3]}}
    )
    DayTally.objects.create(survey=survey, day=today, shard=0, counts={"respondents": 4})
    sales_tally = GroupTally.objects.get(option_id=sales, shard=0)
    sales_tally.reports[f"q{yes}"] = [3, 1]
    sales_tally.save()
    GroupingTally.objects.filter(option_id=sales, shard=0).update(count=3)
    key = group_cell_key({departments.pk: sales, ages.pk: young})
    GroupCell.objects.create(question_id=yes, key=key, shard=2, report_count=2, yes_count=1)
    GroupCell.objects.create(question_id=yes, key=key, shard=0, report_count=1, yes_count=0)
    NumericTally.objects.create(question_id=drinks, report=4, shard=3, count=2)
    rows, answers = [], []
    for n, (bit, number, choice, groups, day) in enumerate(
        [
            (True, 4, 0, {departments.pk: sales, ages.pk: young}, today),
            (False, 4, 2, {departments.pk: research, ages.pk: None}, today),
            (True, -3, 1, {departments.pk: None}, today + timedelta(days=1)),
            (True, 40, 0, {}, today + timedelta(days=1)),
            (False, 7, 3, {departments.pk: sales, ages.pk: young}, today),
        ]
    ):
        reports = {f"q{yes}": bit, f"q{other}": not bit, f"q{drinks}": number, f"q{which}": choice}
        rows.append((n, reports, day))
        answers += [(n, gid, oid) for gid, oid in groups.items()]
    counts = batch_counting.batch_counts(survey.pk, rows, answers)
    with transaction.atomic():
        savepoint = transaction.savepoint()
        batch_tallies._tallies_add_orm(survey.pk, counts)
        by_orm = _every_tally(survey)
        transaction.savepoint_rollback(savepoint)
        batch_tallies._tallies_add_sql(survey.pk, counts)
        by_sql = _every_tally(survey)
    assert by_sql == by_orm
    assert (drinks, 4, 0, 4) in by_sql["histograms"]  # 2 stored in shard 3, 2 added, folded
    assert (yes, key, 0, 5, 2) in by_sql["cells"]  # 3 stored in shards 0 and 2, 2 added
