"""The privacy ledger is computed once per request: the results page and the respondent page
read it from the estimates or the explanation they already built, not again; the builder and
the public API's survey definition sum it once too."""

import pytest
from django.urls import reverse

import dpengine

pytestmark = pytest.mark.django_db


@pytest.fixture
def ledger_calls(monkeypatch):
    """Every ledger dpengine sums (selectors.mechanisms.privacy_ledger calls it once each)."""
    calls = []
    original = dpengine.privacy_ledger

    def counted(mechanisms):
        calls.append(len(mechanisms))
        return original(mechanisms)

    monkeypatch.setattr(dpengine, "privacy_ledger", counted)
    return calls


def test_the_results_page_sums_the_ledger_once(owner_client, mixed_survey, ledger_calls):
    response = owner_client.get(reverse("surveys:results", kwargs={"pk": mixed_survey.pk}))
    assert response.status_code == 200
    assert ledger_calls == [mixed_survey.questions.count()]


def test_the_respondent_page_sums_the_ledger_once(client, mixed_survey, ledger_calls):
    response = client.get(f"/s/{mixed_survey.slug}/")
    assert response.status_code == 200
    assert ledger_calls == [mixed_survey.questions.count()]


def test_the_builder_sums_the_ledger_once(owner_client, mixed_survey, ledger_calls):
    response = owner_client.get(reverse("surveys:builder", kwargs={"pk": mixed_survey.pk}))
    assert response.status_code == 200
    assert ledger_calls == [mixed_survey.questions.count()]


def test_the_public_api_definition_sums_the_ledger_once(respondent, mixed_survey, ledger_calls):
    response = respondent.get(f"/api/v1/public/surveys/{mixed_survey.slug}/")
    assert response.status_code == 200
    assert ledger_calls == [mixed_survey.questions.count()]
