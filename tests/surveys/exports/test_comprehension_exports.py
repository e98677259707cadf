"""The comprehension check in the exports: one C column per practised design after the
questions, 1/0/empty, labelled in the codebook, read back the same from SPSS and Stata."""

import uuid

import pyreadstat
import pytest

from surveys import services
from surveys.exports import spss_stata
from surveys.exports.codebook import codebook_rows, survey_codebook
from surveys.exports.csv import report_csv_rows, report_csv_text_rows
from surveys.models import Question

pytestmark = pytest.mark.django_db

QUESTIONS = (
    {"text": "Taken supplies home?"},
    {"text": "Lied to your manager?", "design": {"kind": "warner", "p": 0.75}},
)


@pytest.fixture
def study(make_survey):
    return make_study(make_survey)


def make_study(make_survey):
    survey = make_survey(questions=QUESTIONS, comprehension_check=True)
    q = list(survey.questions.values_list("id", flat=True))
    c = list(
        Question.all_objects.filter(survey=survey, role="comprehension").values_list(
            "id", flat=True
        )
    )
    for answers in (
        {q[0]: True, q[1]: False, c[0]: True, c[1]: False},
        {q[0]: False, q[1]: True, c[1]: True},  # the first round not tried
        {q[0]: True, q[1]: True},  # no practice at all
    ):
        services.submission_receive(
            slug=survey.slug,
            submission_id=uuid.uuid4(),
            answers={str(k): v for k, v in answers.items()},
            groups={},
        )
    return survey


def by_id(rows):
    header, *data = rows
    end = header.index("P1")  # the questions' positions (not sent here) last
    return header[:end], sorted(tuple(str(cell) for cell in row[2:end]) for row in data)


def test_the_raw_reports_carry_one_column_per_practised_design(study):
    header, rows = by_id(list(report_csv_rows(survey_codebook(survey=study))))
    assert header == ["submission_id", "received_on", "Q1", "Q2", "C1", "C2"]
    assert rows == sorted(
        [("True", "False", "True", "False"), ("False", "True", "None", "True"),
         ("True", "True", "None", "None")]
    )  # fmt: skip
    # The CSV jobs' fast path writes the same cells as 1/0/empty.
    text_header, text_rows = by_id(list(report_csv_text_rows(survey_codebook(survey=study))))
    assert text_header == header
    assert text_rows == sorted([("1", "0", "1", "0"), ("0", "1", "", "1"), ("1", "1", "", "")])


def test_the_codebook_labels_the_columns_with_their_design(study):
    rows = codebook_rows(survey_codebook(survey=study))
    header = next(rows)
    table = [dict(zip(header, row, strict=True)) for row in rows]
    columns = {row["name"]: row for row in table if row["section"] == "column"}
    assert columns["C1"]["type"] == "direct_yes_no"
    assert (
        "practice round of Forced response (p_truth = 0.5, p_forced_yes = 0.5)"
        in (columns["C1"]["text"])
    )
    assert "practice round of Warner (p = 0.75)" in columns["C2"]["text"]
    values = {(row["value"], row["text"]) for row in table if row["name"] == "C1"}
    assert (1, "Right at the first try (sent as given, not randomized).") in values
    assert ("", "Not tried: nothing was sent.") in values


@pytest.mark.parametrize("kind", ["sav", "dta"])
def test_spss_and_stata_read_back_the_columns_and_their_labels(study, tmp_path, kind):
    path = tmp_path / f"reports.{kind}"
    writer = spss_stata.write_sav if kind == "sav" else spss_stata.write_dta
    writer(survey_codebook(survey=study), path)
    reader = pyreadstat.read_sav if kind == "sav" else pyreadstat.read_dta
    frame, meta = reader(str(path), user_missing=True)
    assert list(frame.columns)[-4:] == ["C1", "C2", "P1", "P2"]
    labels = dict(zip(meta.column_names, meta.column_labels, strict=True))
    assert "Comprehension check" in labels["C1"]
    skipped = "a" if kind == "dta" else -1  # each format's code for "not answered"

    def cells(name):
        return sorted(str(v) if isinstance(v, str) else str(int(v)) for v in frame[name])

    assert cells("C2") == sorted(map(str, [0, 1, skipped]))
    assert cells("C1") == sorted(map(str, [1, skipped, skipped]))
