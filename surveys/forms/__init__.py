"""The page forms: input shape at the edge; the services check the meaning again.

Bounds come from ``surveys.limits``; the presets and designs from the selectors (forms do not
call dpengine). One module per kind of page: ``researcher`` (the survey, its questions, the
results), ``analysis`` (grouping questions, breakdown, regression, planner, public page),
``accounts``, ``members``, ``translations``. The form classes are importable from here.
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
from .members import (
    MemberInviteForm,
    MemberRoleForm,
    TransferForm,
)
from .researcher import (
    CoinField,
    DashboardForm,
    DesignPreviewForm,
    MoveForm,
    PageForm,
    QuestionAddForm,
    QuestionForm,
    ResultsForm,
    ScheduleForm,
    SurveyForm,
)
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
