"""The project's URLs plus the benchmark's extras: a floor view doing one INSERT, and the
public endpoint with the one-statement store switched off (the ORM transaction's figure).

Never part of the application: only ``bench.settings`` (and, for the floor alone,
``bench.bare_settings``) routes here.
"""

from django.test.utils import override_settings
from django.urls import include, path
from django.views.decorators.csrf import csrf_exempt

from bench.bare_urls import bare_insert
from surveys.api.public import response_create


@csrf_exempt
def orm_only(request, slug):
    """The public endpoint, stored by the ORM transaction even on PostgreSQL.

    A sync gunicorn worker serves one request at a time, so switching the setting for the
    request's duration touches no other request.
    """
    with override_settings(SUBMISSION_STATEMENT=False):
        return response_create(request, slug)


urlpatterns = [
    path("bench/bare-insert/<int:survey_id>/", bare_insert),
    path("bench/orm-only/<str:slug>/responses/", orm_only),
    path("", include("config.urls")),
]
