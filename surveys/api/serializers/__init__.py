"""Request and response shapes of the API, one module per resource: ``fields`` (the strict
field types, bounds from ``surveys.limits``), ``accounts`` (tokens), ``surveys`` (the
researcher's surveys and estimates), ``public`` (the respondent's survey and submission).
Every name is importable from here."""

from .accounts import (
    ApiTokenSerializer,
    IssuedTokenSerializer,
    TokenRequestSerializer,
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
    AnswersField,
    GroupsField,
    PublicGroupingOptionSerializer,
    PublicGroupingQuestionSerializer,
    PublicQuestionSerializer,
    PublicSurveySerializer,
    SubmissionAcceptedSerializer,
    SubmissionSerializer,
    submission_fields,
)
from .surveys import (
    EstimateRowSerializer,
    EstimatesQuerySerializer,
    PilotDiscardedSerializer,
    QuestionSerializer,
    QuestionTranslationsField,
    SurveyEstimatesSerializer,
    SurveyScheduleSerializer,
    SurveySerializer,
    SurveyTranslationsField,
)

__all__ = [
    "AnswersField",
    "ApiTokenSerializer",
    "ConfidenceField",
    "ErrorSerializer",
    "EstimateRowSerializer",
    "EstimatesQuerySerializer",
    "GroupsField",
    "IssuedTokenSerializer",
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
    "finite",
    "submission_fields",
]
