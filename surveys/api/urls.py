from django.urls import path

from . import public

app_name = "api"

urlpatterns = [
    path("public/surveys/<str:slug>/", public.PublicSurveyView.as_view(), name="public-survey"),
    path(
        "public/surveys/<str:slug>/responses/",
        public.PublicResponseView.as_view(),
        name="public-responses",
    ),
]
