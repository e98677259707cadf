"""The page forms: input shape at the edge; the services check the meaning again.

Bounds come from ``surveys.limits``; the presets and designs from the selectors (forms do not
call dpengine). One module per thing a form edits: ``surveys`` (a survey's settings),
``schedule``, ``question_types`` (a question's type and design), ``questions`` (edit, add or
paste, move), ``preview`` (the design preview), ``results``, ``dashboard``, ``analysis``
(grouping questions, breakdown, regression, planner, public page), ``accounts``, ``members``,
``translations``; ``fields`` holds what several share. The form classes are importable from
here.
"""

from .accounts import (
    AdminLoginForm,
    ApiTokenForm,
    LoginForm,
    SignupForm,
)
from .analysis import (
    BreakdownForm,
    GroupingQuestionForm,
    PlannerForm,
    PublicResultsForm,
    RegressionForm,
)
from .dashboard import DashboardForm
from .fields import CoinField, PageForm
from .members import (
    MemberInviteForm,
    MemberRoleForm,
    TransferForm,
)
from .preview import DesignPreviewForm
from .questions import MoveForm, QuestionAddForm, QuestionForm
from .results import ResultsForm
from .schedule import ScheduleForm
from .surveys import SurveyForm
from .translations import (
    TranslationsForm,
)

__all__ = [
    "AdminLoginForm",
    "ApiTokenForm",
    "BreakdownForm",
    "CoinField",
    "DashboardForm",
    "DesignPreviewForm",
    "GroupingQuestionForm",
    "LoginForm",
    "MemberInviteForm",
    "MemberRoleForm",
    "MoveForm",
    "PageForm",
    "PlannerForm",
    "PublicResultsForm",
    "QuestionAddForm",
    "QuestionForm",
    "RegressionForm",
    "ResultsForm",
    "ScheduleForm",
    "SignupForm",
    "SurveyForm",
    "TransferForm",
    "TranslationsForm",
]
