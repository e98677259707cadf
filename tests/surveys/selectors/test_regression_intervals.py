"""The intervals the regression shows: the exact ones with one grouping question, none with
several; infinite ends as null in the API and "—" on the page. The Wald fit stays in the API."""

import re
import tracemalloc

import numpy as np
import pytest
from django.db.models import F
from django.urls import reverse

import dpengine
from surveys import selectors, services
from surveys.models import GroupCell, GroupingTally, GroupTally, TallyShard
from surveys.selectors.regression import EXACT_METHOD
from surveys.services import grouping

pytestmark = pytest.mark.django_db


def store(survey, groups, *, seed):
    """``groups``: (option ids tuple, respondents, yes-reports to Q1) per cell."""
    rng = np.random.default_rng(seed)
    reports, rows = [], []
    for options, n, yes in groups:
        for i in range(n):
            reports.append([i < yes, rng.random() < 0.5])
            rows.append(list(options))
    services.simulated_submissions_record(
        survey=survey, reports=np.array(reports, dtype=bool), options=rows
    )
    survey.refresh_from_db()


def page_text(client, survey):
    response = client.get(reverse("surveys:regression", kwargs={"pk": survey.pk}))
    assert response.status_code == 200
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode()))


def test_one_grouping_question_shows_each_coefficients_exact_interval(
    grouped_survey, options, owner_api
):
    # Sales 40/100 yes-reports, Research 60/100, Support 55/100 under the classic coins.
    counts = {options[0]: (100, 40), options[1]: (100, 60), options[2]: (100, 55)}
    store(grouped_survey, [((o,), n, y) for o, (n, y) in counts.items()], seed=1)
    question = grouped_survey.questions.first()
    result = selectors.survey_regression(survey=grouped_survey, question=question)
    assert result.fitted and result.ci_method == EXACT_METHOD == "exact-product"
    group = {
        o: dpengine.estimate(yes=y, n=n, design=dpengine.CLASSIC) for o, (n, y) in counts.items()
    }
    intercept = dpengine.log_odds_interval(group=group[options[0]])
    assert (result.coefficients[0].ci_low, result.coefficients[0].ci_high) == tuple(intercept)
    for coefficient, option in zip(result.coefficients[1:], options[1:], strict=True):
        shown = dpengine.log_odds_ratio_interval(first=group[option], second=group[options[0]])
        assert (coefficient.ci_low, coefficient.ci_high) == tuple(shown)
        assert coefficient.ci_low < coefficient.estimate < coefficient.ci_high
        # Wider than Wald here: the price of coverage at every n.
        assert (
            coefficient.ci_high - coefficient.ci_low > coefficient.wald_high - coefficient.wald_low
        )

    body = owner_api.get(f"/api/v1/surveys/{grouped_survey.pk}/regression/").json()
    assert body["ci_method"] == "exact-product"
    rows = body["coefficients"]
    assert [r["ci_low"] for r in rows] == [c.ci_low for c in result.coefficients]
    assert [r["wald_ci_low"] for r in rows] == [c.wald_low for c in result.coefficients]
    assert rows[1]["odds_ratio_high"] == pytest.approx(np.exp(result.coefficients[1].ci_high))


def test_an_unbounded_end_is_null_in_the_api_and_a_dash_on_the_page(
    grouped_survey, options, owner_api, owner_client
):
    # Support: 4 yes-reports of 10 (rate 0.4, share 0.3) - its exact interval reaches a true
    # share of 0 (the rate's interval goes below b = 1/4), so the odds ratio has no lower end.
    store(
        grouped_survey,
        [((options[0],), 200, 100), ((options[1],), 200, 120), ((options[2],), 10, 4)],
        seed=2,
    )
    result = selectors.survey_regression(
        survey=grouped_survey, question=grouped_survey.questions.first()
    )
    support = result.coefficients[2]
    assert result.fitted and support.ci_low == -np.inf and np.isfinite(support.ci_high)
    assert support.unbounded and not result.coefficients[1].unbounded
    body = owner_api.get(f"/api/v1/surveys/{grouped_survey.pk}/regression/").json()
    row = body["coefficients"][2]
    assert row["ci_low"] is None and row["odds_ratio_low"] is None
    assert row["ci_high"] == support.ci_high and row["wald_ci_low"] is not None
    page = page_text(owner_client, grouped_survey)
    assert f"— to {support.ci_high:.3f}" in page
    assert "means unbounded" in page
    assert "at least 95% at any number of responses, each coefficient on its own" in page
    assert "Wald" not in page.split("Check it in R")[0]


def test_several_grouping_questions_show_no_interval_and_say_why(
    make_survey, owner_api, owner_client
):
    survey = make_survey(status="draft", min_n=5)
    grouping.grouping_question_add(survey=survey, text="Age?", options=["Young", "Old"])
    grouping.grouping_question_add(survey=survey, text="Site?", options=["North", "South"])
    survey = services.survey_open(survey=survey)
    age, site = (
        list(gq.options.values_list("id", flat=True)) for gq in survey.grouping_questions.all()
    )
    store(
        survey,
        [
            ((age[0], site[0]), 80, 40),
            ((age[0], site[1]), 80, 50),
            ((age[1], site[0]), 80, 45),
            ((age[1], site[1]), 80, 60),
        ],
        seed=3,
    )
    result = selectors.survey_regression(survey=survey, question=survey.questions.first())
    assert result.fitted and result.ci_method is None and not result.intervals_shown
    assert all(c.ci_low is None and c.ci_high is None for c in result.coefficients)
    assert all(np.isfinite(c.wald_low) for c in result.coefficients)
    body = owner_api.get(f"/api/v1/surveys/{survey.pk}/regression/").json()
    assert body["ci_method"] is None
    assert all(r["ci_low"] is None and r["odds_ratio_high"] is None for r in body["coefficients"])
    page = page_text(owner_client, survey)
    assert "Intervals for models with several grouping questions are not shown" in page
    assert " interval " not in page.split("Coefficients")[-1].split("Intervals for models")[0]
    korean = owner_client.get(
        reverse("surveys:regression", kwargs={"pk": survey.pk}), HTTP_ACCEPT_LANGUAGE="ko"
    ).content.decode()
    assert "집단 구분 문항이 여러 개인 모형의 구간은 표시하지 않습니다" in korean


def scale_stored_counts(survey, factor):
    """Every stored count of ``survey`` (its tallies and cells) ``factor`` times as large: the
    counts of ``factor`` copies of each response, without storing them."""
    GroupCell.objects.filter(question__survey=survey).update(
        report_count=F("report_count") * factor, yes_count=F("yes_count") * factor
    )
    for tally in GroupTally.objects.filter(option__grouping_question__survey=survey):
        tally.reports = {key: [c * factor for c in counts] for key, counts in tally.reports.items()}
        tally.save()
    GroupingTally.objects.filter(grouping_question__survey=survey).update(count=F("count") * factor)
    for shard in TallyShard.objects.filter(survey=survey):
        shard.responses *= factor
        shard.reports = {key: [c * factor for c in counts] for key, counts in shard.reports.items()}
        shard.save()


def test_one_grouping_question_of_three_options_at_a_million_responses_is_bounded(
    grouped_survey, options, owner_api, owner_client
):
    # Issue 34: at 200,000 responses the exact intervals built an (n_1 + 1) x (n_2 + 1) table
    # ("Unable to allocate 33.1 GiB") and the regression answered 500.
    counts = {options[0]: (30, 12), options[1]: (30, 18), options[2]: (30, 16)}
    store(grouped_survey, [((o,), n, y) for o, (n, y) in counts.items()], seed=2)
    factor = 11_112  # 333,360 responses in each group, a million in all
    scale_stored_counts(grouped_survey, factor)
    question = grouped_survey.questions.first()
    tracemalloc.start()
    try:
        result = selectors.survey_regression(survey=grouped_survey, question=question)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 50 * 2**20
    assert result.fitted and result.n == 90 * factor
    assert result.ci_method == EXACT_METHOD
    group = {
        o: dpengine.estimate(yes=y * factor, n=n * factor, design=dpengine.CLASSIC)
        for o, (n, y) in counts.items()
    }
    for coefficient, option in zip(result.coefficients[1:], options[1:], strict=True):
        shown = dpengine.log_odds_ratio_interval(first=group[option], second=group[options[0]])
        assert (coefficient.ci_low, coefficient.ci_high) == tuple(shown)
        assert coefficient.ci_low < coefficient.estimate < coefficient.ci_high
    response = owner_api.get(f"/api/v1/surveys/{grouped_survey.pk}/regression/")
    assert response.status_code == 200
    assert response.json()["n"] == 90 * factor
    assert "exact" in page_text(owner_client, grouped_survey)
