"""A respondent's submission: the rules it must pass (``submission_validate``) and the one
path that stores it (``submission_receive``; ``submission_record`` for callers that already
hold the survey).
"""

import uuid
from dataclasses import dataclass
from datetime import UTC

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from .. import selectors
from ..models import Question, Submission, Survey, is_slug, question_key
from . import schedule, spent_tokens, submission_sql
from .answers import (
    answer_reports,
    clean_answers,
    clean_fingerprint,
    clean_groups,
    clean_submission_id,
    group_choices,
)
from .errors import (
    AccessRefused,
    DesignChanged,
    Reason,
    SurveyConflict,
    SurveyNotAcceptingResponses,
)
from .tallies import (
    group_answers_record,
    group_tallies_rebuild,
    tally_add,
    tally_increment,
    tally_shard_pick,
)


@dataclass(frozen=True)
class SubmissionOutcome:
    submission_id: uuid.UUID
    created: bool
    questions_answered: int


@dataclass(frozen=True)
class CleanSubmission:
    """A submission that passed ``submission_validate``, ready to store."""

    submission_uuid: uuid.UUID
    # {question id: randomized report}: a bit for yes/no, an integer for choice and numeric;
    # optional questions left out are absent
    answers: dict
    groups: dict  # {grouping question id: option id, or None for "Prefer not to say"}
    fingerprint: str | None

    def outcome(self, *, created):
        return SubmissionOutcome(
            self.submission_uuid, created=created, questions_answered=len(self.answers)
        )


def _one_statement():
    # settings.SUBMISSION_STATEMENT=False stores through the ORM transaction instead: the
    # benchmark's "ORM only" row, and a way out should the SQL ever misbehave.
    return submission_sql.supported() and settings.SUBMISSION_STATEMENT


def submission_receive(
    *, slug, submission_id, answers, groups=None, design_fingerprint=None, token=None
) -> SubmissionOutcome:
    """A respondent's submission to the survey at ``slug``, as the public endpoint receives it.

    The one owner of the submission path. It stores at most once per request, one of two ways:
    SQL that checks every rule of ``submission_validate`` as it writes (``submission_sql``:
    one statement on PostgreSQL, one short transaction on SQLite), tried first, before anything
    is read; or, with ``SUBMISSION_STATEMENT`` off, the survey is read, the submission
    validated and stored in one ORM transaction. When the SQL stores nothing (no such survey,
    not open, wrong answers, another design, a replay), the survey is read only to explain why,
    with the error that names the field, or to answer the replay as the first time; nothing is
    stored then. A body with a ``token`` (an invitation survey) takes ``_submission_tokened``.
    """
    # The SQL is tried first when it can be (nothing read before it); once it has run, the
    # survey is read only to explain why it stored nothing, never to store a second time.
    body = {
        "submission_id": submission_id,
        "answers": answers,
        "groups": groups,
        "design_fingerprint": design_fingerprint,
    }
    if token is not None:
        return _submission_tokened(slug=slug, token=token, body=body)
    finish = _submission_store
    if _one_statement():
        shaped = _submission_shape(**body)
        if shaped is not None and is_slug(slug):
            if _statement_store(slug=slug, clean=shaped):
                return shaped.outcome(created=True)
            finish = _submission_explain
    return finish(target=selectors.submission_target(slug=slug), **body)


def submission_record(
    *, survey, submission_id, answers, groups=None, inputs=None, design_fingerprint=None
) -> SubmissionOutcome:
    """Store one respondent's randomized answers, all or nothing, idempotent on submission_id.

    ``answers`` maps question id to the *randomized* bit the respondent's browser drew. A
    replayed submission id stores nothing new and reports the first outcome again, so a
    client may retry safely after a timeout or a crashed worker. ``groups`` maps grouping
    question id to the chosen option id, exactly as the respondent gave it (not randomized).
    ``inputs`` is the survey's ``(question ids, grouping options)`` when the caller already
    read them (every question and grouping question then counts as required); otherwise they
    are read here. Stored the way ``submission_receive`` stores.
    """
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
            options={gid: frozenset(oids) for gid, oids in options.items()},
            required_questions=frozenset(question_ids),
            required_groupings=frozenset(options),
            opens_at=survey.opens_at,
            closes_at=survey.closes_at,
            access=survey.access,
        )
    return _submission_store(
        target=target,
        submission_id=submission_id,
        answers=answers,
        groups=groups,
        design_fingerprint=design_fingerprint,
    )


def _submission_shape(*, submission_id, answers, groups, design_fingerprint):
    """The submission with every value of the right type, or None (validation will say why)."""
    try:
        clean = CleanSubmission(
            submission_uuid=clean_submission_id(submission_id),
            answers=answer_reports(answers),
            groups=group_choices(groups),
            fingerprint=clean_fingerprint(design_fingerprint),
        )
    except ValidationError:
        return None
    return clean if clean.answers is not None and clean.groups is not None else None


def submission_validate(
    *, target, submission_id, answers, groups, design_fingerprint, tokened=False
) -> CleanSubmission | SubmissionOutcome:
    """The rules a submission must pass, stated once (``submission_sql`` checks the same
    in SQL): the survey is open; the answers are to its questions, each a bit, every required
    one answered (an optional one may be left out: no key at all); the groups are to its
    grouping questions, every required one answered, each with one of that question's option
    ids or ``PREFER_NOT_TO_SAY``; the design it was
    randomized with, if named, is the survey's; an invitation-only survey's comes with a
    valid token (``tokened``: checked by the caller, ``services.spent_tokens``). Raises the
    error that names the field, or returns the outcome of an earlier submission with this id
    (a replay answers as the first time did, even if the survey closed or the body is no
    longer valid since)."""
    submission_uuid = clean_submission_id(submission_id)
    phase = schedule.phase(
        status=target.status,
        opens_at=target.opens_at,
        closes_at=target.closes_at,
        now=timezone.now(),
    )
    if phase not in schedule.Phase.ACCEPTING:
        replay = _replay_outcome(target.survey_id, submission_uuid)
        if replay is None:
            raise SurveyNotAcceptingResponses(_not_accepting_message(phase, target))
        return replay
    try:
        fingerprint = clean_fingerprint(design_fingerprint)
        cleaned = clean_answers(
            answers, target.question_ids, target.required_questions, target.report_ranges
        )
        chosen = clean_groups(groups, options=target.options, required=target.required_groupings)
        if fingerprint is not None and fingerprint != target.design_fingerprint:
            raise DesignChanged(
                _(
                    "This survey's design is not the one your page randomized with. Please "
                    "reload the page; nothing was stored."
                ),
                field="design_fingerprint",
            )
        if target.access == Survey.Access.INVITATION and not tokened:
            raise spent_tokens.token_required()
    except (ValidationError, DesignChanged, AccessRefused):
        replay = _replay_outcome(target.survey_id, submission_uuid)
        if replay is None:
            raise
        return replay
    return CleanSubmission(submission_uuid, cleaned, chosen, fingerprint)


def _not_accepting_message(phase, target):
    if phase == schedule.Phase.SCHEDULED:
        return _("This survey opens on %(when)s; it does not accept responses before then.") % {
            "when": _moment(target.opens_at)
        }
    if phase == schedule.Phase.ENDED:
        return _("This survey closed on %(when)s and no longer accepts responses.") % {
            "when": _moment(target.closes_at)
        }
    if phase == schedule.Phase.CLOSED:
        return _("This survey is closed and no longer accepts responses.")
    return _("This survey is not open for responses yet.")


def _moment(value):
    # UTC, named as such: the API answers people in every time zone.
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def _submission_store(*, target, **body) -> SubmissionOutcome:
    """Validate, then store once: by the statement or by the ORM transaction."""
    clean = submission_validate(target=target, **body)
    if isinstance(clean, SubmissionOutcome):
        return clean
    if _one_statement():
        stored = _statement_store(slug=target.slug, clean=clean)
    else:
        stored = _orm_store(survey_id=target.survey_id, clean=clean)
    if stored:
        return clean.outcome(created=True)
    return _not_stored(survey_id=target.survey_id, clean=clean)


def _submission_explain(*, target, **body) -> SubmissionOutcome:
    """Why the statement stored nothing: an error naming the field, or the replay's outcome."""
    clean = submission_validate(target=target, **body)
    if isinstance(clean, SubmissionOutcome):
        return clean
    return _not_stored(survey_id=target.survey_id, clean=clean)


def _not_stored(*, survey_id, clean):
    # Most often a replay: this id (or a concurrent retry with it) was stored before, whole.
    replay = _replay_outcome(survey_id, clean.submission_uuid)
    if replay is not None:
        return replay
    # Otherwise the survey changed between the read and the store (a database shell, or a
    # status change in between).
    raise SurveyConflict(
        _("The survey changed while you were answering. Please reload the page."),
        reason=Reason.CHANGED_MEANWHILE,
    )


def _statement_store(*, slug, clean, tokened=False) -> bool:
    stored = submission_sql.submission_insert(
        tokened=tokened,
        slug=slug,
        shard=tally_shard_pick(),
        submission_uuid=clean.submission_uuid,
        received_on=timezone.now().date(),
        answers=clean.answers,
        groups=clean.groups,
        design_fingerprint=clean.fingerprint,
        now=timezone.now(),
    )
    if stored is None:
        return False
    if stored.group_tallies_incomplete:
        # Tally rows are created when the survey opens; some were missing (a survey opened
        # before that, or rows removed): recount from the stored rows, this submission included.
        group_tallies_rebuild(survey=Survey.objects.get(pk=stored.survey_id))
    return True


class _NothingStored(Exception):
    """Raised inside the token's transaction to undo the spend when the store did nothing."""


def _submission_tokened(*, slug, token, body) -> SubmissionOutcome:
    """A submission that carries a token: the token is checked, then spent in the same
    transaction as the submission is stored (by the statement, or the ORM), so neither is
    kept without the other. A spent token with another submission id is a 409; a retry with
    the same id answers as the first time did."""
    target = spent_tokens.token_target(slug=slug)
    if target.access == Survey.Access.LINK:
        # The link is enough: the token is not needed, and not spent.
        return submission_receive(slug=slug, **body)
    token = spent_tokens.token_clean(token)
    spent_tokens.token_verify(target=target, token=token)
    if _one_statement():
        shaped = _submission_shape(**body)
        if shaped is not None:
            outcome = _spend_and_store(
                survey_id=target.survey_id,
                token=token,
                clean=shaped,
                store=lambda: _statement_store(slug=slug, clean=shaped, tokened=True),
            )
            if outcome is not None:
                return outcome
        return _submission_explain(
            target=selectors.submission_target(slug=slug), tokened=True, **body
        )
    full_target = selectors.submission_target(slug=slug)
    clean = submission_validate(target=full_target, tokened=True, **body)
    if isinstance(clean, SubmissionOutcome):
        return clean
    outcome = _spend_and_store(
        survey_id=target.survey_id,
        token=token,
        clean=clean,
        store=lambda: _orm_store(survey_id=target.survey_id, clean=clean),
    )
    return outcome or _not_stored(survey_id=target.survey_id, clean=clean)


def _spend_and_store(*, survey_id, token, clean, store) -> SubmissionOutcome | None:
    """Spend ``token`` and ``store()`` in one transaction: the outcome, or None when the store
    did nothing (then the spend is undone, and the caller explains why)."""
    try:
        with transaction.atomic():
            if not spent_tokens.token_spend(survey_id=survey_id, token=token):
                # Spent before: by this very submission (a retry), or by another one.
                replay = _replay_outcome(survey_id, clean.submission_uuid)
                if replay is not None:
                    return replay
                raise spent_tokens.token_spent_conflict()
            if not store():
                raise _NothingStored
    except _NothingStored:
        return None
    return clean.outcome(created=True)


def _orm_store(*, survey_id, clean) -> bool:
    """The submission in one ORM transaction (SQLite, or the statement switched off)."""
    try:
        with transaction.atomic():
            # Reports name questions, no foreign key would notice one deleted since validation,
            # nor a required one added (a database shell: the design is frozen once open).
            questions = {
                qid: (required, kind)
                for qid, required, kind in Question.objects.filter(survey_id=survey_id).values_list(
                    "id", "required", "kind"
                )
            }
            if not clean.answers.keys() <= questions.keys() or any(
                required and qid not in clean.answers
                for qid, (required, _kind) in questions.items()
            ):
                return False
            if any(
                isinstance(clean.answers[qid], bool) != (kind == Question.Kind.YES_NO)
                for qid, (_required, kind) in questions.items()
                if qid in clean.answers
            ):
                return False  # a question's type changed since validation (a database shell)
            submission = Submission.objects.create(
                survey_id=survey_id,
                submission_id=clean.submission_uuid,
                received_on=timezone.now().date(),
                reports={question_key(qid): bit for qid, bit in clean.answers.items()},
            )
            if clean.groups:
                # Breakdowns by group cover the yes/no questions (their tallies count yes).
                group_answers_record(
                    survey_id=survey_id,
                    submission=submission,
                    answers={
                        qid: report
                        for qid, report in clean.answers.items()
                        if questions[qid][1] == Question.Kind.YES_NO
                    },
                    chosen=clean.groups,
                )
            tally_add(
                survey_id,
                responses=1,
                reports={
                    qid: tally_increment(questions[qid][1], report)
                    for qid, report in clean.answers.items()
                },
                shard=tally_shard_pick(),
            )
    except IntegrityError:  # this id is stored already (a replay, or a concurrent retry)
        return False
    return True


def _replay_outcome(survey_id, submission_uuid):
    """The outcome of the submission stored earlier with this id, or None if there is none."""
    stored = Submission.objects.filter(survey_id=survey_id, submission_id=submission_uuid).first()
    if stored is None:
        return None
    return SubmissionOutcome(submission_uuid, created=False, questions_answered=len(stored.reports))
