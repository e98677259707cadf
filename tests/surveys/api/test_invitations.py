"""Respondent invitations over the API: access, the list, codes by role, reset, revoke."""

import pytest
from django.contrib.auth import get_user_model

from surveys import selectors
from surveys.models import Invitation, Survey, SurveyTokenKey
from surveys.services import invitations
from tests.helpers import add_member, token_client


def url(survey, rest=""):
    return f"/api/v1/surveys/{survey.pk}/invitations/{rest}"


@pytest.fixture
def closed_study(make_survey):
    """An open invitation-only survey."""
    return make_survey(access="invitation")


def test_access_defaults_to_link_and_leaves_the_fingerprint_as_it_was(owner_api, make_survey):
    survey = make_survey(status="draft")
    assert survey.access == "link"
    before = selectors.survey_design_fingerprint(survey=survey)
    response = owner_api.patch(f"/api/v1/surveys/{survey.pk}/", {"access": "link"}, format="json")
    assert response.status_code == 200
    assert response.json()["access"] == "link"
    assert selectors.survey_design_fingerprint(survey=survey) == before
    Survey.objects.filter(pk=survey.pk).update(access="both")
    survey.refresh_from_db()
    assert selectors.survey_design_fingerprint(survey=survey) != before


def test_enabling_invitations_makes_the_surveys_key_once(owner_api, make_survey):
    survey = make_survey(status="draft")
    assert not SurveyTokenKey.objects.filter(survey=survey).exists()
    owner_api.patch(f"/api/v1/surveys/{survey.pk}/", {"access": "both"}, format="json")
    key = SurveyTokenKey.objects.get(survey=survey).public_key
    owner_api.patch(f"/api/v1/surveys/{survey.pk}/", {"access": "invitation"}, format="json")
    assert SurveyTokenKey.objects.get(survey=survey).public_key == key
    assert owner_api.post(f"/api/v1/surveys/{survey.pk}/open/").status_code == 200
    definition = owner_api.get(f"/api/v1/public/surveys/{survey.slug}/").json()
    assert definition["access"] == "invitation"
    assert definition["token_key"] == key
    assert definition["token_scheme"] == "RSABSSA-SHA384-PSS-Randomized"


def test_a_link_survey_publishes_no_key(anonymous_api, open_survey):
    definition = anonymous_api.get(f"/api/v1/public/surveys/{open_survey.slug}/").json()
    assert (definition["access"], definition["token_key"], definition["token_scheme"]) == (
        "link",
        None,
        None,
    )


def test_access_is_frozen_once_opened(owner_api, open_survey):
    response = owner_api.patch(
        f"/api/v1/surveys/{open_survey.pk}/", {"access": "invitation"}, format="json"
    )
    assert response.status_code == 409
    assert "access" in response.json()["errors"]
    open_survey.refresh_from_db()
    assert open_survey.access == "link"


def test_a_bad_access_is_a_400_naming_it(owner_api, make_survey):
    survey = make_survey(status="draft")
    response = owner_api.patch(f"/api/v1/surveys/{survey.pk}/", {"access": "all"}, format="json")
    assert response.status_code == 400
    assert "access" in response.json()["errors"]


def test_emails_make_one_invitation_each_deduplicated(owner_api, closed_study):
    response = owner_api.post(
        url(closed_study),
        {"emails": ["Ann@Example.org", "bo@example.org", "ann@example.org "]},
        format="json",
    )
    assert response.status_code == 201, response.content
    made = response.json()["invitations"]
    assert [row["email"] for row in made] == ["ann@example.org", "bo@example.org"]
    for row in made:
        assert row["revoked"] is False and row["pilot"] is False
        assert "status" not in row  # whether a code obtained its token is shown nowhere
        assert len(row["code"]) == 32  # 160 bits
        assert row["link"].endswith(f"/s/{closed_study.slug}/#invitation={row['code']}")
    # Asking again invites nobody twice.
    again = owner_api.post(url(closed_study), {"emails": ["bo@example.org"]}, format="json")
    assert again.json()["invitations"] == []
    assert Invitation.objects.filter(survey=closed_study).count() == 2


def test_a_bad_address_is_refused_naming_its_line_and_nothing_is_made(owner_api, closed_study):
    response = owner_api.post(
        url(closed_study), {"emails": ["a@example.org", "not-an-address"]}, format="json"
    )
    assert response.status_code == 400
    (message,) = response.json()["errors"]["emails"]
    assert message.startswith("Line 2:")
    assert not Invitation.objects.filter(survey=closed_study).exists()


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"count": 0}, "count"),
        ({"count": "3"}, "count"),
        ({"count": 1001}, "count"),
        ({"emails": []}, "emails"),
        ({"emails": "a@example.org"}, "emails"),
        ({}, "non_field_errors"),
        ({"count": 1, "emails": ["a@example.org"]}, "non_field_errors"),
        ({"count": 1, "role": "x"}, "role"),
    ],
)
def test_bad_requests_name_the_field(owner_api, closed_study, body, field):
    response = owner_api.post(url(closed_study), body, format="json")
    assert response.status_code == 400
    assert field in response.json()["errors"]
    assert not Invitation.objects.filter(survey=closed_study).exists()


def test_codes_are_distinct_and_stored_only_sealed(owner_api, closed_study):
    made = owner_api.post(url(closed_study), {"count": 50}, format="json").json()["invitations"]
    codes = {row["code"] for row in made}
    assert len(codes) == 50
    for invitation in Invitation.objects.filter(survey=closed_study):
        stored = f"{invitation.code_digest} {bytes(invitation.sealed_code)!r}"
        assert not any(code in stored for code in codes)
        assert not any(code.encode() in bytes(invitation.sealed_code) for code in codes)


def test_a_link_survey_takes_no_invitations(owner_api, open_survey):
    response = owner_api.post(url(open_survey), {"count": 2}, format="json")
    assert response.status_code == 409
    assert "access" in response.json()["errors"]


def test_viewers_see_counts_but_no_codes(owner_api, closed_study):
    owner_api.post(url(closed_study), {"emails": ["a@example.org"]}, format="json")
    accounts = get_user_model().objects
    viewer = accounts.create_user("viewer", password="pw-correct-horse-42")
    editor = accounts.create_user("editor", password="pw-correct-horse-42")
    add_member(survey=closed_study, user=viewer, role="viewer")
    add_member(survey=closed_study, user=editor, role="editor")
    seen_by_viewer = token_client(viewer).get(url(closed_study)).json()
    assert [(row["email"], row["code"], row["link"]) for row in seen_by_viewer["invitations"]] == [
        ("a@example.org", None, None)
    ]
    assert seen_by_viewer["counts"]["invited"] == 1
    seen_by_editor = token_client(editor).get(url(closed_study)).json()
    assert seen_by_editor["invitations"][0]["code"] is not None
    refused = token_client(viewer).post(url(closed_study), {"count": 1}, format="json")
    assert refused.status_code == 403


def test_reset_gives_a_new_code_the_old_stops_and_it_is_counted(owner_api, closed_study):
    (made,) = owner_api.post(url(closed_study), {"count": 1}, format="json").json()["invitations"]
    response = owner_api.post(url(closed_study, f"{made['id']}/reset/"))
    assert response.status_code == 200
    assert response.json()["code"] != made["code"]
    assert owner_api.get(url(closed_study)).json()["counts"]["resets"] == 1
    lookup = invitations.code_digest(made["code"])
    assert not Invitation.objects.filter(code_digest=lookup).exists()


def test_revoke_an_unused_invitation(owner_api, closed_study):
    (made,) = owner_api.post(url(closed_study), {"count": 1}, format="json").json()["invitations"]
    assert owner_api.delete(url(closed_study, f"{made['id']}/")).status_code == 204
    listed = owner_api.get(url(closed_study)).json()
    assert listed["invitations"][0]["revoked"] is True
    assert listed["counts"]["invited"] == 0
    assert listed["counts"]["revoked"] == 1
    # A revoked invitation gets no new code.
    assert owner_api.post(url(closed_study, f"{made['id']}/reset/")).status_code == 409


def test_another_surveys_invitation_is_a_404(owner_api, closed_study, make_survey):
    other = make_survey(access="both")
    (made,) = owner_api.post(url(other), {"count": 1}, format="json").json()["invitations"]
    assert owner_api.delete(url(closed_study, f"{made['id']}/")).status_code == 404
    assert owner_api.post(url(closed_study, f"{made['id']}/reset/")).status_code == 404


def test_reminders_go_to_unused_emailed_invitations_only(owner_api, closed_study):
    owner_api.post(url(closed_study), {"emails": ["a@example.org", "b@example.org"]}, format="json")
    owner_api.post(url(closed_study), {"count": 1}, format="json")
    Invitation.objects.filter(survey=closed_study).update(mail_pending="")
    Invitation.objects.filter(email="b@example.org").update(status="issued")
    response = owner_api.post(url(closed_study, "remind/"))
    assert response.status_code == 202
    assert response.json() == {"queued": 1}
    assert list(
        Invitation.objects.filter(survey=closed_study, mail_pending="reminder").values_list(
            "email", flat=True
        )
    ) == ["a@example.org"]


def test_revoking_answers_the_same_whether_or_not_the_code_obtained_its_token(
    owner_api, closed_study
):
    """A 409 for a used code would tell the researcher whose code obtained a token."""
    made = owner_api.post(url(closed_study), {"count": 2}, format="json").json()["invitations"]
    Invitation.objects.filter(pk=made[0]["id"]).update(status="issued")
    for row in made:
        assert owner_api.delete(url(closed_study, f"{row['id']}/")).status_code == 204
    assert set(Invitation.objects.filter(survey=closed_study).values_list("status", flat=True)) == {
        "revoked"
    }


def test_the_sender_is_set_by_editors_and_a_bad_address_is_named(owner_api, closed_study):
    sender = url(closed_study, "sender/")
    assert owner_api.get(sender).json() == {"contact_name": "", "contact_email": ""}
    bad = owner_api.put(sender, {"contact_name": "Dr. Park", "contact_email": "x"}, format="json")
    assert bad.status_code == 400 and "contact_email" in bad.json()["errors"]
    missing = owner_api.put(sender, {"contact_name": "Dr. Park"}, format="json")
    assert missing.status_code == 400 and "contact_email" in missing.json()["errors"]
    body = {"contact_name": "Dr. Park", "contact_email": "park@example.org"}
    assert owner_api.put(sender, body, format="json").json() == body
    viewer = get_user_model().objects.create_user("viewer", password="pw-correct-horse-42")
    add_member(survey=closed_study, user=viewer, role="viewer")
    assert token_client(viewer).get(sender).json() == body
    assert token_client(viewer).put(sender, body, format="json").status_code == 403


def test_a_bad_language_is_refused_naming_it(owner_api, closed_study):
    response = owner_api.post(url(closed_study), {"count": 1, "language": "xx"}, format="json")
    assert response.status_code == 400 and "language" in response.json()["errors"]
    assert not Invitation.objects.filter(survey=closed_study).exists()


def test_opening_a_pilot_names_a_bad_choice_for_its_invitations(owner_api, make_survey):
    pilot = make_survey(status="pilot", access="invitation")
    opened = f"/api/v1/surveys/{pilot.pk}/open/"
    bad = owner_api.post(opened, {"pilot_invitations": "keep"}, format="json")
    assert bad.status_code == 400 and "pilot_invitations" in bad.json()["errors"]
    unknown = owner_api.post(opened, {"other": 1}, format="json")
    assert unknown.status_code == 400 and "other" in unknown.json()["errors"]
    reissue = {"pilot_invitations": "reissue"}
    assert owner_api.post(opened, reissue, format="json").status_code == 200
