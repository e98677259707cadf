"""A URLconf with language-prefixed URLs (``i18n_patterns``), which the project has none of:
for tests/surveys/test_middleware.py."""

from django.conf.urls.i18n import i18n_patterns
from django.http import HttpResponse
from django.urls import path

urlpatterns = i18n_patterns(path("page/", lambda request: HttpResponse("page")))
