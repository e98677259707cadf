"""The benchmark's floor: a plain Django view doing one INSERT, and, as the bare app's URLconf
(bench/bare_settings: no middleware), its only URL. bench/urls.py routes the same view behind
the project's middleware."""

import json
import secrets
import uuid

from django.db import connection
from django.http import HttpResponseNotFound, JsonResponse
from django.urls import path
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt


@csrf_exempt
def bare_insert(request, survey_id):
    """Read a JSON body, INSERT one row (autocommit), answer 201: the least a write can cost.

    The row is a submission's, with the body's answers as its reports, unchecked.
    """
    body = json.loads(request.body)
    submission_id = uuid.UUID(body["submission_id"])
    reports = {f"q{key}": bit for key, bit in body["answers"].items()}
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO surveys_submission (id, survey_id, submission_id, received_on, reports) "
            "VALUES (%s, %s, %s, %s, %s)",
            [
                # The key is drawn as the project draws it (models.random_key): the table has
                # no counted default since row keys became random.
                secrets.randbits(63),
                survey_id,
                submission_id.hex if connection.vendor == "sqlite" else submission_id,
                timezone.now().date(),
                json.dumps(reports),
            ],
        )
    return JsonResponse({"submission_id": str(submission_id), "status": "recorded"}, status=201)


def not_found(request, exception):
    # The project's 404 page needs its templates and static files, which this app has not.
    return HttpResponseNotFound()


urlpatterns = [path("bench/bare-insert/<int:survey_id>/", bare_insert)]
handler404 = not_found
