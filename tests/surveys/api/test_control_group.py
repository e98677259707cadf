"""A direct-questioning control group (issue 27 item 2) in the API: the fields
``compare_direct`` (question) and ``control_share`` (survey), their 400s naming the field, the
frozen design and its fingerprint, and the comparison in the estimates, its CSV, the ZIP and
the codebook."""

import csv
import io
import uuid
import zipfile

import pytest

from surveys import selectors, services
from surveys.models import Question, Survey

pytestmark = pytest.mark.django_db

LIST_URL = "/api/v1/surveys/"


def new_survey(questions=None, **fields):
    return {
        "title": "Split ballot",
        "p_truth": 0.5,
        "p_forced_yes": 0.5,
        "questions": questions
        or [{"text": "Did you take supplies home?", "compare_direct": True}, {"text": "Other?"}],
        "control_share": 0.25,
        **fields,
    }


def _csv(response):
    return list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))


def test_the_api_stores_and_shows_both_fields(owner_api, respondent):
    response = owner_api.post(LIST_URL, new_survey(), format="json")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["control_share"] == 0.25
    assert [q["compare_direct"] for q in body["questions"]] == [True, False]
    survey = Survey.objects.get(pk=body["id"])
    assert survey.control_share == 0.25
    services.survey_open(survey=survey)
    public = respondent.get(f"/api/v1/public/surveys/{survey.slug}/").json()
    # The exact decimal the browser draws with, and the question's flag.
    assert public["control_share"] == "0.25"
    assert public["questions"][0]["compare_direct"] is True
    assert "compare_direct" not in public["questions"][1]
    default = owner_api.post(LIST_URL, new_survey(control_share=0), format="json").json()
    assert default["control_share"] == 0


@pytest.mark.parametrize("bad", [-0.01, 0.51, 1, "0.2", True, None, [0.1]])
def test_a_control_share_outside_0_to_half_is_a_400_naming_it(owner_api, bad):
    response = owner_api.post(LIST_URL, new_survey(control_share=bad), format="json")
    assert response.status_code == 400
    assert "control_share" in response.json()["errors"]
    assert not Survey.objects.exists()


@pytest.mark.parametrize(
    "question",
    [
        {"text": "Q?", "compare_direct": True, "randomized": False},
        {"text": "Q?", "compare_direct": True, "type": "choice", "options": ["a", "b"]},
        {"text": "Q?", "compare_direct": True, "type": "numeric", "min": 0, "max": 9},
        {"text": "Q?", "compare_direct": True, "type": "text", "randomized": False},
        {"text": "Q?", "compare_direct": "yes"},
        {"text": "Q?", "compare_direct": 1},
    ],
)
def test_compare_direct_on_another_question_is_a_400_naming_it(owner_api, question):
    response = owner_api.post(LIST_URL, new_survey(questions=[question]), format="json")
    assert response.status_code == 400
    assert "questions.0.compare_direct" in response.json()["errors"]
    assert not Question.objects.exists()


def test_the_fingerprint_changes_with_each_field(make_survey):
    survey = make_survey(status="draft", questions=[{"text": "A?"}, {"text": "B?"}])
    before = selectors.survey_design_fingerprint(survey=survey)
    question = survey.questions.first()
    services.question_update(
        question=question, text=question.text, question_type={"compare_direct": True}
    )
    marked = selectors.survey_design_fingerprint(survey=survey)
    assert marked != before
    survey.control_share = 0.3
    survey.save(update_fields=["control_share"])
    shared = selectors.survey_design_fingerprint(survey=survey)
    assert shared not in (before, marked)
    survey.control_share = 0.0
    survey.save(update_fields=["control_share"])
    services.question_update(question=question, text=question.text, question_type={})
    # Both left out when off: a survey without them keeps the fingerprint it always had.
    assert selectors.survey_design_fingerprint(survey=survey) == before


def test_both_fields_are_frozen_once_the_survey_has_opened(owner_api, make_survey):
    survey = make_survey(questions=[{"text": "A?"}])  # open
    response = owner_api.patch(f"{LIST_URL}{survey.id}/", {"control_share": 0.2}, format="json")
    assert response.status_code == 409
    assert "control_share" in str(response.json())
    question = survey.questions.get()
    response = owner_api.patch(
        f"{LIST_URL}{survey.id}/",
        {"questions": [{"text": "A?", "compare_direct": True}]},
        format="json",
    )
    assert response.status_code == 409
    survey.refresh_from_db()
    question.refresh_from_db()
    assert survey.control_share == 0 and not question.compare_direct


def test_a_respondent_sends_codes_and_a_boolean_is_refused(make_survey, respondent):
    survey = make_survey(questions=new_survey()["questions"], control_share=0.5)
    first, second = survey.questions.all()
    url = f"/api/v1/public/surveys/{survey.slug}/responses/"
    bad = respondent.post(
        url,
        {
            "submission_id": str(uuid.uuid4()),
            "answers": {str(first.pk): True, str(second.pk): True},
        },
        format="json",
    )
    assert bad.status_code == 400
    assert f"answers.{first.pk}" in bad.json()["errors"]
    for code in (4, -1):
        body = {"submission_id": str(uuid.uuid4()), "answers": {str(first.pk): code}}
        body["answers"][str(second.pk)] = False
        assert respondent.post(url, body, format="json").status_code == 400
    good = respondent.post(
        url,
        {"submission_id": str(uuid.uuid4()), "answers": {str(first.pk): 3, str(second.pk): True}},
        format="json",
    )
    assert good.status_code == 201, good.json()


def _answer(survey, codes):
    first, second = survey.questions.all()
    for code in codes:
        services.submission_receive(
            slug=survey.slug,
            submission_id=str(uuid.uuid4()),
            answers={str(first.pk): code, str(second.pk): code % 2 == 1},
        )


def test_the_estimates_csv_zip_and_codebook_carry_the_comparison(owner_api, make_survey):
    survey = make_survey(questions=new_survey()["questions"], control_share=0.5, min_n=2)
    _answer(survey, [0, 1, 1, 1, 2, 3, 2, 2])
    estimates = owner_api.get(f"/api/v1/surveys/{survey.id}/estimates/").json()
    group = estimates["control_group"]
    assert group["control_share"] == 0.5
    (row,) = group["questions"]
    assert (row["randomized_n"], row["randomized_yes_reports"]) == (4, 3)
    assert (row["direct_n"], row["direct_yes"], row["direct_share"]) == (4, 1, 0.25)
    assert row["status"] == "compared"
    assert row["difference_ci"][0] <= row["difference"] <= row["difference_ci"][1]
    assert 0 < row["p_value_more_is_better"] < 1
    # The question's own row estimates from the randomized arm only.
    assert estimates["estimates"][0]["n"] == 4
    table = _csv(owner_api.get(f"/api/v1/surveys/{survey.id}/control-group.csv"))
    header, line = table
    assert dict(zip(header, line, strict=True))["direct_yes"] == "1"
    assert dict(zip(header, line, strict=True))["column"] == "Q1"
    archive = zipfile.ZipFile(
        io.BytesIO(b"".join(owner_api.get(f"/api/v1/surveys/{survey.id}/export.zip")))
    )
    assert "control_group.csv" in archive.namelist()
    codebook = _csv(owner_api.get(f"/api/v1/surveys/{survey.id}/codebook.csv"))
    q1 = [r for r in codebook if "Q1" in r]
    assert any("compared_yes_no" in r for r in q1)
    assert sum(1 for r in q1 if "control group: asked directly" in " ".join(r)) == 2
    reports = _csv(owner_api.get(f"/api/v1/surveys/{survey.id}/responses.csv"))
    column = reports[0].index("Q1")
    assert sorted(r[column] for r in reports[1:]) == ["0", "1", "1", "1", "2", "2", "2", "3"]


def test_a_survey_without_compared_questions_has_no_control_group(owner_api, make_survey):
    survey = make_survey(questions=[{"text": "A?"}])
    assert owner_api.get(f"/api/v1/surveys/{survey.id}/estimates/").json()["control_group"] is None
