"""A respondent's submission: one entry (``submission_receive``) and one writer per database.

The entry checks the body's types and its token, builds one ``PreparedSubmission`` and hands
it to the writer of the database in use (``writer``), whose one function ``write(prepared)``
says whether it stored. Each writer checks every rule of the contract as it writes, and spends
the token in the same transaction; they differ only in how they write:

- ``postgres``: one statement (composed in ``statement``) checks the rules, stores the
  submission and spends its token; the survey is read only when it stores nothing, to explain
  why;
- ``sqlite``: ``contract.submission_validate`` inside a transaction that holds the write lock
  from BEGIN, then the writes;
- ``oracle``: the ORM transaction, the test oracle, and the way out with
  ``SUBMISSION_STATEMENT`` off.

A submission to a batched survey is stored held; once its transaction has committed,
``batches.batch_settle`` releases any batch that is complete (services/batches.py). The
statement stores nothing in a form that does not fit the survey's batches, so on PostgreSQL a
submission without a token to a survey this process has not seen is written as to a survey
that is not batched, with no read first; only should that store nothing is the survey read.
"""

from dataclasses import replace

from django.conf import settings
from django.db import connection
from django.utils import timezone
from django.utils.translation import gettext as _

from ... import selectors
from ...models import Survey, is_slug
from .. import batches, spent_tokens
from ..errors import Reason, SurveyConflict
from . import oracle, postgres, sqlite
from .contract import (
    CleanSubmission,
    PreparedSubmission,
    Rule,
    SubmissionOutcome,
    replay_outcome,
    submission_shape,
    submission_validate,
)

__all__ = [
    "CleanSubmission",
    "PreparedSubmission",
    "Rule",
    "SubmissionOutcome",
    "submission_receive",
    "submission_validate",
    "writer",
]


def writer():
    """The writer of the database in use: ``postgres``, ``sqlite``, or ``oracle`` (the ORM)
    with ``SUBMISSION_STATEMENT=False`` (the benchmark's "ORM only" row, and a way out should
    the SQL ever misbehave)."""
    if settings.SUBMISSION_STATEMENT and connection.vendor == "postgresql":
        return postgres
    if settings.SUBMISSION_STATEMENT and connection.vendor == "sqlite":
        return sqlite
    return oracle


def submission_receive(
    *, slug, submission_id, answers, groups=None, design_fingerprint=None, order=None, token=None
) -> SubmissionOutcome:
    """A respondent's submission to the survey at ``slug``, stored at most once.

    ``answers`` maps question id to the *randomized* report the respondent's browser drew;
    ``groups`` maps grouping question id to the chosen option id, as given (not randomized).
    A replayed submission id stores nothing new and answers as the first time did, so a
    client may retry safely. ``token`` (an invitation survey's; ignored by a link survey) is
    verified here and spent with the submission, in its transaction. When the writer stores
    nothing, the survey is read to explain why: the error that names the field, the replay's
    outcome, a token spent on another submission (409), or a survey changed meanwhile (409).
    """
    body = {
        "submission_id": submission_id,
        "answers": answers,
        "groups": groups,
        "design_fingerprint": design_fingerprint,
        "order": order,
    }
    now = timezone.now()
    verified = _token_verified(slug=slug, token=token)
    write = writer()
    # The statement stores nothing in a form that does not fit the survey's batches, so a
    # submission without a token (most often to a link survey, which is not batched) need not
    # read the survey first; an invitation survey is most often batched.
    guessed = write is postgres and verified is None
    batch = batches.batch_target(slug=slug, guessed=guessed)
    clean = submission_shape(**body)
    # A slug no survey can have (PostgreSQL refuses a NUL byte in a text) is not written; the
    # explanation answers 404.
    if clean is not None and is_slug(slug):
        prepared = PreparedSubmission(
            slug=slug, clean=clean, received=now, token=verified, held=batch is not None
        )
        stored, held = _written(write, prepared)
        if not stored and guessed and batch is None:
            # Perhaps a batched survey this process had not seen yet: read it.
            batch = batches.batch_target(slug=slug)
            if batch is not None:
                stored, held = _written(write, replace(prepared, held=True))
        if stored:
            if batch is not None:
                batches.batch_settle(batch, held=held)
            return clean.outcome(created=True)
    return _explained(slug=slug, body=body, token=verified, now=now)


def _written(chosen, prepared):
    """Whether the writer ``chosen`` stored ``prepared``, and the survey's held submissions
    when it counted them after its commit (the PostgreSQL writer, in the same round trip),
    else None."""
    if chosen is postgres:
        stored = postgres.written(prepared)
        return stored is not None, None if stored is None else stored.held
    return chosen.write(prepared), None


def _token_verified(*, slug, token) -> spent_tokens.Token | None:
    """The body's token, its shape and signature checked (a 400 naming ``token`` otherwise);
    None without one, or for a link survey, which needs none and spends none."""
    if token is None:
        return None
    target = spent_tokens.token_target(slug=slug)
    if target.access == Survey.Access.LINK:
        return None
    verified = spent_tokens.token_clean(token)
    spent_tokens.token_verify(target=target, token=verified)
    return verified


def _explained(*, slug, body, token, now) -> SubmissionOutcome:
    """Why nothing was stored: raises the error that names the field, or answers a replay as
    the first time did."""
    target = selectors.submission_target(slug=slug)
    clean = submission_validate(target=target, now=now, tokened=token is not None, **body)
    if isinstance(clean, SubmissionOutcome):
        return clean
    # Most often a replay: this id (or a concurrent retry with it) was stored before, whole.
    replay = replay_outcome(survey_id=target.survey_id, submission_uuid=clean.submission_uuid)
    if replay is not None:
        return replay
    if token is not None and spent_tokens.token_spent(survey_id=target.survey_id, token=token):
        raise spent_tokens.token_spent_conflict()
    # Otherwise the survey changed between the write and this read (a database shell, or a
    # status change in between).
    raise SurveyConflict(
        _("The survey changed while you were answering. Please reload the page."),
        reason=Reason.CHANGED_MEANWHILE,
    )
