"""Server-rendered pages: researcher views (views.py) and the respondent page (public_views.py)."""

from django.urls import path

from . import public_views, views

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
    path("surveys/<int:pk>/open/", views.survey_open, name="open"),
    path("surveys/<int:pk>/close/", views.survey_close, name="close"),
    path("surveys/<int:pk>/delete/", views.survey_delete, name="delete"),
    path("surveys/<int:pk>/share/", views.survey_share, name="share"),
    path("surveys/<int:pk>/qr.svg", views.survey_qr, name="qr"),
    path("surveys/<int:pk>/results/", views.survey_results, name="results"),
    path("surveys/<int:pk>/estimates.csv", views.estimates_csv, name="estimates-csv"),
    path("surveys/<int:pk>/responses.csv", views.responses_csv, name="responses-csv"),
    path("s/<str:slug>/", public_views.respond, name="respond"),
]
