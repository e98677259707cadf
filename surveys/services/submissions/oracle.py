"""A submission's writer by the ORM (``write``), in one transaction: written apart from the
statement (``postgres``) and the SQLite writes (``sqlite``), as the oracle they are held
against (tests/surveys/services/test_submissions_contract.py), and the way out with
``settings.SUBMISSION_STATEMENT`` off (the benchmark's "ORM only" row).
"""

from django.db import IntegrityError, transaction
from django.utils import timezone

import dpengine

from ... import selectors
from ...models import GroupAnswer, Question, SpentToken, Submission, question_key
from ..tallies import (
    day_counts,
    day_tally_add,
    group_answers_record,
    numeric_tallies_add,
    tally_add,
    tally_shard_pick,
)
from .contract import submission_check


def _report_kind(question):
    """What a question's report is: a cheating-detection yes/no question, and one compared with
    asking directly, send a code 0-3, checked and tallied as a choice
    (``selectors.report_range``); others their own kind."""
    if selectors.is_cheating_detection(question) or question.compare_direct:
        return selectors.report_range(question)[0]
    return question.kind


def write(prepared) -> bool:
    """Store ``prepared`` (``contract.PreparedSubmission``) if every rule of the contract holds
    at its time, its token spent in the same transaction; whether it was stored."""
    with transaction.atomic():
        target, clean = submission_check(prepared)
        if clean is None:
            return False
        try:
            with transaction.atomic():
                if prepared.token is not None:
                    SpentToken.objects.create(
                        survey_id=target.survey_id,
                        digest=prepared.token.digest,
                        held=prepared.held,
                    )
                if not _orm_store(survey_id=target.survey_id, clean=clean, held=prepared.held):
                    raise IntegrityError("a replay")  # undo the spend
        except IntegrityError:  # the token was spent before, or a replay
            return False
    return True


def _orm_store(*, survey_id, clean, held=False) -> bool:
    """Store ``clean`` (``contract.CleanSubmission``, checked by the caller) unless its
    questions changed since, or this id is stored already. Whether it stored. ``held``:
    stored held for its batch and counted nowhere (services/batches.py)."""
    try:
        with transaction.atomic():
            # Reports name questions, no foreign key would notice one deleted since validation,
            # nor a required one added (a database shell: the design is frozen once open).
            rows = [
                (question.pk, question.required, _report_kind(question), question.randomized)
                for question in Question.all_objects.filter(survey_id=survey_id).only(
                    "id", "required", "kind", "randomized", "design", "compare_direct"
                )
            ]
            questions = {qid: (required, kind) for qid, required, kind, _randomized in rows}
            # Randomized numeric questions keep a histogram of their reports.
            histograms = {
                qid
                for qid, _required, kind, randomized in rows
                if kind == Question.Kind.NUMERIC and randomized
            }
            if not clean.answers.keys() <= questions.keys() or any(
                required and qid not in clean.answers
                for qid, (required, _kind) in questions.items()
            ):
                return False
            if any(
                isinstance(clean.answers[qid], bool) != (kind == Question.Kind.YES_NO)
                or isinstance(clean.answers[qid], str) != (kind == Question.Kind.TEXT)
                for qid, (_required, kind) in questions.items()
                if qid in clean.answers
            ):
                return False  # a question's type changed since validation (a database shell)
            submission = Submission.all_objects.create(
                survey_id=survey_id,
                submission_id=clean.submission_uuid,
                received_on=timezone.now().date(),
                reports={question_key(qid): bit for qid, bit in clean.answers.items()},
                positions={f"q{qid}": n for n, qid in enumerate(clean.order, start=1)},
                held=held,
            )
            if held:
                GroupAnswer.objects.bulk_create(
                    GroupAnswer(submission=submission, grouping_question_id=gid, option_id=oid)
                    for gid, oid in clean.groups.items()
                )
                return True
            shard = tally_shard_pick()
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
                    shard=shard,
                )
            tally_add(
                survey_id,
                responses=1,
                reports={
                    qid: dpengine.report_tally(questions[qid][1], report)
                    for qid, report in clean.answers.items()
                },
                shard=shard,
            )
            day_tally_add(
                survey_id,
                day=submission.received_on,
                counts=day_counts(clean.answers, clean.groups),
                shard=shard,
            )
            numeric_tallies_add(
                {(qid, report): 1 for qid, report in clean.answers.items() if qid in histograms},
                shard=shard,
            )
    except IntegrityError:  # this id is stored already (a replay, or a concurrent retry)
        return False
    return True
