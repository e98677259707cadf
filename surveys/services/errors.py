"""The refusals of the write services, typed: a reason code and the field they concern.

A service refuses malformed input with ``django.core.exceptions.ValidationError`` (a
``{field: [message]}`` dict naming the bad field) and a well-formed request that the survey's
state forbids with a :class:`SurveyConflict` (HTTP 409). Callers that must tell conflicts
apart read ``error.reason`` (and ``error.field``), never the message, which is written for
people, in their language, and may change.
"""

from enum import StrEnum

from django.utils.translation import gettext_lazy


class Reason(StrEnum):
    """Why a service refused a well-formed request."""

    #: The survey has been opened: its questions, coins and consent text are frozen.
    FROZEN = "frozen"
    #: A pilot holds responses: its design cannot change until they are discarded.
    PILOT_HAS_RESPONSES = "pilot_has_responses"
    #: The survey has no question, so it cannot be opened or piloted.
    NO_QUESTIONS = "no_questions"
    #: The survey's coins, saved before a bound existed, are outside it now.
    DESIGN_OUT_OF_BOUNDS = "design_out_of_bounds"
    #: The survey's status does not allow the step (e.g. closing a pilot).
    WRONG_STATUS = "wrong_status"
    #: Only the closing time of a survey that has already opened can be scheduled.
    ALREADY_OPENED = "already_opened"
    #: The survey is not taking responses now (not open, scheduled later, or ended).
    NOT_ACCEPTING = "not_accepting"
    #: The submission was randomized with another design than the survey's (a stale page).
    DESIGN_CHANGED = "design_changed"
    #: The survey changed between reading it and storing a submission.
    CHANGED_MEANWHILE = "changed_meanwhile"
    #: The owner tried to leave their own survey.
    OWNER_CANNOT_LEAVE = "owner_cannot_leave"
    #: The invitation's code has already obtained its one token (or was revoked meanwhile).
    INVITATION_USED = "invitation_used"
    #: The token was spent on another submission.
    TOKEN_SPENT = "token_spent"
    #: The survey does not take invitations (its ``access`` is ``link``).
    NO_INVITATIONS = "no_invitations"


class SurveyConflict(Exception):
    """The request is well formed but the survey's state forbids it (HTTP 409)."""

    default_reason = Reason.WRONG_STATUS

    def __init__(self, message, *, reason=None, field=None):
        super().__init__(message)
        self.message = message
        self.reason = Reason(reason or self.default_reason)
        self.field = field


class SurveyFrozen(SurveyConflict):
    default_reason = Reason.FROZEN


class SurveyNotAcceptingResponses(SurveyConflict):
    default_reason = Reason.NOT_ACCEPTING


class DesignChanged(SurveyConflict):
    """The submission was randomized with another design than the survey's (a stale page)."""

    default_reason = Reason.DESIGN_CHANGED


class ExportRefused(Exception):
    """An export job cannot start now; ``retry_after``: seconds until it may."""

    def __init__(self, message, *, retry_after: int):
        super().__init__(message)
        self.message = message
        self.retry_after = max(1, int(retry_after))


class ExportJobsBusy(ExportRefused):
    """The user already has ``limits.EXPORT_JOBS_ACTIVE_MAX`` jobs waiting or running for
    the survey (HTTP 429)."""


class ExportStorageFull(ExportRefused):
    """The kept export files fill ``settings.EXPORT_DISK_BUDGET_MB`` (HTTP 503)."""


class AccessRefused(Exception):
    """The request is well formed but its sender may not do this (HTTP 403): a submission
    without a token to an invitation-only survey. ``field`` names what is missing."""

    def __init__(self, message, *, field):
        super().__init__(message)
        self.message = message
        self.field = field


FROZEN_MESSAGE = gettext_lazy(
    "This survey has been opened, so its questions and coins are frozen: respondents may "
    "already hold the page, and their answers must mean what the estimates assume. To change "
    "them, duplicate the survey."
)


PILOT_RESPONSES_MESSAGE = gettext_lazy(
    "This pilot has responses, so its questions, coins and consent text cannot change yet: "
    "discard the pilot responses first (they would no longer match the survey)."
)
