"""The streamed SPSS and Stata writers (``exports.sav``, ``exports.dta``) against pyreadstat
(tests/surveys/exports/pyreadstat_oracle.py, the writer they replaced): each file read back
with pyreadstat, and pandas for Stata, equals the oracle's column by column, with its
variable labels, value labels, missing values and measures, for surveys of every kind."""

import io
import uuid

import pandas as pd
import pyreadstat
import pytest
from django.utils import translation

from surveys import services
from surveys.exports import spss_stata
from surveys.exports.codebook import survey_codebook
from surveys.services import grouping
from surveys.services.answers import text_answer_encode
from tests.surveys import test_direct_results
from tests.surveys.exports import test_comprehension_exports, test_spss_stata
from tests.surveys.exports.pyreadstat_oracle import oracle_dta, oracle_sav

pytestmark = pytest.mark.django_db

WRITERS = {"sav": (spss_stata.write_sav, oracle_sav), "dta": (spss_stata.write_dta, oracle_dta)}
# Compared on every column; a string's width is the oracle's longest value, the streamed
# file's the most a column can hold (the id's 36 bytes, a text answer's 300), so the
# string's format is compared apart.
META = (
    "column_names",
    "column_names_to_labels",
    "variable_value_labels",
    "missing_ranges",
    "missing_user_values",
    "variable_measure",
    "variable_alignment",
    "readstat_variable_types",
    "file_label",
    "number_rows",
)
META_WITHOUT_ROWS = META[:5] + META[-2:]


def assert_same_as_pyreadstat(survey, tmp_path, kind):
    codebook = survey_codebook(survey=survey)
    streamed, oracle = tmp_path / f"streamed.{kind}", tmp_path / f"oracle.{kind}"
    write, write_oracle = WRITERS[kind]
    rows = write(codebook, streamed)
    write_oracle(codebook, oracle)
    read = pyreadstat.read_sav if kind == "sav" else pyreadstat.read_dta
    for user_missing in (True, False):
        frame, meta = read(str(streamed), user_missing=user_missing)
        expected_frame, expected = read(str(oracle), user_missing=user_missing)
        assert len(frame) == rows == survey.submissions.count()
        # Without rows pyreadstat cannot tell a date column from a text one (it writes an
        # empty string variable); the streamed file's types are those of a file with rows.
        pd.testing.assert_frame_equal(frame, expected_frame, check_dtype=bool(rows))
        for name in META if rows else META_WITHOUT_ROWS:
            assert getattr(meta, name) == getattr(expected, name), name
        if not rows:
            continue
        strings = {n for n, t in meta.readstat_variable_types.items() if t == "string"}
        assert {n: f for n, f in meta.original_variable_types.items() if n not in strings} == {
            n: f for n, f in expected.original_variable_types.items() if n not in strings
        }
    if kind == "sav":
        assert meta.notes == expected.notes
    else:
        assert meta.notes == spss_stata.notes(
            codebook, spss_stata.labelled_variables(codebook), stata=True
        )
        if rows:  # pandas reads no value labels of a file without observations
            pd.testing.assert_frame_equal(pd.read_stata(streamed), pd.read_stata(oracle))
        assert list(pd.read_stata(streamed).columns) == codebook.columns


@pytest.fixture
def every_kind(make_survey):
    return test_spss_stata.make_study(make_survey)


@pytest.mark.parametrize("kind", ["sav", "dta"])
@pytest.mark.parametrize("language", ["en", "ko", "zh-hans"])
def test_every_question_kind_and_grouping_question(every_kind, tmp_path, kind, language):
    with translation.override(language):
        assert_same_as_pyreadstat(every_kind, tmp_path, kind)


@pytest.mark.parametrize("kind", ["sav", "dta"])
def test_direct_answers_and_text_answers(make_survey, tmp_path, kind):
    survey = test_direct_results.make_study(make_survey)
    # The longest text answer a respondent can send: a very long string in SPSS (segments).
    longest = "설문" * 50  # 300 bytes of UTF-8
    q = list(survey.questions.values_list("id", flat=True))
    services.submission_receive(
        slug=survey.slug,
        submission_id=uuid.uuid4(),
        answers={
            **{str(q[i]): v for i, v in enumerate((True, False, 2, 5))},
            str(q[4]): text_answer_encode(longest),
        },
    )
    assert_same_as_pyreadstat(survey, tmp_path, kind)
    frame, _meta = (
        pyreadstat.read_sav(str(tmp_path / "streamed.sav"))
        if kind == "sav"
        else (pyreadstat.read_dta(str(tmp_path / "streamed.dta")))
    )
    assert longest in set(frame["Q5"])


@pytest.mark.parametrize("kind", ["sav", "dta"])
def test_comprehension_columns(make_survey, tmp_path, kind):
    survey = test_comprehension_exports.make_study(make_survey)
    assert_same_as_pyreadstat(survey, tmp_path, kind)


@pytest.mark.parametrize("kind", ["sav", "dta"])
def test_non_ascii_labels_in_korean_and_chinese(make_survey, tmp_path, kind):
    survey = make_survey(
        status="draft",
        title="工作习惯 설문조사",
        questions=[
            {"text": "您是否曾把办公用品带回家？"},
            {"text": "가장 자주 한 일은?", "type": "choice", "options": ["없음", "펜", "종이"]},
        ],
    )
    grouping.grouping_question_add(survey=survey, text="部门？", options=["销售", "연구"])
    survey = services.survey_open(survey=survey)
    q = list(survey.questions.values_list("id", flat=True))
    gq = survey.grouping_questions.get()
    options = list(gq.options.values_list("id", flat=True))
    for n in range(4):
        services.submission_receive(
            slug=survey.slug,
            submission_id=uuid.uuid4(),
            answers={str(q[0]): n % 2 == 0, str(q[1]): n % 3},
            groups={str(gq.pk): str(options[n % 2])},
        )
    with translation.override("zh-hans"):
        assert_same_as_pyreadstat(survey, tmp_path, kind)


@pytest.mark.parametrize("kind", ["sav", "dta"])
@pytest.mark.parametrize("responses", [0, 1])
def test_an_empty_survey_and_one_response(make_survey, tmp_path, kind, responses):
    survey = make_survey()
    q = list(survey.questions.values_list("id", flat=True))
    for _response in range(responses):
        services.submission_receive(
            slug=survey.slug,
            submission_id=uuid.uuid4(),
            answers={str(q[0]): True, str(q[1]): False},
        )
    assert_same_as_pyreadstat(survey, tmp_path, kind)


@pytest.mark.parametrize("kind", ["sav", "dta"])
def test_a_file_object_gets_the_same_bytes_after_what_it_held(every_kind, tmp_path, kind):
    write = WRITERS[kind][0]
    codebook = survey_codebook(survey=every_kind)
    handle = io.BytesIO()
    handle.write(b"before")
    assert write(codebook, handle) == 5
    path = tmp_path / f"file.{kind}"
    write(codebook, path)
    written = handle.getvalue()
    assert written.startswith(b"before")
    # The same layout (the creation time aside): the case count and map are where they belong.
    assert len(written) - len(b"before") == path.stat().st_size
