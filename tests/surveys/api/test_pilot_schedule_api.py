"""The API of pilots, schedules, consent and targets (issue 14, items 1, 3 and 7)."""

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from surveys.models import Submission, Survey

pytestmark = pytest.mark.django_db


def create(api, **fields):
    body = {"title": "Habits", "p_truth": 0.5, "p_forced_yes": 0.5, "questions": [{"text": "A?"}]}
    response = api.post("/api/v1/surveys/", body | fields, format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def post(api, survey_id, action, body=None):
    return api.post(f"/api/v1/surveys/{survey_id}/{action}/", body or {}, format="json")


def respond(survey, fingerprint=None, submission_id=None):
    client = APIClient()
    definition = client.get(f"/api/v1/public/surveys/{survey['slug']}/").json()
    body = {
        "submission_id": str(submission_id or uuid.uuid4()),
        "answers": {str(q["id"]): True for q in definition["questions"]},
        "design_fingerprint": fingerprint or definition["design_fingerprint"],
    }
    return client.post(
        f"/api/v1/public/surveys/{survey['slug']}/responses/", body, format="json"
    ), definition


def test_a_pilot_through_the_api_from_first_test_to_real_study(owner_api):
    survey = create(owner_api)
    piloted = post(owner_api, survey["id"], "pilot").json()
    assert (piloted["status"], piloted["accepting_responses"]) == ("pilot", True)
    response, definition = respond(survey)
    assert response.status_code == 201
    assert definition["pilot"] is True and definition["accepting_responses"] is True

    # Editing the questions first needs the pilot responses discarded.
    patch = {"questions": [{"text": "A, without the typo?"}]}
    refused = owner_api.patch(f"/api/v1/surveys/{survey['id']}/", patch, format="json")
    assert refused.status_code == 409 and "discard" in refused.json()["detail"]
    discarded = post(owner_api, survey["id"], "discard-pilot").json()
    assert discarded["discarded"] == 1 and discarded["survey"]["response_count"] == 0
    assert (
        owner_api.patch(f"/api/v1/surveys/{survey['id']}/", patch, format="json").status_code == 200
    )

    assert respond(survey)[0].status_code == 201
    opened = post(owner_api, survey["id"], "open").json()
    assert (opened["status"], opened["response_count"], opened["questions_locked"]) == (
        "open",
        0,
        True,
    )
    estimates = owner_api.get(f"/api/v1/surveys/{survey['id']}/estimates/").json()
    assert [row["n"] for row in estimates["estimates"]] == [0]


def test_discarding_is_refused_for_a_survey_that_is_not_a_pilot(owner_api):
    survey = create(owner_api)
    post(owner_api, survey["id"], "open")
    respond(survey)
    response = post(owner_api, survey["id"], "discard-pilot")
    assert response.status_code == 409 and "status" in response.json()["errors"]
    assert Submission.objects.count() == 1


def test_closing_a_pilot_is_a_409(owner_api):
    survey = create(owner_api)
    post(owner_api, survey["id"], "pilot")
    assert post(owner_api, survey["id"], "close").status_code == 409


def test_schedule_through_the_api(owner_api):
    survey = create(owner_api)
    opens = timezone.now() + timedelta(days=1)
    closes = opens + timedelta(days=7)
    body = {"opens_at": opens.isoformat(), "closes_at": closes.isoformat()}
    scheduled = post(owner_api, survey["id"], "schedule", body).json()
    assert scheduled["status"] == "open" and scheduled["accepting_responses"] is False
    assert scheduled["questions_locked"] is True
    response, definition = respond(survey)
    assert response.status_code == 409
    assert definition["opens_at"] and definition["accepting_responses"] is False
    Survey.objects.filter(pk=survey["id"]).update(opens_at=timezone.now() - timedelta(seconds=1))
    assert respond(survey)[0].status_code == 201


def test_the_schedule_takes_a_time_zone_and_the_survey_names_it(owner_api):
    survey = create(owner_api)
    assert survey["time_zone"] == ""  # none chosen: UTC
    body = {"closes_at": "2999-12-01T18:00:00+09:00", "time_zone": "Asia/Seoul"}
    scheduled = post(owner_api, survey["id"], "schedule", body).json()
    assert scheduled["time_zone"] == "Asia/Seoul"
    assert scheduled["closes_at"] == "2999-12-01T09:00:00Z"  # the same instant, in UTC
    kept = post(owner_api, survey["id"], "schedule", {"closes_at": None}).json()
    assert kept["time_zone"] == "Asia/Seoul"  # omitted: unchanged


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"opens_at": "tomorrow"}, "opens_at"),
        ({"closes_at": "2001-01-01T00:00:00Z"}, "closes_at"),
        ({"opens_at": "2999-01-02T00:00:00Z", "closes_at": "2999-01-01T00:00:00Z"}, "closes_at"),
        ({"start": "2999-01-01T00:00:00Z"}, "start"),
        ({"time_zone": "Mars/Olympus_Mons"}, "time_zone"),
        ({"time_zone": 9}, "time_zone"),
    ],
)
def test_a_bad_schedule_is_a_400_naming_the_field(owner_api, body, field):
    survey = create(owner_api)
    response = post(owner_api, survey["id"], "schedule", body)
    assert response.status_code == 400
    assert field in response.json()["errors"]
    assert Survey.objects.get(pk=survey["id"]).status == "draft"


def test_consent_and_target_fields(owner_api):
    survey = create(owner_api, consent_text="I agree to take part.", response_target=385)
    assert (survey["consent_version"], survey["response_target"]) == (1, 385)
    changed = owner_api.patch(
        f"/api/v1/surveys/{survey['id']}/", {"consent_text": "I agree, v2."}, format="json"
    ).json()
    assert changed["consent_version"] == 2 and changed["consent_changed_at"]
    definition = APIClient().get(f"/api/v1/public/surveys/{survey['slug']}/")
    assert definition.status_code == 404  # a draft is not published
    post(owner_api, survey["id"], "open")
    public = APIClient().get(f"/api/v1/public/surveys/{survey['slug']}/").json()
    assert (public["consent_text"], public["consent_version"]) == ("I agree, v2.", 2)
    frozen = owner_api.patch(
        f"/api/v1/surveys/{survey['id']}/", {"consent_text": "Other"}, format="json"
    )
    assert frozen.status_code == 409


@pytest.mark.parametrize("bad", [0, "10", 2.5, True])
def test_a_bad_target_is_a_400_naming_the_field(owner_api, bad):
    survey = create(owner_api)
    response = owner_api.patch(
        f"/api/v1/surveys/{survey['id']}/", {"response_target": bad}, format="json"
    )
    assert response.status_code == 400 and "response_target" in response.json()["errors"]


def test_the_schema_documents_the_new_routes_and_fields(owner_api):
    schema = APIClient().get("/api/schema/?format=json").json()
    paths = schema["paths"]
    for action in ("pilot", "discard-pilot", "schedule"):
        assert "post" in paths[f"/api/v1/surveys/{{survey_id}}/{action}/"]
    survey = schema["components"]["schemas"]["Survey"]["properties"]
    for field in ("consent_text", "consent_version", "response_target", "opens_at", "closes_at"):
        assert field in survey
    assert "pilot" in schema["components"]["schemas"]["PublicSurvey"]["properties"]
