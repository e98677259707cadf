"""POST/DELETE /api/v1/auth/token/ and session authentication."""

import pytest
from rest_framework.test import APIClient

from surveys import rate_limits
from surveys.models import ApiToken
from tests.helpers import PASSWORD

TOKEN_URL = "/api/v1/auth/token/"

pytestmark = pytest.mark.django_db


def test_each_token_request_issues_a_new_token_stored_only_as_a_digest(anonymous_api, owner):
    first = anonymous_api.post(TOKEN_URL, {"username": "owner", "password": PASSWORD})
    second = anonymous_api.post(
        TOKEN_URL, {"username": "owner", "password": PASSWORD, "name": "laptop"}
    )
    assert first.status_code == second.status_code == 200
    assert first.json()["token"] != second.json()["token"]
    assert second.json()["name"] == "laptop"
    stored = ApiToken.objects.filter(user=owner)
    assert stored.count() == 2
    for token in stored:
        assert first.json()["token"] not in (token.digest, token.prefix)
        assert second.json()["token"] not in (token.digest, token.prefix)


def test_token_authenticates_api_requests(anonymous_api, owner):
    token = anonymous_api.post(TOKEN_URL, {"username": "owner", "password": PASSWORD}).json()
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token['token']}")
    assert client.get("/api/v1/surveys/").status_code == 200


@pytest.mark.parametrize(
    "credentials",
    [
        {"username": "owner", "password": "wrong-password"},
        {"username": "nobody", "password": PASSWORD},
    ],
)
def test_bad_credentials_are_400_naming_password_without_telling_which(
    anonymous_api, owner, credentials
):
    response = anonymous_api.post(TOKEN_URL, credentials)
    assert response.status_code == 400
    body = response.json()
    assert list(body["errors"]) == ["password"]
    assert body["detail"].startswith("password: Unable to sign in")
    assert not ApiToken.objects.exists()


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"password": PASSWORD}, "username"),
        ({"username": "owner"}, "password"),
        ({"username": ["owner"], "password": PASSWORD}, "username"),
        ({"username": "owner", "password": 42}, "password"),
        ({"username": "owner", "password": PASSWORD, "otp": "1"}, "otp"),
    ],
)
def test_malformed_token_request_names_the_field(anonymous_api, owner, payload, field):
    response = anonymous_api.post(TOKEN_URL, payload)
    assert response.status_code == 400
    assert field in response.json()["errors"]


def test_inactive_user_gets_no_token(anonymous_api, owner):
    owner.is_active = False
    owner.save()
    response = anonymous_api.post(TOKEN_URL, {"username": "owner", "password": PASSWORD})
    assert response.status_code == 400


def test_delete_revokes_the_callers_token_only(owner_api, other_api, owner, other_researcher):
    assert owner_api.delete(TOKEN_URL).status_code == 204
    assert not ApiToken.objects.filter(user=owner).exists()
    assert ApiToken.objects.filter(user=other_researcher).exists()
    assert other_api.get("/api/v1/surveys/").status_code == 200
    revoked = owner_api.get("/api/v1/surveys/")
    assert revoked.status_code == 401
    assert revoked.json()["detail"] == "Invalid token."


def test_anonymous_delete_is_401_with_token_challenge(anonymous_api):
    response = anonymous_api.delete(TOKEN_URL)
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    assert response.json() == {
        "detail": "Authentication credentials were not provided.",
        "errors": {},
    }


def test_a_signed_in_browser_session_works(owner_client, make_survey):
    survey = make_survey()
    response = owner_client.get("/api/v1/surveys/")
    assert response.status_code == 200
    assert [item["id"] for item in response.json()] == [survey.id]


def test_session_writes_need_the_csrf_token(owner):
    browser = APIClient(enforce_csrf_checks=True)
    browser.force_login(owner)
    response = browser.post("/api/v1/surveys/", {"title": "T", "questions": []})
    assert response.status_code == 403
    assert "CSRF" in response.json()["detail"]


def test_token_requests_are_throttled_per_client(anonymous_api, owner, settings, monkeypatch):
    settings.TOKEN_RATE_LIMIT = "3/min"
    monkeypatch.setattr(rate_limits, "clock", lambda: 1_800_000_000.0)  # one window throughout
    for _ in range(3):
        anonymous_api.post(TOKEN_URL, {"username": "owner", "password": "guess"})
    response = anonymous_api.post(TOKEN_URL, {"username": "owner", "password": PASSWORD})
    assert response.status_code == 429
    assert int(response["Retry-After"]) >= 1
