"""The versioned API under /api/v1/ (docs/api.md, "The REST API").

Researcher routes take ``survey_id``.
"""

from django.urls import path, re_path

from . import analysis, auth, export_jobs, exports, invitations, members, public, researcher
from .errors import NotFoundView

app_name = "api"

urlpatterns = [
    # First: every respondent's submission resolves here, and each pattern tried before it
    # cost every one of them a regular expression (resolving it took 21 µs of CPU after 43
    # others, 11 µs first: docs/benchmarks.md). It shadows none: no other pattern matches.
    path(
        "public/surveys/<str:slug>/responses/",
        public.response_create,
        name="public-responses",
    ),
    path("auth/token/", auth.TokenView.as_view(), name="token"),
    path("auth/tokens/", auth.TokenListView.as_view(), name="token-list"),
    path("auth/tokens/<int:token_id>/", auth.TokenDetailView.as_view(), name="token-detail"),
    path("surveys/", researcher.SurveyListView.as_view(), name="survey-list"),
    path("surveys/<int:survey_id>/", researcher.SurveyDetailView.as_view(), name="survey-detail"),
    path("surveys/<int:survey_id>/open/", researcher.SurveyOpenView.as_view(), name="survey-open"),
    path(
        "surveys/<int:survey_id>/duplicate/",
        researcher.SurveyDuplicateView.as_view(),
        name="survey-duplicate",
    ),
    path(
        "surveys/<int:survey_id>/close/", researcher.SurveyCloseView.as_view(), name="survey-close"
    ),
    path(
        "surveys/<int:survey_id>/pilot/", researcher.SurveyPilotView.as_view(), name="survey-pilot"
    ),
    path(
        "surveys/<int:survey_id>/discard-pilot/",
        researcher.SurveyPilotDiscardView.as_view(),
        name="survey-discard-pilot",
    ),
    path(
        "surveys/<int:survey_id>/release-batch/",
        researcher.SurveyBatchReleaseView.as_view(),
        name="survey-release-batch",
    ),
    path(
        "surveys/<int:survey_id>/schedule/",
        researcher.SurveyScheduleView.as_view(),
        name="survey-schedule",
    ),
    path(
        "surveys/<int:survey_id>/estimates/",
        analysis.SurveyEstimatesView.as_view(),
        name="survey-estimates",
    ),
    path(
        "surveys/<int:survey_id>/estimates.csv",
        analysis.SurveyEstimatesCSVView.as_view(),
        name="survey-estimates-csv",
    ),
    path(
        "surveys/<int:survey_id>/control-group.csv",
        analysis.SurveyControlGroupCSVView.as_view(),
        name="survey-control-group-csv",
    ),
    path(
        "surveys/<int:survey_id>/responses.csv",
        researcher.SurveyResponsesCSVView.as_view(),
        name="survey-responses-csv",
    ),
    path(
        "surveys/<int:survey_id>/responses.sav",
        exports.SurveyResponsesSavView.as_view(),
        name="survey-responses-sav",
    ),
    path(
        "surveys/<int:survey_id>/responses.dta",
        exports.SurveyResponsesDtaView.as_view(),
        name="survey-responses-dta",
    ),
    path(
        "surveys/<int:survey_id>/codebook.csv",
        exports.SurveyCodebookCSVView.as_view(),
        name="survey-codebook-csv",
    ),
    path(
        "surveys/<int:survey_id>/export.zip",
        exports.SurveyExportZipView.as_view(),
        name="survey-export-zip",
    ),
    path(
        "surveys/<int:survey_id>/export.xlsx",
        exports.SurveyExportXlsxView.as_view(),
        name="survey-export-xlsx",
    ),
    path(
        "surveys/<int:survey_id>/exports/<uuid:job_id>/",
        export_jobs.SurveyExportJobView.as_view(),
        name="survey-export-job",
    ),
    path(
        "surveys/<int:survey_id>/exports/<uuid:job_id>/file",
        export_jobs.SurveyExportJobFileView.as_view(),
        name="survey-export-job-file",
    ),
    path(
        "surveys/<int:survey_id>/regression/",
        analysis.SurveyRegressionView.as_view(),
        name="survey-regression",
    ),
    path(
        "surveys/<int:survey_id>/for-r.csv",
        analysis.SurveyRExportCSVView.as_view(),
        name="survey-r-export",
    ),
    path(
        "surveys/<int:survey_id>/estimates.R",
        analysis.SurveyEstimatesRView.as_view(),
        name="survey-estimates-r",
    ),
    path(
        "surveys/<int:survey_id>/members/",
        members.SurveyMembersView.as_view(),
        name="survey-members",
    ),
    path(
        "surveys/<int:survey_id>/members/<int:user_id>/",
        members.SurveyMemberDetailView.as_view(),
        name="survey-member-detail",
    ),
    path(
        "surveys/<int:survey_id>/transfer/",
        members.SurveyTransferView.as_view(),
        name="survey-transfer",
    ),
    path(
        "surveys/<int:survey_id>/member-invitations/",
        members.MemberInvitationsView.as_view(),
        name="survey-member-invitations",
    ),
    path(
        "surveys/<int:survey_id>/member-invitations/<int:invitation_id>/",
        members.MemberInvitationDetailView.as_view(),
        name="survey-member-invitation-detail",
    ),
    # Respondent invitations (docs/invitations.md).
    path(
        "surveys/<int:survey_id>/invitations/",
        invitations.SurveyInvitationsView.as_view(),
        name="survey-invitations",
    ),
    path(
        "surveys/<int:survey_id>/invitations/remind/",
        invitations.SurveyRemindersView.as_view(),
        name="survey-invitations-remind",
    ),
    path(
        "surveys/<int:survey_id>/invitations/sender/",
        invitations.SurveyInvitationSenderView.as_view(),
        name="survey-invitations-sender",
    ),
    path(
        "surveys/<int:survey_id>/invitations/<int:invitation_id>/",
        invitations.SurveyInvitationDetailView.as_view(),
        name="survey-invitation-detail",
    ),
    path(
        "surveys/<int:survey_id>/invitations/<int:invitation_id>/reset/",
        invitations.SurveyInvitationResetView.as_view(),
        name="survey-invitation-reset",
    ),
    path("invitations/", members.MemberInvitationListView.as_view(), name="invitation-list"),
    path(
        "invitations/<int:invitation_id>/accept/",
        members.MemberInvitationAcceptView.as_view(),
        name="invitation-accept",
    ),
    path(
        "invitations/<int:invitation_id>/decline/",
        members.MemberInvitationDeclineView.as_view(),
        name="invitation-decline",
    ),
    path("public/surveys/<str:slug>/", public.PublicSurveyView.as_view(), name="public-survey"),
    path(
        "public/surveys/<str:slug>/tokens/",
        invitations.PublicTokenView.as_view(),
        name="public-tokens",
    ),
    path(
        "public/surveys/<str:slug>/invitation-status/",
        invitations.PublicInvitationStatusView.as_view(),
        name="public-invitation-status",
    ),
    # Last: any other address under /api/v1/ is a 404 in the API's error shape.
    re_path(r"^[\s\S]*$", NotFoundView.as_view(), name="not-found"),  # newlines too
]
