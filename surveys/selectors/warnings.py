"""What the researcher should know before it bites: settings that will hide every result.

Today one: the survey's minimum before results are shown (``min_n``) is more than the
people invited, so an invitation study may never show a number. Each warning has a code an
API client can tell apart and a sentence that says what the setting protects.
"""

from dataclasses import dataclass

from django.utils.translation import gettext as _

from ..models import Survey
from .invitations import invited_count

MIN_N_ABOVE_INVITED = "min_n_above_invited"


@dataclass(frozen=True)
class SurveyWarning:
    code: str
    message: str


def survey_warnings(*, survey) -> list[SurveyWarning]:
    warnings = []
    invited = invited_count(survey=survey) if survey.access != Survey.Access.LINK else 0
    if invited and survey.min_n > invited:
        message = _(
            "Results appear from %(min_n)d responses; you invited %(invited)d. "
            "The minimum keeps an estimate from so few randomized answers, mostly coin "
            "noise, off the results pages; below it no estimate is shown."
        ) % {"min_n": survey.min_n, "invited": invited}
        if survey.access == Survey.Access.INVITATION:
            message += " " + _(
                "Only invitees can answer, so unless you invite more people or lower the "
                "minimum (the builder’s “Results” settings), no result of this survey will be "
                "shown."
            )
        warnings.append(SurveyWarning(code=MIN_N_ABOVE_INVITED, message=message))
    return warnings
