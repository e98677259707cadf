"""The breakdown page's compared and cheating-detection questions (issue 33 item 4): each in
the survey's order with its numbers per group, nothing about them "left out", and the
comprehension check offered to break down by."""

import re

import pytest

from surveys.selectors.breakdown import survey_breakdown
from surveys.selectors.comprehension import comprehension_questions

pytestmark = pytest.mark.django_db


def _page(client, survey, **query):
    response = client.get(f"/surveys/{survey.pk}/breakdown/", query)
    assert response.status_code == 200
    return response.content.decode()


def test_every_randomized_yes_no_question_is_broken_down_in_the_surveys_order(
    coded_survey, owner_client
):
    survey, department = coded_survey
    page = _page(owner_client, survey)
    questions = list(survey.questions.all())
    found = re.findall(r'data-question="(\d+)" data-kind="(\w+)"', page)
    assert found == [
        (str(questions[0].pk), "cheating"),
        (str(questions[1].pk), "compared"),
        (str(questions[3].pk), "cheating"),
    ]
    order = [page.index(f'aria-labelledby="breakdown-q{q.pk}"') for q in questions]
    assert order == sorted(order)
    assert "Not broken down by group" not in page
    result = survey_breakdown(survey=survey, grouping_question=department)
    cdm = result.code_rows[0]
    sales = cdm.cells[0]
    section = page[page.index(f'id="breakdown-q{questions[0].pk}"') :]
    row = section[section.index(f'data-option="{sales.option_id}"') :]
    shown_pi = re.search(r'data-shown="pi">([^<]+)<', row).group(1)
    assert shown_pi == f"{sales.row.pi.estimate * 100:.1f}%"
    compared = result.code_rows[1].cells[0]
    section = page[page.index(f'id="breakdown-q{questions[1].pk}"') :]
    assert re.search(r'data-shown="direct">([^<]+)<', section).group(1) == (
        f"{compared.direct.share * 100:.1f}%"
    )


def test_the_comprehension_check_is_offered_and_splits_the_estimates(coded_survey, owner_client):
    survey, _department = coded_survey
    check = comprehension_questions(survey=survey)[0]
    page = _page(owner_client, survey)
    assert f'<option value="d{check.pk}">C1: Understood the practice round' in page
    split = _page(owner_client, survey, by=f"d{check.pk}")
    text = text_of_html(split)
    assert "Right on the first try 11 respondents" in text
    assert "Not on the first try 14 respondents" in text


def text_of_html(page):
    return " ".join(re.sub(r"<[^>]+>", " ", page).split())


def test_the_planner_plans_compared_questions_for_a_difference_and_cdm_sld_for_pi(
    coded_survey, owner_client
):
    survey, _department = coded_survey
    url = f"/surveys/{survey.pk}/planner/"
    margin = owner_client.get(url).content.decode()
    # The default goal, ±5 points at 95 %: CDM p = (1/4, 3/4) needs 1,921 (by hand in
    # tests/surveys/selectors/test_two_group_plans.py); no control-group line for a margin.
    assert 'data-stat="cheating-respondents">1,921<' in margin
    assert 'id="control-group-plan"' not in margin
    query = {"goal": "difference", "preset": "classic", "difference": "10", "power": "0.8"}
    query |= {"level": "0.95", "margin": "5", "prevalence": "20"}
    difference = owner_client.get(url, query).content.decode()
    assert 'id="cheating-plan"' not in difference
    # dpengine.required_sample_size_control_group(classic coins, 0.1, control share 0.3,
    # power 0.8, p = 0.2) = 1,178, of whom 353 asked directly.
    assert 'data-stat="control-respondents">1,178<' in difference
    assert 'data-stat="control-direct">353<' in difference
