"""The opt-in public results page: noisy counts, released at most once a day, reused on reload."""

import re
from datetime import timedelta
from fractions import Fraction

import numpy as np
import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone

import dpengine
from surveys import public_results, services
from surveys.models import PublicRelease

pytestmark = pytest.mark.django_db


def publish(survey, epsilon=1.0):
    return public_results.public_results_update(survey=survey, enabled=True, epsilon=epsilon)


def page_url(survey):
    return reverse("surveys:public-results", kwargs={"slug": survey.slug})


def shown_respondents(response):
    return int(
        re.search(r'data-stat="respondents">([\d,]+)<', response.content.decode())[1].replace(
            ",", ""
        )
    )


@pytest.fixture
def answered(grouped_survey, options, simulate):
    rng = np.random.default_rng(1)
    rows = [[options[i % 3]] for i in range(120)]
    return simulate(grouped_survey, rng.random((120, 2)) < 0.5, rows)


def test_an_unpublished_survey_has_no_public_page(answered, client):
    response = client.get(page_url(answered))
    assert response.status_code == 404
    assert "No public results here" in response.content.decode()
    assert client.get("/r/no-such-survey/").status_code == 404


def test_reloading_shows_the_same_release(answered, client):
    publish(answered)
    first = client.get(page_url(answered))
    assert first.status_code == 200
    assert [shown_respondents(client.get(page_url(answered))) for _ in range(5)] == [
        shown_respondents(first)
    ] * 5
    assert PublicRelease.objects.filter(survey=answered).count() == 1
    page = first.content.decode()
    assert "geometric (discrete Laplace) mechanism" in page
    assert "Respondents (noisy)" in page


def test_every_count_gets_its_share_of_epsilon(answered, monkeypatch):
    publish(answered, epsilon=0.9)
    calls = []

    def recording(value, *, sensitivity, epsilon, rng=None):
        calls.append((value, sensitivity, epsilon))
        return value

    monkeypatch.setattr(dpengine, "geometric_mechanism", recording)
    release = public_results.public_results_release(survey=answered)
    # 1 respondent count + 2 yes counts + 1 grouping question (its options: parallel).
    assert {epsilon for _value, _s, epsilon in calls} == {Fraction(9, 10) / 4}
    assert {sensitivity for _value, sensitivity, _e in calls} == {1}
    assert len(calls) == 1 + 2 + 3
    assert release.counts["respondents"] == 120
    assert (
        sum(release.counts[f"o{o.pk}"] for o in answered.grouping_questions.get().options.all())
        == 120
    )


def test_a_new_release_is_made_only_when_due_and_the_data_changed(answered, options, simulate):
    publish(answered)
    now = timezone.now()
    first = public_results.public_results_release(survey=answered, now=now)
    later = now + public_results.RELEASE_INTERVAL + timedelta(minutes=1)
    # A day later, nothing new: the same release.
    assert public_results.public_results_release(survey=answered, now=later) == first
    simulate(answered, [[True, True]] * 3, [[options[0]]] * 3)
    # New responses within the interval: still the same release.
    soon = now + timedelta(hours=2)
    assert public_results.public_results_release(survey=answered, now=soon) == first
    second = public_results.public_results_release(survey=answered, now=later)
    assert second != first and second.source_count == 123
    results = public_results.public_results(slug=answered.slug, now=later)
    assert results.releases == 2
    assert results.epsilon_spent == pytest.approx(2.0)


def test_a_closed_surveys_last_release_stays(answered):
    publish(answered)
    services.survey_close(survey=answered)
    now = timezone.now()
    public_results.public_results(slug=answered.slug, now=now)
    results = public_results.public_results(slug=answered.slug, now=now + timedelta(days=30))
    assert results.releases == 1
    assert results.next_release_earliest is None


def test_estimates_are_computed_from_the_noisy_counts(answered, monkeypatch):
    publish(answered)
    monkeypatch.setattr(dpengine, "geometric_mechanism", lambda value, **kwargs: value + 7)
    results = public_results.public_results(slug=answered.slug)
    question = answered.questions.first()
    assert results.respondents == 127
    assert results.rows[0].estimate == dpengine.estimate(
        yes=answered.tally(question.pk)[1] + 7,
        n=127,
        design=dpengine.CLASSIC,
        confidence=answered.confidence,
        method=answered.ci_method,
    )
    assert [o.respondents for o in results.groups[0].options] == [47, 47, 47]


def test_negative_noisy_counts_are_shown_as_zero_and_withheld(grouped_survey, monkeypatch):
    publish(grouped_survey)
    monkeypatch.setattr(dpengine, "geometric_mechanism", lambda value, **kwargs: value - 3)
    results = public_results.public_results(slug=grouped_survey.slug)
    assert results.respondents == 0
    assert all(row.suppressed for row in results.rows)
    assert [o.respondents for o in results.groups[0].options] == [0, 0, 0]


@pytest.mark.parametrize("epsilon", [0, -1, 0.01, 11, True, "1"])
def test_a_bad_epsilon_is_refused_naming_the_field(grouped_survey, epsilon):
    with pytest.raises(ValidationError) as error:
        public_results.public_results_update(survey=grouped_survey, enabled=True, epsilon=epsilon)
    assert set(error.value.message_dict) == {"public_epsilon"}


def test_the_owner_publishes_from_the_settings_page(grouped_survey, owner_client, client):
    url = reverse("surveys:public-settings", kwargs={"pk": grouped_survey.pk})
    response = owner_client.post(url, {"public_results": "on", "public_epsilon": "0.5"})
    assert response.status_code == 302
    grouped_survey.refresh_from_db()
    assert grouped_survey.public_results and grouped_survey.public_epsilon == 0.5
    assert page_url(grouped_survey) in owner_client.get(url).content.decode()
    bad = owner_client.post(url, {"public_results": "on", "public_epsilon": "0"})
    assert bad.status_code == 400
    assert "ε for the published counts" in bad.content.decode()
    owner_client.post(url, {"public_epsilon": "0.5"})  # unticked: unpublished
    assert client.get(page_url(grouped_survey)).status_code == 404
