"""Server-rendered pages (surveys/views/): the researcher's pages under ``surveys/``, the
respondent page ``s/<slug>/`` and public results ``r/<slug>/``."""

from django.urls import path

from .views import (
    analysis,
    export_jobs,
    invitations,
    members,
    questions,
    researcher,
    respondent,
    translations,
)

app_name = "surveys"

SURVEY = "surveys/<int:pk>/"  # every page of one survey, resolved by common.member_view


def survey_path(route, view, name):
    return path(SURVEY + route, view, name=name)


urlpatterns = [
    path("", researcher.home, name="home"),
    path("surveys/", researcher.dashboard, name="dashboard"),
    path("surveys/new/", researcher.survey_new, name="survey-new"),
    path("surveys/design-preview/", researcher.design_preview, name="design-preview"),
    path("surveys/trash/", researcher.trash, name="trash"),
    path("surveys/trash/<int:pk>/restore/", researcher.survey_restore, name="restore"),
    # views/researcher.py: the builder's settings, the survey's life, sharing
    survey_path("", researcher.survey_builder, "builder"),
    survey_path("preview/", researcher.survey_preview, "preview"),
    survey_path("open/", researcher.survey_open, "open"),
    survey_path("close/", researcher.survey_close, "close"),
    survey_path("release-batch/", researcher.survey_release_batch, "release-batch"),
    survey_path("pilot/", researcher.survey_pilot, "pilot"),
    survey_path("discard-pilot/", researcher.survey_pilot_discard, "pilot-discard"),
    survey_path("schedule/", researcher.survey_schedule, "schedule"),
    survey_path("duplicate/", researcher.survey_duplicate, "duplicate"),
    survey_path("delete/", researcher.survey_delete, "delete"),
    survey_path("share/", researcher.survey_share, "share"),
    survey_path("qr.svg", researcher.survey_qr, "qr"),
    survey_path("translations/", translations.survey_translations, "translations"),
    # views/questions.py: yes/no questions and grouping questions
    survey_path("questions/add/", questions.question_add, "question-add"),
    survey_path("questions/<int:qid>/edit/", questions.question_edit, "question-edit"),
    survey_path("questions/<int:qid>/delete/", questions.question_delete, "question-delete"),
    survey_path("questions/<int:qid>/move/", questions.question_move, "question-move"),
    survey_path("groups/add/", questions.grouping_add, "grouping-add"),
    survey_path("groups/<int:gid>/edit/", questions.grouping_edit, "grouping-edit"),
    survey_path("groups/<int:gid>/delete/", questions.grouping_delete, "grouping-delete"),
    # views/analysis.py: results and downloads, breakdown, regression, planner, public results
    survey_path("results/", analysis.survey_results, "results"),
    survey_path("estimates.csv", analysis.estimates_csv, "estimates-csv"),
    survey_path("responses.csv", analysis.responses_csv, "responses-csv"),
    survey_path("responses.sav", analysis.responses_sav, "responses-sav"),
    survey_path("responses.dta", analysis.responses_dta, "responses-dta"),
    survey_path("codebook.csv", analysis.codebook_csv, "codebook-csv"),
    survey_path("export.zip", analysis.export_zip, "export-zip"),
    survey_path("export.xlsx", analysis.export_xlsx, "export-xlsx"),
    survey_path("breakdown/", analysis.breakdown, "breakdown"),
    survey_path("regression/", analysis.regression, "regression"),
    survey_path("for-r.csv", analysis.r_export_csv, "r-export"),
    survey_path("estimates.R", analysis.estimates_r, "estimates-r"),
    survey_path("planner/", analysis.planner, "planner"),
    # views/export_jobs.py: a large download written by the worker, and its progress
    survey_path("exports/<uuid:job_id>/", export_jobs.export_job_page, "export-job"),
    survey_path("exports/<uuid:job_id>/status", export_jobs.export_job_status, "export-job-status"),
    survey_path("exports/<uuid:job_id>/file", export_jobs.export_job_file, "export-job-file"),
    survey_path(
        "exports/<uuid:job_id>/codebook.csv",
        export_jobs.export_job_codebook,
        "export-job-codebook",
    ),
    survey_path("public/", analysis.public_settings, "public-settings"),
    # views/members.py: co-researchers, roles, leaving, ownership transfer
    survey_path("members/", members.members_page, "members"),
    survey_path("members/leave/", members.member_leave, "member-leave"),
    survey_path("members/<int:uid>/role/", members.member_role, "member-role"),
    survey_path("members/<int:uid>/remove/", members.member_remove, "member-remove"),
    survey_path("transfer/", members.survey_transfer, "transfer"),
    survey_path(
        "invitations/<int:iid>/withdraw/", members.invitation_withdraw, "invitation-withdraw"
    ),
    # views/invitations.py: respondent invitations (docs/invitations.md)
    survey_path("invitees/", invitations.invitees_page, "invitees"),
    survey_path("invitees/remind/", invitations.invitees_remind, "invitees-remind"),
    survey_path("invitees/links.csv", invitations.invitees_links_csv, "invitees-links-csv"),
    survey_path("invitees/export.csv", invitations.invitees_export_csv, "invitees-export-csv"),
    survey_path("invitees/sheet/", invitations.invitees_sheet, "invitees-sheet"),
    survey_path("invitees/<int:iid>/reset/", invitations.invitee_reset, "invitee-reset"),
    survey_path("invitees/<int:iid>/revoke/", invitations.invitee_revoke, "invitee-revoke"),
    path("invitations/<int:iid>/accept/", members.invitation_accept, name="invitation-accept"),
    path("invitations/<int:iid>/decline/", members.invitation_decline, name="invitation-decline"),
    # views/respondent.py: the pages anyone may open
    path("s/<str:slug>/", respondent.respond, name="respond"),
    path(
        "s/unsubscribe/<str:token>/",
        invitations.invitation_unsubscribe,
        name="invitation-unsubscribe",
    ),
    path("r/<str:slug>/", respondent.public_results_page, name="public-results"),
]
