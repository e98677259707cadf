"""Co-researchers over the API, by consent: invitations (by username and by email address)
and ownership offers wait for the invitee, grant nothing and count towards no limit until
accepted; adding by email answers the same whether or not the address has an account."""

import statistics
import time

import pytest
from django.contrib.auth import get_user_model
from django.core import mail as django_mail
from django.utils import timezone

from surveys import mail, services
from surveys.models import MemberInvitation, Survey, VerifiedEmail
from surveys.services import members
from tests.helpers import add_member, token_client

pytestmark = pytest.mark.django_db

PASSWORD = "correct-horse-battery-42"


def account(name, *, email="", verified=False):
    user = get_user_model().objects.create_user(name, password=PASSWORD, email=email)
    if verified:
        VerifiedEmail.objects.create(user=user, email=email.lower(), verified_at=timezone.now())
    return user


@pytest.fixture
def editor(db):
    return account("edith", email="Edith@example.org", verified=True)


@pytest.fixture
def viewer(db):
    return account("vic")


def members_url(survey):
    return f"/api/v1/surveys/{survey.pk}/members/"


def survey_url(survey):
    return f"/api/v1/surveys/{survey.pk}/"


def invite(client, survey, user, role="viewer"):
    return client.post(members_url(survey), {"user": user, "role": role}, format="json")


def accept(client, invitation_id):
    return client.post(f"/api/v1/invitations/{invitation_id}/accept/")


def test_an_invitee_gets_404_until_they_accept(owner_api, open_survey, editor, viewer):
    by_email = invite(owner_api, open_survey, "EDITH@example.org", "editor")
    by_name = invite(owner_api, open_survey, "vic")
    assert (by_email.status_code, by_name.status_code) == (201, 201)
    assert by_email.json()["status"] == by_name.json()["status"] == "pending"
    assert by_email.json()["email"] == "edith@example.org"
    assert by_email.json()["user_id"] is None  # by address, nothing says who holds it
    assert by_name.json()["username"] == "vic"
    assert not open_survey.members.exists()
    for user in (editor, viewer):
        client = token_client(user)
        assert client.get(survey_url(open_survey)).status_code == 404
        assert client.get(f"{survey_url(open_survey)}responses.csv").status_code == 404
        assert client.get("/api/v1/surveys/").json() == []
    pending = owner_api.get(f"{survey_url(open_survey)}member-invitations/").json()
    assert [(p["email"], p["username"], p["role"]) for p in pending] == [
        ("edith@example.org", None, "editor"),
        (None, "vic", "viewer"),
    ]

    # Each sees their own invitation, and accepts it.
    for user, role in ((editor, "editor"), (viewer, "viewer")):
        client = token_client(user)
        (mine,) = client.get("/api/v1/invitations/").json()
        assert (mine["survey_id"], mine["survey_title"], mine["role"]) == (
            open_survey.pk,
            open_survey.title,
            role,
        )
        assert mine["owner"] == mine["invited_by"] == "owner"
        accepted = accept(client, mine["id"])
        assert accepted.status_code == 200, accepted.json()
        assert accepted.json()["role"] == role
        assert client.get(survey_url(open_survey)).json()["role"] == role
    listed = owner_api.get(members_url(open_survey)).json()
    assert [(m["username"], m["role"]) for m in listed] == [
        ("owner", "owner"),
        ("edith", "editor"),
        ("vic", "viewer"),
    ]
    assert listed[0]["created_at"] is None and listed[1]["invited_by"] == "owner"
    assert owner_api.get(f"{survey_url(open_survey)}member-invitations/").json() == []


def test_a_declined_or_withdrawn_invitation_grants_nothing(owner_api, open_survey, viewer):
    client = token_client(viewer)
    first = invite(owner_api, open_survey, "vic").json()
    assert client.post(f"/api/v1/invitations/{first['id']}/decline/").status_code == 204
    assert accept(client, first["id"]).status_code == 404
    second = invite(owner_api, open_survey, "vic").json()
    withdraw = owner_api.delete(f"{survey_url(open_survey)}member-invitations/{second['id']}/")
    assert withdraw.status_code == 204
    assert accept(client, second["id"]).status_code == 404
    assert client.get(survey_url(open_survey)).status_code == 404
    assert not open_survey.members.exists()


def test_nobody_but_the_addressee_answers_an_invitation(
    owner_api, open_survey, viewer, other_researcher
):
    invitation = invite(owner_api, open_survey, "vic").json()
    for client in (token_client(other_researcher), owner_api):
        assert accept(client, invitation["id"]).status_code == 404
        assert client.post(f"/api/v1/invitations/{invitation['id']}/decline/").status_code == 404
    assert token_client(other_researcher).get("/api/v1/invitations/").json() == []
    assert MemberInvitation.objects.filter(pk=invitation["id"]).exists()


def test_an_unverified_address_receives_no_survey_access(owner_api, open_survey):
    # Someone signs up with another person's address: it is theirs in name only.
    squatter = account("dana_real", email="dana@uni.example")
    client = token_client(squatter)
    invitation = invite(owner_api, open_survey, "dana@uni.example", "editor").json()
    assert client.get("/api/v1/invitations/").json() == []
    assert accept(client, invitation["id"]).status_code == 404
    assert client.get(survey_url(open_survey)).status_code == 404
    assert not open_survey.members.exists()
    # Once the address is verified (the link followed), the invitation reaches the account.
    VerifiedEmail.objects.create(
        user=squatter, email="dana@uni.example", verified_at=timezone.now()
    )
    assert [i["id"] for i in client.get("/api/v1/invitations/").json()] == [invitation["id"]]
    # ...and changing the address makes it unverified again.
    squatter.email = "other@uni.example"
    squatter.save()
    assert client.get("/api/v1/invitations/").json() == []


@pytest.mark.parametrize(
    ("body", "field", "needle"),
    [
        ({"user": "ghost", "role": "viewer"}, "user", "“ghost”"),
        ({"user": "owner", "role": "viewer"}, "user", "owns this survey"),
        ({"user": "vic", "role": "owner"}, "role", "owner"),
        ({"user": "vic@", "role": "viewer"}, "user", "not a valid email address"),
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
    assert not open_survey.member_invitations.exists()


def test_inviting_again_changes_the_offered_role(owner_api, open_survey, viewer):
    first = invite(owner_api, open_survey, "vic", "viewer").json()
    again = invite(owner_api, open_survey, "vic", "editor").json()
    assert again["id"] == first["id"] and again["role"] == "editor"
    add_member(survey=open_survey, user=account("ana"), role="viewer")
    member_again = invite(owner_api, open_survey, "ana")
    assert member_again.status_code == 400
    assert "already a member" in member_again.json()["errors"]["user"][0]


# --- adding by email: one answer whatever the address ---------------------------------------

ADDRESS_KINDS = ("verified", "unverified", "unknown")


def _addresses(kind, count):
    addresses = [f"{kind}{n}@lab.example" for n in range(count)]
    for n, address in enumerate(addresses):
        if kind != "unknown":
            account(f"{kind}{n}", email=address, verified=kind == "verified")
    return addresses


def _shape(body):
    """The answer without what differs by design from one request to the next."""
    return {
        key: (type(value).__name__ if key in ("id", "created_at", "email") else value)
        for key, value in body.items()
    }


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_adding_by_email_answers_the_same_whether_or_not_the_address_has_an_account(
    owner, make_survey, settings
):
    settings.MAIL_ENABLED = True
    settings.MEMBER_INVITE_RATE_LIMIT = None
    survey = make_survey()
    client = token_client(owner)
    rounds = 15
    addresses = {kind: _addresses(kind, rounds) for kind in ADDRESS_KINDS}
    invite(client, survey, "warm-up@lab.example", "editor")  # first-request costs
    timings = {kind: [] for kind in ADDRESS_KINDS}
    answers = {kind: [] for kind in ADDRESS_KINDS}
    for n in range(rounds):
        for kind in ADDRESS_KINDS:  # interleaved, so drift hits every kind alike
            started = time.perf_counter()
            response = invite(client, survey, addresses[kind][n], "editor")
            timings[kind].append(time.perf_counter() - started)
            answers[kind].append((response.status_code, _shape(response.json())))
    assert mail.wait_for_mail()
    # Status and body: identical, apart from the id, the time and the address itself.
    first = answers["unknown"][0]
    assert first[0] == 201 and first[1]["user_id"] is None and first[1]["username"] is None
    for kind in ADDRESS_KINDS:
        assert all(answer == first for answer in answers[kind]), kind
    # Time: the medians within a generous factor (each request does the same work: one row
    # stored for the address, one mail handed to a thread).
    medians = {kind: statistics.median(timings[kind]) for kind in ADDRESS_KINDS}
    assert max(medians.values()) < 2 * min(medians.values()), medians
    # The same mail went to every address, known or not, after the answers.
    sent = [m for m in django_mail.outbox if m.to[0].endswith("@lab.example")]
    assert sorted(m.to[0] for m in sent) == sorted(
        ["warm-up@lab.example", *(a for kind in ADDRESS_KINDS for a in addresses[kind])]
    )
    bodies = {m.body for m in sent}
    assert len(bodies) == 1
    assert "Workplace habits" in bodies.pop()


def test_without_mail_an_invitation_by_email_is_stored_and_nothing_is_sent(
    owner_api, open_survey, settings, django_capture_on_commit_callbacks
):
    settings.MAIL_ENABLED = False
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = invite(owner_api, open_survey, "new@lab.example")
    assert response.status_code == 201
    assert callbacks == []
    assert django_mail.outbox == []
    assert open_survey.member_invitations.get().email == "new@lab.example"


def test_invitations_are_limited_per_account(owner_api, open_survey, settings):
    settings.MEMBER_INVITE_RATE_LIMIT = "3/h"
    statuses = [invite(owner_api, open_survey, f"x{n}@lab.example").status_code for n in range(4)]
    assert statuses == [201, 201, 201, 429]
    assert open_survey.member_invitations.count() == 3
    # Reading the list is not limited.
    assert owner_api.get(members_url(open_survey)).status_code == 200


# --- ownership, by consent --------------------------------------------------------------------


def test_transfer_is_an_offer_that_needs_acceptance(owner, owner_api, open_survey, editor):
    add_member(survey=open_survey, user=editor, role="viewer")
    url = f"{survey_url(open_survey)}transfer/"
    offer = owner_api.post(url, {"user_id": editor.pk}, format="json")
    assert offer.status_code == 202
    assert (offer.json()["role"], offer.json()["username"]) == ("owner", "edith")
    survey = Survey.objects.get(pk=open_survey.pk)
    assert survey.owner == owner  # nothing moved yet
    client = token_client(editor)
    assert client.delete(survey_url(survey)).status_code == 403
    (mine,) = client.get("/api/v1/invitations/").json()
    assert mine["role"] == "owner"
    done = accept(client, mine["id"])
    assert done.status_code == 200
    assert done.json()["role"] == "owner"
    survey = Survey.objects.get(pk=open_survey.pk)
    assert survey.owner == editor
    # The old owner builds but no longer deletes; the new one does.
    assert (
        owner_api.patch(survey_url(survey), {"title": "Renamed"}, format="json").status_code == 200
    )
    assert owner_api.delete(survey_url(survey)).status_code == 403
    assert client.delete(survey_url(survey)).status_code == 204


def test_an_offer_goes_only_to_a_member_and_lapses_when_they_leave(
    owner_api, open_survey, editor, other_researcher
):
    url = f"{survey_url(open_survey)}transfer/"
    refused = owner_api.post(url, {"user_id": other_researcher.pk}, format="json")
    assert refused.status_code == 400
    assert str(other_researcher.pk) in refused.json()["errors"]["user_id"][0]
    add_member(survey=open_survey, user=editor, role="editor")
    offer = owner_api.post(url, {"user_id": editor.pk}, format="json").json()
    client = token_client(editor)
    assert client.delete(f"{members_url(open_survey)}{editor.pk}/").status_code == 204
    assert accept(client, offer["id"]).status_code == 404
    assert Survey.objects.get(pk=open_survey.pk).owner.username == "owner"


def test_pending_invitations_and_offers_count_towards_nobodys_quota(
    owner, make_survey, settings, editor
):
    settings.MAX_SURVEYS_PER_USER = 2
    surveys = [make_survey(title=f"S{n}") for n in range(2)]  # the owner is at the limit
    for survey in surveys:
        add_member(survey=survey, user=editor, role="editor")
        members.survey_transfer(survey=survey, by=owner, user_id=editor.pk)
    client = token_client(editor)
    assert len(client.get("/api/v1/invitations/").json()) == 2
    # Two offers wait, yet the editor's own room is untouched...
    mine = [services.survey_create(owner=editor, title=f"Mine {n}", questions=["Q?"]) for n in (1,)]
    assert Survey.objects.filter(owner=editor).count() == len(mine) == 1
    # ...and only accepting counts: one fits, the second would pass the limit.
    first, second = client.get("/api/v1/invitations/").json()
    assert accept(client, first["id"]).status_code == 200
    refused = accept(client, second["id"])
    assert refused.status_code == 400
    assert "limit of 2 surveys" in " ".join(refused.json()["errors"]["invitation"])
    assert Survey.objects.filter(owner=owner).count() == 1


def test_the_survey_list_includes_shared_surveys_with_the_role(
    owner, open_survey, viewer, make_survey
):
    add_member(survey=open_survey, user=viewer, role="viewer")
    own = make_survey(by=viewer, title="Vic's own")
    listed = token_client(viewer).get("/api/v1/surveys/").json()
    assert [(s["id"], s["role"]) for s in listed] == [(own.pk, "owner"), (open_survey.pk, "viewer")]


def test_role_change_leave_and_the_owner_cannot_leave(
    owner, owner_api, open_survey, editor, viewer
):
    add_member(survey=open_survey, user=editor, role="editor")
    add_member(survey=open_survey, user=viewer, role="viewer")
    url = f"{members_url(open_survey)}{viewer.pk}/"
    assert owner_api.patch(url, {"role": "editor"}, format="json").json()["role"] == "editor"
    assert owner_api.patch(url, {"role": "boss"}, format="json").status_code == 400
    # An editor may not remove someone else, but anyone may leave.
    assert token_client(editor).delete(url).status_code == 403
    assert token_client(viewer).delete(url).status_code == 204
    assert token_client(viewer).get(survey_url(open_survey)).status_code == 404
    own = owner_api.delete(f"{members_url(open_survey)}{owner.pk}/")
    assert own.status_code == 409
    assert "transfer" in own.json()["detail"]
    assert owner_api.delete(f"{members_url(open_survey)}{viewer.pk}/").status_code == 404


def test_a_trashed_survey_disappears_for_members_and_invitees(owner, open_survey, viewer):
    add_member(survey=open_survey, user=viewer, role="viewer")
    invitee = account("ivy")
    members.member_invite(survey=open_survey, by=owner, user="ivy", role="viewer")
    services.survey_delete(survey=open_survey)
    client = token_client(viewer)
    assert client.get("/api/v1/surveys/").json() == []
    assert client.get(f"{survey_url(open_survey)}responses.csv").status_code == 404
    assert client.get(members_url(open_survey)).status_code == 404
    assert token_client(invitee).get("/api/v1/invitations/").json() == []


@pytest.mark.django_db(transaction=True)
def test_accepting_locks_its_rows_inside_a_transaction_of_its_own(owner, make_survey):
    """Outside a test transaction, as in production: a ``select_for_update`` without its own
    ``atomic`` fails here on PostgreSQL, where a per-test transaction would hide it."""
    survey = make_survey()
    ed = account("ed")
    ed_client = token_client(ed)
    invitation = invite(token_client(owner), survey, "ed", "editor").json()
    assert accept(ed_client, invitation["id"]).status_code == 200
    offer = token_client(owner).post(
        f"{survey_url(survey)}transfer/", {"user_id": ed.pk}, format="json"
    )
    assert offer.status_code == 202
    assert accept(ed_client, offer.json()["id"]).json()["role"] == "owner"
    assert Survey.objects.get(pk=survey.pk).owner == ed
