"""A compared question's codes in the downloads (issue 27 item 2): the raw CSV keeps them, SPSS
and Stata read them back with the codebook's four meanings as value labels, and the code for R
estimates from the coins' reports only, the control group's answers apart."""

import uuid

import pytest

from surveys import services
from surveys.exports import r as r_export
from surveys.exports import spss_stata
from surveys.exports.codebook import survey_codebook
from tests.surveys.exports.test_spss_stata import codebook_table, csv_rows, read

pytestmark = pytest.mark.django_db


@pytest.fixture
def study(make_survey):
    survey = make_survey(
        questions=[{"text": "Did you?", "compare_direct": True, "required": False}],
        control_share=0.5,
    )
    qid = survey.questions.get().pk
    for code in (0, 1, 2, 3, None):
        services.submission_receive(
            slug=survey.slug,
            submission_id=uuid.uuid4(),
            answers={} if code is None else {str(qid): code},
        )
    survey.refresh_from_db()
    return survey


@pytest.mark.parametrize("kind", ["sav", "dta"])
def test_the_codes_read_back_with_their_meanings(study, tmp_path, kind):
    path = tmp_path / f"reports.{kind}"
    (spss_stata.write_sav if kind == "sav" else spss_stata.write_dta)(
        survey_codebook(survey=study), path
    )
    frame, meta = read(path, kind)
    header, rows = csv_rows(study)
    column = header.index("Q1")
    assert sorted(row[column] for row in rows) == ["", "0", "1", "2", "3"]
    skipped = "a" if kind == "dta" else -1
    read_back = sorted(
        "" if value == skipped else str(int(value)) for value in frame["Q1"].tolist()
    )
    assert read_back == ["", "0", "1", "2", "3"]
    values = {
        str(row["value"]): row["text"]
        for row in codebook_table(study)
        if row["section"] == "value" and row["name"] == "Q1" and row["value"] != ""
    }
    assert set(values) == {"0", "1", "2", "3"}
    assert "control group: asked directly" in values["3"] and "Answered yes" in values["3"]
    labels = meta.variable_value_labels["Q1"]
    assert {str(int(k)): v for k, v in labels.items() if k != skipped} == values


def test_the_code_for_r_separates_the_groups(study):
    script = r_export.r_estimates_script(survey=study)
    assert "direct <- y[y >= 2] - 2\ny <- y[y < 2]\nfit <- RRuni(response = y," in script
