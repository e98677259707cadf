"""A batch's rows taken out of hold (surveys/services/batch_rows.py), on PostgreSQL (one
statement) and SQLite (the ORM): whole batches only, every picked row deleted by its key and
stored again released under a new key, with its grouping answers and as many spent tokens;
the invitations that obtained a token rewritten under their own keys; the released rows
returned as stored, for the tallies."""

import datetime
import itertools

from django.db import transaction

from surveys.models import GroupAnswer, Invitation, SpentToken, Submission
from surveys.services import batch_rows, batches
from tests.surveys.services.test_batches import batched_study

RELEASED_ON = datetime.date(2031, 1, 2)  # a day no test submission is received on


def test_whole_batches_are_released_under_new_keys_with_their_answers_and_tokens(
    make_survey, respondent, monkeypatch
):
    survey, invitees = batched_study(make_survey, release_batch=5, invitees=7)
    # released here, by hand
    monkeypatch.setattr(batches, "batch_settle", lambda batch, held=None: 0)
    for invitee in invitees:
        invitee.open(respondent, survey)
        invitee.submit(respondent, survey)
    held_keys = set(Submission.all_objects.values_list("pk", flat=True))
    held_answers = dict(GroupAnswer.objects.values_list("submission__submission_id", "option_id"))
    held_tokens = set(SpentToken.objects.values_list("pk", flat=True))
    invitation_keys = set(Invitation.objects.filter(reshuffle=True).values_list("pk", flat=True))
    assert len(held_keys) == len(held_tokens) == len(invitation_keys) == 7

    counter = itertools.count(1)
    with transaction.atomic():
        rows, answers = batch_rows.rows_release(
            survey_id=survey.pk,
            size=5,
            salt=bytes(range(16)),
            shuffle=lambda items: items.reverse(),
            key=lambda: next(counter),
            released_on=RELEASED_ON,
        )

    released = list(Submission.objects.filter(survey=survey))
    # Each stored as received on the release's day, whatever day it came in: within a batch
    # no export tells who answered early.
    assert {row.received_on for row in released} == {RELEASED_ON}
    assert {on for _pk, _reports, on in rows} == {RELEASED_ON}
    assert all(
        row.received_on != RELEASED_ON
        for row in Submission.all_objects.filter(survey=survey, held=True)
    )
    assert len(rows) == len(released) == 5
    assert Submission.all_objects.filter(survey=survey, held=True).count() == 2
    assert not {row.pk for row in released} & held_keys  # every one under a new key
    assert sorted(str((r.reports, r.received_on)) for r in released) == sorted(
        str((reports, on)) for _pk, reports, on in rows
    )
    # The answers returned and stored are the released submissions' own, no other.
    assert sorted(oid for _pk, _gid, oid in answers) == sorted(
        held_answers[row.submission_id] for row in released
    )
    stored_answers = GroupAnswer.objects.filter(submission__in=released)
    assert {(a.submission.submission_id, a.option_id) for a in stored_answers} == {
        (row.submission_id, held_answers[row.submission_id]) for row in released
    }
    assert GroupAnswer.objects.count() == 7
    tokens_after = set(SpentToken.objects.filter(held=False).values_list("pk", flat=True))
    assert len(tokens_after) == 5 and not tokens_after & held_tokens
    assert SpentToken.objects.filter(held=True).count() == 2
    assert not Invitation.objects.filter(reshuffle=True).exists()
    assert set(Invitation.objects.values_list("pk", flat=True)) == invitation_keys
