"""Every survey page at once (surveys/views/common.py's ``member_view`` guards them all):
another researcher gets a 404 and an anonymous visitor the sign-in page on each route of the
URL map, its owner the page; the researcher pages are CSP-clean and label every input."""

import pytest
from django.urls import reverse

from surveys.models import Survey
from tests.helpers import markup
from tests.routes import GET_STATUS_FOR_OWNER, owner_routes, route_url

pytestmark = pytest.mark.django_db


def test_owner_route_table_covers_the_url_map():
    assert {pattern.name for pattern in owner_routes()} == set(GET_STATUS_FOR_OWNER)


@pytest.mark.parametrize("method", ["get", "post"])
@pytest.mark.parametrize("pattern", owner_routes(), ids=lambda p: p.name)
def test_another_researchers_survey_is_404_on_every_route(
    pattern, method, make_survey, other_client
):
    survey = make_survey()
    response = getattr(other_client, method)(route_url(pattern, survey), {"direction": "up"})
    assert response.status_code == 404
    survey.refresh_from_db()
    assert survey.status == Survey.Status.OPEN
    assert survey.questions.count() == 2


@pytest.mark.parametrize("pattern", owner_routes(), ids=lambda p: p.name)
def test_anonymous_visitors_are_sent_to_sign_in(pattern, open_survey, client):
    url = route_url(pattern, open_survey)
    response = client.get(url)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


@pytest.mark.parametrize("pattern", owner_routes(), ids=lambda p: p.name)
@pytest.mark.slow
def test_every_route_answers_its_owner(pattern, open_survey, owner_client):
    response = owner_client.get(route_url(pattern, open_survey))
    assert response.status_code == GET_STATUS_FOR_OWNER[pattern.name]


@pytest.mark.parametrize(
    "name", ["builder", "share", "results", "delete", "question-edit", "dashboard", "survey-new"]
)
def test_researcher_pages_are_csp_clean_and_label_every_input(name, open_survey, owner_client):
    kwargs = {} if name in {"dashboard", "survey-new"} else {"pk": open_survey.pk}
    if name == "question-edit":
        kwargs["qid"] = open_survey.questions.first().pk
    page = markup(owner_client.get(reverse(f"surveys:{name}", kwargs=kwargs)))
    assert page.style_attributes == 0
    assert page.inline_handlers == 0
    assert page.inline_scripts == 0
    assert len(page.ids) == len(set(page.ids)), "duplicate id"
    unlabelled = [
        field
        for field in page.inputs
        if field.get("id") not in page.labels_for and "aria-label" not in field
    ]
    assert unlabelled == []
