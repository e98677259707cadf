"""The order each respondent saw (issue 33 item 5): the body's ``order`` lists the question ids
as the page showed them, is refused with a 400 naming ``order`` unless it lists every question
of the survey once, and is stored as each question's position, which the raw exports write as
``P1``…``Pn`` and the codebook and the SPSS file label."""

import csv
import io
import uuid

import pyreadstat
import pytest

from surveys.exports import spss_stata
from surveys.exports.codebook import survey_codebook
from surveys.models import Submission

pytestmark = pytest.mark.django_db

QUESTIONS = [
    {"text": "First?"},
    {"text": "Second?", "type": "choice", "options": ["a", "b"]},
    {"text": "Third?", "randomized": False},
]


def post(respondent, survey, order, *, submission_id=None):
    ids = list(survey.questions.values_list("id", flat=True))
    body = {
        "submission_id": str(submission_id or uuid.uuid4()),
        "answers": {str(ids[0]): True, str(ids[1]): 1, str(ids[2]): False},
        "order": order,
    }
    return respondent.post(f"/api/v1/public/surveys/{survey.slug}/responses/", body, format="json")


@pytest.fixture
def survey(make_survey):
    return make_survey(questions=QUESTIONS, shuffle_questions=True)


def test_the_order_shown_is_stored_as_each_questions_position(survey, respondent):
    first, second, third = survey.questions.values_list("id", flat=True)
    assert post(respondent, survey, [third, first, second]).status_code == 201
    stored = Submission.objects.get()
    assert stored.positions == {f"q{third}": 1, f"q{first}": 2, f"q{second}": 3}


def test_a_body_without_an_order_is_stored_without_positions(survey, respondent):
    assert post(respondent, survey, None).status_code == 201
    assert Submission.objects.get().positions == {}


@pytest.mark.parametrize(
    "spoil",
    [
        lambda ids: ids[:-1],  # one question left out
        lambda ids: [*ids, ids[0]],  # one twice
        lambda ids: [ids[0], ids[0], ids[1]],  # as long, but not every question
        lambda ids: [*ids[:-1], 10**9],  # not this survey's
        lambda ids: [str(pk) for pk in ids],  # text, not ids
        lambda ids: {str(pk): n for n, pk in enumerate(ids)},
        lambda ids: ",".join(map(str, ids)),
    ],
)
def test_an_order_that_is_not_the_surveys_questions_once_is_a_400_naming_it(
    survey, respondent, spoil
):
    ids = list(survey.questions.values_list("id", flat=True))
    response = post(respondent, survey, spoil(ids))
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["order"]
    assert not Submission.objects.exists()


def test_the_raw_exports_write_the_positions_and_the_codebook_labels_them(
    survey, respondent, owner_api, tmp_path
):
    first, second, third = survey.questions.values_list("id", flat=True)
    assert post(respondent, survey, [second, third, first]).status_code == 201
    assert post(respondent, survey, None).status_code == 201
    body = b"".join(owner_api.get(f"/api/v1/surveys/{survey.pk}/responses.csv").streaming_content)
    header, *rows = csv.reader(io.StringIO(body.decode()))
    assert header[-3:] == ["P1", "P2", "P3"]
    assert sorted(row[-3:] for row in rows) == [["", "", ""], ["3", "1", "2"]]
    codebook = b"".join(
        owner_api.get(f"/api/v1/surveys/{survey.pk}/codebook.csv").streaming_content
    )
    described = {
        row[1]: row for row in csv.reader(io.StringIO(codebook.decode())) if row[0] == "column"
    }
    assert described["P1"][2] == "position"
    assert "Q1" in described["P1"][4]
    path = tmp_path / "reports.sav"
    spss_stata.write_sav(survey_codebook(survey=survey), path)
    frame, meta = pyreadstat.read_sav(str(path))
    labels = dict(zip(meta.column_names, meta.column_labels, strict=True))
    assert "Q3" in labels["P3"]
    placed = frame.dropna(subset=["P1"])
    assert placed[["P1", "P2", "P3"]].values.tolist() == [[3.0, 1.0, 2.0]]


def test_a_pinned_question_is_stored_and_told_to_the_browser(owner_api, respondent):
    body = {
        "title": "Pinned",
        "p_truth": 0.5,
        "p_forced_yes": 0.5,
        "shuffle_questions": True,
        "questions": [
            {"text": "A?"},
            {"text": "B?"},
            {"text": "Anything else?", "randomized": False, "type": "text", "pinned": True},
        ],
    }
    created = owner_api.post("/api/v1/surveys/", body, format="json")
    assert created.status_code == 201, created.json()
    assert [q["pinned"] for q in created.json()["questions"]] == [False, False, True]
    bad = owner_api.post(
        "/api/v1/surveys/",
        {**body, "questions": [{"text": "A?", "pinned": "yes"}]},
        format="json",
    )
    assert bad.status_code == 400
    assert "[0] pinned" in str(bad.json()["errors"]["questions"])
