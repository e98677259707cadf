"""The submission contract: every rule a respondent's submission must satisfy, each defined
once, here.

``Rule`` names the rules; ``submission_validate`` checks them all in Python, in this order,
and raises the error that names the field (the 4xx the API answers). The entry hands each
writer one ``PreparedSubmission``, and every writer derives its checks from these two:

- PostgreSQL (``postgres``): one statement checks and writes; its checks are composed from one
  named SQL part per rule (``statement.CHECKS``, keyed by ``Rule``: a rule without its part
  fails at import). When it stores nothing, ``submission_validate`` explains why.
- SQLite (``sqlite``): ``submission_check`` (``submission_validate`` against the survey read
  inside the write transaction, which holds the database's write lock from BEGIN), then the
  writes.
- the ORM transaction (``oracle``): ``submission_check``, then writes of its own, with the
  ORM, as the oracle that tests/surveys/services/test_submissions_contract.py holds both
  paths against.

What a stored submission adds to the tallies is ``dpengine.report_tally`` (the tally vector).
"""

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum

from django.core.exceptions import ValidationError
from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext as _

from ... import selectors
from ...models import PREFER_NOT_TO_SAY, Submission, Survey
from .. import schedule, spent_tokens
from ..answers import (
    answer_reports,
    clean_answers,
    clean_fingerprint,
    clean_groups,
    clean_order,
    clean_submission_id,
    group_choices,
    order_ids,
    text_answer_encode,
)
from ..errors import AccessRefused, DesignChanged, SurveyConflict, SurveyNotAcceptingResponses


class Rule(StrEnum):
    """The rules, in the order ``submission_validate`` checks them; the field a refusal names
    in brackets."""

    #: The survey takes responses now: a pilot, or open within [opens_at, closes_at)
    #: (``schedule.phase``). [409, no field]
    ACCEPTING = "accepting"
    #: Every answered question is one of the survey's (``answers.clean_answers``). [answers]
    KNOWN_QUESTIONS = "known_questions"
    #: Each report fits its question's type: a boolean for yes/no, an option index for choice,
    #: an integer within ``dpengine.report_bounds`` for numeric (within [min, max] when the
    #: question is asked directly), a text of at most ``limits.DIRECT_TEXT_MAX_BYTES`` bytes
    #: for a text question and for nothing else (``SubmissionTarget.report_ranges``).
    #: [answers.<id>]
    REPORTS_FIT = "reports_fit"
    #: Every required question is answered; an optional one may be left out. [answers.<id>]
    REQUIRED_QUESTIONS = "required_questions"
    #: The order the page showed, when sent, lists every question the page shows once (not
    #: the comprehension check's hidden ones; ``answers.clean_order``); stored as each
    #: question's position. [order]
    ORDER = "order"
    #: Every answered grouping question is one of the survey's. [groups]
    KNOWN_GROUPINGS = "known_groupings"
    #: Each grouping answer is one of that grouping question's options, or
    #: ``PREFER_NOT_TO_SAY``. [groups]
    OPTIONS = "options"
    #: Every required grouping question is answered. [groups.<id>]
    REQUIRED_GROUPINGS = "required_groupings"
    #: The design the page randomized with, when named, is the survey's. [409,
    #: design_fingerprint]
    DESIGN = "design"
    #: An invitation-only survey takes a submission only with a valid token, spent in the same
    #: transaction (``services.spent_tokens``; docs/invitations.md). [403, token]
    ACCESS = "access"
    #: Stored at most once per (survey, submission id): a replay answers as the first time
    #: did, even if the survey closed or the body is no longer valid since.
    ONCE = "once"


@dataclass(frozen=True)
class SubmissionOutcome:
    submission_id: uuid.UUID
    created: bool
    questions_answered: int


@dataclass(frozen=True)
class CleanSubmission:
    """A submission that passed ``submission_validate``, ready to store."""

    submission_uuid: uuid.UUID
    # {question id: report}: a bit for yes/no, an integer for choice and numeric, the text
    # of a text question (decoded); optional questions left out are absent
    answers: dict
    groups: dict  # {grouping question id: option id, or None for "Prefer not to say"}
    fingerprint: str | None
    order: tuple = ()  # the question ids in the order shown; () when none was sent

    def outcome(self, *, created):
        return SubmissionOutcome(
            self.submission_uuid, created=created, questions_answered=len(self.answers)
        )

    def body(self) -> dict:
        """The submission as a request body again, for ``submission_validate``."""
        return {
            "submission_id": self.submission_uuid,
            "answers": {
                qid: text_answer_encode(report) if isinstance(report, str) else report
                for qid, report in self.answers.items()
            },
            "groups": {
                gid: PREFER_NOT_TO_SAY if oid is None else oid for gid, oid in self.groups.items()
            },
            "design_fingerprint": self.fingerprint,
            "order": list(self.order) or None,
        }


@dataclass(frozen=True)
class PreparedSubmission:
    """One submission as the entry (``submission_receive``) hands it to the writer of the
    database in use (``write(prepared) -> bool``: stored or not, nothing else said): its
    values of the right types (``clean``, checked against no survey: the writer checks every
    rule as it writes), where, when, the token it spends (its signature verified; None without
    one), and whether it is held for its batch (services/batches.py)."""

    slug: str
    clean: CleanSubmission
    received: datetime
    token: spent_tokens.Token | None = None
    held: bool = False


def submission_shape(*, submission_id, answers, groups, design_fingerprint, order=None):
    """The submission with every value of a type the statement takes, or None: then
    ``submission_validate`` says what is wrong. Checks no rule of the survey."""
    try:
        clean = CleanSubmission(
            submission_uuid=clean_submission_id(submission_id),
            answers=answer_reports(answers),
            groups=group_choices(groups),
            fingerprint=clean_fingerprint(design_fingerprint),
            order=order_ids(order),
        )
    except ValidationError:
        return None
    if clean.answers is None or clean.groups is None or clean.order is None:
        return None
    return clean


def submission_validate(
    *,
    target,
    submission_id,
    answers,
    groups,
    design_fingerprint,
    order=None,
    now=None,
    tokened=False,
) -> CleanSubmission | SubmissionOutcome:
    """Every ``Rule`` against the survey ``target`` (``selectors.SubmissionTarget``) at
    ``now`` (by default the current time). Raises the error that names the field, or returns
    the outcome of an earlier submission with this id (``Rule.ONCE``: a replay answers as the
    first time did). ``tokened``: the caller checked the body's token and spends it in the
    transaction that stores (``Rule.ACCESS``)."""
    submission_uuid = clean_submission_id(submission_id)
    phase = schedule.phase(
        status=target.status,
        opens_at=target.opens_at,
        closes_at=target.closes_at,
        now=now or timezone.now(),
    )
    if phase not in schedule.Phase.ACCEPTING:
        replay = replay_outcome(survey_id=target.survey_id, submission_uuid=submission_uuid)
        if replay is None:
            raise SurveyNotAcceptingResponses(_not_accepting_message(phase, target))
        return replay
    try:
        fingerprint = clean_fingerprint(design_fingerprint)
        cleaned = clean_answers(
            answers, target.question_ids, target.required_questions, target.report_ranges
        )
        shown = clean_order(order, target.shown_question_ids)
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
        replay = replay_outcome(survey_id=target.survey_id, submission_uuid=submission_uuid)
        if replay is None:
            raise
        return replay
    return CleanSubmission(submission_uuid, cleaned, chosen, fingerprint, shown)


def submission_check(prepared):
    """``prepared`` (``PreparedSubmission``) checked against every rule, the survey read now
    (in the writer's transaction): ``(target, clean)``, ``clean`` None if a rule fails or it
    is a replay (the entry then explains which)."""
    try:
        target = selectors.submission_target(slug=prepared.slug)
        clean = submission_validate(
            target=target,
            now=prepared.received,
            tokened=prepared.token is not None,
            **prepared.clean.body(),
        )
    except (Http404, ValidationError, SurveyConflict, AccessRefused):
        return None, None
    return target, clean if isinstance(clean, CleanSubmission) else None


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


def replay_outcome(*, survey_id, submission_uuid) -> SubmissionOutcome | None:
    """The outcome of the submission stored earlier with this id, or None if there is none."""
    # Held for a batch or not (services/batches.py): a replay answers as the first time did.
    stored = Submission.all_objects.filter(
        survey_id=survey_id, submission_id=submission_uuid
    ).first()
    if stored is None:
        return None
    return SubmissionOutcome(submission_uuid, created=False, questions_answered=len(stored.reports))
