"""Owner-only, generated from the URL configuration: every /api/v1/ route that takes a survey
id, with every method its view implements, is a 404 for another researcher, a 401/403 for an
anonymous caller and a 2xx for the owner. A new route is covered without editing this file."""

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

pytestmark = pytest.mark.django_db

METHODS = ("get", "post", "put", "patch", "delete")
SURVEY_ID = "survey_id"


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
    }


def _url(route, survey_id):
    return "/" + route.replace(f"<int:{SURVEY_ID}>", str(survey_id))


def _call(client, method, url):
    # An empty JSON object is a valid body for every write here (PATCH changes nothing).
    return getattr(client, method)(url, {} if method in ("post", "put", "patch") else None)


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
STATUS_FOR_SUCCESS = {"<int:survey_id>/pilot/": "draft", "<int:survey_id>/discard-pilot/": "pilot"}


@pytest.mark.parametrize(("route", "method"), ROUTES)
def test_the_owner_gets_a_success(owner_api, make_survey, submit, route, method):
    survey = make_survey(status=STATUS_FOR_SUCCESS.get(route.split("/", 3)[-1], "open"))
    if survey.status != "draft":
        submit(survey, [True, False])
    response = _call(owner_api, method, _url(route, survey.id))
    assert 200 <= response.status_code < 300


@pytest.mark.parametrize(("route", "method"), ROUTES)
def test_a_signed_in_browser_of_another_researcher_gets_404(
    other_client, open_survey, route, method
):
    kwargs = {} if method == "get" else {"data": "{}", "content_type": "application/json"}
    response = getattr(other_client, method)(_url(route, open_survey.id), **kwargs)
    assert response.status_code == 404
