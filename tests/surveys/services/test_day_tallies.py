"""Public releases read day tallies kept as submissions arrive (``models.DayTally``,
surveys/services/tallies.py ``day_counts``), not a scan of the stored submissions: on random
data, through every writer (the database's path and the ORM oracle), the per-period counts
and the release made from them equal those a scan of the released submissions gives; the
migration that back-fills them counts the same. A batched survey's releases count each batch
on the day it was released (services/batches.py): a batch held past a public release counts
in the next one, and no published period's counts change.
"""

import importlib
import random
import uuid
from collections import Counter
from datetime import UTC, date, datetime, time, timedelta

import pytest
from django.apps import apps
from django.db.models import Count, Q
from django.utils import timezone

import dpengine.continual
from surveys import services
from surveys.models import (
    PREFER_NOT_TO_SAY,
    DayTally,
    GroupAnswer,
    PublicRelease,
    Submission,
    Survey,
)
from surveys.selectors.public_results import (
    RESPONDENTS,
    count_keys,
    option_key,
    release_schedule,
)
from surveys.services import batches, grouping, pilot, public_release

START = date(2026, 3, 2)
QUESTIONS = (
    {"text": "Required yes/no?"},
    {"text": "Optional yes/no?", "required": False},
    {"text": "Another?"},
    {"text": "Which?", "type": "choice", "options": ["a", "b", "c"]},
)


def scanned_increments(survey, schedule, steps):
    """The per-period counts as releases counted them before day tallies: a scan of the
    released submissions' days (and of their grouping answers)."""
    questions, keys = count_keys(survey=survey)
    reports = [key for key in keys if key.startswith("nq")]
    end = schedule.release_on(steps)
    increments = {}

    def add(key, day, n):
        period = max((day - schedule.started_on).days, 0) // schedule.every_days
        increments.setdefault(key, [0] * steps)[period] += n

    per_day = (
        Submission.objects.filter(survey=survey, received_on__lt=end)
        .values("received_on")
        .annotate(
            _respondents=Count("pk"),
            **{f"_{key}": Count("pk", filter=Q(**{f"reports__{key}": True})) for key in questions},
            **{
                f"_n{key}": Count("pk", filter=Q(reports__has_key=key))
                for key in questions
                if f"n{key}" in reports
            },
        )
        .order_by()
    )
    for row in per_day:
        add(RESPONDENTS, row["received_on"], row["_respondents"])
        for key in questions:
            add(key, row["received_on"], row[f"_{key}"])
            if f"n{key}" in reports:
                add(f"n{key}", row["received_on"], row[f"_n{key}"])
    for row in (
        GroupAnswer.objects.filter(
            grouping_question__survey=survey, submission__received_on__lt=end
        )
        .exclude(submission__held=True)
        .values("option_id", "submission__received_on")
        .annotate(n=Count("pk"))
        .order_by()
    ):
        add(option_key(row["option_id"]), row["submission__received_on"], row["n"])
    return increments


def released_keys(increments, keys):
    """Only what a release reads: its count keys (a day tally also counts other yes/no
    questions, never released), zeros where nothing was counted."""
    steps = len(next(iter(increments.values()), []))
    return {key: increments.get(key, [0] * steps) for key in keys}


def study(make_survey, **fields):
    survey = make_survey(questions=QUESTIONS, status="draft", **fields)
    grouping.grouping_question_add(
        survey=survey, text="Team?", options=["A", "B", "C"], required=False
    )
    survey = services.survey_open(survey=survey)
    Survey.objects.filter(pk=survey.pk).update(
        public_results=True, public_started_on=START, public_release_days=3
    )
    return Survey.objects.get(pk=survey.pk)


def send_on_days(survey, rng, monkeypatch, count):
    """``count`` random submissions, each on a random day of the first three weeks; their
    days, in the order they were sent."""
    questions = list(survey.questions.order_by("id"))
    grouping_question = survey.grouping_questions.get()
    options = [*grouping_question.options.values_list("id", flat=True), PREFER_NOT_TO_SAY]
    days = []
    for _ in range(count):
        day = START + timedelta(days=rng.randrange(21))
        days.append(day)
        at = datetime.combine(day, datetime.min.time(), tzinfo=UTC) + timedelta(hours=12)
        monkeypatch.setattr(timezone, "now", lambda at=at: at)
        answers = {}
        for question in questions:
            if question.kind == "choice":
                answers[str(question.pk)] = rng.randrange(3)
            elif question.required or rng.random() < 0.6:
                answers[str(question.pk)] = rng.random() < 0.4
        outcome = services.submission_receive(
            slug=survey.slug,
            submission_id=str(uuid.uuid4()),
            answers=answers,
            groups={str(grouping_question.pk): rng.choice(options)},
        )
        assert outcome.created
    monkeypatch.undo()
    return days


def assert_tallies_match_the_scan(survey):
    schedule = release_schedule(survey=survey)
    _questions, keys = count_keys(survey=survey)
    steps = schedule.releases
    assert released_keys(public_release._increments(survey, schedule, steps), keys) == (
        released_keys(scanned_increments(survey, schedule, steps), keys)
    )


@pytest.mark.parametrize("statement", [True, False], ids=["database path", "orm oracle"])
def test_a_release_from_day_tallies_is_the_release_a_scan_makes(
    make_survey, monkeypatch, settings, statement
):
    settings.SUBMISSION_STATEMENT = statement
    survey = study(make_survey)
    send_on_days(survey, random.Random(34), monkeypatch, 60)
    assert DayTally.objects.filter(survey=survey).exists()
    assert_tallies_match_the_scan(survey)
    # The release itself, made with the same noise from the tallies and from the scan.
    today = START + timedelta(days=22)
    from_tallies = public_release.public_results_release(
        survey=survey, today=today, rng=random.Random(7)
    )
    made = {step: counts for step, counts in PublicRelease.objects.values_list("step", "counts")}
    PublicRelease.objects.filter(survey=survey).delete()
    monkeypatch.setattr(public_release, "_increments", scanned_increments)
    from_scan = public_release.public_results_release(
        survey=survey, today=today, rng=random.Random(7)
    )
    assert from_scan.step == from_tallies.step == 7
    assert dict(PublicRelease.objects.values_list("step", "counts")) == made


def test_a_batched_surveys_day_tallies_count_each_released_batch_on_its_release_day(
    make_survey, monkeypatch
):
    """A batch is counted on the day it is released (that of the submission completing it,
    or the day its owner releases the last one), whatever the days its submissions came in;
    held submissions nowhere. Over all days, the tallies count what a scan of the released
    submissions counts."""
    survey = study(make_survey, release_batch=5)
    days = send_on_days(survey, random.Random(35), monkeypatch, 13)
    assert Submission.all_objects.filter(survey=survey, held=True).count() == 3
    released = Counter({days[4]: 5}) + Counter({days[9]: 5})
    assert day_respondents(survey) == released
    assert_all_days_match_the_scan(survey)
    services.survey_close(survey=survey)
    last = START + timedelta(days=40)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(timezone, "now", lambda: datetime.combine(last, time(9), tzinfo=UTC))
        batches.batch_release_last(survey=survey, responses=3)
    assert day_respondents(survey) == released + Counter({last: 3})
    assert_all_days_match_the_scan(survey)


def day_respondents(survey):
    return Counter({day: counts.get(RESPONDENTS, 0) for day, counts in day_totals(survey).items()})


def assert_all_days_match_the_scan(survey):
    """Every count the day tallies hold, summed over all days, is the scan's (every released
    submission's, whatever its day)."""
    schedule = release_schedule(survey=survey)
    _questions, keys = count_keys(survey=survey)
    scanned = released_keys(scanned_increments(survey, schedule, schedule.releases), keys)
    tallied = Counter()
    for counts in day_totals(survey).values():
        tallied.update(counts)
    assert {key: tallied[key] for key in keys} == {key: sum(n) for key, n in scanned.items()}


def test_the_migration_back_fills_the_day_tallies_kept_at_write_time(make_survey, monkeypatch):
    survey = study(make_survey)
    send_on_days(survey, random.Random(36), monkeypatch, 40)
    kept = day_totals(survey)
    DayTally.objects.all().delete()
    migration = importlib.import_module("surveys.migrations.0034_day_tallies")
    migration.day_tallies_fill(apps, None)
    assert day_totals(survey) == kept
    assert_tallies_match_the_scan(survey)


def test_a_discarded_pilot_leaves_no_day_tally(make_survey, monkeypatch):
    survey = study(make_survey)
    send_on_days(survey, random.Random(37), monkeypatch, 5)
    pilot.pilot_responses_delete(survey=survey)
    assert not DayTally.objects.filter(survey=survey).exists()


def day_totals(survey):
    """Each day's counts, summed over its shards, zeros left out."""
    totals = {}
    for day, counts in DayTally.objects.filter(survey=survey).values_list("day", "counts"):
        for key, n in counts.items():
            totals.setdefault(day, {})[key] = totals.get(day, {}).get(key, 0) + n
    return {day: {k: n for k, n in counts.items() if n} for day, counts in totals.items()}


def send_on(survey, day, count):
    """``count`` submissions received at noon (UTC) on ``day``, each answering yes to every
    yes/no question, the first choice, and choosing the grouping question's first option."""
    answers = {
        str(question.pk): 0 if question.kind == "choice" else True
        for question in survey.questions.all()
    }
    grouping_question = survey.grouping_questions.get()
    option = grouping_question.options.order_by("id").first()
    at = datetime.combine(day, datetime.min.time(), tzinfo=UTC) + timedelta(hours=12)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(timezone, "now", lambda: at)
        for _ in range(count):
            outcome = services.submission_receive(
                slug=survey.slug,
                submission_id=str(uuid.uuid4()),
                answers=answers,
                groups={str(grouping_question.pk): option.pk},
            )
            assert outcome.created


@pytest.mark.django_db(transaction=True)
def test_a_batch_released_after_its_period_was_published_counts_in_the_next_release(
    make_survey, monkeypatch
):
    """Three submissions received in the first period are held past the first two releases;
    two more, in the third period, complete the batch. A published release's period never
    changes afterwards, the whole batch counts in the next release (release 3, noise-free
    here), and no day tally tells on which days its submissions were received."""
    monkeypatch.setattr(dpengine.continual, "sample_discrete_laplace", lambda scale, rng: 0)
    survey = study(make_survey, release_batch=5)  # releases every 3 days from START
    send_on(survey, START + timedelta(days=1), 3)  # period 1: held
    for step in (1, 2):  # published with nobody counted: the three are held
        release = public_release.public_results_release(
            survey=survey, today=START + timedelta(days=3 * step)
        )
        assert (release.step, release.source_count, release.counts[RESPONDENTS]) == (step, 0, 0)
    released_on = START + timedelta(days=7)
    send_on(survey, released_on, 2)  # period 3: completes the batch
    assert Submission.objects.filter(survey=survey).count() == 5
    # Every day tally is the release's day: none says the three came on START + 1.
    assert set(DayTally.objects.filter(survey=survey).values_list("day", flat=True)) == {
        released_on
    }
    third = public_release.public_results_release(survey=survey, today=START + timedelta(days=9))
    assert (third.step, third.source_count, third.counts[RESPONDENTS]) == (3, 5, 5)
    first = survey.questions.order_by("id").first()
    assert third.counts[f"q{first.pk}"] == 5
    # Counted again from the tallies, every published release holds what it published.
    schedule = release_schedule(survey=survey)
    respondents = public_release._increments(survey, schedule, 3)[RESPONDENTS]
    assert respondents == [0, 0, 5]
    for release in PublicRelease.objects.filter(survey=survey):
        assert sum(respondents[: release.step]) == release.source_count
