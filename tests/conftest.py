"""The fixed cast: a survey owner, a second researcher and an anonymous respondent, in the
browser and over the API. (Plain helpers are in tests/helpers.py.)"""

import os
import uuid
from collections import defaultdict
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import override_settings
from django.utils import translation
from rest_framework.test import APIClient

from surveys import services
from surveys.models import Survey
from surveys.services import batch_counting, translations
from tests import live_databases
from tests.helpers import (
    MIXED_QUESTIONS,
    PASSWORD,
    SENSITIVE_QUESTIONS,
    answers_for,
    token_client,
    translation_texts,
)

E2E_FOLDER = Path(__file__).parent / "e2e"
# Tests measured over the fast loop's budget of CPU ("Timing" in tests/README.md), by id.
MEASURED_SLOW = Path(__file__).parent / "measured_slow.txt"


def measured_slow():
    lines = MEASURED_SLOW.read_text().splitlines() if MEASURED_SLOW.exists() else []
    return {line for line in lines if line and not line.startswith("#")}


def pytest_addoption(parser):
    parser.addoption(
        "--ignore-measured-slow",
        action="store_true",
        help="do not mark slow the tests of tests/measured_slow.txt (make test-module)",
    )
    parser.addoption(
        "--database-only",
        action="store_true",
        help="run only the tests that reach a database (.ci/run's PostgreSQL pass)",
    )


def pytest_collection_modifyitems(config, items):
    """Every test under tests/e2e/ is marked ``e2e`` by where it lives, so ``make test-fast``
    (``-m "not slow and not e2e"``) leaves out a browser test whose module forgot its mark.
    A test listed in tests/measured_slow.txt is marked ``slow`` as if by hand, unless
    ``--ignore-measured-slow`` (``make test-module`` runs a module's tests whatever they cost)."""
    slow = set() if config.getoption("--ignore-measured-slow") else measured_slow()
    for item in items:
        if E2E_FOLDER in item.path.parents:
            item.add_marker(pytest.mark.e2e)
        if item.nodeid in slow:
            item.add_marker(pytest.mark.slow(measured=True))
    if config.getoption("--database-only"):
        left_out = [item for item in items if not reaches_a_database(item)]
        if left_out:
            config.hook.pytest_deselected(items=left_out)
            items[:] = [item for item in items if reaches_a_database(item)]
    if os.environ.get("PYTEST_XDIST_WORKER"):
        longest_files_first(items)


# The fixtures through which a test reaches the test database (a test without one cannot: pytest-
# django refuses it any query).
DATABASE_FIXTURES = {"db", "transactional_db", "django_db_reset_sequences", "live_server"}
# What in a test module's source reaches a database another way: a live gunicorn or development
# server, or manage.py, in a subprocess (tests/live.py, tests/live_databases.py), or a process
# given DATABASE_URL.
OTHER_WAYS_TO_A_DATABASE = ("tests.live", "from tests import live", "DATABASE_URL", "manage.py")


def reaches_a_database(item):
    """Whether the test's result can depend on the database the suite runs on: it uses the test
    database (a fixture or the ``django_db`` mark), or its module starts something that opens
    one, unless it is marked ``own_sqlite`` (its subprocesses make their own SQLite file). The
    others (dpengine, blindrsa, the source and docs checks, node) get the same result on any
    database, so .ci/run's PostgreSQL pass leaves them to the SQLite pass
    (``--database-only``)."""
    if item.get_closest_marker("django_db") or DATABASE_FIXTURES & set(item.fixturenames):
        return True
    if item.get_closest_marker("own_sqlite"):
        # Its subprocesses are given a fresh SQLite file whatever DATABASE_URL the suite has.
        return False
    return any(way in _source(item.path) for way in OTHER_WAYS_TO_A_DATABASE)


_sources = {}


def _source(path):
    if path not in _sources:
        _sources[path] = path.read_text(encoding="utf-8")
    return _sources[path]


# Each test file's seconds (wall, setup to teardown) in the last `make test-times`
# (tests/cpu_times.py), which the xdist workers use to run the longest files first.
FILE_TIMES = Path(__file__).parent / "file_times.txt"
# A file not measured yet: an estimate from its tests' marks (seconds a test).
ESTIMATED_SECONDS = {"e2e": 4.0, "slow": 2.0, "other": 0.05}


def file_times():
    lines = FILE_TIMES.read_text().splitlines() if FILE_TIMES.exists() else []
    times = {}
    for line in lines:
        if line and not line.startswith("#"):
            seconds, path = line.split(maxsplit=1)
            times[path] = float(seconds)
    return times


def longest_files_first(items):
    """The longest file first, a file's tests in their order. xdist's ``--dist loadfile`` hands
    the files to the workers in the order collected (with ``--no-loadscope-reorder``; by
    default it orders them by their number of tests, which put the browser's files, few tests
    of many seconds each, last): the last files handed out are then the short ones, and no
    worker waits long at the end for the other's last file."""
    measured, estimated = file_times(), defaultdict(float)
    for item in items:
        path = item.nodeid.split("::")[0]
        if item.get_closest_marker("e2e"):
            estimated[path] += ESTIMATED_SECONDS["e2e"]
        elif item.get_closest_marker("slow"):
            estimated[path] += ESTIMATED_SECONDS["slow"]
        else:
            estimated[path] += ESTIMATED_SECONDS["other"]
    seconds = {path: measured.get(path, guess) for path, guess in estimated.items()}
    items.sort(key=lambda item: -seconds[item.nodeid.split("::")[0]])


@pytest.fixture(scope="session", autouse=True)
def fast_password_hashing():
    """Every test user's password is hashed with MD5: the production hasher (PBKDF2, ~0.4 s a
    hash here) is what makes a password slow to guess, which no test measures, and the cast is
    created for most tests. Live servers in subprocesses (tests/live.py) keep the real one."""
    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        yield


@pytest.fixture(scope="session", autouse=True)
def live_server_template_removed_at_the_end():
    """The template database the live servers of this process copy (tests/live_databases.py),
    if one was made, is removed when the session ends (a PostgreSQL one would outlive it)."""
    yield
    live_databases.discard_template()


@pytest.fixture(autouse=True)
def default_language():
    """Each test starts with no language activated (so in LANGUAGE_CODE): a test client request
    in Korean or Chinese leaves that language active in the thread (LocaleMiddleware activates,
    nothing deactivates), and a later test rendering a template outside a request would render
    it in that language. Without this, results depend on which test ran before on the worker."""
    translation.deactivate()


@pytest.fixture(autouse=True)
def survey_designs_kept_by_one_test_only():
    """A batch's release keeps each opened survey's design by its id in the process
    (services/batch_counting.py): a database's ids are never handed out twice, but a test's
    rolled-back transaction gives the next test's survey the same id, with another design."""
    yield
    batch_counting.survey_designs_forget()


@pytest.fixture(autouse=True)
def export_files_in_a_temporary_directory(settings, tmp_path):
    """Export jobs write their files under the test's own directory, never the checkout's."""
    settings.EXPORT_DIR = tmp_path / "exports"


@pytest.fixture(autouse=True)
def throttle_counts_end_with_the_test(request, django_db_blocker):
    """A transactional test (live server, ``transaction=True``) ends with a flush of the model
    tables (the rate counters' among them), which leaves the cache table and Redis: what a
    test left there would be read by the next test on the worker."""
    yield
    marker = request.node.get_closest_marker("django_db")
    if "transactional_db" in request.fixturenames or (marker and marker.kwargs.get("transaction")):
        with django_db_blocker.unblock():
            cache.clear()


@pytest.fixture
def owner(db):
    return get_user_model().objects.create_user("owner", password=PASSWORD)


@pytest.fixture
def other_researcher(db):
    return get_user_model().objects.create_user("other", password=PASSWORD)


@pytest.fixture
def owner_client(client, owner):
    client.force_login(owner)
    return client


@pytest.fixture
def other_client(client, other_researcher):
    client.force_login(other_researcher)
    return client


@pytest.fixture
def owner_api(owner):
    """The survey owner, authenticated by API token as a script would be."""
    return token_client(owner)


@pytest.fixture
def other_api(other_researcher):
    return token_client(other_researcher)


@pytest.fixture
def anonymous_api():
    return APIClient()


@pytest.fixture
def respondent():
    """An anonymous API client, as a respondent's browser would be."""
    return APIClient()


@pytest.fixture
def make_survey(owner):
    def make(
        *, by=None, title="Workplace habits", questions=SENSITIVE_QUESTIONS, status="open", **fields
    ):
        survey = services.survey_create(
            owner=by or owner, title=title, questions=questions, **fields
        )
        if status == Survey.Status.OPEN:
            survey = services.survey_open(survey=survey)
        elif status == Survey.Status.CLOSED:
            survey = services.survey_close(survey=survey)
        elif status == Survey.Status.PILOT:
            survey = services.survey_pilot_start(survey=survey)
        return survey

    return make


@pytest.fixture
def open_survey(make_survey):
    return make_survey()


@pytest.fixture
def mixed_survey(make_survey):
    """An open survey of every question type (``MIXED_QUESTIONS``), no responses yet."""
    return make_survey(questions=MIXED_QUESTIONS)


@pytest.fixture
def make_translated_survey(make_survey):
    """A survey whose every text is translated into ``into`` (so it is offered in them)."""

    def make(*, into=("ko", "zh-hans"), status="open", **fields):
        survey = make_survey(status=Survey.Status.DRAFT, **fields)
        translations.survey_translations_save(
            survey=survey, texts=translation_texts(survey, into=into)
        )
        if status == Survey.Status.OPEN:
            survey = services.survey_open(survey=survey)
        elif status == Survey.Status.CLOSED:
            survey = services.survey_close(survey=survey)
        return survey

    return make


@pytest.fixture
def frozen_survey(open_survey):
    """The open survey with one response (yes, no): its questions can no longer change."""
    services.submission_receive(
        slug=open_survey.slug,
        submission_id=uuid.uuid4(),
        answers=answers_for(open_survey, [True, False]),
    )
    open_survey.refresh_from_db()
    return open_survey


@pytest.fixture
def submit(respondent):
    """POST randomized answers for a survey; ``answers`` is a list of bits in question order."""

    def post(survey, answers, *, submission_id=None, client=None):
        question_ids = list(survey.questions.values_list("id", flat=True))
        body = {
            "submission_id": str(submission_id or uuid.uuid4()),
            "answers": {str(qid): bit for qid, bit in zip(question_ids, answers, strict=True)},
        }
        return (client or respondent).post(
            f"/api/v1/public/surveys/{survey.slug}/responses/", body, format="json"
        )

    return post
