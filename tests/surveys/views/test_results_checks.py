"""The results page in words: each numeric question's manipulation check, and what the
intervals mean at the current n against the planner's respondents for ±5 points."""

import csv
import html
import io
import math
import re

import numpy as np
import pytest
from django.urls import reverse

import dpengine
from surveys import selectors, services

pytestmark = pytest.mark.django_db

QUESTIONS = (
    {"text": "Have you taken office supplies home?"},
    {"text": "Days worked from home last fortnight?", "type": "numeric", "min": 0, "max": 10},
)
NUMERIC = dpengine.BoundedNumeric(lo=0, hi=10, epsilon=math.log(3))  # the default ε, ln 3


def _survey_with(make_survey, *, honest, scripted=0, seed=23):
    """``honest`` simulated respondents (yes/no share 0.3, numeric answers mean 5) and
    ``scripted`` ones who send the accepted maximum for the numeric question."""
    survey = make_survey(questions=QUESTIONS, min_n=10)
    reports = services.simulated_reports_draw(
        survey=survey, shares=[0.3, 5], n=honest, rng=np.random.default_rng(seed)
    ).astype(np.int64)
    numeric = survey.questions.get(kind="numeric")
    top = selectors.report_range(numeric)[2]
    assert top == dpengine.report_bounds(NUMERIC).high == 199
    reports = np.vstack([reports, np.tile([1, top], (scripted, 1))]) if scripted else reports
    services.simulated_submissions_record(survey=survey, reports=reports)
    survey.refresh_from_db()
    return survey


def _page(client, survey, language="en"):
    response = client.get(
        reverse("surveys:results", kwargs={"pk": survey.pk}), HTTP_ACCEPT_LANGUAGE=language
    )
    assert response.status_code == 200
    return response.content.decode()


def _text(page):
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page)))


# --- manipulation check -----------------------------------------------------------------


def test_ten_scripted_reports_at_the_accepted_maximum_are_flagged_on_the_page(
    owner_client, make_survey
):
    survey = _survey_with(make_survey, honest=1000, scripted=10)
    page = _page(owner_client, survey)
    notice = re.search(r'<div class="[^"]*manipulation-check"[^>]*>.*?</div>', page, re.S)
    assert notice is not None
    assert 'data-beyond="10"' in notice.group(0)
    text = _text(notice.group(0))
    assert "More extreme reports than honest respondents produce: possible manipulation." in text
    # 10 scales of 9.10 is 91, so beyond means below -91 or above 101; honest: at most
    # 1,010 x 2.87e-5 = 0.03 on average.
    expected = 1010 * dpengine.extreme_report_probability(NUMERIC)
    assert "10 of 1,010 reports lie more than 10 noise scales beyond the range" in text
    assert "(below -91 or above 101)" in text
    assert f"at most {expected:.2f} such reports" in text
    assert "p-value < 0.001" in text


def test_an_honest_numeric_question_shows_no_sign_of_manipulation(owner_client, make_survey):
    survey = _survey_with(make_survey, honest=300)
    page = _page(owner_client, survey)
    assert "possible manipulation" not in page
    match = re.search(
        r'<p class="muted small manipulation-check" data-flagged="false"[^>]*>(.*?)</p>', page, re.S
    )
    assert match is not None
    assert "of 300 reports lie more than 10 noise scales beyond the range" in _text(match.group(1))
    assert "No sign of manipulation." in match.group(1)


def test_the_estimates_api_and_csv_carry_the_check(owner_client, owner_api, make_survey):
    survey = _survey_with(make_survey, honest=1000, scripted=10)
    numeric_id = survey.questions.get(kind="numeric").pk
    rows = owner_api.get(f"/api/v1/surveys/{survey.id}/estimates/").json()["estimates"]
    (row,) = [row for row in rows if row["question_id"] == numeric_id]
    check = row["manipulation_check"]
    assert (check["beyond"], check["low"], check["high"], check["flagged"]) == (10, -91, 101, True)
    assert check["expected_at_most"] == pytest.approx(
        1010 * dpengine.extreme_report_probability(NUMERIC)
    )
    assert 0 <= check["p_value"] < 1e-15 and check["level"] == dpengine.DETECTION_LEVEL
    response = owner_client.get(reverse("surveys:estimates-csv", kwargs={"pk": survey.pk}))
    table = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    numeric_rows = [line for line in table if line["type"] == "numeric"]
    assert [line["statistic"] for line in numeric_rows] == ["mean", "share_above"]
    for line in numeric_rows:
        assert (line["extreme_reports"], line["manipulation_flagged"]) == ("10", "1")
        assert float(line["manipulation_p_value"]) == pytest.approx(check["p_value"])
    assert all(line["extreme_reports"] == "" for line in table if line["type"] == "yes_no")


def test_a_suppressed_numeric_question_has_no_check(owner_api, make_survey):
    survey = _survey_with(make_survey, honest=5)  # min_n is 10
    rows = owner_api.get(f"/api/v1/surveys/{survey.id}/estimates/").json()["estimates"]
    assert [row["manipulation_check"] for row in rows if row["type"] == "numeric"] == [None]


# --- the intervals at the current n, in words --------------------------------------------


def test_the_page_says_what_the_intervals_mean_and_what_the_planner_needs(
    owner_client, make_survey
):
    survey = _survey_with(make_survey, honest=40)
    page = _page(owner_client, survey)
    section = re.search(r'<section class="card results-precision".*?</section>', page, re.S)
    assert section is not None
    text = _text(section.group(0))
    assert "A 95% interval is computed so that, in 95% of surveys like this one, it holds" in text
    estimates = selectors.survey_estimates(survey=survey)
    yes_no = estimates.rows[0].estimate
    half = (yes_no.ci_high - yes_no.ci_low) / 2 * 100
    # The classic coins need z^2 / (4 m^2 (a - b)^2) = 1.96^2 / (4 x 0.05^2 x 0.5^2) = 1,537
    # respondents for ±5 points (dpengine.required_sample_size), 1,497 more than the 40.
    needed = dpengine.required_sample_size(design=dpengine.CLASSIC, margin=0.05, confidence=0.95)
    assert needed == 1537
    assert f"Q1 — With 40 responses, the interval reaches about ±{half:.1f} points" in text
    assert (
        "The planner says this question needs 1,537 respondents for ±5 points: 1,497 more." in text
    )
    # The numeric question: its mean within 5 % of the range (±0.50 on 0-10).
    mean_needed = dpengine.required_sample_size_mean(question=NUMERIC, margin=0.5)
    assert (
        f"The planner says the mean needs {mean_needed:,} respondents for ±0.50 (5% of the range)"
        in text
    )
    planner = reverse("surveys:planner", kwargs={"pk": survey.pk})
    assert f'href="{planner}?goal=margin&amp;margin=5&amp;level=0.95"' in section.group(0)


def test_the_planner_link_gives_the_same_number(owner_client, make_survey):
    survey = _survey_with(make_survey, honest=40)
    href = re.search(r'href="([^"]*planner[^"]*)"', _page(owner_client, survey)).group(1)
    planner = owner_client.get(href.replace("&amp;", "&"))
    assert planner.status_code == 200
    assert "1,537" in planner.content.decode()


def test_enough_respondents_is_said_so(owner_client, make_survey):
    survey = _survey_with(make_survey, honest=1600)
    text = _text(_page(owner_client, survey))
    assert "The planner says 1,537 respondents give ±5 points: this question has enough." in text


def test_the_sentences_are_translated(owner_client, make_survey):
    survey = _survey_with(make_survey, honest=1000, scripted=10)
    # Korean groups thousands with a comma, Chinese (as Django formats it) not at all.
    for language, needed in (("ko", "1,537"), ("zh-hans", "1537")):
        page = _page(owner_client, survey, language)
        assert f'lang="{language[:2]}' in page.lower()
        for english in (
            "What the intervals mean with this many responses",
            "The planner says this question needs",
            "possible manipulation",
            "Open the planner",
        ):
            assert english not in page, (language, english)
        assert needed in page
