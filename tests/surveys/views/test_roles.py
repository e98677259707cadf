"""Co-researchers on the pages: the role matrix over every survey route, generated from the
URL map (each view declares the least role per method), and the members page itself."""

import re
from types import SimpleNamespace

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from surveys import selectors, services
from surveys.models import Survey, SurveyMember, VerifiedEmail
from surveys.selectors import accounts as selectors_accounts
from surveys.services import members
from tests.helpers import PASSWORD, add_member
from tests.routes import owner_routes, route_url, with_grouping_question

pytestmark = pytest.mark.django_db

# Routes that take a survey id but are not reached through member_view, each tested below.
OUTSIDE_THE_MATRIX = {"restore"}  # a survey in the owner's trash: nobody else's, members' neither
ROLES = ("viewer", "editor", "owner")

MATRIX_ROUTES = [p for p in owner_routes() if p.name not in OUTSIDE_THE_MATRIX]


def test_every_survey_page_declares_the_role_each_method_needs():
    undeclared = {p.name for p in owner_routes() if not getattr(p.callback, "survey_roles", None)}
    assert undeclared == OUTSIDE_THE_MATRIX
    for pattern in MATRIX_ROUTES:
        assert set(pattern.callback.survey_roles.values()) <= set(ROLES), pattern.name


def _case(pattern, method, role):
    needed = pattern.callback.survey_roles.get(method.upper())
    if needed is None:
        return 405
    return 403 if selectors.ROLE_RANK[role] < selectors.ROLE_RANK[needed] else "allowed"


CASES = [
    pytest.param(pattern, method, role, id=f"{pattern.name}-{method}-{role}")
    for pattern in MATRIX_ROUTES
    for method in ("get", "post")
    for role in ROLES
]


def links_to(html, url):
    """Whether ``html`` has a link to ``url`` itself (not to a longer address under it)."""
    return re.search(f'href="{re.escape(url)}["#?]', html) is not None


def login(user):
    browser = Client()
    browser.force_login(user)
    return browser


@pytest.fixture
def team(owner, make_survey):
    """An open survey with a grouping question; members ``target`` (first, whom the member
    routes act on), ``viewer`` and ``editor``."""
    survey = make_survey()
    with_grouping_question(survey)
    accounts = get_user_model().objects
    cast = SimpleNamespace(survey=survey, owner=owner)
    for name, role in (("target", "viewer"), ("viewer", "viewer"), ("editor", "editor")):
        setattr(cast, name, accounts.create_user(name, password=PASSWORD, email=f"{name}@x.org"))
        add_member(survey=survey, user=getattr(cast, name), role=role)
    # An invitation still waiting, for the route that withdraws one.
    cast.invitation = members.member_invite(
        survey=survey, by=owner, user="pending@x.org", role="viewer"
    )
    return cast


def state(survey):
    row = Survey.all_objects.get(pk=survey.pk)
    return (
        row.owner_id,
        row.status,
        row.deleted_at,
        row.title,
        row.public_results,
        list(row.questions.values_list("id", "position", "text")),
        list(row.grouping_questions.values_list("id", "text")),
        sorted(SurveyMember.objects.filter(survey=survey).values_list("user_id", "role")),
    )


@pytest.mark.parametrize(("pattern", "method", "role"), CASES)
@pytest.mark.slow
def test_each_role_gets_what_the_route_declares(team, pattern, method, role):
    expected = _case(pattern, method, role)
    before = state(team.survey)
    url = route_url(pattern, team.survey)
    response = getattr(login(getattr(team, role)), method)(url, {"direction": "up"})
    if expected == "allowed":
        assert response.status_code not in (403, 404, 405, 500), response.status_code
    else:
        assert response.status_code == expected
        assert state(team.survey) == before


def test_viewers_read_and_editors_build_as_the_readme_says():
    roles = {p.name: p.callback.survey_roles for p in MATRIX_ROUTES}
    for name in [
        "results",
        "estimates-csv",
        "responses-csv",
        "responses-sav",
        "responses-dta",
        "codebook-csv",
        "export-zip",
        "export-xlsx",
        "r-export",
        "breakdown",
    ]:
        assert roles[name] == {"GET": "viewer", "HEAD": "viewer"}, name
    for name in ["regression", "planner", "preview", "members"]:
        assert roles[name]["GET"] == "viewer", name
    assert roles["public-settings"] == {"GET": "viewer", "HEAD": "viewer", "POST": "editor"}
    for name in ["builder", "question-add", "grouping-add", "open", "close", "share", "qr"]:
        assert "viewer" not in roles[name].values() and "editor" in roles[name].values(), name
    for name in ["delete", "duplicate", "transfer", "member-role", "member-remove"]:
        assert set(roles[name].values()) == {"owner"}, name
    assert roles["members"]["POST"] == "owner"


# --- what each role sees ------------------------------------------------------------------


def test_the_dashboard_lists_surveys_shared_with_me_and_my_role(team):
    page = login(team.viewer).get(reverse("surveys:dashboard")).content.decode()
    assert "Shared with me" in page
    assert team.survey.title in page
    assert "Viewer" in page
    assert reverse("surveys:results", kwargs={"pk": team.survey.pk}) in page
    assert not links_to(page, reverse("surveys:builder", kwargs={"pk": team.survey.pk}))
    editor_page = login(team.editor).get(reverse("surveys:dashboard")).content.decode()
    assert links_to(editor_page, reverse("surveys:builder", kwargs={"pk": team.survey.pk}))
    assert (
        "Shared with me" not in login(team.owner).get(reverse("surveys:dashboard")).content.decode()
    )


def test_a_viewer_sees_results_without_edit_controls(team):
    browser = login(team.viewer)
    builder = reverse("surveys:builder", kwargs={"pk": team.survey.pk})
    results = browser.get(reverse("surveys:results", kwargs={"pk": team.survey.pk}))
    assert results.status_code == 200
    assert not links_to(results.content.decode(), builder)
    assert "Shared with you as viewer by owner" in results.content.decode()
    public = browser.get(reverse("surveys:public-settings", kwargs={"pk": team.survey.pk}))
    html = public.content.decode()
    assert "disabled" in html and 'type="submit" class="button">Save' not in html
    csv = browser.get(reverse("surveys:responses-csv", kwargs={"pk": team.survey.pk}))
    assert csv.status_code == 200 and csv["Content-Type"].startswith("text/csv")


def test_an_editor_builds_but_cannot_delete_or_manage_members(team):
    browser = login(team.editor)
    html = browser.get(reverse("surveys:builder", kwargs={"pk": team.survey.pk})).content.decode()
    assert reverse("surveys:delete", kwargs={"pk": team.survey.pk}) not in html
    assert reverse("surveys:duplicate", kwargs={"pk": team.survey.pk}) not in html
    members_page = browser.get(reverse("surveys:members", kwargs={"pk": team.survey.pk}))
    assert 'name="user"' not in members_page.content.decode()  # no invitation form
    draft = services.survey_create(owner=team.owner, title="Draft", questions=["Q1?"])
    add_member(survey=draft, user=team.editor, role="editor")
    response = browser.post(
        reverse("surveys:question-add", kwargs={"pk": draft.pk}), {"text": "Added by an editor?"}
    )
    assert response.status_code == 302
    assert list(draft.questions.values_list("text", flat=True)) == ["Q1?", "Added by an editor?"]


def test_a_trashed_survey_is_gone_for_its_members_too(team, client):
    services.survey_delete(survey=team.survey)
    for role in ("viewer", "editor"):
        browser = login(getattr(team, role))
        assert (
            browser.get(reverse("surveys:results", kwargs={"pk": team.survey.pk})).status_code
            == 404
        )
        assert (
            browser.post(reverse("surveys:restore", kwargs={"pk": team.survey.pk})).status_code
            == 404
        )
        assert team.survey.title not in browser.get(reverse("surveys:dashboard")).content.decode()
        assert team.survey.title not in browser.get(reverse("surveys:trash")).content.decode()
    assert Survey.all_objects.get(pk=team.survey.pk).deleted_at is not None


# --- the members page ---------------------------------------------------------------------


def members_url(survey):
    return reverse("surveys:members", kwargs={"pk": survey.pk})


@pytest.mark.slow
def test_the_owner_invites_by_username_or_email_and_nothing_is_granted_before_acceptance(
    owner, make_survey
):
    survey = make_survey()
    accounts = get_user_model().objects
    ana = accounts.create_user("ana", password=PASSWORD)
    bo = accounts.create_user("bo", password=PASSWORD, email="Bo@Example.org")
    VerifiedEmail.objects.create(user=bo, email="bo@example.org", verified_at=timezone.now())
    browser = login(owner)
    assert browser.post(members_url(survey), {"user": "ana", "role": "editor"}).status_code == 302
    assert (
        browser.post(members_url(survey), {"user": "bo@example.org", "role": "viewer"}).status_code
        == 302
    )
    assert not survey.members.exists()
    page = browser.get(members_url(survey)).content.decode()
    assert "Waiting for an answer" in page and "ana" in page and "bo@example.org" in page
    results = reverse("surveys:results", kwargs={"pk": survey.pk})
    for invitee in (ana, bo):
        assert login(invitee).get(results).status_code == 404
        assert (
            survey.title not in login(invitee).get(reverse("surveys:survey-new")).content.decode()
        )

    # Each invitee accepts on their dashboard.
    for invitee in (ana, bo):
        dashboard = login(invitee).get(reverse("surveys:dashboard")).content.decode()
        assert "Invitations for you" in dashboard
        invitation = selectors_accounts.member_invitations_for(user=invitee)[0]
        accept = reverse("surveys:invitation-accept", kwargs={"iid": invitation.pk})
        assert f'action="{accept}"' in dashboard
        assert login(invitee).post(accept).status_code == 302
        assert login(invitee).get(results).status_code == 200
    got = sorted(survey.members.values_list("user__username", "role", "invited_by__username"))
    assert got == [("ana", "editor", "owner"), ("bo", "viewer", "owner")]
    assert not survey.member_invitations.exists()


def test_a_declined_or_withdrawn_invitation_grants_nothing(owner, make_survey):
    survey = make_survey()
    ana = get_user_model().objects.create_user("ana", password=PASSWORD)
    browser = login(owner)
    browser.post(members_url(survey), {"user": "ana", "role": "viewer"})
    invitation = survey.member_invitations.get()
    decline = reverse("surveys:invitation-decline", kwargs={"iid": invitation.pk})
    assert login(ana).post(decline).status_code == 302
    assert not survey.member_invitations.exists() and not survey.members.exists()
    # Answered: the same link is a 404 now.
    assert login(ana).post(decline).status_code == 404
    browser.post(members_url(survey), {"user": "ana", "role": "viewer"})
    invitation = survey.member_invitations.get()
    withdraw = reverse(
        "surveys:invitation-withdraw", kwargs={"pk": survey.pk, "iid": invitation.pk}
    )
    assert browser.post(withdraw).status_code == 302
    accept = reverse("surveys:invitation-accept", kwargs={"iid": invitation.pk})
    assert login(ana).post(accept).status_code == 404
    assert not survey.members.exists()


def test_only_the_addressee_answers_an_invitation(owner, make_survey, other_researcher):
    survey = make_survey()
    get_user_model().objects.create_user("ana", password=PASSWORD)
    login(owner).post(members_url(survey), {"user": "ana", "role": "editor"})
    invitation = survey.member_invitations.get()
    for name in ("invitation-accept", "invitation-decline"):
        url = reverse(f"surveys:{name}", kwargs={"iid": invitation.pk})
        assert login(other_researcher).post(url).status_code == 404
        assert login(owner).post(url).status_code == 404
    assert survey.member_invitations.get() == invitation
    assert not survey.members.exists()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"user": "nobody-here", "role": "viewer"}, "No account has the username “nobody-here”."),
        ({"user": "owner", "role": "viewer"}, "“owner” owns this survey."),
        ({"user": "ana", "role": "admin"}, "admin"),
        ({"user": "", "role": "viewer"}, "This field is required."),
        ({"user": "ana@", "role": "viewer"}, "“ana@” is not a valid email address."),
    ],
)
def test_a_refused_invitation_says_why_and_stores_nothing(owner, make_survey, data, message):
    survey = make_survey()
    get_user_model().objects.create_user("ana", password=PASSWORD)
    response = login(owner).post(members_url(survey), data)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not survey.members.exists()
    assert not survey.member_invitations.exists()


def test_invitations_from_one_account_are_limited(owner, make_survey, settings):
    settings.MEMBER_INVITE_RATE_LIMIT = "2/h"
    survey = make_survey()
    browser = login(owner)
    statuses = [
        browser.post(members_url(survey), {"user": f"x{n}@example.org", "role": "viewer"})
        for n in range(3)
    ]
    assert [r.status_code for r in statuses] == [302, 302, 429]
    assert "Too many invitations" in statuses[-1].content.decode()
    assert survey.member_invitations.count() == 2


def test_inviting_a_member_twice_is_refused(team):
    response = login(team.owner).post(
        members_url(team.survey), {"user": "viewer", "role": "editor"}
    )
    assert response.status_code == 400
    assert "“viewer” is already a member of this survey" in response.content.decode()
    assert team.survey.members.get(user=team.viewer).role == "viewer"


def test_the_owner_changes_a_role_and_removes_a_member(team):
    browser = login(team.owner)
    role_url = reverse("surveys:member-role", kwargs={"pk": team.survey.pk, "uid": team.viewer.pk})
    assert browser.post(role_url, {"role": "editor"}).status_code == 302
    assert team.survey.members.get(user=team.viewer).role == "editor"
    assert browser.post(role_url, {"role": "owner"}).status_code == 400
    remove_url = reverse(
        "surveys:member-remove", kwargs={"pk": team.survey.pk, "uid": team.viewer.pk}
    )
    assert browser.post(remove_url).status_code == 302
    assert (
        login(team.viewer)
        .get(reverse("surveys:results", kwargs={"pk": team.survey.pk}))
        .status_code
        == 404
    )


def test_a_member_leaves_and_the_owner_cannot(team):
    leave_url = reverse("surveys:member-leave", kwargs={"pk": team.survey.pk})
    assert login(team.editor).post(leave_url).status_code == 302
    assert not team.survey.members.filter(user=team.editor).exists()
    response = login(team.owner).post(leave_url)
    assert response.status_code == 409
    assert "The owner cannot leave" in response.content.decode()


def test_transfer_is_an_offer_the_new_owner_accepts(team):
    browser = login(team.owner)
    url = reverse("surveys:transfer", kwargs={"pk": team.survey.pk})
    assert browser.get(url).status_code == 200
    assert browser.post(url, {"user_id": team.editor.pk}).status_code == 302
    team.survey.refresh_from_db()
    assert team.survey.owner == team.owner  # nothing changes before the editor accepts
    assert "Offered to editor" in browser.get(url).content.decode()
    delete_url = reverse("surveys:delete", kwargs={"pk": team.survey.pk})
    assert login(team.editor).get(delete_url).status_code == 403

    offer = team.survey.member_invitations.get(role="owner")
    dashboard = login(team.editor).get(reverse("surveys:dashboard")).content.decode()
    assert "offers you ownership" in dashboard
    accept = reverse("surveys:invitation-accept", kwargs={"iid": offer.pk})
    assert login(team.editor).post(accept).status_code == 302
    team.survey.refresh_from_db()
    assert team.survey.owner == team.editor
    assert team.survey.members.get(user=team.owner).role == "editor"
    assert not team.survey.members.filter(user=team.editor).exists()
    # Now only the new owner deletes; the old one builds.
    assert browser.get(delete_url).status_code == 403
    assert login(team.editor).get(delete_url).status_code == 200


def test_a_declined_offer_changes_nothing(team):
    login(team.owner).post(
        reverse("surveys:transfer", kwargs={"pk": team.survey.pk}), {"user_id": team.editor.pk}
    )
    offer = team.survey.member_invitations.get(role="owner")
    assert (
        login(team.editor)
        .post(reverse("surveys:invitation-decline", kwargs={"iid": offer.pk}))
        .status_code
        == 302
    )
    team.survey.refresh_from_db()
    assert team.survey.owner == team.owner
    assert team.survey.members.get(user=team.editor).role == "editor"


def test_transfer_goes_only_to_a_member(team, other_researcher):
    url = reverse("surveys:transfer", kwargs={"pk": team.survey.pk})
    response = login(team.owner).post(url, {"user_id": other_researcher.pk})
    assert response.status_code == 400
    team.survey.refresh_from_db()
    assert team.survey.owner == team.owner
    assert not team.survey.member_invitations.filter(role="owner").exists()


def test_limits_count_owned_surveys_and_an_offer_counts_only_once_accepted(team, settings):
    settings.MAX_SURVEYS_PER_USER = 1
    # Being a member of someone else's survey takes none of the editor's own room...
    services.survey_create(owner=team.editor, title="Mine", questions=["Q?"])
    # ...nor does an offer, which is made...
    offer = members.survey_transfer(survey=team.survey, by=team.owner, user_id=team.editor.pk)
    assert Survey.objects.filter(owner=team.editor).count() == 1
    # ...but accepting one that would give them a second survey is refused, naming the field.
    with pytest.raises(ValidationError) as refused:
        members.invitation_accept(invitation=offer, user=team.editor)
    assert "limit of 1 surveys" in str(refused.value)
    team.survey.refresh_from_db()
    assert team.survey.owner == team.owner
    # On the page, the refusal is a message on the dashboard.
    accept = reverse("surveys:invitation-accept", kwargs={"iid": offer.pk})
    followed = login(team.editor).post(accept, follow=True)
    assert "limit of 1 surveys" in followed.content.decode()


def test_an_editors_question_counts_towards_the_owners_question_limit(team, settings):
    draft = services.survey_create(owner=team.owner, title="Draft", questions=["Q1?"])
    add_member(survey=draft, user=team.editor, role="editor")
    settings.MAX_QUESTIONS_PER_USER = 3  # the owner's surveys hold 2 + 1 questions already
    response = login(team.editor).post(
        reverse("surveys:question-add", kwargs={"pk": draft.pk}), {"text": "One too many?"}
    )
    assert response.status_code == 400
    assert draft.questions.count() == 1
