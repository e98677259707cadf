"""A respondent's submission: the one path that stores it (``submission_receive``;
``submission_record`` for callers that already hold the survey).

One module per part: ``contract`` (every rule, checked in Python with the error that names the
field), ``postgres`` (the one statement that checks the same rules as it writes), ``sqlite``
(the writes, after the contract's check inside the same transaction) and ``oracle`` (the ORM
transaction: the test oracle, and the way out with ``SUBMISSION_STATEMENT`` off).
"""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext as _

from ... import selectors
from ...models import Survey, is_slug
from .. import batches, spent_tokens
from ..errors import Reason, SurveyConflict
from ..tallies import group_tallies_rebuild, tally_shard_pick
from . import oracle, postgres, sqlite
from .contract import (
    CleanSubmission,
    Rule,
    SubmissionOutcome,
    replay_outcome,
    submission_shape,
    submission_validate,
)

__all__ = [
    "CleanSubmission",
    "Rule",
    "SubmissionOutcome",
    "submission_insert",
    "submission_receive",
    "submission_record",
    "submission_validate",
]


def _store_path():
    """Which path stores: "postgresql", "sqlite" or "orm". ``SUBMISSION_STATEMENT=False``
    stores through the ORM transaction (``oracle``): the benchmark's "ORM only" row, and a
    way out should the SQL ever misbehave."""
    if settings.SUBMISSION_STATEMENT and connection.vendor in ("postgresql", "sqlite"):
        return connection.vendor
    return "orm"


def submission_receive(
    *, slug, submission_id, answers, groups=None, design_fingerprint=None, order=None, token=None
) -> SubmissionOutcome:
    """A respondent's submission to the survey at ``slug``, as the public endpoint receives it.

    Stored at most once per request. On PostgreSQL the statement (``postgres``) is tried
    first, before anything is read; when it stores nothing (no such survey, not open, wrong
    answers, another design, a replay), the survey is read only to explain why with
    ``submission_validate``: the error that names the field, or the replay's outcome. On
    SQLite the survey is read, checked and written in one transaction. A body with a ``token``
    (an invitation survey) takes ``_submission_tokened``.
    """
    body = {
        "submission_id": submission_id,
        "answers": answers,
        "groups": groups,
        "design_fingerprint": design_fingerprint,
        "order": order,
    }
    if token is not None:
        return _submission_tokened(slug=slug, token=token, body=body)
    batch = batches.batch_target(slug=slug)
    if batch is not None:
        return _submission_batched(slug=slug, batch=batch, body=body)
    path = _store_path()
    if path == "sqlite":
        with transaction.atomic():
            # IMMEDIATE (config/settings.py): the write lock is held from here, so what the
            # contract checks still holds when the writes commit.
            target = selectors.submission_target(slug=slug)
            return _submission_store(target=target, read_in_transaction=True, **body)
    if path == "postgresql":
        shaped = submission_shape(**body)
        if (
            shaped is not None
            and is_slug(slug)
            and _postgres_store(slug=slug, clean=shaped, now=timezone.now())
        ):
            return shaped.outcome(created=True)
        target = selectors.submission_target(slug=slug)
        clean = submission_validate(target=target, **body)
        if isinstance(clean, SubmissionOutcome):
            return clean
        return _not_stored(survey_id=target.survey_id, clean=clean)
    return _submission_store(target=selectors.submission_target(slug=slug), **body)


def submission_record(
    *, survey, submission_id, answers, groups=None, inputs=None, design_fingerprint=None
) -> SubmissionOutcome:
    """Store one respondent's randomized answers, all or nothing, idempotent on submission_id.

    ``answers`` maps question id to the *randomized* report the respondent's browser drew. A
    replayed submission id stores nothing new and reports the first outcome again, so a
    client may retry safely after a timeout or a crashed worker. ``groups`` maps grouping
    question id to the chosen option id, exactly as the respondent gave it (not randomized).
    ``inputs`` is the survey's ``(question ids, grouping options)`` when the caller already
    read them (every question and grouping question then counts as required); otherwise they
    are read here. Stored the way ``submission_receive`` stores.
    """
    body = {
        "submission_id": submission_id,
        "answers": answers,
        "groups": groups,
        "design_fingerprint": design_fingerprint,
    }
    batch = batches.batch_target(slug=survey.slug)
    if batch is not None:
        return _submission_batched(slug=survey.slug, batch=batch, body=body)
    if inputs is None:
        target = selectors.submission_target(slug=survey.slug)
    else:
        question_ids, options = inputs
        target = selectors.SubmissionTarget(
            survey_id=survey.pk,
            slug=survey.slug,
            status=survey.status,
            design_fingerprint=survey.design_fingerprint,
            question_ids=frozenset(question_ids),
            shown_question_ids=frozenset(question_ids),
            options={gid: frozenset(oids) for gid, oids in options.items()},
            required_questions=frozenset(question_ids),
            required_groupings=frozenset(options),
            opens_at=survey.opens_at,
            closes_at=survey.closes_at,
            access=survey.access,
        )
    return _submission_store(target=target, **body)


def _submission_batched(*, slug, batch, body) -> SubmissionOutcome:
    """A submission without a token to a batched survey (services/batches.py): stored held,
    counted nowhere, and its batch released if it completes one, in one transaction. On
    PostgreSQL the held form of the statement is tried first, before anything is read, as
    ``submission_receive`` does."""
    with transaction.atomic():
        # On SQLite, IMMEDIATE (config/settings.py): the write lock is held from here.
        if _store_path() == "postgresql":
            shaped = submission_shape(**body)
            if (
                shaped is not None
                and is_slug(slug)
                and _postgres_store(slug=slug, clean=shaped, now=timezone.now(), held=True)
            ):
                batches.batch_fill(batch)
                return shaped.outcome(created=True)
            target = selectors.submission_target(slug=slug)
            clean = submission_validate(target=target, **body)
            if isinstance(clean, SubmissionOutcome):
                return clean
            return _not_stored(survey_id=target.survey_id, clean=clean)
        target = selectors.submission_target(slug=slug)
        outcome = _submission_store(target=target, read_in_transaction=True, held=True, **body)
        if outcome.created:
            batches.batch_fill(batch)
        return outcome


def submission_insert(*, slug, clean, now=None) -> bool:
    """Store ``clean`` (a ``CleanSubmission``) to the survey at ``slug`` by this database's
    path if every rule of the contract holds at ``now`` (by default the current time) and its
    id is new to the survey. False: nothing stored, and no reason given."""
    now = now or timezone.now()
    path = _store_path()
    if path == "postgresql":
        return _postgres_store(slug=slug, clean=clean, now=now)
    with transaction.atomic():
        # On SQLite, IMMEDIATE (config/settings.py): the write lock is held from here.
        try:
            target = selectors.submission_target(slug=slug)
            again = submission_validate(target=target, now=now, **clean.body())
        except (Http404, ValidationError, SurveyConflict):
            return False
        if not isinstance(again, CleanSubmission):
            return False
        if path == "sqlite":
            return _sqlite_store(target=target, clean=again, now=now)
        return oracle.orm_store(survey_id=target.survey_id, clean=again)


def _submission_store(
    *, target, read_in_transaction=False, held=False, **body
) -> SubmissionOutcome:
    """Check the contract against ``target``, then store once by this database's path.
    ``read_in_transaction``: ``target`` was read inside the caller's SQLite transaction, so
    the writes need no second check. ``held``: stored held for its batch (services/batches.py),
    with ``read_in_transaction``."""
    now = timezone.now()
    clean = submission_validate(target=target, now=now, **body)
    if isinstance(clean, SubmissionOutcome):
        return clean
    path = _store_path()
    if path == "postgresql":
        stored = _postgres_store(slug=target.slug, clean=clean, now=now, held=held)
    elif path == "sqlite" and read_in_transaction:
        stored = _sqlite_store(target=target, clean=clean, now=now, held=held)
    elif path == "sqlite":
        stored = submission_insert(slug=target.slug, clean=clean, now=now)
    else:
        stored = oracle.orm_store(survey_id=target.survey_id, clean=clean, held=held)
    if stored:
        return clean.outcome(created=True)
    return _not_stored(survey_id=target.survey_id, clean=clean)


def _not_stored(*, survey_id, clean):
    # Most often a replay: this id (or a concurrent retry with it) was stored before, whole.
    replay = replay_outcome(survey_id=survey_id, submission_uuid=clean.submission_uuid)
    if replay is not None:
        return replay
    # Otherwise the survey changed between the read and the store (a database shell, or a
    # status change in between).
    raise SurveyConflict(
        _("The survey changed while you were answering. Please reload the page."),
        reason=Reason.CHANGED_MEANWHILE,
    )


def _postgres_store(*, slug, clean, now, tokened=False, held=False) -> bool:
    stored = postgres.submission_insert(
        slug=slug,
        clean=clean,
        received_on=now.date(),
        shard=tally_shard_pick(),
        now=now,
        tokened=tokened,
        held=held,
    )
    return stored is not None and _recounted(stored)


def _sqlite_store(*, target, clean, now, held=False) -> bool:
    """The writes, inside the transaction in which the contract was checked."""
    stored = sqlite.submission_insert(target=target, clean=clean, received_on=now.date(), held=held)
    return stored is not None and _recounted(stored)


def _recounted(stored):
    if stored.group_tallies_incomplete:
        # Tally rows are created when the survey opens; some were missing (a survey opened
        # before that, or rows removed): recount from the stored rows, this submission included.
        group_tallies_rebuild(survey=Survey.objects.get(pk=stored.survey_id))
    return True


class _NothingStored(Exception):
    """Raised inside the token's transaction to undo the spend when the store did nothing."""


def _submission_tokened(*, slug, token, body) -> SubmissionOutcome:
    """A submission that carries a token (docs/invitations.md): the token is checked, then
    spent in the same transaction as the submission is stored, so neither is kept without the
    other. A spent token with another submission id is a 409; a retry with the same id
    answers as the first time did. On PostgreSQL the spend is a second statement before the
    one statement, in one transaction; a link survey's submission stays one statement."""
    target = spent_tokens.token_target(slug=slug)
    if target.access == Survey.Access.LINK:
        # The link is enough: the token is not needed, and not spent.
        return submission_receive(slug=slug, **body)
    token = spent_tokens.token_clean(token)
    spent_tokens.token_verify(target=target, token=token)
    batch = batches.batch_target(slug=slug)
    held = batch is not None
    now = timezone.now()
    path = _store_path()
    if path == "postgresql":
        shaped = submission_shape(**body)
        if shaped is not None:
            outcome = _spend_and_store(
                survey_id=target.survey_id,
                token=token,
                clean=shaped,
                store=lambda: _postgres_store(
                    slug=slug, clean=shaped, now=now, tokened=True, held=held
                ),
                batch=batch,
            )
            if outcome is not None:
                return outcome
        full = selectors.submission_target(slug=slug)
        clean = submission_validate(target=full, now=now, tokened=True, **body)
        if isinstance(clean, SubmissionOutcome):
            return clean
        return _not_stored(survey_id=full.survey_id, clean=clean)
    try:
        with transaction.atomic():
            # On SQLite, IMMEDIATE (config/settings.py): what is checked here holds at commit.
            full = selectors.submission_target(slug=slug)
            clean = submission_validate(target=full, now=now, tokened=True, **body)
            if isinstance(clean, SubmissionOutcome):
                return clean
            if path == "sqlite":
                store = lambda: _sqlite_store(target=full, clean=clean, now=now, held=held)  # noqa: E731
            else:
                store = lambda: oracle.orm_store(survey_id=full.survey_id, clean=clean, held=held)  # noqa: E731
            outcome = _spend_and_store(
                survey_id=full.survey_id, token=token, clean=clean, store=store, batch=batch
            )
    except _NothingStored:
        outcome = None
    return outcome or _not_stored(survey_id=full.survey_id, clean=clean)


def _spend_and_store(*, survey_id, token, clean, store, batch=None) -> SubmissionOutcome | None:
    """Spend ``token`` and ``store()`` in one transaction: the outcome, or None when the store
    did nothing (then the spend is undone, and the caller explains why). ``batch``: the survey
    is batched (``batches.batch_target``); the submission (``store`` stores it held) and its
    token are held for their batch, which ``batches.batch_fill`` releases, after the writes, in
    the same transaction, when it is complete."""
    try:
        with transaction.atomic():
            if not spent_tokens.token_spend(
                survey_id=survey_id, token=token, held=batch is not None
            ):
                # Spent before: by this very submission (a retry), or by another one.
                replay = replay_outcome(survey_id=survey_id, submission_uuid=clean.submission_uuid)
                if replay is not None:
                    return replay
                raise spent_tokens.token_spent_conflict()
            if not store():
                raise _NothingStored
            if batch is not None:
                batches.batch_fill(batch)
    except _NothingStored:
        return None
    return clean.outcome(created=True)
