"""The SPSS and Stata files read back (with pyreadstat) hold what the CSV and the codebook hold:
the same values, the question texts as variable labels, the codebook's meanings as value
labels, "skipped" apart from "prefer not to say", and the design in the notes."""

import csv
import io
import math
import uuid

import pyreadstat
import pytest
from django.urls import reverse
from django.utils import translation
from django.utils.http import content_disposition_header

from surveys import services
from surveys.exports import spss_stata
from surveys.exports.codebook import codebook_rows, survey_codebook
from surveys.exports.csv import csv_safe, escape_label, export_filename, report_csv_rows
from surveys.models import PREFER_NOT_TO_SAY
from surveys.services import grouping

pytestmark = pytest.mark.django_db

LONG_TEXT = "Have you ever " + "really, " * 40 + "taken 사무용품 home without asking?"
QUESTIONS = (
    {"text": LONG_TEXT, "required": False},
    {"text": "Have you lied to your manager?", "design": {"kind": "warner", "p": 0.75}},
    {
        "text": "Which did you do most?",
        "type": "choice",
        "options": ["None", "Pens", "Paper"],
        "required": False,
    },
    {
        "text": "Drinks in a week?",
        "type": "numeric",
        "min": 0,
        "max": 30,
        "epsilon": 2.0,
        "required": False,
    },
)
TEAMS = ("=Sales", "Research", "연구팀")


@pytest.fixture
def study(make_survey):
    return make_study(make_survey)


def make_study(make_survey):
    """Every question type, two grouping questions, and answers that skip and decline."""
    survey = make_survey(status="draft", questions=QUESTIONS, title="Workplace 습관 study")
    team = grouping.grouping_question_add(survey=survey, text="Which team?", options=TEAMS)
    age = grouping.grouping_question_add(survey=survey, text="Age?", options=["<30", "30+"])
    survey = services.survey_open(survey=survey)
    q = list(survey.questions.values_list("id", flat=True))
    teams = list(team.options.values_list("id", flat=True))
    ages = list(age.options.values_list("id", flat=True))
    submissions = [
        ({q[0]: True, q[1]: False, q[2]: 2, q[3]: 7}, {team.pk: teams[0], age.pk: ages[1]}),
        ({q[1]: True}, {team.pk: PREFER_NOT_TO_SAY}),  # skips Q1, Q3, Q4 and G2
        ({q[0]: False, q[1]: False, q[2]: 0, q[3]: -3}, {age.pk: PREFER_NOT_TO_SAY}),
        ({q[0]: True, q[1]: True, q[2]: 1, q[3]: 41}, {team.pk: teams[2], age.pk: ages[0]}),
        ({q[1]: False, q[3]: -1}, {team.pk: teams[1]}),  # -1 reported: a value, not a skip
    ]
    for answers, groups in submissions:
        services.submission_receive(
            slug=survey.slug,
            submission_id=uuid.uuid4(),
            answers={str(k): v for k, v in answers.items()},
            groups={str(k): str(v) for k, v in groups.items()},
        )
    survey.refresh_from_db()
    return survey


def csv_rows(survey):
    rows = list(csv.reader(io.StringIO("".join(_lines(survey)))))
    return rows[0], rows[1:]


def _lines(survey):
    out = io.StringIO()
    writer = csv.writer(out)
    for row in report_csv_rows(survey_codebook(survey=survey)):
        writer.writerow([csv_safe(cell) for cell in row])
    return out.getvalue()


def codebook_table(survey):
    rows = codebook_rows(survey_codebook(survey=survey), label=escape_label)
    header = next(rows)
    return [dict(zip(header, row, strict=True)) for row in rows]


def read(path, kind):
    reader = pyreadstat.read_sav if kind == "sav" else pyreadstat.read_dta
    return reader(str(path), user_missing=True)


def as_csv_cell(value, *, labels, kind, column_type):
    """A value read back from the file, written as the CSV writes its cell."""
    skipped, prefer = ("a", "b") if kind == "dta" else (-1, -2)
    if isinstance(value, float) and math.isnan(value):
        # system-missing: any whole number can be a report, or a position
        assert kind == "sav" and column_type in ("randomized_numeric", "position")
        return ""
    numbers = ("randomized_numeric", "position")
    if value == skipped and (kind == "dta" or column_type not in numbers):
        return ""
    if value == prefer:
        return PREFER_NOT_TO_SAY
    if column_type == "grouping":
        return escape_label(labels[value])
    return str(int(value))


@pytest.mark.parametrize("kind", ["sav", "dta"])
def test_values_read_back_equal_the_csv(study, tmp_path, kind):
    path = tmp_path / f"reports.{kind}"
    writer = spss_stata.write_sav if kind == "sav" else spss_stata.write_dta
    writer(survey_codebook(survey=study), path)
    frame, meta = read(path, kind)
    header, rows = csv_rows(study)
    assert list(frame.columns) == header
    assert len(frame) == len(rows) == 5
    types = {
        row["name"]: row["type"] for row in codebook_table(study) if row["section"] == "column"
    }
    for number, row in enumerate(rows):
        for name, cell in zip(header, row, strict=True):
            value = frame[name].iloc[number]
            if name == "submission_id":
                assert value == cell
            elif name == "received_on":
                assert value.isoformat() == cell
            else:
                labels = meta.variable_value_labels.get(name, {})
                assert (
                    as_csv_cell(value, labels=labels, kind=kind, column_type=types[name]) == cell
                ), (name, number, value)
    # The rows hold every kind of cell: a skip, prefer-not, a label, a negative report.
    cells = {cell for row in rows for cell in row}
    assert {"", PREFER_NOT_TO_SAY, "'=Sales", "연구팀", "-3", "-1"} <= cells


@pytest.mark.parametrize("kind", ["sav", "dta"])
def test_labels_are_the_codebooks(study, tmp_path, kind):
    path = tmp_path / f"reports.{kind}"
    writer = spss_stata.write_sav if kind == "sav" else spss_stata.write_dta
    writer(survey_codebook(survey=study), path)
    _frame, meta = read(path, kind)
    table = codebook_table(study)
    limits = spss_stata.LIMITS[kind]
    texts = {row["name"]: row["text"] for row in table if row["section"] == "column"}
    for name, label in meta.column_names_to_labels.items():
        text = texts[name]
        size = len(text.encode()) if limits.in_bytes else len(text)
        if size > limits.variable_label:  # longer than the format keeps: cut, whole in notes
            assert label.endswith("…") and text.startswith(label[:-1].rstrip())
            size = len(label.encode()) if limits.in_bytes else len(label)
            assert size <= limits.variable_label
            assert any(text in note for note in _joined_notes(meta, kind))
        else:
            assert label == text
    assert meta.column_names_to_labels["Q1"] != texts["Q1"]  # Q1 is too long for either
    assert meta.file_label == "Workplace 습관 study"

    values = [row for row in table if row["section"] == "value"]
    skipped, prefer = ("a", "b") if kind == "dta" else (-1, -2)
    for name in ("Q1", "Q2", "Q3", "G1", "G2"):
        expected = {}
        for row in (row for row in values if row["name"] == name):
            if row["value"] == "":
                expected[skipped] = row["text"]
            elif row["value"] == PREFER_NOT_TO_SAY:
                expected[prefer] = row["text"]
            elif name.startswith("G"):
                # Options coded 1…k in the codebook's order, labelled as chosen (no ').
                options = [r["value"] for r in values if r["name"] == name]
                expected[options.index(row["value"]) + 1] = row["value"].removeprefix("'")
            else:
                expected[row["value"]] = row["text"]
        assert meta.variable_value_labels[name] == expected, name
    # A reported number has no codes; in Stata its skip is .a, in SPSS system-missing.
    assert meta.variable_value_labels.get("Q4", {}) == (
        {"a": "Skipped: not answered."} if kind == "dta" else {}
    )
    assert meta.variable_value_labels["G1"][1] == "=Sales"
    assert meta.variable_value_labels["G1"][prefer] != meta.variable_value_labels["G1"][skipped]


def test_spss_declares_skipped_and_prefer_not_user_missing(study, tmp_path):
    path = tmp_path / "reports.sav"
    spss_stata.write_sav(survey_codebook(survey=study), path)
    frame, _meta = pyreadstat.read_sav(str(path))  # as SPSS analyses: user-missing is missing
    _frame, meta = pyreadstat.read_sav(str(path), user_missing=True)
    assert frame["G1"].isna().sum() == 2  # one declined, one skipped
    assert frame["Q1"].isna().sum() == 2
    ranges = meta.missing_ranges
    assert ranges["G1"] == [{"lo": -1.0, "hi": -1.0}, {"lo": -2.0, "hi": -2.0}]
    assert ranges["Q1"] == [{"lo": -1.0, "hi": -1.0}]
    assert "Q4" not in ranges  # any number can be a report: -1 is one (row 5)
    assert sorted(frame["Q4"].dropna()) == [-3, -1, 7, 41]
    assert meta.readstat_variable_types["submission_id"] == "string"
    assert meta.variable_measure["Q4"] == "scale" and meta.variable_measure["G1"] == "nominal"


def test_stata_uses_extended_missing_values(study, tmp_path):
    path = tmp_path / "reports.dta"
    spss_stata.write_dta(survey_codebook(survey=study), path)
    frame, meta = pyreadstat.read_dta(str(path), user_missing=True)
    assert sorted(map(str, frame["G1"])) == sorted(["1", "2", "3", "a", "b"])
    assert sorted(map(str, frame["Q4"])) == sorted(["-1.0", "-3.0", "41.0", "7.0", "a"])
    assert meta.missing_user_values["G2"] == ["a", "b"]
    plain, _meta = pyreadstat.read_dta(str(path))
    assert plain["G1"].isna().sum() == 2 and plain["Q4"].isna().sum() == 1


def _joined_notes(meta, kind):
    if kind == "dta":
        return meta.notes
    # SPSS keeps 80-byte lines: a long note goes on indented continuation lines.
    joined = []
    for line in meta.notes:
        if line.startswith("  ") and joined:
            joined[-1] += " " + line[2:]
        else:
            joined.append(line)
    return joined


@pytest.mark.parametrize("kind", ["sav", "dta"])
def test_notes_carry_the_design_of_every_question(study, tmp_path, kind):
    path = tmp_path / f"reports.{kind}"
    writer = spss_stata.write_sav if kind == "sav" else spss_stata.write_dta
    codebook = survey_codebook(survey=study)
    writer(codebook, path)
    _frame, meta = read(path, kind)
    notes = _joined_notes(meta, kind)
    if kind == "sav":
        assert all(len(line.encode()) <= 80 for line in meta.notes)
    facts = {
        row["name"]: row["value"] for row in codebook_table(study) if row["section"] == "survey"
    }
    for name in ("design", "total_epsilon", "ci_method", "confidence", "minimum_n", "software"):
        assert f"{name}: {facts[name]}" in notes
    columns = [row for row in codebook_table(study) if row["section"] == "column"]
    provenance = (
        "p_truth",
        "p_forced_yes",
        "a",
        "b",
        "epsilon",
        "design",
        "parameters",
        "procedure",
    )
    for row in columns[2:6]:  # the questions; grouping questions have no design
        facts = "; ".join(f"{key} = {row[key]}" for key in provenance if row[key] not in (None, ""))
        assert f"{row['name']}: {facts}" in notes, row["name"]
    q1 = next(row for row in columns if row["name"] == "Q1")
    assert "p_truth = " in next(note for note in notes if note.startswith("Q1: p_truth"))
    assert q1["p_truth"] is not None
    assert f"Q1 (randomized_yes_no): {LONG_TEXT}" in notes
    missing = ".a" if kind == "dta" else "-1"
    assert f"G1 = {missing}: Skipped: not answered." in notes
    assert spss_stata.missing_values_note(stata=kind == "dta") in notes


def test_a_survey_without_responses_writes_empty_files(make_survey, tmp_path):
    survey = make_survey()
    for kind, writer in (("sav", spss_stata.write_sav), ("dta", spss_stata.write_dta)):
        path = tmp_path / f"empty.{kind}"
        writer(survey_codebook(survey=survey), path)
        frame, meta = read(path, kind)
        assert list(frame.columns) == ["submission_id", "received_on", "Q1", "Q2", "P1", "P2"]
        assert len(frame) == 0
        assert meta.variable_value_labels["Q1"]


def test_shorten_cuts_between_characters_and_says_so():
    assert spss_stata.shorten("abc", limit=3, in_bytes=True) == "abc"
    cut = spss_stata.shorten("설문" * 50, limit=64, in_bytes=True)
    assert cut.endswith("…") and len(cut.encode()) <= 64 and len(cut.encode()) > 58
    assert spss_stata.shorten("x" * 100, limit=80, in_bytes=False) == "x" * 79 + "…"


def test_note_lines_fit_spss_document_lines():
    text = "word " * 40 + "설" * 60
    lines = spss_stata.note_lines(text, limit=80)
    assert all(len(line.encode()) <= 80 for line in lines)
    assert "".join(line.strip() for line in lines).replace(" ", "") == text.replace(" ", "")


DOWNLOADS = [
    ("sav", "application/x-spss-sav", pyreadstat.read_sav),
    ("dta", "application/x-stata-dta", pyreadstat.read_dta),
]


def _saved(response, tmp_path, kind):
    path = tmp_path / f"download.{kind}"
    path.write_bytes(b"".join(response.streaming_content))
    return path


@pytest.mark.parametrize(("kind", "content_type", "reader"), DOWNLOADS)
def test_the_results_page_downloads_are_named_like_the_other_exports(
    study, client, owner, other_researcher, tmp_path, kind, content_type, reader
):
    url = reverse(f"surveys:responses-{kind}", kwargs={"pk": study.pk})
    client.force_login(owner)
    response = client.get(url)
    assert response.status_code == 200
    assert response["Content-Type"] == content_type
    filename = export_filename(study, kind="reports", extension=kind)
    assert response["Content-Disposition"] == content_disposition_header(True, filename)
    assert filename.startswith("workplace-습관-study-reports-")
    frame, _meta = reader(str(_saved(response, tmp_path, kind)))
    assert len(frame) == 5
    results = client.get(reverse("surveys:results", kwargs={"pk": study.pk}))
    assert f'href="{url}"' in results.content.decode()
    client.force_login(other_researcher)
    assert client.get(url).status_code == 404  # another researcher's survey


@pytest.mark.parametrize(("kind", "content_type", "reader"), DOWNLOADS)
def test_the_api_downloads_are_the_owners_alone(
    study, owner_api, other_api, tmp_path, kind, content_type, reader
):
    url = f"/api/v1/surveys/{study.pk}/responses.{kind}"
    response = owner_api.get(url)
    assert response.status_code == 200
    assert response["Content-Type"] == content_type
    frame, meta = reader(str(_saved(response, tmp_path, kind)))
    assert list(frame.columns) == csv_rows(study)[0]
    assert meta.column_names_to_labels["Q2"] == "Have you lied to your manager?"
    assert other_api.get(url).status_code == 404
    assert owner_api.get(f"/api/v1/surveys/{study.pk + 1000}/responses.{kind}").status_code == 404


@pytest.mark.parametrize("kind", ["sav", "dta"])
def test_descriptions_follow_the_requests_language_as_in_the_codebook(study, tmp_path, kind):
    path = tmp_path / f"reports.{kind}"
    writer = spss_stata.write_sav if kind == "sav" else spss_stata.write_dta
    with translation.override("ko"):
        writer(survey_codebook(survey=study), path)
        missing_note = spss_stata.missing_values_note(stata=kind == "dta")
    _frame, meta = read(path, kind)
    skipped, prefer = ("a", "b") if kind == "dta" else (-1, -2)
    assert meta.variable_value_labels["G1"][skipped] == "건너뜀: 응답하지 않음."
    assert (
        meta.variable_value_labels["G1"][prefer]
        == "“응답하지 않겠습니다”를 선택함 (모든 그룹 질문에 제공됨)."
    )
    assert missing_note.startswith("결측값") and missing_note in _joined_notes(meta, kind)
    assert meta.column_names_to_labels["Q2"] == "Have you lied to your manager?"  # the survey's
