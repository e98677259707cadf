"""Public releases read day tallies kept as submissions arrive (``models.DayTally``,
surveys/services/tallies.py ``day_counts``), not a scan of the stored submissions: on random
data, through every writer (the database's path and the ORM oracle) and a batched survey's
releases, the per-period counts and the release made from them equal those a scan of the
released submissions gives; the migration that back-fills them counts the same.
"""

import importlib
import random
import uuid
from datetime import UTC, date, datetime, timedelta

import pytest
from django.apps import apps
from django.db.models import Count, Q
from django.utils import timezone

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
    """``count`` random submissions, each on a random day of the first three weeks."""
    questions = list(survey.questions.order_by("id"))
    grouping_question = survey.grouping_questions.get()
    options = [*grouping_question.options.values_list("id", flat=True), PREFER_NOT_TO_SAY]
    for _ in range(count):
        day = START + timedelta(days=rng.randrange(21))
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


def test_a_batched_surveys_day_tallies_count_released_batches_only(make_survey, monkeypatch):
    survey = study(make_survey, release_batch=5)
    send_on_days(survey, random.Random(35), monkeypatch, 13)
    assert Submission.all_objects.filter(survey=survey, held=True).count() == 3
    assert sum(c[RESPONDENTS] for c in DayTally.objects.values_list("counts", flat=True)) == 10
    assert_tallies_match_the_scan(survey)
    services.survey_close(survey=survey)
    batches.batch_release_last(survey=survey, responses=3)
    assert sum(c[RESPONDENTS] for c in DayTally.objects.values_list("counts", flat=True)) == 13
    assert_tallies_match_the_scan(survey)


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
