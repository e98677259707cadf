"""The counts kept at write time (surveys/services/tallies.py): what one submission adds to its
day's tally, each adder adding to what is stored (shards and days apart, rows created when
missing), concurrent adders on PostgreSQL adding up, and the recount from the stored rows
giving back the tallies the submissions kept."""

import random
import threading
import uuid
from collections import Counter

import pytest
from django.db import connection, connections, transaction

from surveys import selectors, services
from surveys.models import (
    PREFER_NOT_TO_SAY,
    DayTally,
    GroupCell,
    GroupingTally,
    GroupTally,
    NumericTally,
    TallyShard,
)
from surveys.selectors.public_results import RESPONDENTS, option_key, reports_key
from surveys.services import grouping, tallies

pytestmark = pytest.mark.django_db(transaction=True)


def test_one_submission_adds_one_respondent_its_bits_and_its_chosen_options():
    counts = tallies.day_counts({1: True, 2: False, 3: 2, 4: "free text"}, {10: 7, 11: None})
    # The yes/no reports only (a bit each, with its report count); a choice, a number or a
    # text adds nothing; "Prefer not to say" (None) is no option's respondent.
    assert counts == {
        RESPONDENTS: 1,
        "q1": 1,
        reports_key(1): 1,
        "q2": 0,
        reports_key(2): 1,
        option_key(7): 1,
    }
    assert tallies.day_counts({}, {}) == {RESPONDENTS: 1}


def test_day_counts_add_up_key_by_key():
    first = tallies.day_counts({1: True}, {10: 7})
    second = tallies.day_counts({1: False, 2: True}, {10: 8})
    assert tallies.day_counts_sum(first, second, first) == {
        RESPONDENTS: 3,
        "q1": 2,
        reports_key(1): 3,
        "q2": 1,
        reports_key(2): 1,
        option_key(7): 2,
        option_key(8): 1,
    }
    assert tallies.day_counts_sum() == {}


def stored_day(survey, day, shard=0):
    return DayTally.objects.get(survey=survey, day=day, shard=shard).counts


def test_a_day_tally_is_created_then_added_to_days_and_shards_apart(open_survey):
    monday, tuesday = "2026-03-02", "2026-03-03"
    yes = tallies.day_counts({1: True}, {})
    no = tallies.day_counts({1: False}, {})
    with transaction.atomic():
        tallies.day_tally_add(open_survey.pk, day=monday, counts=yes)
    with transaction.atomic():
        tallies.day_tally_add(open_survey.pk, day=monday, counts=no)
        tallies.day_tally_add(open_survey.pk, day=tuesday, counts=yes)
        tallies.day_tally_add(open_survey.pk, day=monday, counts=yes, shard=5)
    assert stored_day(open_survey, monday) == {RESPONDENTS: 2, "q1": 1, reports_key(1): 2}
    assert stored_day(open_survey, tuesday) == yes
    assert stored_day(open_survey, monday, shard=5) == yes
    assert DayTally.objects.filter(survey=open_survey).count() == 3


def test_a_tally_shard_is_created_then_summed_vector_by_vector(open_survey):
    TallyShard.objects.filter(survey=open_survey).delete()
    with transaction.atomic():
        tallies.tally_add(open_survey.pk, responses=1, reports={4: [1, 1]}, shard=3)
    with transaction.atomic():
        tallies.tally_add(open_survey.pk, responses=2, reports={4: [2, 0], 5: [2, 0, 1]}, shard=3)
    shard = TallyShard.objects.get(survey=open_survey, shard=3)
    assert shard.responses == 3
    assert shard.reports == {"q4": [3, 1], "q5": [2, 0, 1]}
    assert not TallyShard.objects.filter(survey=open_survey).exclude(shard=3).exists()


def test_histograms_and_grouping_answers_are_created_then_added_to(make_survey):
    survey = make_survey(
        status="draft",
        questions=[{"text": "Drinks?", "type": "numeric", "min": 0, "max": 9, "epsilon": 2.0}],
    )
    question = grouping.grouping_question_add(survey=survey, text="Team?", options=["A", "B"])
    option = question.options.order_by("id").first()
    survey = services.survey_open(survey=survey)
    qid = survey.questions.get().pk
    with transaction.atomic():
        tallies.numeric_tallies_add({(qid, 3): 2, (qid, -1): 1}, shard=1)
    with transaction.atomic():
        tallies.numeric_tallies_add({(qid, 3): 1}, shard=1)
        tallies.grouping_tallies_add({(question.pk, option.pk): 2, (question.pk, None): 1})
    with transaction.atomic():
        tallies.grouping_tallies_add({(question.pk, None): 4})
    histogram = dict(
        NumericTally.objects.filter(question_id=qid, shard=1).values_list("report", "count")
    )
    assert histogram == {3: 3, -1: 1}
    answered = dict(
        GroupingTally.objects.filter(grouping_question=question, shard=0).values_list(
            "option_id", "count"
        )
    )
    # "Prefer not to say" has a count of its own (option None), apart from every option's.
    assert answered[option.pk] == 2 and answered[None] == 5


@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks: PostgreSQL")
def test_concurrent_day_tally_adders_on_postgresql_add_up(open_survey):
    """Threads, each with its own connection and transactions, add to one day's row, most of
    them creating it at once: none of the additions is lost (the row read FOR UPDATE)."""
    threads, rounds = 6, 10
    start = threading.Barrier(threads)
    failures = []

    def add():
        try:
            start.wait()
            for _ in range(rounds):
                with transaction.atomic():
                    tallies.day_tally_add(
                        open_survey.pk, day="2026-03-02", counts=tallies.day_counts({1: True}, {})
                    )
        except Exception as error:  # reported below, in the test's thread
            failures.append(error)
        finally:
            connections.close_all()

    workers = [threading.Thread(target=add) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert failures == []
    total = threads * rounds
    assert stored_day(open_survey, "2026-03-02") == {
        RESPONDENTS: total,
        "q1": total,
        reports_key(1): total,
    }


def summed(model, key, values):
    """``{key: (values...)}`` summed over the shards."""
    totals = Counter()
    for row in model.objects.values(*key, *values):
        for value in values:
            totals[(*(row[k] for k in key), value)] += row[value]
    return {k: n for k, n in totals.items() if n}


def group_summed():
    """``summed`` of the options' tallies: ``{(question id, option id): (reports, yes)}``."""
    return {(qid, oid): (n, yes) for qid, oid, n, yes in GroupTally.objects.totals() if n}


def test_the_recount_from_the_stored_rows_gives_back_the_tallies_kept_at_write_time(make_survey):
    survey = make_survey(status="draft", questions=("First?", "Second?", "Third?"))
    team = grouping.grouping_question_add(survey=survey, text="Team?", options=["A", "B", "C"])
    age = grouping.grouping_question_add(survey=survey, text="Age?", options=["Young", "Old"])
    survey = services.survey_open(survey=survey)
    ids = list(survey.questions.order_by("id").values_list("id", flat=True))
    teams = [*team.options.order_by("id").values_list("id", flat=True), PREFER_NOT_TO_SAY]
    ages = list(age.options.order_by("id").values_list("id", flat=True))
    for n in range(24):
        outcome = services.submission_receive(
            slug=survey.slug,
            submission_id=str(uuid.uuid4()),
            answers={str(qid): (n * (i + 2)) % 3 == 0 for i, qid in enumerate(ids)},
            groups={str(team.pk): teams[n % len(teams)], str(age.pk): ages[n % 5 % 2]},
        )
        assert outcome.created
    kept = (
        group_summed(),
        summed(GroupingTally, ("grouping_question_id", "option_id"), ("count",)),
        summed(GroupCell, ("question_id", "key"), ("report_count", "yes_count")),
    )
    assert all(kept)  # the submissions kept every kind of count
    GroupTally.objects.all().update(reports={})
    GroupingTally.objects.all().delete()
    GroupCell.objects.all().delete()
    tallies.group_tallies_rebuild(survey=survey)
    assert (
        group_summed(),
        summed(GroupingTally, ("grouping_question_id", "option_id"), ("count",)),
        summed(GroupCell, ("question_id", "key"), ("report_count", "yes_count")),
    ) == kept


@pytest.mark.parametrize("path", ["statement", "orm"])
def test_the_option_tallies_give_each_question_and_option_the_counts_of_its_reports(
    make_survey, settings, path
):
    # A seeded dataset of the benchmark's shape (one grouping question of three options), some
    # questions skipped, some respondents declining or skipping the grouping question: every
    # (question, option) total read from the option rows is the count of the stored reports,
    # as the per-(question, option) rows held it, and the breakdown and the regression read it.
    settings.SUBMISSION_STATEMENT = path == "statement"
    questions = [{"text": f"Question {n}?", "required": n == 0} for n in range(4)]
    survey = make_survey(status="draft", questions=questions, min_n=0)
    age = grouping.grouping_question_add(survey=survey, text="Age?", options=["A", "B", "C"])
    survey = services.survey_open(survey=survey)
    ids = list(survey.questions.order_by("position").values_list("id", flat=True))
    choices = [*age.options.values_list("id", flat=True), PREFER_NOT_TO_SAY, None]
    rng = random.Random(20261202)
    expected = Counter()
    for _ in range(60):
        answers = {qid: rng.random() < 0.4 for qid in ids if qid == ids[0] or rng.random() < 0.8}
        choice = rng.choice(choices)
        services.submission_receive(
            slug=survey.slug,
            submission_id=uuid.uuid4(),
            answers=answers,
            groups={} if choice is None else {age.pk: choice},
        )
        if choice not in (None, PREFER_NOT_TO_SAY):
            for qid, bit in answers.items():
                expected[qid, choice, "n"] += 1
                expected[qid, choice, "yes"] += bit
    counted = {
        (qid, oid): (expected[qid, oid, "n"], expected[qid, oid, "yes"])
        for qid in ids
        for oid in choices[:3]
    }
    assert {(qid, oid): (n, yes) for qid, oid, n, yes in GroupTally.objects.totals()} == counted
    assert sorted(GroupTally.objects.totals(question_ids=[ids[1]])) == sorted(
        (ids[1], oid, n, yes) for (qid, oid), (n, yes) in counted.items() if qid == ids[1]
    )
    breakdown = selectors.survey_breakdown(survey=survey, grouping_question=age)
    assert {
        (row.question_id, cell.option_id): cell.estimate.n
        for row in breakdown.rows
        for cell in row.cells
    } == {pair: n for pair, (n, _yes) in counted.items()}
    regression = selectors.survey_regression(
        survey=survey, question=survey.questions.get(pk=ids[0])
    )
    assert regression.n == sum(counted[ids[0], oid][0] for oid in choices[:3])
