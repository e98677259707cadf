"""Server-rendered pages: researcher views (views.py) and the respondent page (public_views.py)."""

from django.urls import path

from . import analysis_views, member_views, public_views, translation_views, views

app_name = "surveys"

urlpatterns = [
    path("", views.home, name="home"),
    path("surveys/", views.dashboard, name="dashboard"),
    path("surveys/new/", views.survey_new, name="survey-new"),
    path("surveys/design-preview/", views.design_preview, name="design-preview"),
    path("surveys/<int:pk>/", views.survey_builder, name="builder"),
    path("surveys/<int:pk>/questions/add/", views.question_add, name="question-add"),
    path("surveys/<int:pk>/questions/<int:qid>/edit/", views.question_edit, name="question-edit"),
    path(
        "surveys/<int:pk>/questions/<int:qid>/delete/",
        views.question_delete,
        name="question-delete",
    ),
    path("surveys/<int:pk>/questions/<int:qid>/move/", views.question_move, name="question-move"),
    path("surveys/<int:pk>/preview/", views.survey_preview, name="preview"),
    path(
        "surveys/<int:pk>/translations/",
        translation_views.survey_translations,
        name="translations",
    ),
    path("surveys/<int:pk>/open/", views.survey_open, name="open"),
    path("surveys/<int:pk>/close/", views.survey_close, name="close"),
    path("surveys/<int:pk>/pilot/", views.survey_pilot, name="pilot"),
    path("surveys/<int:pk>/discard-pilot/", views.survey_pilot_discard, name="pilot-discard"),
    path("surveys/<int:pk>/schedule/", views.survey_schedule, name="schedule"),
    path("surveys/<int:pk>/duplicate/", views.survey_duplicate, name="duplicate"),
    path("surveys/<int:pk>/delete/", views.survey_delete, name="delete"),
    path("surveys/trash/", views.trash, name="trash"),
    path("surveys/trash/<int:pk>/restore/", views.survey_restore, name="restore"),
    path("surveys/<int:pk>/share/", views.survey_share, name="share"),
    path("surveys/<int:pk>/qr.svg", views.survey_qr, name="qr"),
    path("surveys/<int:pk>/results/", views.survey_results, name="results"),
    path("surveys/<int:pk>/estimates.csv", views.estimates_csv, name="estimates-csv"),
    path("surveys/<int:pk>/responses.csv", views.responses_csv, name="responses-csv"),
    path("surveys/<int:pk>/codebook.csv", views.codebook_csv, name="codebook-csv"),
    path("surveys/<int:pk>/export.zip", views.export_zip, name="export-zip"),
    path("surveys/<int:pk>/export.xlsx", views.export_xlsx, name="export-xlsx"),
    path("s/<str:slug>/", public_views.respond, name="respond"),
    # Beyond one number (analysis_views.py): grouping questions, breakdown, regression,
    # planner, public results, export for R.
    path("surveys/<int:pk>/groups/add/", analysis_views.grouping_add, name="grouping-add"),
    path(
        "surveys/<int:pk>/groups/<int:gid>/edit/",
        analysis_views.grouping_edit,
        name="grouping-edit",
    ),
    path(
        "surveys/<int:pk>/groups/<int:gid>/delete/",
        analysis_views.grouping_delete,
        name="grouping-delete",
    ),
    path("surveys/<int:pk>/breakdown/", analysis_views.breakdown, name="breakdown"),
    path("surveys/<int:pk>/regression/", analysis_views.regression, name="regression"),
    path("surveys/<int:pk>/for-r.csv", analysis_views.r_export_csv, name="r-export"),
    path("surveys/<int:pk>/planner/", analysis_views.planner, name="planner"),
    path("surveys/<int:pk>/public/", analysis_views.public_settings, name="public-settings"),
    path("r/<str:slug>/", analysis_views.public_results_page, name="public-results"),
    # Co-researchers (member_views.py): members, roles, leaving, ownership transfer.
    path("surveys/<int:pk>/members/", member_views.members_page, name="members"),
    path("surveys/<int:pk>/members/leave/", member_views.member_leave, name="member-leave"),
    path("surveys/<int:pk>/members/<int:uid>/role/", member_views.member_role, name="member-role"),
    path(
        "surveys/<int:pk>/members/<int:uid>/remove/",
        member_views.member_remove,
        name="member-remove",
    ),
    path("surveys/<int:pk>/transfer/", member_views.survey_transfer, name="transfer"),
]
