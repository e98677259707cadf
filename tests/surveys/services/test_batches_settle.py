"""Who completes a batch (surveys/services/batches.py, ``batch_settle``): on PostgreSQL, outside
a test transaction, submissions with tokens commit held without waiting for one another, and
every one is counted exactly once when the batches are released; a request that finds the
batch lock taken leaves the release to its holder, never waiting for it.
"""

import uuid
from concurrent.futures import ThreadPoolExecutor
from threading import Barrier

import psycopg
import pytest
from django.conf import settings
from django.db import connections
from rest_framework.test import APIClient

from surveys import services
from surveys.models import SpentToken, Submission, Survey
from surveys.services import batches
from tests.helpers import postgresql_outside_a_transaction, question_tallies
from tests.surveys.services.test_batches import batched_study

pytestmark = postgresql_outside_a_transaction(
    "concurrent writers: SQLite takes one write at a time"
)

BATCH = 5


def _held(survey):
    return Submission.all_objects.filter(survey=survey, held=True).count()


def _other_session():
    """A second database session, as another worker's would be."""
    db = settings.DATABASES["default"]
    return psycopg.connect(
        dbname=db["NAME"],
        user=db["USER"],
        host=db["HOST"],
        port=db["PORT"] or 5432,
        password=db["PASSWORD"] or None,
    )


@pytest.mark.slow
def test_concurrent_tokened_submissions_are_each_counted_once(make_survey, respondent):
    """23 invitees send at once to a survey batched by five, three of them twice (a retry),
    and three other requests race three of them with their tokens under new ids (one of each
    pair is stored, the other refused): four whole batches become visible, three submissions
    stay held; the last batch released, every submission is counted once, every token spent
    once, nothing held."""
    survey, invitees = batched_study(make_survey, release_batch=BATCH, invitees=23)
    for invitee in invitees:
        invitee.open(respondent, survey)
    sends = [(invitee, None) for invitee in invitees]
    sends += [(invitees[i], None) for i in range(3)]  # retries: the same body again
    sends += [(invitees[i], str(uuid.uuid4())) for i in range(3, 6)]  # a token reused
    barrier = Barrier(len(sends))

    def send(item):
        invitee, other_id = item
        client = APIClient()
        try:
            barrier.wait()
            if other_id is None:
                return invitee.submit(client, survey, expect=None)
            return _reused(invitee, client, survey, other_id)
        finally:
            connections.close_all()

    with ThreadPoolExecutor(len(sends)) as pool:
        codes = list(pool.map(send, sends))
    stolen = range(3, 6)
    raced = [sorted([codes[i], codes[23 + i]]) for i in stolen]  # retries at 23-25, thefts after
    assert raced == [[201, 409]] * 3
    assert [code for i, code in enumerate(codes[:26]) if i not in stolen] == [201] * 23
    stored_ids = {uuid.UUID(invitee.submission_id) for invitee in invitees}
    for i in stolen:
        if codes[i] == 409:
            stored_ids ^= {uuid.UUID(invitees[i].submission_id), uuid.UUID(sends[23 + i][1])}
    # Whole batches only, whatever the order of the commits: four of five, three held.
    assert Submission.objects.filter(survey=survey).count() == 20
    assert _held(survey) == 3
    assert Survey.objects.get(pk=survey.pk).response_count == 20
    services.survey_close(survey=Survey.objects.get(pk=survey.pk))
    assert services.batch_release_last(survey=Survey.objects.get(pk=survey.pk), responses=3) == 3
    assert Submission.objects.filter(survey=survey).count() == 23
    assert set(Submission.objects.values_list("submission_id", flat=True)) == stored_ids
    assert SpentToken.objects.filter(survey=survey).count() == 23
    assert not SpentToken.objects.filter(held=True).exists()
    assert Survey.objects.get(pk=survey.pk).response_count == 23
    assert {n for n, _yes in question_tallies(survey)[:2]} == {23}


def _reused(invitee, client, survey, submission_id):
    invitee_copy = type(invitee)(invitee.code, invitee.index)
    invitee_copy.prepared, invitee_copy.signature = invitee.prepared, invitee.signature
    invitee_copy.submission_id = submission_id
    return invitee_copy.submit(client, survey, expect=None)


def test_a_request_that_finds_the_lock_taken_leaves_the_release_to_its_holder(
    make_survey, respondent
):
    survey, invitees = batched_study(make_survey, release_batch=BATCH, invitees=BATCH)
    for invitee in invitees:
        invitee.open(respondent, survey)
    for invitee in invitees[:-1]:
        invitee.submit(respondent, survey)
    target = batches.batch_target(slug=survey.slug)
    with _other_session() as other:
        # Another request holds the batch lock (its own release, say) for its transaction.
        other.execute("SELECT pg_advisory_xact_lock(%s, %s)", batches.lock_key(survey.pk))
        invitees[-1].submit(respondent, survey)  # completes the batch; does not wait
        assert _held(survey) == BATCH
        assert Submission.objects.filter(survey=survey).count() == 0
        assert batches.batch_settle(target) == 0
        other.rollback()  # lets go
    # What the holder does after letting go: count again, and release.
    assert batches.batch_settle(target) == BATCH
    assert _held(survey) == 0
    assert Submission.objects.filter(survey=survey).count() == BATCH
    assert batches.batch_settle(target) == 0  # once


def test_a_batch_left_complete_by_a_crash_is_released_by_the_next_submission(
    make_survey, respondent, monkeypatch
):
    """A process that dies between its commit and its count leaves the batch it completed
    held; the next submission's count releases it (a whole batch: that one waits for the
    next)."""
    survey, invitees = batched_study(make_survey, release_batch=BATCH, invitees=BATCH + 1)
    for invitee in invitees:
        invitee.open(respondent, survey)
    for invitee in invitees[: BATCH - 1]:
        invitee.submit(respondent, survey)
    with monkeypatch.context() as patched:
        # died after its commit
        patched.setattr(batches, "batch_settle", lambda batch, held=None: 0)
        invitees[BATCH - 1].submit(respondent, survey)
    assert _held(survey) == BATCH
    invitees[BATCH].submit(respondent, survey)
    assert Submission.objects.filter(survey=survey).count() == BATCH  # a whole batch
    assert _held(survey) == 1
