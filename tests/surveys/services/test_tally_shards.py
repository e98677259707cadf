"""Two submissions to one survey wait for each other's row locks only when they drew the same
tally shard (models.TALLY_SHARDS): every tally the statement adds to (the survey's tally shard,
its day, the grouping answer's count, the per-(question, option) tallies, the regression's
cell, the numeric histogram) is sharded. On PostgreSQL, outside a test transaction: the first
submission holds its transaction open while the second commits."""

import threading
import uuid

import pytest
from django.db import OperationalError, connection, transaction
from django.utils import timezone

from surveys import services
from surveys.models import GroupCell, GroupingTally, GroupTally, NumericTally, TallyShard
from surveys.services import grouping
from surveys.services.submissions import CleanSubmission, postgres
from surveys.services.submissions.contract import PreparedSubmission

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's row locks"),
]

QUESTIONS = [
    {"text": "A?"},
    {"text": "B?"},
    {"text": "How many?", "type": "numeric", "min": 0, "max": 3, "epsilon": 1.0},
]


@pytest.fixture
def survey(make_survey):
    draft = make_survey(status="draft", questions=QUESTIONS)
    team = grouping.grouping_question_add(survey=draft, text="Team?", options=["Red", "Blue"])
    # Skipped by every submission here; with two grouping questions the survey keeps the
    # regression's cells (models.group_cells_kept), whose rows are sharded too.
    grouping.grouping_question_add(survey=draft, text="Site?", options=["North", "South"])
    return services.survey_open(survey=draft), team


def _insert(survey, team, *, shard):
    """One submission answering Red, both questions yes and 1, into ``shard`` (the shard this
    thread draws: ``_shard_of_thread``)."""
    first, second, numeric = survey.questions.order_by("position").values_list("id", flat=True)
    clean = CleanSubmission(
        submission_uuid=uuid.uuid4(),
        answers={first: True, second: True, numeric: 1},
        groups={team.pk: team.options.get(label="Red").pk},
        fingerprint=None,
    )
    _shards[threading.get_ident()] = shard
    prepared = PreparedSubmission(slug=survey.slug, clean=clean, received=timezone.now())
    assert postgres.write(prepared)


# The shard each thread's submission draws, in place of tally_shard_pick's random one.
_shards = {}


@pytest.fixture(autouse=True)
def _shard_of_thread(monkeypatch):
    monkeypatch.setattr(postgres, "tally_shard_pick", lambda: _shards[threading.get_ident()])


def _second_while_first_holds(survey, team, *, first_shard, second_shard):
    """The first submission stored in an open transaction; the second, with a lock timeout of
    two seconds, stored and committed meanwhile. What the second raised, if anything."""
    stored, release, outcome = threading.Event(), threading.Event(), {}

    def first():
        try:
            with transaction.atomic():
                _insert(survey, team, shard=first_shard)
                stored.set()
                release.wait(30)
        finally:
            connection.close()

    holder = threading.Thread(target=first)
    holder.start()
    try:
        assert stored.wait(30)
        try:
            with transaction.atomic():
                with connection.cursor() as cursor:
                    cursor.execute("SET LOCAL lock_timeout = '2s'")
                _insert(survey, team, shard=second_shard)
        except OperationalError as error:
            outcome["error"] = error
    finally:
        release.set()
        holder.join(30)
    return outcome.get("error")


def test_two_submissions_with_the_same_grouping_answer_do_not_wait_for_each_other(survey):
    survey, team = survey
    assert _second_while_first_holds(survey, team, first_shard=0, second_shard=1) is None
    red = team.options.get(label="Red").pk
    first, second, numeric = survey.questions.order_by("position").values_list("id", flat=True)
    # Summed over the shards, every count is exact.
    assert sum(TallyShard.objects.filter(survey=survey).values_list("responses", flat=True)) == 2
    blue = team.options.get(label="Blue").pk
    answered = GroupingTally.objects.filter(grouping_question=team).totals()
    assert {oid: n for _gid, oid, n in answered} == {red: 2, blue: 0, None: 0}
    assert sorted(GroupTally.objects.filter(option_id=red).totals()) == [
        (first, red, 2, 2),
        (second, red, 2, 2),
    ]
    assert sorted(GroupCell.objects.totals()) == [
        (first, f"{team.pk}:{red}", 2, 2),
        (second, f"{team.pk}:{red}", 2, 2),
    ]
    assert list(NumericTally.objects.filter(question_id=numeric).totals()) == [(numeric, 1, 2)]


def test_two_submissions_in_the_same_shard_still_wait_for_each_other(survey):
    # What the test above rules out: the second waits for the first's rows, to the timeout.
    survey, team = survey
    error = _second_while_first_holds(survey, team, first_shard=3, second_shard=3)
    assert error is not None and "lock timeout" in str(error)
    assert sum(TallyShard.objects.filter(survey=survey).values_list("responses", flat=True)) == 1
