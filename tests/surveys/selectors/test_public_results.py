"""The opt-in public results page: noisy counts released on a fixed schedule under one budget."""

import re
from datetime import UTC, date, datetime, timedelta
from fractions import Fraction

import numpy as np
import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.urls import reverse

import dpengine
import dpengine.continual
from surveys import selectors, services
from surveys.models import PublicRelease, Survey
from surveys.services import public_release
from tests.helpers import EVERY_KIND_QUESTIONS, EVERY_KIND_SETTINGS


def published(slug, now):
    """The public page as a visitor sees it at ``now``: the releases due made, then read."""
    survey = selectors.public_results_survey(slug=slug)
    public_release.make_due_releases(survey=survey, today=selectors.utc_today(now))
    return selectors.public_results(survey=survey, now=now)


pytestmark = pytest.mark.django_db

START = date(2026, 1, 5)  # the day the page is switched on in most tests


def publish(survey, epsilon=1.0, *, today=START, release_days=None, releases=None):
    """Turn the page on as of ``today``; ``survey`` is refreshed, and also returned."""
    public_release.public_results_update(
        survey=survey,
        enabled=True,
        epsilon=epsilon,
        release_days=release_days,
        releases=releases,
        today=today,
    )
    survey.refresh_from_db()
    return survey


def on(day):
    return datetime(day.year, day.month, day.day, 12, tzinfo=UTC)


def page_url(survey):
    return reverse("surveys:public-results", kwargs={"slug": survey.slug})


def shown_respondents(response):
    return int(
        re.search(r'data-stat="respondents">([\d,]+)<', response.content.decode())[1].replace(
            ",", ""
        )
    )


def record(survey, n, *, on_day, options=None, seed=0):
    reports = np.random.default_rng(seed).random((n, survey.questions.count())) < 0.5
    services.simulated_submissions_record(
        survey=survey, reports=reports, options=options, received_on=on_day
    )
    survey.refresh_from_db()


@pytest.fixture
def no_noise(monkeypatch):
    monkeypatch.setattr(dpengine.continual, "sample_discrete_laplace", lambda scale, rng: 0)


@pytest.fixture
def answered(grouped_survey, options):
    """120 respondents, 40 per department, all received the day before START."""
    record(
        grouped_survey,
        120,
        on_day=START - timedelta(days=1),
        options=[[options[i % 3]] for i in range(120)],
    )
    return grouped_survey


def test_an_unpublished_survey_has_no_public_page(answered, client):
    response = client.get(page_url(answered))
    assert response.status_code == 404
    assert "No public results here" in response.content.decode()
    assert client.get("/r/no-such-survey/").status_code == 404


def test_reloading_shows_the_same_release(answered, client):
    publish(answered, today=datetime.now(UTC).date() - timedelta(days=1))
    first = client.get(page_url(answered))
    assert first.status_code == 200
    assert [shown_respondents(client.get(page_url(answered))) for _ in range(5)] == [
        shown_respondents(first)
    ] * 5
    assert PublicRelease.objects.filter(survey=answered).count() == 1
    page = first.content.decode()
    assert "geometric (discrete Laplace) mechanism" in page
    assert "binary-tree mechanism" in page
    assert "Respondents (noisy)" in page
    assert "(publication 1 of 30)" in page


def test_nothing_is_published_before_the_first_scheduled_date(answered):
    publish(answered)
    results = published(slug=answered.slug, now=on(START))
    assert results.step is None and results.rows == [] and results.respondents == 0
    assert results.status.next_release_on == START + timedelta(days=1)
    assert not PublicRelease.objects.filter(survey=answered).exists()


def test_every_count_gets_its_share_of_the_total_epsilon_for_the_whole_horizon(
    answered, monkeypatch
):
    publish(answered, epsilon=0.9, releases=12)
    calls = []
    original = dpengine.continual_counts

    def recording(increments, *, horizon, epsilon, nodes, rng):
        calls.append((horizon, epsilon))
        return original(increments, horizon=horizon, epsilon=epsilon, nodes=nodes, rng=rng)

    monkeypatch.setattr(dpengine, "continual_counts", recording)
    public_release.public_results_release(survey=answered, today=START + timedelta(days=1))
    # 1 respondent count + 2 yes counts + 1 grouping question (its options: parallel) share
    # 0.9 for all 12 releases; each count's stream is one tree over the 12 releases.
    assert set(calls) == {(12, Fraction(9, 10) / 4)}
    assert len(calls) == 1 + 2 + 3


def test_releases_follow_the_schedule_whatever_the_data(grouped_survey, options, no_noise):
    publish(grouped_survey, release_days=2, releases=10)
    # Nobody answers before the first release (day 2); 5 answer on day 3 and 7 on day 4.
    record(grouped_survey, 5, on_day=START + timedelta(days=3), options=[[options[0]]] * 5)
    record(grouped_survey, 7, on_day=START + timedelta(days=4), options=[[options[1]]] * 7)
    for day in range(8):  # a view every day, and a second one on some days
        today = START + timedelta(days=day)
        public_release.public_results_release(survey=grouped_survey, today=today)
        public_release.public_results_release(survey=grouped_survey, today=today)
    releases = list(PublicRelease.objects.filter(survey=grouped_survey).order_by("step"))
    # Dated every 2 days from START, one per date, whether or not anyone answered between.
    assert [r.released_at for r in releases] == [
        datetime.combine(START + timedelta(days=2 * k), datetime.min.time(), tzinfo=UTC)
        for k in (1, 2, 3)
    ]
    # Release k counts the submissions received before its date (noise switched off here).
    assert [r.counts["respondents"] for r in releases] == [0, 5, 12]
    assert [r.counts[f"o{options[1]}"] for r in releases] == [0, 0, 7]


def test_a_late_view_makes_every_missed_release_from_the_data_before_its_own_date(
    grouped_survey, options, no_noise
):
    publish(grouped_survey)
    for day in range(4):
        record(
            grouped_survey,
            day + 1,
            on_day=START + timedelta(days=day),
            options=[[options[2]]] * (day + 1),
            seed=day,
        )
    results = published(slug=grouped_survey.slug, now=on(START + timedelta(days=4)))
    releases = PublicRelease.objects.filter(survey=grouped_survey).order_by("step")
    assert [r.counts["respondents"] for r in releases] == [1, 3, 6, 10]
    assert results.step == 4 and results.respondents == 10
    assert results.released_on == START + timedelta(days=4)


def test_noise_is_drawn_once_per_tree_node_and_reused(answered):
    publish(answered, releases=8)
    rng = dpengine.SeededRandomSource(8)
    for day in range(1, 9):
        public_release.public_results_release(
            survey=answered, today=START + timedelta(days=day), rng=rng
        )
    releases = list(PublicRelease.objects.filter(survey=answered).order_by("step"))
    assert len(releases) == 8
    stored = {}
    for release in releases:
        for key, nodes in release.nodes.items():
            assert not set(nodes) & set(stored.get(key, {}))  # never drawn twice
            stored.setdefault(key, {}).update(nodes)
    for release in releases:
        for key, value in release.counts.items():
            assert value == sum(stored[key][n.key] for n in dpengine.prefix_nodes(release.step))


def test_when_the_budget_is_spent_releases_stop_and_the_page_says_so(answered):
    publish(answered, releases=3, release_days=7)
    results = published(slug=answered.slug, now=on(START + timedelta(days=400)))
    assert results.step == 3 and results.status.budget_spent
    assert results.status.next_release_on is None
    assert PublicRelease.objects.filter(survey=answered).count() == 3
    assert results.released_on == START + timedelta(days=21)


def test_the_public_page_shows_the_schedule_and_the_spent_budget(answered, client):
    publish(answered, releases=2, today=datetime.now(UTC).date() - timedelta(days=5))
    page = client.get(page_url(answered)).content.decode()
    assert 'data-releases-done="2" data-releases-max="2"' in page
    assert "The privacy budget is spent" in page
    assert "(publication 2 of 2)" in page


def test_a_closed_survey_gets_no_new_release_until_reopened(answered):
    publish(answered)
    public_release.public_results_release(survey=answered, today=START + timedelta(days=2))
    services.survey_close(survey=answered)
    answered.refresh_from_db()
    results = published(slug=answered.slug, now=on(START + timedelta(days=9)))
    assert results.step == 2 and results.status.closed
    assert results.status.next_release_on is None
    services.survey_open(survey=answered)
    answered.refresh_from_db()
    results = published(slug=answered.slug, now=on(START + timedelta(days=9)))
    assert results.step == 9


def test_estimates_are_computed_from_the_noisy_counts(answered, monkeypatch):
    publish(answered)
    monkeypatch.setattr(dpengine.continual, "sample_discrete_laplace", lambda scale, rng: 7)
    results = published(slug=answered.slug, now=on(START + timedelta(days=1)))
    question = answered.questions.first()
    assert results.respondents == 127  # release 1: one tree node per count, +7 each
    assert results.rows[0].estimate == dpengine.estimate_with_coverage(
        yes=selectors.survey_tallies(survey=answered).of(question.pk)[1] + 7,
        n=127,
        design=dpengine.CLASSIC,
        confidence=answered.confidence,
        method=answered.ci_method,
    )
    assert [o.respondents for o in results.groups[0].options] == [47, 47, 47]


def test_negative_noisy_counts_are_shown_as_zero_and_withheld(grouped_survey, monkeypatch):
    publish(grouped_survey)
    monkeypatch.setattr(dpengine.continual, "sample_discrete_laplace", lambda scale, rng: -3)
    results = published(slug=grouped_survey.slug, now=on(START + timedelta(days=1)))
    assert results.respondents == 0
    assert all(row.suppressed for row in results.rows)
    assert [o.respondents for o in results.groups[0].options] == [0, 0, 0]


def test_the_noise_shown_is_the_trees_at_that_release(answered):
    publish(answered, epsilon=2.0, releases=30)
    results = published(slug=answered.slug, now=on(START + timedelta(days=3)))
    # m = 4 counts, L = 5 levels for T = 30: node scale 5 * 4 / 2 = 10; release 3 = 2 + 1.
    assert results.status.node_scale == 10
    assert results.noise_sd == pytest.approx((2 * dpengine.discrete_laplace_variance(10)) ** 0.5)


@pytest.mark.parametrize(
    ("field", "kwargs"),
    [
        ("public_epsilon", {"epsilon": 0}),
        ("public_epsilon", {"epsilon": -1}),
        ("public_epsilon", {"epsilon": 0.01}),
        ("public_epsilon", {"epsilon": 11}),
        ("public_epsilon", {"epsilon": True}),
        ("public_epsilon", {"epsilon": "1"}),
        ("public_release_days", {"release_days": 0}),
        ("public_release_days", {"release_days": 1.5}),
        ("public_releases_max", {"releases": 0}),
        ("public_releases_max", {"releases": 366}),
    ],
)
def test_bad_settings_are_refused_naming_the_field(grouped_survey, field, kwargs):
    arguments = {"survey": grouped_survey, "enabled": True, "epsilon": 1.0, **kwargs}
    with pytest.raises(ValidationError) as error:
        public_release.public_results_update(**arguments)
    assert set(error.value.message_dict) == {field}


def test_the_budget_cannot_change_once_responses_were_published(answered):
    publish(answered)
    public_release.public_results_release(survey=answered, today=START + timedelta(days=1))
    with pytest.raises(ValidationError) as error:
        publish(answered, epsilon=2.0, releases=60)
    assert set(error.value.message_dict) == {"public_epsilon", "public_releases_max"}
    # Turning the page off and on again keeps the schedule and its releases.
    public_release.public_results_update(survey=answered, enabled=False, epsilon=1.0)
    survey = publish(answered, today=START + timedelta(days=20))
    assert survey.public_started_on == START
    assert PublicRelease.objects.filter(survey=answered).count() == 1


def test_without_responses_a_change_restarts_the_schedule(grouped_survey):
    publish(grouped_survey)
    public_release.public_results_release(survey=grouped_survey, today=START + timedelta(days=3))
    assert PublicRelease.objects.filter(survey=grouped_survey).count() == 3
    survey = publish(grouped_survey, epsilon=0.5, today=START + timedelta(days=3))
    assert survey.public_started_on == START + timedelta(days=3)
    assert not PublicRelease.objects.filter(survey=grouped_survey).exists()


def test_the_management_command_makes_the_due_releases(answered):
    publish(answered, today=datetime.now(UTC).date() - timedelta(days=2))
    call_command("public_releases", stdout=open("/dev/null", "w"))  # noqa: SIM115
    assert PublicRelease.objects.filter(survey=answered).count() == 2


def test_the_owner_publishes_from_the_settings_page(grouped_survey, owner_client, client):
    url = reverse("surveys:public-settings", kwargs={"pk": grouped_survey.pk})
    form = {
        "public_results": "on",
        "public_epsilon": "0.5",
        "public_release_days": "7",
        "public_releases_max": "12",
    }
    response = owner_client.post(url, form)
    assert response.status_code == 302
    grouped_survey.refresh_from_db()
    assert grouped_survey.public_results and grouped_survey.public_epsilon == 0.5
    assert (grouped_survey.public_release_days, grouped_survey.public_releases_max) == (7, 12)
    assert grouped_survey.public_started_on == datetime.now(UTC).date()
    page = owner_client.get(url).content.decode()
    assert page_url(grouped_survey) in page
    assert 'data-releases-done="0" data-releases-max="12"' in page
    assert "Schedule: every 7 days" in page
    bad = owner_client.post(url, {**form, "public_epsilon": "0"})
    assert bad.status_code == 400
    assert "Total ε for the public page" in bad.content.decode()
    owner_client.post(url, {**form, "public_results": ""})  # unticked: unpublished
    assert client.get(page_url(grouped_survey)).status_code == 404
    assert Survey.objects.get(pk=grouped_survey.pk).public_started_on is not None


def test_the_public_page_names_what_it_does_not_publish_by_kind(make_survey, client):
    """Counted from the questions and named by kind, not "multiple-choice or numeric" for
    every question it leaves out (issue 36 item 1); no link to the private results."""
    survey = make_survey(questions=EVERY_KIND_QUESTIONS, **EVERY_KIND_SETTINGS)
    today = date(2026, 1, 1)
    survey = public_release.public_results_update(
        survey=survey, enabled=True, epsilon=1.0, release_days=1, releases=4, today=today
    )
    page = selectors.public_results(survey=survey)
    kinds = [(group.kind, group.count) for group in page.left_out]
    assert kinds == [
        ("choice", 1),
        ("numeric", 1),
        ("direct", 1),
        ("text", 1),
        ("compared", 1),
        ("cheating", 1),
    ]
    assert page.left_out_questions == 6
    body = client.get(f"/r/{survey.slug}/").content.decode()
    notice = body.split('id="typed-questions-not-published"')[1].split("</div>")[0]
    assert "1 numeric question" in notice and "1 cheating-detection question" in notice
    assert "multiple-choice or numeric questions" not in body
    assert "<a " not in notice
