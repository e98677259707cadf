"""Request and response shapes of the API, one module per resource: ``fields`` (the strict
field types, bounds from ``surveys.limits``), ``accounts`` (tokens), ``surveys`` (the
researcher's surveys), ``estimates`` (their estimates, one row per question by type),
``regression`` (the regression on the grouping questions), ``public`` (the respondent's
survey), ``submissions`` (the submission it sends), ``members`` (co-researchers and their
invitations to join), ``invitations`` (respondents' invitations and a code's status). Every
name is importable from here; no other module declares a serializer
(tests/surveys/api/test_serializers_package.py)."""

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
from .invitations import (
    InvitationSenderSerializer,
    InvitationStatusRequestSerializer,
    InvitationStatusSerializer,
    RespondentInvitationCountsSerializer,
    RespondentInvitationCreateSerializer,
    RespondentInvitationListSerializer,
    RespondentInvitationSerializer,
    RespondentInvitationsMadeSerializer,
)
from .members import (
    MemberInvitationSerializer,
    MemberInviteSerializer,
    MemberRoleSerializer,
    MemberSerializer,
    ReceivedMemberInvitationSerializer,
    TransferSerializer,
)
from .public import (
    PublicGroupingOptionSerializer,
    PublicGroupingQuestionSerializer,
    PublicQuestionSerializer,
    PublicSurveySerializer,
)
from .regression import (
    CoefficientSerializer,
    CovariateSerializer,
    LevelSerializer,
    RegressionQuerySerializer,
    RegressionSerializer,
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
    "CoefficientSerializer",
    "ConfidenceField",
    "CovariateSerializer",
    "ErrorSerializer",
    "EstimatesQuerySerializer",
    "GroupsField",
    "InvitationSenderSerializer",
    "InvitationStatusRequestSerializer",
    "InvitationStatusSerializer",
    "IssuedTokenSerializer",
    "LevelSerializer",
    "MemberInvitationSerializer",
    "MemberInviteSerializer",
    "MemberRoleSerializer",
    "MemberSerializer",
    "NumericEstimateSerializer",
    "PilotDiscardedSerializer",
    "ProbabilityField",
    "PublicGroupingOptionSerializer",
    "PublicGroupingQuestionSerializer",
    "PublicQuestionSerializer",
    "PublicSurveySerializer",
    "QuestionSerializer",
    "QuestionTranslationsField",
    "ReceivedMemberInvitationSerializer",
    "RegressionQuerySerializer",
    "RegressionSerializer",
    "RejectUnknownFieldsMixin",
    "RespondentInvitationCountsSerializer",
    "RespondentInvitationCreateSerializer",
    "RespondentInvitationListSerializer",
    "RespondentInvitationSerializer",
    "RespondentInvitationsMadeSerializer",
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
    "TransferSerializer",
    "YesNoEstimateSerializer",
    "finite",
    "submission_fields",
]
