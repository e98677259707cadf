"""Making the public page's releases never holds the survey's lock while it counts rows, and
never keeps a submission to the survey waiting (issue 28): the day counts are read first,
then the lock is taken only to write the release rows (surveys/services/public_release.py).
"""

import threading
import time
import uuid
from datetime import date, timedelta

import numpy as np
import pytest
from django.db import connection, connections
from django.db.utils import OperationalError

from surveys import services
from surveys.models import PublicRelease, Submission, Survey
from surveys.services import public_release

START = date(2026, 1, 5)


def _published(survey, options, *, n=60):
    """``survey`` published from START, with ``n`` respondents the day before it."""
    reports = np.random.default_rng(3).random((n, survey.questions.count())) < 0.5
    chosen = [[options[i % len(options)]] for i in range(n)]
    services.simulated_submissions_record(
        survey=survey, reports=reports, options=chosen, received_on=START - timedelta(days=1)
    )
    public_release.public_results_update(
        survey=survey, enabled=True, epsilon=1.0, release_days=7, releases=10, today=START
    )
    survey.refresh_from_db()
    return survey


@pytest.mark.django_db
def test_the_day_counts_are_read_before_the_lock_is_taken(grouped_survey, options, monkeypatch):
    survey = _published(grouped_survey, options)
    events = []
    counting, making = public_release._increments, public_release._make_due_releases

    def count(*args, **kwargs):
        events.append("count")
        return counting(*args, **kwargs)

    def make(*args, **kwargs):
        events.append("locked")
        return making(*args, **kwargs)

    monkeypatch.setattr(public_release, "_increments", count)
    monkeypatch.setattr(public_release, "_make_due_releases", make)
    latest = public_release.public_results_release(survey=survey, today=START + timedelta(days=15))
    assert latest.step == 2 and latest.source_count == 60
    # Counted once, before the lock; nothing counted again under it.
    assert events == ["count", "locked"]


@pytest.mark.django_db
def test_releases_made_by_another_view_meanwhile_are_not_made_twice(
    grouped_survey, options, monkeypatch
):
    survey = _published(grouped_survey, options)
    today = START + timedelta(days=8)
    counting = public_release._increments
    calls = []

    def count(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            # Another view makes the due release between this one's count and its lock.
            public_release.public_results_release(
                survey=Survey.objects.get(pk=survey.pk), today=today
            )
        return counting(*args, **kwargs)

    monkeypatch.setattr(public_release, "_increments", count)
    latest = public_release.public_results_release(survey=survey, today=today)
    assert list(PublicRelease.objects.filter(survey=survey).values_list("step", flat=True)) == [1]
    assert latest.step == 1 and len(calls) == 2


@pytest.mark.django_db
def test_settings_changed_since_the_count_are_counted_again_under_the_lock(
    grouped_survey, options, monkeypatch
):
    survey = _published(grouped_survey, options)
    today = START + timedelta(days=15)
    counting = public_release._increments
    calls = []

    def count(*args, **kwargs):
        calls.append(args[2])  # the releases counted for
        if len(calls) == 1:
            # Before any release, a change of schedule restarts nothing but the periods.
            Survey.objects.filter(pk=survey.pk).update(public_release_days=5)
        return counting(*args, **kwargs)

    monkeypatch.setattr(public_release, "_increments", count)
    latest = public_release.public_results_release(survey=survey, today=today)
    # Counted for two releases of 7 days, then again for the three of 5 days now due.
    assert calls == [2, 3] and latest.step == 3 and latest.source_count == 60


@pytest.mark.django_db(transaction=True)
def test_a_submission_during_the_release_is_not_kept_waiting(grouped_survey, options, monkeypatch):
    if connection.vendor != "postgresql":
        pytest.skip("SQLite takes one write at a time: there is no row lock to hold")
    survey = _published(grouped_survey, options)
    locked, go = threading.Event(), threading.Event()
    making = public_release._make_due_releases
    failures = []

    def make(*args, **kwargs):
        locked.set()  # the survey's row is locked from here until the releases are written
        go.wait(20)
        return making(*args, **kwargs)

    monkeypatch.setattr(public_release, "_make_due_releases", make)

    def release():
        try:
            public_release.public_results_release(
                survey=Survey.objects.get(pk=survey.pk), today=START + timedelta(days=8)
            )
        except Exception as exc:  # reported below, in the test's thread
            failures.append(exc)
        finally:
            connections.close_all()

    maker = threading.Thread(target=release)
    maker.start()
    try:
        assert locked.wait(20)
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = '2s'")
            # The lock is held: another release maker would wait (NOWAIT refuses at once)...
            with pytest.raises(OperationalError):
                cursor.execute(
                    "SELECT id FROM surveys_survey WHERE id = %s FOR UPDATE NOWAIT", [survey.pk]
                )
        # ... but a submission goes through at once.
        first, second = survey.questions.values_list("id", flat=True)
        started = time.perf_counter()
        outcome = services.submission_receive(
            slug=survey.slug,
            submission_id=str(uuid.uuid4()),
            answers={str(first): True, str(second): False},
            groups={str(survey.grouping_questions.get().pk): options[0]},
        )
        waited = time.perf_counter() - started
    finally:
        go.set()
        maker.join(30)
    assert outcome.created and waited < 1.5
    assert not failures
    assert Submission.objects.filter(survey=survey).count() == 61
    # The release counts the day before its date only: the new submission is not in it.
    assert PublicRelease.objects.get(survey=survey, step=1).source_count == 60
