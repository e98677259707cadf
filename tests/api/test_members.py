"""Co-researchers over the API: members, invitations, roles, leaving, ownership transfer."""

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from surveys import services, tokens
from surveys.models import Survey
from surveys.services import members

pytestmark = pytest.mark.django_db

PASSWORD = "correct-horse-battery-42"


@pytest.fixture
def editor(db):
    return get_user_model().objects.create_user(
        "edith", password=PASSWORD, email="edith@example.org"
    )


@pytest.fixture
def viewer(db):
    return get_user_model().objects.create_user("vic", password=PASSWORD)


def api_as(user):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {tokens.token_issue(user=user, name='t').key}")
    return client


def members_url(survey):
    return f"/api/v1/surveys/{survey.pk}/members/"


def test_the_owner_invites_by_username_and_by_email(owner_api, open_survey, editor, viewer):
    response = owner_api.post(
        members_url(open_survey), {"user": "EDITH@example.org", "role": "editor"}, format="json"
    )
    assert response.status_code == 201, response.json()
    assert response.json()["username"] == "edith"
    assert response.json()["role"] == "editor"
    assert response.json()["invited_by"] == "owner"
    owner_api.post(members_url(open_survey), {"user": "vic", "role": "viewer"}, format="json")
    listed = owner_api.get(members_url(open_survey)).json()
    assert [(m["user_id"], m["role"]) for m in listed] == [
        (editor.pk, "editor"),
        (viewer.pk, "viewer"),
    ]


@pytest.mark.parametrize(
    ("body", "field", "needle"),
    [
        ({"user": "ghost", "role": "viewer"}, "user", "“ghost”"),
        ({"user": "owner", "role": "viewer"}, "user", "owns this survey"),
        ({"user": "vic", "role": "owner"}, "role", "owner"),
        ({"user": 7, "role": "viewer"}, "user", "Must be a string."),
        ({"user": "vic", "role": "viewer", "rol": "x"}, "rol", "Unknown field."),
    ],
)
def test_a_bad_invitation_is_a_400_naming_the_field(
    owner_api, open_survey, viewer, body, field, needle
):
    response = owner_api.post(members_url(open_survey), body, format="json")
    assert response.status_code == 400
    assert needle in " ".join(response.json()["errors"][field])
    assert not open_survey.members.exists()


def test_the_survey_list_includes_shared_surveys_with_the_role(
    owner, open_survey, viewer, make_survey
):
    members.member_invite(survey=open_survey, by=owner, user="vic", role="viewer")
    own = make_survey(by=viewer, title="Vic's own")
    listed = api_as(viewer).get("/api/v1/surveys/").json()
    assert [(s["id"], s["role"]) for s in listed] == [(own.pk, "owner"), (open_survey.pk, "viewer")]
    assert api_as(viewer).get(f"/api/v1/surveys/{open_survey.pk}/").json()["role"] == "viewer"


def test_role_change_leave_and_the_owner_cannot_leave(
    owner, owner_api, open_survey, editor, viewer
):
    for name, role in (("edith", "editor"), ("vic", "viewer")):
        members.member_invite(survey=open_survey, by=owner, user=name, role=role)
    url = f"{members_url(open_survey)}{viewer.pk}/"
    assert owner_api.patch(url, {"role": "editor"}, format="json").json()["role"] == "editor"
    assert owner_api.patch(url, {"role": "boss"}, format="json").status_code == 400
    # An editor may not remove someone else, but anyone may leave.
    assert api_as(editor).delete(url).status_code == 403
    assert api_as(viewer).delete(url).status_code == 204
    assert api_as(viewer).get(f"/api/v1/surveys/{open_survey.pk}/").status_code == 404
    own = owner_api.delete(f"{members_url(open_survey)}{owner.pk}/")
    assert own.status_code == 409
    assert "transfer" in own.json()["detail"]
    assert owner_api.delete(f"{members_url(open_survey)}{viewer.pk}/").status_code == 404


def test_transfer_to_a_member(owner, owner_api, open_survey, editor, other_researcher):
    members.member_invite(survey=open_survey, by=owner, user="edith", role="viewer")
    url = f"/api/v1/surveys/{open_survey.pk}/transfer/"
    refused = owner_api.post(url, {"user_id": other_researcher.pk}, format="json")
    assert refused.status_code == 400
    assert str(other_researcher.pk) in refused.json()["errors"]["user_id"][0]
    done = owner_api.post(url, {"user_id": editor.pk}, format="json")
    assert done.status_code == 200
    assert done.json()["role"] == "editor"
    survey = Survey.objects.get(pk=open_survey.pk)
    assert survey.owner == editor
    # The old owner builds but no longer deletes; the new one does.
    assert (
        owner_api.patch(
            f"/api/v1/surveys/{survey.pk}/", {"title": "Renamed"}, format="json"
        ).status_code
        == 200
    )
    assert owner_api.delete(f"/api/v1/surveys/{survey.pk}/").status_code == 403
    assert api_as(editor).delete(f"/api/v1/surveys/{survey.pk}/").status_code == 204


def test_a_trashed_survey_disappears_for_members(owner, open_survey, viewer):
    members.member_invite(survey=open_survey, by=owner, user="vic", role="viewer")
    services.survey_delete(survey=open_survey)
    client = api_as(viewer)
    assert client.get("/api/v1/surveys/").json() == []
    assert client.get(f"/api/v1/surveys/{open_survey.pk}/responses.csv").status_code == 404
    assert client.get(members_url(open_survey)).status_code == 404
