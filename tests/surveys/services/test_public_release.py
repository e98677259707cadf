"""A public release waits a few minutes past midnight (``selectors.release_today``): a
submission dated the day before, still committing at midnight, counts in the release of that
day's period instead of being left out of every release.
"""

import runpy
import uuid
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path

import pytest
from django.utils import timezone

import dpengine.continual
from surveys import selectors, services
from surveys.models import PublicRelease
from surveys.selectors.public_results import RELEASE_SETTLE
from surveys.services import public_release

START = date(2026, 1, 5)
RELEASE_DAY = START + timedelta(days=1)  # the first release of a daily schedule from START
GUNICORN_CONF = Path(__file__).resolve().parents[3] / "deploy" / "gunicorn.conf.py"


def at(day, hours=0, minutes=0, seconds=0):
    return datetime.combine(day, time(hours, minutes, seconds), tzinfo=UTC)


@pytest.mark.parametrize(
    ("now", "day"),
    [
        (at(RELEASE_DAY), START),
        (at(RELEASE_DAY) + RELEASE_SETTLE - timedelta(microseconds=1), START),
        (at(RELEASE_DAY) + RELEASE_SETTLE, RELEASE_DAY),
        (at(RELEASE_DAY, 23, 59, 59), RELEASE_DAY),
    ],
)
def test_the_release_day_turns_a_settling_margin_after_midnight(now, day):
    assert selectors.release_today(now) == day


def test_the_margin_outlasts_any_request_the_web_server_lets_run(monkeypatch):
    """A request's transaction (a submission dated by its worker's clock) ends within gunicorn's
    worker timeout: the default timeout must stay inside the margin."""
    monkeypatch.delenv("GUNICORN_TIMEOUT", raising=False)
    timeout = runpy.run_path(str(GUNICORN_CONF))["timeout"]
    assert timedelta(seconds=timeout) < RELEASE_SETTLE


@pytest.mark.django_db
def test_a_submission_committing_at_midnight_counts_in_that_days_release(make_survey, monkeypatch):
    survey = make_survey(questions=[{"text": "Q1?"}, {"text": "Q2?"}], status="open")
    survey = public_release.public_results_update(
        survey=survey, enabled=True, epsilon=1.0, release_days=1, releases=10, today=START
    )
    monkeypatch.setattr(dpengine.continual, "sample_discrete_laplace", lambda scale, rng: 0)
    questions = list(survey.questions.values_list("pk", flat=True))

    def submit(dated):
        monkeypatch.setattr(timezone, "now", lambda: dated)
        outcome = services.submission_receive(
            slug=survey.slug,
            submission_id=str(uuid.uuid4()),
            answers={str(pk): True for pk in questions},
        )
        assert outcome.created

    submit(at(START, 12))
    # A page view just after midnight, while a submission whose worker read the clock at
    # 23:59:59.9 has not yet committed: no release is made yet.
    monkeypatch.setattr(timezone, "now", lambda: at(RELEASE_DAY, 0, 0, 1))
    assert public_release.make_due_releases(survey=survey) is None
    submit(at(START, 23, 59, 59) + timedelta(milliseconds=900))
    # After the margin the release of START's period counts both.
    monkeypatch.setattr(timezone, "now", lambda: at(RELEASE_DAY) + RELEASE_SETTLE)
    release = public_release.make_due_releases(survey=survey)
    assert (release.step, release.source_count) == (1, 2)
    assert PublicRelease.objects.filter(survey=survey).count() == 1
