"""The schema, one module per domain; every model and helper is re-exported here, so
``from surveys.models import Survey`` reads the same wherever a model lives.

- ``keys``: a survey's slug, the row keys drawn at random, a question's key in stored JSON;
- ``surveys``: the survey and the fingerprint of the design its respondents see;
- ``questions``: its questions and grouping questions;
- ``submissions``: the randomized reports and every tally kept from them;
- ``invitations``: respondents' invitations, the survey's token key, the tokens spent;
- ``members``: researchers' API tokens, memberships, invitations to join, verified addresses;
- ``exports``: the export files the worker writes;
- ``rate_limits``: the rate limits' counters, one per client and window.
"""

from .exports import ExportJob
from .invitations import Invitation, SpentToken, SurveyTokenKey
from .keys import RandomKeyField, is_slug, new_slug, question_key, random_key
from .members import ApiToken, MemberInvitation, SurveyMember, VerifiedEmail
from .questions import AskedQuestionManager, GroupingOption, GroupingQuestion, Question
from .rate_limits import RateCounter
from .submissions import (
    GROUP_CELLS_MIN_GROUPINGS,
    PREFER_NOT_TO_SAY,
    TALLY_SHARDS,
    DayTally,
    GroupAnswer,
    GroupCell,
    GroupingTally,
    GroupTally,
    NumericTally,
    PublicRelease,
    ReleasedSubmissionManager,
    Submission,
    TallyShard,
    group_cell_key,
    group_cell_options,
    group_cells_kept,
)
from .surveys import CI_METHODS, LiveSurveyManager, Survey, design_fingerprint_of

__all__ = [
    "CI_METHODS",
    "GROUP_CELLS_MIN_GROUPINGS",
    "PREFER_NOT_TO_SAY",
    "TALLY_SHARDS",
    "ApiToken",
    "AskedQuestionManager",
    "DayTally",
    "ExportJob",
    "GroupAnswer",
    "GroupCell",
    "GroupTally",
    "GroupingOption",
    "GroupingQuestion",
    "GroupingTally",
    "Invitation",
    "LiveSurveyManager",
    "MemberInvitation",
    "NumericTally",
    "PublicRelease",
    "Question",
    "RandomKeyField",
    "RateCounter",
    "ReleasedSubmissionManager",
    "SpentToken",
    "Submission",
    "Survey",
    "SurveyMember",
    "SurveyTokenKey",
    "TallyShard",
    "VerifiedEmail",
    "design_fingerprint_of",
    "group_cell_key",
    "group_cell_options",
    "group_cells_kept",
    "is_slug",
    "new_slug",
    "question_key",
    "random_key",
]
