"""The estimate shown lies inside the interval shown, on every page, API row and CSV row
(issue 23, item 2), swept over extreme data: every group all-yes, all-no, empty, n = 1.

The convention (docs/statistics.md, "What is shown"): the headline is the clamped estimate
with the clipped interval (a choice option: its consistent share with its simultaneous
interval); the unbiased value is in the table, the API and the CSV, labelled ``unbiased``.
Pages are read as shown (the formatted text of the cells marked ``data-shown``), so rounding
is checked too; the API and the CSV by their numbers.
"""

import csv
import io
import math
import re
from datetime import timedelta

import numpy as np
import pytest
from django.urls import reverse
from django.utils import timezone

from surveys import services
from surveys.services import grouping, public_release
from tests.helpers import MIXED_QUESTIONS

pytestmark = pytest.mark.django_db

NUMBER = re.compile(r"[-−+]?\d[\d,]*(?:\.\d+)?")
HIGH, LOW = 30 + 40, 0 - 40  # numeric reports well beyond 0–30 (ε = 2: scale 15)


def RECEIVED_ON():
    """Two days ago: the public page switched on yesterday publishes these today."""
    return timezone.now().date() - timedelta(days=2)


def extreme_reports(kind, n):
    """``n`` rows of reports of MIXED_QUESTIONS, all at one extreme: "yes" or "no" reported,
    the first or last option, a number far above or below the range."""
    row = {
        "high": [True, True, 0, HIGH],
        "low": [False, False, 2, LOW],
    }[kind]
    return np.array([row] * n, dtype=object)


def grouped_extreme_survey(make_survey, *, sizes):
    """MIXED_QUESTIONS with a grouping question; group i gets ``sizes[i] = (kind, n)``."""
    survey = make_survey(questions=MIXED_QUESTIONS, min_n=1, status="draft")
    group = grouping.grouping_question_add(
        survey=survey, text="Team?", options=[f"T{i}" for i in range(len(sizes))]
    )
    survey = services.survey_open(survey=survey)
    ids = [option.pk for option in group.options.all()]
    rows, chosen = [], []
    for option, (kind, n) in zip(ids, sizes, strict=True):
        if n:
            rows.append(extreme_reports(kind, n))
            chosen += [[option]] * n
    if rows:
        reports = np.concatenate(rows)
        services.simulated_submissions_record(
            survey=survey, reports=reports, options=chosen, received_on=RECEIVED_ON()
        )
    survey.refresh_from_db()
    return survey


SCENARIOS = {
    # The case: 7 all-yes against 13 all-no, a group of one, an empty group.
    "yes7-no13-one-empty": [("high", 7), ("low", 13), ("high", 1), ("low", 0)],
    "all-yes": [("high", 5), ("high", 3)],
    "all-no": [("low", 4), ("low", 9)],
    "n1-each": [("high", 1), ("low", 1)],
    "one-respondent": [("low", 1), ("high", 0)],
    "empty": [("high", 0), ("low", 0)],
    "large-all-yes-all-no": [("high", 300), ("low", 200)],
}


def numbers(text):
    plain = text.replace("−", "-").replace(",", "").replace("+", "")
    return [float(x) for x in NUMBER.findall(plain)]


def shown_pairs(html):
    """``(estimate, low, high)`` as shown, for each table row with a ``data-shown`` estimate
    (or difference) and its interval."""
    pairs = []
    for row in re.findall(r"<tr\b.*?</tr>", html, flags=re.S):
        cells = dict(re.findall(r'data-shown="([a-z-]+)">(.*?)</td>', row, flags=re.S))
        for point, interval in (("estimate", "interval"), ("difference", "difference-interval")):
            if point in cells:
                (value,) = numbers(re.sub(r"<.*?>", "", cells[point]))
                low, high = numbers(re.sub(r"<.*?>", "", cells[interval]))
                pairs.append((point, value, low, high))
    return pairs


def assert_inside(pairs, where):
    for name, value, low, high in pairs:
        assert low <= value <= high, f"{where}: {name} {value} outside [{low}, {high}]"


@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.slow
def test_no_page_shows_an_estimate_outside_its_interval(scenario, make_survey, owner_client):
    survey = grouped_extreme_survey(make_survey, sizes=SCENARIOS[scenario])
    for name in ("surveys:results", "surveys:breakdown"):
        for method in ("wilson", "exact", "wald", "jeffreys"):
            response = owner_client.get(
                reverse(name, args=[survey.pk]), {"method": method, "confidence": "0.95"}
            )
            assert response.status_code == 200
            pairs = shown_pairs(response.content.decode())
            assert_inside(pairs, f"{name} {method}")
            if survey.response_count and name == "surveys:results":
                # yes/no ×2, 3 options, mean and share above: all shown.
                assert sum(p[0] == "estimate" for p in pairs) == 7
                # The choice question's three shares as shown: never negative, and adding up
                # to 100 % up to the rounding of each to 0.1 point.
                choice = [p[1] for p in pairs[2:5]]
                assert min(choice) >= 0 and abs(sum(choice) - 100) <= 0.15
    if scenario == "yes7-no13-one-empty":
        html = owner_client.get(reverse("surveys:breakdown", args=[survey.pk])).content.decode()
        differences = [p for p in shown_pairs(html) if p[0] == "difference"]
        # The "+125.3 points" next to "+56.1 to +100.0": now +100.0 inside.
        assert any(p[1] == 100.0 for p in differences)
        assert_inside(differences, "breakdown differences")


@pytest.mark.parametrize("scenario", ["n1-each", "yes7-no13-one-empty", "large-all-yes-all-no"])
def test_public_results_show_estimates_inside_their_intervals(scenario, make_survey, client):
    survey = grouped_extreme_survey(make_survey, sizes=SCENARIOS[scenario])
    # Switched on yesterday, so today's publication is due when the page is read.
    yesterday = timezone.now().date() - timedelta(days=1)
    public_release.public_results_update(survey=survey, enabled=True, epsilon=1.0, today=yesterday)
    html = client.get(reverse("surveys:public-results", kwargs={"slug": survey.slug}))
    pairs = shown_pairs(html.content.decode())
    if scenario == "large-all-yes-all-no":
        # 500 respondents: enough that the noisy counts are published, not withheld.
        assert len(pairs) == 2
    assert_inside(pairs, "public results")


def api_statistics(row):
    if row["type"] == "choice":
        yield from row["options"]
    elif row["type"] == "numeric":
        yield row["mean"]
        yield row["share_above"]
    else:
        yield row


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_no_api_row_has_an_estimate_outside_its_interval(scenario, make_survey, owner_api):
    survey = grouped_extreme_survey(make_survey, sizes=SCENARIOS[scenario])
    for method in ("wilson", "exact", "wald", "jeffreys"):
        body = owner_api.get(f"/api/v1/surveys/{survey.pk}/estimates/", {"method": method}).json()
        for row in body["estimates"]:
            if row["type"] == "choice" and row["consistent_shares"] is not None:
                # Issue 23, item 3: the headline shares are shares.
                shares = row["consistent_shares"]
                assert min(shares) >= 0 and abs(math.fsum(shares) - 1) <= 1e-12
                assert shares == [option["estimate"] for option in row["options"]]
            for statistic in api_statistics(row):
                if statistic["estimate"] is None:
                    assert survey.response_count == 0
                    continue
                assert statistic["ci_low"] <= statistic["estimate"] <= statistic["ci_high"]
                assert statistic["unbiased"] is not None


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_no_csv_row_has_an_estimate_outside_its_interval(scenario, make_survey, owner_client):
    survey = grouped_extreme_survey(make_survey, sizes=SCENARIOS[scenario])
    for method in ("wilson", "exact", "wald", "jeffreys"):
        response = owner_client.get(
            reverse("surveys:estimates-csv", args=[survey.pk]), {"method": method}
        )
        text = b"".join(response.streaming_content).decode()
        rows = list(csv.DictReader(io.StringIO(text)))
        assert len(rows) == 2 + 3 + 2
        for row in rows:
            if row["estimate"] == "":
                assert survey.response_count == 0
                continue
            assert float(row["ci_low"]) <= float(row["estimate"]) <= float(row["ci_high"])
            assert row["unbiased"] != ""
