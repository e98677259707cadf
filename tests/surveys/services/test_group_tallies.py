"""The options' tallies of yes/no reports (surveys/services/group_tallies.py): one row per
(option, shard) holding every question's counts, added to (a missing row created, or told),
its rows made with every question at zero, and set back to zero; concurrent adders on
PostgreSQL add up."""

import threading

import pytest
from django.db import connection, connections, transaction

from surveys.models import TALLY_SHARDS, GroupTally
from surveys.services import group_tallies

pytestmark = pytest.mark.django_db(transaction=True)


def stored(option_id, shard=0):
    return GroupTally.objects.get(option_id=option_id, shard=shard).reports


def test_the_rows_are_made_with_every_question_at_zero_and_fit_a_changed_design(
    grouped_survey, options
):
    first, second = grouped_survey.questions.values_list("id", flat=True)
    # Opening made them: every option's every shard, each question at zero.
    assert GroupTally.objects.filter(option_id__in=options).count() == 3 * TALLY_SHARDS
    assert stored(options[0]) == {f"q{first}": [0, 0], f"q{second}": [0, 0]}
    with transaction.atomic():
        group_tallies.group_tallies_add({(first, options[0]): (4, 1)})
    # A question gone from the design is dropped, a new one added at zero, counts kept.
    group_tallies.group_tally_rows_ensure(option_ids=options, question_ids=[first, 999])
    assert stored(options[0]) == {f"q{first}": [4, 1], "q999": [0, 0]}
    assert stored(options[1], shard=TALLY_SHARDS - 1) == {f"q{first}": [0, 0], "q999": [0, 0]}


def test_adding_sums_each_question_of_each_option_in_its_shard(grouped_survey, options):
    first, second = grouped_survey.questions.values_list("id", flat=True)
    with transaction.atomic():
        assert group_tallies.group_tallies_add(
            {
                (first, options[0]): (1, 1),
                (second, options[0]): (1, 0),
                (first, options[2]): (2, 2),
            },
            shard=3,
        )
        assert group_tallies.group_tallies_add({(first, options[0]): (1, 0)}, shard=3)
    assert stored(options[0], shard=3) == {f"q{first}": [2, 1], f"q{second}": [1, 0]}
    assert stored(options[2], shard=3) == {f"q{first}": [2, 2], f"q{second}": [0, 0]}
    assert stored(options[0]) == {f"q{first}": [0, 0], f"q{second}": [0, 0]}  # shard 0 untouched
    assert sorted(GroupTally.objects.filter(option_id=options[0]).totals()) == [
        (first, options[0], 2, 1),
        (second, options[0], 1, 0),
    ]


def test_a_missing_row_is_created_or_told(grouped_survey, options):
    first, _second = grouped_survey.questions.values_list("id", flat=True)
    GroupTally.objects.filter(option_id=options[1], shard=5).delete()
    with transaction.atomic():
        # Not created: what it would have held is not added, and the caller is told.
        assert not group_tallies.group_tallies_add(
            {(first, options[1]): (1, 1)}, shard=5, create=False
        )
        assert not GroupTally.objects.filter(option_id=options[1], shard=5).exists()
        assert group_tallies.group_tallies_add({(first, options[1]): (1, 1)}, shard=5)
    assert stored(options[1], shard=5) == {f"q{first}": [1, 1]}


def test_zeroing_keeps_every_row_and_question(grouped_survey, options):
    first, second = grouped_survey.questions.values_list("id", flat=True)
    with transaction.atomic():
        group_tallies.group_tallies_add({(first, options[0]): (3, 2)}, shard=7)
    group_tallies.group_tallies_zero(survey=grouped_survey)
    assert GroupTally.objects.filter(option_id__in=options).count() == 3 * TALLY_SHARDS
    assert stored(options[0], shard=7) == {f"q{first}": [0, 0], f"q{second}": [0, 0]}


@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks: PostgreSQL")
def test_concurrent_adders_on_postgresql_add_up(grouped_survey, options):
    """Threads, each with its own connection and transactions, add to the same two options'
    rows: none of the additions is lost (the rows read FOR UPDATE, in option order)."""
    first, second = grouped_survey.questions.values_list("id", flat=True)
    threads, rounds = 6, 10
    start = threading.Barrier(threads)
    failures = []

    def add():
        try:
            start.wait()
            for _ in range(rounds):
                with transaction.atomic():
                    group_tallies.group_tallies_add(
                        {(first, options[2]): (1, 1), (second, options[0]): (1, 0)}
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
    assert stored(options[2]) == {f"q{first}": [total, total], f"q{second}": [0, 0]}
    assert stored(options[0]) == {f"q{first}": [0, 0], f"q{second}": [total, 0]}
