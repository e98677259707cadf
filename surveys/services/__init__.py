"""Writes. Views, API views and commands validate input shape, then call exactly one of these.

Every service either completes or raises ``django.core.exceptions.ValidationError`` (with a
``{field: [message]}`` dict naming the bad field) or a ``SurveyConflict`` with a ``reason``
(``errors``), and in both cases nothing is stored half-way.

One module per thing written: ``surveys`` (a survey's life), ``questions``, ``grouping``,
``schedule``, ``pilot``, ``members``, ``translations``, ``submissions`` (a package: one entry,
the submission ``contract``, and a writer per database: its ``postgres`` statement, ``sqlite``
writes and ORM ``oracle``; a token it carries is checked by ``spent_tokens`` and spent by the
writer), ``batches`` (responses made visible in batches), ``invitations`` (respondent
invitations, token issuance), ``token_keys`` (the survey's token key),
``invitation_mail`` (their emails),
``tallies`` (the counts a submission adds to, and
simulated respondents), ``row_order`` (stored responses rewritten in key order), ``tokens``
(API tokens); ``validation``
holds the checks they share and ``answers`` the checks of what a respondent sent. The names
below are those callers use as ``services.<name>``.
"""

from django.core.exceptions import ValidationError

from .batches import batch_release_last
from .errors import (
    FROZEN_MESSAGE,
    PILOT_RESPONSES_MESSAGE,
    DesignChanged,
    Reason,
    SurveyConflict,
    SurveyFrozen,
    SurveyNotAcceptingResponses,
)
from .questions import (
    MAX_QUESTIONS,
    question_add,
    question_delete,
    question_move,
    question_update,
    questions_add,
)
from .row_order import stored_rows_reorder
from .schedule import schedule_apply, survey_schedule
from .simulation import simulated_reports_draw, simulated_submissions_record
from .submissions import (
    SubmissionOutcome,
    submission_receive,
    submission_validate,
)
from .surveys import (
    survey_close,
    survey_create,
    survey_delete,
    survey_duplicate,
    survey_open,
    survey_pilot_discard,
    survey_pilot_start,
    survey_restore,
    survey_update,
    trash_purge,
)
from .tallies import group_tallies_ensure, group_tallies_rebuild, tally_shard_pick
from .validation import (
    DESIGN_FIELDS,
    EDITABLE_SURVEY_FIELDS,
    clean_required,
    clean_survey_fields,
    ensure_owner_room,
    ensure_within_epsilon_ceiling,
)

__all__ = [
    "DESIGN_FIELDS",
    "EDITABLE_SURVEY_FIELDS",
    "FROZEN_MESSAGE",
    "MAX_QUESTIONS",
    "PILOT_RESPONSES_MESSAGE",
    "DesignChanged",
    "Reason",
    "SubmissionOutcome",
    "SurveyConflict",
    "SurveyFrozen",
    "SurveyNotAcceptingResponses",
    # The error every service raises for a bad field, reachable as ``services.ValidationError``.
    "ValidationError",
    "batch_release_last",
    "clean_required",
    "clean_survey_fields",
    "ensure_owner_room",
    "ensure_within_epsilon_ceiling",
    "group_tallies_ensure",
    "group_tallies_rebuild",
    "question_add",
    "question_delete",
    "question_move",
    "question_update",
    "questions_add",
    "schedule_apply",
    "simulated_reports_draw",
    "simulated_submissions_record",
    "stored_rows_reorder",
    "submission_receive",
    "submission_validate",
    "survey_close",
    "survey_create",
    "survey_delete",
    "survey_duplicate",
    "survey_open",
    "survey_pilot_discard",
    "survey_pilot_start",
    "survey_restore",
    "survey_schedule",
    "survey_update",
    "tally_shard_pick",
    "trash_purge",
]
