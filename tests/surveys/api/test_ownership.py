"""Ownership and roles, generated from the URL configuration: every /api/v1/ route that takes
a survey id, with every method its view implements, is a 404 for a researcher who is not a
member, a 401/403 for an anonymous caller, a 403 for a member whose role is below the one the
view declares (``survey_roles``) and a 2xx for the owner and for members with the role.
A new route is covered without editing this file."""

from types import SimpleNamespace

import pytest
from django.contrib.auth import get_user_model
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.test import APIClient

from surveys import services
from surveys.exports import jobs as export_files
from surveys.models import MemberInvitation, Survey, SurveyMember
from surveys.selectors import ROLE_RANK
from surveys.services import export_jobs, invitations, members, tokens
from tests.helpers import add_member

pytestmark = pytest.mark.django_db

METHODS = ("get", "post", "put", "patch", "delete")
SURVEY_ID = "survey_id"
USER_ID = "user_id"
INVITATION_ID = "invitation_id"
JOB_ID = "job_id"


def _walk(patterns, prefix=""):
    for entry in patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            yield from _walk(entry.url_patterns, route)
        elif isinstance(entry, URLPattern):
            yield route, entry


def survey_routes():
    """(route, method) for every API route with a survey id, from the live URL configuration."""
    found = []
    for route, pattern in _walk(get_resolver().url_patterns):
        converters = getattr(pattern.pattern, "converters", {})
        view_class = getattr(pattern.callback, "view_class", None)
        if route.startswith("api/v1/") and SURVEY_ID in converters and view_class:
            found += [(route, m) for m in METHODS if hasattr(view_class, m)]
    return found


ROUTES = survey_routes()


def view_class_of(route):
    for found, pattern in _walk(get_resolver().url_patterns):
        if found == route:
            return pattern.callback.view_class
    raise LookupError(route)


def role_needed(route, method):
    return view_class_of(route).survey_roles[method]


# (route, method, member role) for each member role that is below / at least the route's.
REFUSED = [
    (route, method, role)
    for route, method in ROUTES
    for role in ("viewer", "editor")
    if ROLE_RANK[role] < ROLE_RANK[role_needed(route, method)]
]
ALLOWED = [
    (route, method, role)
    for route, method in ROUTES
    for role in ("viewer", "editor")
    if ROLE_RANK[role] >= ROLE_RANK[role_needed(route, method)]
]


def test_the_matrix_covers_every_researcher_route():
    assert {(route.split("/", 3)[-1], m) for route, m in ROUTES} >= {
        ("<int:survey_id>/", "get"),
        ("<int:survey_id>/", "patch"),
        ("<int:survey_id>/", "delete"),
        ("<int:survey_id>/open/", "post"),
        ("<int:survey_id>/close/", "post"),
        ("<int:survey_id>/estimates/", "get"),
        ("<int:survey_id>/estimates.csv", "get"),
        ("<int:survey_id>/responses.csv", "get"),
        ("<int:survey_id>/members/", "get"),
        ("<int:survey_id>/members/", "post"),
        ("<int:survey_id>/members/<int:user_id>/", "patch"),
        ("<int:survey_id>/members/<int:user_id>/", "delete"),
        ("<int:survey_id>/transfer/", "post"),
        ("<int:survey_id>/member-invitations/", "get"),
        ("<int:survey_id>/member-invitations/<int:invitation_id>/", "delete"),
        ("<int:survey_id>/invitations/", "get"),
        ("<int:survey_id>/invitations/", "post"),
        ("<int:survey_id>/invitations/<int:invitation_id>/", "delete"),
        ("<int:survey_id>/invitations/<int:invitation_id>/reset/", "post"),
        ("<int:survey_id>/invitations/remind/", "post"),
    }


# An export job's id where the caller has none (a survey that is not theirs, or no caller).
NO_JOB = "00000000-0000-4000-8000-000000000000"


def _url(route, survey_id, user_id=None, invitation_id=None, job_id=None):
    url = "/" + route.replace(f"<int:{SURVEY_ID}>", str(survey_id))
    url = url.replace(f"<uuid:{JOB_ID}>", str(job_id or NO_JOB))
    url = url.replace(f"<int:{INVITATION_ID}>", str(invitation_id or survey_id))
    return url.replace(f"<int:{USER_ID}>", str(user_id or survey_id))


# Writes whose empty body would be refused (400) rather than carried out.
BODIES = {
    ("members/", "post"): lambda cast: {"user": cast.newcomer.username, "role": "viewer"},
    ("members/<int:user_id>/", "patch"): lambda cast: {"role": "editor"},
    ("transfer/", "post"): lambda cast: {"user_id": cast.target.pk},
    ("invitations/", "post"): lambda cast: {"count": 1},
    ("release-batch/", "post"): lambda cast: {"responses": 1},
    ("invitations/sender/", "put"): lambda cast: {
        "contact_name": "Dr. Kim",
        "contact_email": "kim@example.org",
    },
}


def _body(route, method, cast):
    make = BODIES.get((route.split(f"<int:{SURVEY_ID}>/", 1)[-1], method))
    return make(cast) if make else {}


def _call(client, method, url, body=None):
    # An empty JSON object is a valid body for most writes here (PATCH changes nothing).
    if method not in ("post", "put", "patch"):
        return getattr(client, method)(url)
    return getattr(client, method)(url, body or {}, format="json")


@pytest.fixture
def cast(request, owner, make_survey, submit, settings, tmp_path):
    """The survey a route acts on (open with a response; a draft or a pilot for the pilot
    routes), a viewer, an editor, a viewer ``target`` whom member routes act on, and a
    ``newcomer`` who is no member yet."""
    route = (
        request.node.callspec.params.get("route", "") if hasattr(request.node, "callspec") else ""
    )
    survey = make_survey(status=STATUS_FOR_SUCCESS.get(route.split("/", 3)[-1], "open"))
    if route.split("/", 3)[-1] == "<int:survey_id>/release-batch/":
        # Batched by three (docs/invitations.md, "Batches"): one response held, then closed.
        services.survey_update(survey=survey, data={"release_batch": 3})
        survey = services.survey_open(survey=survey)
        submit(survey, [True, False])
        survey = services.survey_close(survey=survey)
    elif survey.status != "draft":
        submit(survey, [True, False])
    accounts = get_user_model().objects
    team = SimpleNamespace(survey=survey)
    for name, role in (("target", "viewer"), ("viewer", "viewer"), ("editor", "editor")):
        setattr(team, name, accounts.create_user(name, password="pw-correct-horse-42"))
        add_member(survey=survey, user=getattr(team, name), role=role)
    team.newcomer = accounts.create_user("newcomer", password="pw-correct-horse-42")
    # An invitation still waiting, for the routes that act on one (withdrawing it).
    team.invitation = members.member_invite(
        survey=survey, by=owner, user="pending@example.org", role="viewer"
    )
    # A finished export job, for the routes that read one.
    settings.EXPORT_DIR = tmp_path / "exports"
    job = export_jobs.export_job_start(survey=survey, user=owner, kind="reports", options={})
    team.job = export_files.export_job_run(job_id=job.pk)
    if route.split("/", 3)[-1].startswith("<int:survey_id>/invitations/"):
        # Respondent invitations (docs/invitations.md): the routes act on one of those.
        Survey.objects.filter(pk=survey.pk).update(access="both")
        survey.refresh_from_db()
        (made,) = invitations.invitations_create(survey=survey, count=1)
        team.invitation = SimpleNamespace(pk=made.id)
    return team


def _token_client(user):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {tokens.token_issue(user=user, name='t').key}")
    return client


def _state(survey):
    """What a refused write must leave as it was."""
    row = Survey.all_objects.get(pk=survey.pk)
    return (
        row.owner_id,
        row.status,
        row.deleted_at,
        row.title,
        list(row.questions.values_list("id", "text")),
        sorted(SurveyMember.objects.filter(survey=survey).values_list("user_id", "role")),
        sorted(MemberInvitation.objects.filter(survey=survey).values_list("id", "role")),
    )


@pytest.mark.parametrize(("route", "method"), ROUTES)
def test_another_researchers_survey_is_404(other_api, open_survey, submit, route, method):
    submit(open_survey, [True, False])
    response = _call(other_api, method, _url(route, open_survey.id))
    assert response.status_code == 404
    assert response.json() == {"detail": "Not found.", "errors": {}}
    assert response.json() == _call(other_api, method, _url(route, 10**9)).json()


@pytest.mark.parametrize(("route", "method"), ROUTES)
def test_anonymous_is_refused(anonymous_api, open_survey, route, method):
    response = _call(anonymous_api, method, _url(route, open_survey.id))
    assert response.status_code in (401, 403)
    assert response.json()["errors"] == {}


# Routes that succeed only from another state than open: starting a pilot takes a draft,
# discarding pilot responses takes a pilot.
# Releasing a last batch takes a closed survey that holds one (made from a draft by ``cast``).
STATUS_FOR_SUCCESS = {
    "<int:survey_id>/pilot/": "draft",
    "<int:survey_id>/discard-pilot/": "pilot",
    "<int:survey_id>/release-batch/": "draft",
}


@pytest.mark.parametrize(("route", "method"), ROUTES)
def test_the_owner_gets_a_success(owner_api, cast, route, method):
    url = _url(route, cast.survey.id, cast.target.pk, cast.invitation.pk, cast.job.pk)
    response = _call(owner_api, method, url, _body(route, method, cast))
    assert 200 <= response.status_code < 300, response.content


@pytest.mark.parametrize(("route", "method"), ROUTES)
def test_every_survey_route_declares_the_role_each_method_needs(route, method):
    assert role_needed(route, method) in ROLE_RANK


@pytest.mark.parametrize(("route", "method", "role"), REFUSED)
def test_a_member_below_the_routes_role_gets_403_and_nothing_changes(cast, route, method, role):
    before = _state(cast.survey)
    client = _token_client(getattr(cast, role))
    url = _url(route, cast.survey.id, cast.target.pk, cast.invitation.pk, cast.job.pk)
    response = _call(client, method, url, _body(route, method, cast))
    assert response.status_code == 403
    assert response.json()["errors"] == {}
    assert _state(cast.survey) == before


@pytest.mark.parametrize(("route", "method", "role"), ALLOWED)
def test_a_member_with_the_routes_role_gets_a_success(cast, route, method, role):
    client = _token_client(getattr(cast, role))
    url = _url(route, cast.survey.id, cast.target.pk, cast.invitation.pk, cast.job.pk)
    response = _call(client, method, url, _body(route, method, cast))
    assert 200 <= response.status_code < 300, response.content


def test_viewers_read_and_editors_build_as_the_readme_says():
    roles = {(r.split(f"<int:{SURVEY_ID}>/", 1)[-1], m): role_needed(r, m) for r, m in ROUTES}
    assert roles[("", "get")] == "viewer"
    assert roles[("estimates.csv", "get")] == "viewer"
    assert roles[("responses.csv", "get")] == "viewer"
    for download in ("codebook.csv", "export.zip", "export.xlsx", "responses.sav", "responses.dta"):
        assert roles[(download, "get")] == "viewer", download
    assert roles[("", "patch")] == "editor"
    assert roles[("open/", "post")] == "editor"
    assert roles[("close/", "post")] == "editor"
    assert roles[("", "delete")] == "owner"
    assert roles[("transfer/", "post")] == "owner"
    assert roles[("members/", "post")] == "owner"
    assert roles[("member-invitations/", "get")] == "owner"
    assert roles[("member-invitations/<int:invitation_id>/", "delete")] == "owner"
    assert roles[("invitations/", "get")] == "viewer"
    assert roles[("invitations/", "post")] == "editor"
    assert roles[("invitations/<int:invitation_id>/", "delete")] == "editor"
    assert roles[("invitations/<int:invitation_id>/reset/", "post")] == "editor"


@pytest.mark.parametrize(("route", "method"), ROUTES)
def test_a_signed_in_browser_of_another_researcher_gets_404(
    other_client, open_survey, route, method
):
    kwargs = {} if method == "get" else {"data": "{}", "content_type": "application/json"}
    response = getattr(other_client, method)(_url(route, open_survey.id), **kwargs)
    assert response.status_code == 404
