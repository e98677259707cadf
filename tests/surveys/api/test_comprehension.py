"""The comprehension check (issue 27 item 4) in the API: the survey field, the definition's
practice rounds, the hidden answers stored and counted as direct answers, nothing else."""

import json
import uuid

import pytest
from django.urls import reverse

from surveys import selectors, services
from surveys.models import Question, Submission, Survey
from tests.helpers import new_survey_form  # the builder's settings form

pytestmark = pytest.mark.django_db

LIST_URL = "/api/v1/surveys/"
QUESTIONS = [
    {"text": "Taken supplies home?"},
    {"text": "Lied to your manager?", "design": {"kind": "warner", "p": 0.75}},
]


def new_survey(**fields):
    return {
        "title": "Understanding",
        "p_truth": 0.5,
        "p_forced_yes": 0.5,
        "questions": QUESTIONS,
        **fields,
    }


def test_the_api_stores_and_shows_comprehension_check(owner_api):
    response = owner_api.post(LIST_URL, new_survey(comprehension_check=True))
    assert response.status_code == 201, response.json()
    assert response.json()["comprehension_check"] is True
    assert owner_api.post(LIST_URL, new_survey()).json()["comprehension_check"] is False


@pytest.mark.parametrize("bad", ["yes", 1, None, "true", [True]])
def test_a_non_boolean_comprehension_check_is_a_400_naming_it(owner_api, bad):
    response = owner_api.post(LIST_URL, new_survey(comprehension_check=bad))
    assert response.status_code == 400
    assert "comprehension_check" in response.json()["errors"]
    assert not Survey.objects.exists()


def test_comprehension_check_is_frozen_once_the_survey_has_opened(owner_api, make_survey):
    survey = make_survey()  # open
    response = owner_api.patch(f"{LIST_URL}{survey.id}/", {"comprehension_check": True})
    assert response.status_code == 409
    assert "comprehension_check" in str(response.json())
    survey.refresh_from_db()
    assert survey.comprehension_check is False


def body_for(spec, answers):
    body = {
        "submission_id": str(uuid.uuid4()),
        "answers": {str(qid): value for qid, value in answers.items()},
        "design_fingerprint": spec["design_fingerprint"],
    }
    bare = len(json.dumps({**body, "padding": ""}, separators=(",", ":")).encode())
    body["padding"] = " " * (spec["submission_length"] - bare)
    return json.dumps(body, separators=(",", ":"))


def test_understood_answers_are_stored_and_counted_per_design(respondent, make_survey):
    survey = make_survey(questions=QUESTIONS, comprehension_check=True, min_n=0)
    spec = respondent.get(f"/api/v1/public/surveys/{survey.slug}/").json()
    assert [q["id"] for q in spec["questions"]] == list(
        survey.questions.values_list("id", flat=True)
    )
    coins, warner = spec["comprehension"]
    assert coins["design"] == {"kind": "forced_response", "p_truth": 0.5, "p_forced_yes": 0.5}
    assert warner["design"] == {"kind": "warner", "p": 0.75}
    real = [q["id"] for q in spec["questions"]]
    # Three respondents: right/right, wrong/right, and one who did not try the practice.
    tried = [{coins["id"]: True, warner["id"]: True}, {coins["id"]: False, warner["id"]: True}, {}]
    for practice in tried:
        raw = body_for(spec, {real[0]: True, real[1]: False, **practice})
        # Every body has the survey's one length, the practice answers or not.
        assert len(raw.encode()) == spec["submission_length"]
        response = respondent.post(
            f"/api/v1/public/surveys/{survey.slug}/responses/", raw, content_type="application/json"
        )
        assert response.status_code == 201, response.json()
    stored = [
        s.reports[f"q{coins['id']}"]
        for s in Submission.objects.filter(survey=survey)
        if f"q{coins['id']}" in s.reports
    ]
    assert sorted(stored) == [False, True]
    results = selectors.comprehension_results(survey=survey)
    assert [(r.design_kind, r.understood.count, r.understood.n) for r in results] == [
        ("survey", 1, 2),
        ("warner", 2, 2),
    ]
    assert results[0].understood.share == 0.5
    assert 0 < results[0].understood.ci_low < 0.5 < results[0].understood.ci_high < 1
    # The real questions' estimates are untouched by the hidden ones.
    estimates = selectors.survey_estimates(survey=survey)
    assert [row.question_id for row in estimates.rows] == real


def test_a_practice_answer_that_is_not_a_boolean_is_a_400_naming_it(respondent, make_survey):
    survey = make_survey(questions=QUESTIONS, comprehension_check=True)
    spec = respondent.get(f"/api/v1/public/surveys/{survey.slug}/").json()
    hidden = spec["comprehension"][0]["id"]
    real = [q["id"] for q in spec["questions"]]
    raw = body_for(spec, {real[0]: True, real[1]: False, hidden: 1})
    response = respondent.post(
        f"/api/v1/public/surveys/{survey.slug}/responses/", raw, content_type="application/json"
    )
    assert response.status_code == 400
    assert f"answers.{hidden}" in json.dumps(response.json())
    assert not Submission.objects.exists()


def test_without_the_check_the_definition_has_no_practice_and_results_none(respondent, open_survey):
    spec = respondent.get(f"/api/v1/public/surveys/{open_survey.slug}/").json()
    assert spec["comprehension"] == []
    assert selectors.comprehension_results(survey=open_survey) == []
    services.survey_close(survey=open_survey)


def test_the_results_page_shows_who_understood_each_design(owner_client, respondent, make_survey):
    survey = make_survey(questions=QUESTIONS, comprehension_check=True, min_n=0)
    spec = respondent.get(f"/api/v1/public/surveys/{survey.slug}/").json()
    coins, _warner = spec["comprehension"]
    real = [q["id"] for q in spec["questions"]]
    for understood in (True, True, False):
        raw = body_for(spec, {real[0]: True, real[1]: False, coins["id"]: understood})
        response = respondent.post(
            f"/api/v1/public/surveys/{survey.slug}/responses/", raw, content_type="application/json"
        )
        assert response.status_code == 201
    page = owner_client.get(f"/surveys/{survey.pk}/results/").content.decode()
    assert "Comprehension: understood the procedure" in page
    assert 'data-shown="understood">2 of 3<' in page
    assert "66.7%" in page or "66.7 %" in page
    # The warner round was never tried: no responses, and no numbers for it.
    assert page.count('data-shown="understood"') == 1


def test_the_results_page_withholds_it_below_min_n(owner_client, make_survey):
    survey = make_survey(questions=QUESTIONS, comprehension_check=True, min_n=5)
    page = owner_client.get(f"/surveys/{survey.pk}/results/").content.decode()
    assert "Not enough responses yet (0 of 5)." in page
    assert 'data-shown="understood"' not in page


def test_the_estimates_api_reports_who_understood(owner_api, respondent, make_survey):
    survey = make_survey(questions=QUESTIONS, comprehension_check=True, min_n=2)
    spec = respondent.get(f"/api/v1/public/surveys/{survey.slug}/").json()
    coins, warner = spec["comprehension"]
    real = [q["id"] for q in spec["questions"]]
    for understood in (True, False, True):
        raw = body_for(spec, {real[0]: True, real[1]: False, coins["id"]: understood})
        response = respondent.post(
            f"/api/v1/public/surveys/{survey.slug}/responses/", raw, content_type="application/json"
        )
        assert response.status_code == 201
    body = owner_api.get(f"{LIST_URL}{survey.id}/estimates/").json()
    first, second = body["comprehension"]
    assert first["question_id"] == coins["id"] and first["design"] == "survey"
    assert (first["understood"], first["n"], first["suppressed"]) == (2, 3, False)
    assert first["share"] == pytest.approx(2 / 3)
    assert first["ci_low"] < 2 / 3 < first["ci_high"]
    # Nobody tried the Warner round: below min_n, its numbers are withheld.
    assert second["question_id"] == warner["id"] and second["parameters"] == {"p": 0.75}
    assert (second["n"], second["suppressed"], second["understood"], second["share"]) == (
        0,
        True,
        None,
        None,
    )


def test_the_builder_switches_the_check_on_and_off(owner_client, make_survey):
    survey = make_survey(status="draft", questions=QUESTIONS)
    url = reverse("surveys:builder", kwargs={"pk": survey.pk})
    page = owner_client.get(url).content.decode()
    assert 'name="comprehension_check"' in page
    assert "Check that respondents understand the procedure" in page
    response = owner_client.post(url, new_survey_form(comprehension_check="on"))
    assert response.status_code == 302
    survey.refresh_from_db()
    assert survey.comprehension_check is True
    assert len(selectors.comprehension_questions(survey=survey)) == 2
    owner_client.post(url, new_survey_form())
    survey.refresh_from_db()
    assert survey.comprehension_check is False
    assert not Question.all_objects.filter(survey=survey, role="comprehension").exists()
