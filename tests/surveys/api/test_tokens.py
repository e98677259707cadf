"""API tokens: hashed, named, several per user, expiring, listed and revoked over the API."""

import hashlib
from datetime import UTC, datetime, timedelta

import pytest
from rest_framework.test import APIClient

from surveys.models import ApiToken
from surveys.selectors import tokens as token_reads
from tests.helpers import PASSWORD

pytestmark = pytest.mark.django_db

TOKEN_URL = "/api/v1/auth/token/"
TOKENS_URL = "/api/v1/auth/tokens/"
T0 = datetime(2027, 3, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def clock(monkeypatch):
    """The tokens' clock, standing at T0 until a test moves it."""
    now = {"value": T0}
    monkeypatch.setattr(token_reads, "clock", lambda: now["value"])
    return now


def bearer(key):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def obtain(name=""):
    response = APIClient().post(
        TOKEN_URL, {"username": "owner", "password": PASSWORD, "name": name}
    )
    assert response.status_code == 200, response.json()
    return response.json()


def test_a_token_works_until_it_expires_then_is_refused(owner, clock, settings):
    settings.API_TOKEN_TTL_DAYS = 30
    issued = obtain("script")
    assert issued["expires_at"] == "2027-03-31T12:00:00Z"
    clock["value"] = T0 + timedelta(days=30) - timedelta(seconds=1)
    assert bearer(issued["token"]).get("/api/v1/surveys/").status_code == 200
    clock["value"] = T0 + timedelta(days=30)
    refused = bearer(issued["token"]).get("/api/v1/surveys/")
    assert refused.status_code == 401
    assert refused.json()["detail"] == "Invalid token."


def test_the_lifetime_follows_the_setting(owner, clock, settings):
    settings.API_TOKEN_TTL_DAYS = 7
    assert obtain()["expires_at"] == "2027-03-08T12:00:00Z"


def test_the_database_holds_a_digest_not_the_key(owner):
    key = obtain("laptop")["token"]
    stored = ApiToken.objects.get(user=owner)
    assert stored.digest == hashlib.sha256(key.encode()).hexdigest()
    assert stored.name == "laptop"
    assert key.startswith(stored.prefix) and len(stored.prefix) < len(key) // 3
    assert key not in str(list(ApiToken.objects.values()))


def test_several_tokens_are_listed_by_name_without_their_keys(owner, clock):
    first, second = obtain("laptop"), obtain("cluster job")
    listed = bearer(first["token"]).get(TOKENS_URL)
    assert listed.status_code == 200
    assert [item["name"] for item in listed.json()] == ["cluster job", "laptop"]
    assert first["token"] not in listed.content.decode()
    assert second["token"] not in listed.content.decode()


def test_an_expired_token_is_no_longer_listed(owner, clock):
    old = obtain("old")
    clock["value"] = T0 + timedelta(days=31)
    new = obtain("new")
    assert [item["name"] for item in bearer(new["token"]).get(TOKENS_URL).json()] == ["new"]
    assert old["id"] not in ApiToken.objects.values_list("id", flat=True)  # dropped on issue


def test_revoking_one_token_leaves_the_others_working(owner):
    first, second = obtain("a"), obtain("b")
    response = bearer(first["token"]).delete(f"{TOKENS_URL}{second['id']}/")
    assert response.status_code == 204
    assert bearer(second["token"]).get("/api/v1/surveys/").status_code == 401
    assert bearer(first["token"]).get("/api/v1/surveys/").status_code == 200


def test_another_users_token_cannot_be_revoked(owner, other_api):
    mine = obtain("mine")
    assert other_api.delete(f"{TOKENS_URL}{mine['id']}/").status_code == 404
    assert bearer(mine["token"]).get("/api/v1/surveys/").status_code == 200


def test_the_token_list_needs_authentication(anonymous_api):
    assert anonymous_api.get(TOKENS_URL).status_code == 401


def test_a_user_holds_at_most_the_configured_number_of_tokens(owner, settings):
    settings.MAX_API_TOKENS_PER_USER = 2
    obtain("a")
    obtain("b")
    refused = APIClient().post(TOKEN_URL, {"username": "owner", "password": PASSWORD})
    assert refused.status_code == 400
    assert list(refused.json()["errors"]) == ["name"]
    assert ApiToken.objects.filter(user=owner).count() == 2


def test_a_name_too_long_is_400_naming_name(owner):
    response = APIClient().post(
        TOKEN_URL, {"username": "owner", "password": PASSWORD, "name": "n" * 101}
    )
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["name"]
    assert not ApiToken.objects.exists()


@pytest.mark.parametrize("key", ["rrs_" + "A" * 43, "not-ours", "rrs_", "x" * 300])
def test_unknown_keys_are_refused(owner, key):
    obtain()
    assert bearer(key).get("/api/v1/surveys/").status_code == 401


def test_signing_out_of_the_site_leaves_tokens_working(client, owner):
    issued = obtain()
    client.force_login(owner)
    client.post("/accounts/logout/")
    assert bearer(issued["token"]).get("/api/v1/surveys/").status_code == 200


def test_revoking_an_id_beyond_the_64_bit_range_is_a_404(owner_api):
    assert owner_api.delete(f"{TOKENS_URL}{2**64}/").status_code == 404
