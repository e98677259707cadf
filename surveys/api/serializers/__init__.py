"""Request and response shapes of the API, one module per resource: ``fields`` (the strict
field types, bounds from ``surveys.limits``), ``accounts`` (tokens), ``surveys`` (the
researcher's surveys), ``estimates`` (their estimates, one row per question by type),
``public`` (the respondent's survey), ``submissions`` (the submission it sends). Every
name is importable from here."""

from .accounts import (
    ApiTokenSerializer,
    IssuedTokenSerializer,
    TokenRequestSerializer,
)
from .estimates import (
    ChoiceEstimateSerializer,
    EstimatesQuerySerializer,
    NumericEstimateSerializer,
    SurveyEstimatesSerializer,
    YesNoEstimateSerializer,
)
from .fields import (
    ConfidenceField,
    ErrorSerializer,
    ProbabilityField,
    RejectUnknownFieldsMixin,
    StrictBooleanField,
    StrictCharField,
    StrictFloatField,
    StrictIntegerField,
    finite,
)
from .public import (
    PublicGroupingOptionSerializer,
    PublicGroupingQuestionSerializer,
    PublicQuestionSerializer,
    PublicSurveySerializer,
)
from .submissions import (
    AnswersField,
    GroupsField,
    SubmissionAcceptedSerializer,
    SubmissionSerializer,
    submission_fields,
)
from .surveys import (
    BatchReleasedSerializer,
    BatchReleaseSerializer,
    PilotDiscardedSerializer,
    QuestionSerializer,
    QuestionTranslationsField,
    SurveyScheduleSerializer,
    SurveySerializer,
    SurveyTranslationsField,
)

__all__ = [
    "AnswersField",
    "ApiTokenSerializer",
    "BatchReleaseSerializer",
    "BatchReleasedSerializer",
    "ChoiceEstimateSerializer",
    "ConfidenceField",
    "ErrorSerializer",
    "EstimatesQuerySerializer",
    "GroupsField",
    "IssuedTokenSerializer",
    "NumericEstimateSerializer",
    "PilotDiscardedSerializer",
    "ProbabilityField",
    "PublicGroupingOptionSerializer",
    "PublicGroupingQuestionSerializer",
    "PublicQuestionSerializer",
    "PublicSurveySerializer",
    "QuestionSerializer",
    "QuestionTranslationsField",
    "RejectUnknownFieldsMixin",
    "StrictBooleanField",
    "StrictCharField",
    "StrictFloatField",
    "StrictIntegerField",
    "SubmissionAcceptedSerializer",
    "SubmissionSerializer",
    "SurveyEstimatesSerializer",
    "SurveyScheduleSerializer",
    "SurveySerializer",
    "SurveyTranslationsField",
    "TokenRequestSerializer",
    "YesNoEstimateSerializer",
    "finite",
    "submission_fields",
]
