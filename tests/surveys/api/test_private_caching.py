"""Owner pages, researcher API responses and exports are ``Cache-Control: private, no-store``."""

import pytest
from django.urls import reverse

from tests.routes import GET_STATUS_FOR_OWNER, owner_routes, route_url

pytestmark = pytest.mark.django_db


def private_and_unstored(response):
    directives = {part.strip() for part in response.get("Cache-Control", "").split(",")}
    return {"private", "no-store"} <= directives


@pytest.mark.slow
def test_every_owner_page_and_export_is_private_and_not_stored(owner_client, open_survey):
    checked = []
    for pattern in owner_routes():
        if GET_STATUS_FOR_OWNER[pattern.name] != 200:
            continue
        response = owner_client.get(route_url(pattern, open_survey))
        assert response.status_code == 200, pattern.name
        assert private_and_unstored(response), (pattern.name, response.get("Cache-Control"))
        checked.append(pattern.name)
    assert {
        "results", "estimates-csv", "responses-csv", "r-export", "qr", "codebook-csv",
        "export-zip", "export-xlsx", "responses-sav", "responses-dta",
    } <= set(checked)  # fmt: skip


def test_the_dashboard_and_the_new_survey_page_are_private(owner_client):
    for name in ("surveys:dashboard", "surveys:survey-new"):
        assert private_and_unstored(owner_client.get(reverse(name))), name


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/surveys/",
        "/api/v1/surveys/{id}/",
        "/api/v1/surveys/{id}/estimates/",
        "/api/v1/surveys/{id}/estimates.csv",
        "/api/v1/surveys/{id}/responses.csv",
        "/api/v1/surveys/{id}/for-r.csv",
        "/api/v1/surveys/{id}/estimates.R",
        "/api/v1/surveys/{id}/codebook.csv",
        "/api/v1/surveys/{id}/export.zip",
        "/api/v1/surveys/{id}/export.xlsx",
        "/api/v1/surveys/{id}/responses.sav",
        "/api/v1/surveys/{id}/responses.dta",
        "/api/v1/surveys/{id}/regression/",
    ],
)
def test_researcher_api_responses_are_private_and_not_stored(owner_api, frozen_survey, path):
    response = owner_api.get(path.format(id=frozen_survey.id))
    assert response.status_code < 500
    assert private_and_unstored(response), response.get("Cache-Control")


def test_another_owners_404_is_private_too(other_api, frozen_survey):
    response = other_api.get(f"/api/v1/surveys/{frozen_survey.id}/")
    assert response.status_code == 404
    assert private_and_unstored(response)


def test_sign_in_pages_are_private_and_not_stored(client):
    for path in ("/accounts/login/", "/admin/login/"):
        assert private_and_unstored(client.get(path)), path


def test_a_respondent_request_gets_no_session_read_and_keeps_its_own_caching(client, open_survey):
    response = client.get(f"/api/v1/public/surveys/{open_survey.slug}/")
    assert response.status_code == 200
    assert "private" not in response.get("Cache-Control", "")
    assert "Cookie" not in response.get("Vary", "")
