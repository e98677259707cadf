"""Exports that match the screen: Q1…Qn and G1…Gm, option labels, the codebook, ZIP and xlsx.

The acceptance test of issue 14 reads the downloaded files as a stranger would (the files
only: no ORM, no product code but dpengine), recomputes every question's numbers with the
codebook's coins and compares them with what the results page and the API show.
"""

import csv
import html
import io
import re
import urllib.parse
import uuid
import zipfile

import numpy as np
import openpyxl
import pytest
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

import dpengine
from surveys import services
from surveys.exports import bundles as export_bundles
from surveys.exports import r as r_export
from surveys.models import GroupAnswer, Submission, TallyShard
from surveys.services import grouping, tokens
from surveys.templatetags.researcher_tags import grouped, pct

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def direct_exports(settings):
    """Every export here is read as the file a request sends, however long a loaded machine
    takes to build it: past ``EXPORT_DIRECT_SECONDS`` it would be handed to a job (202, no
    file). The hand-over has tests of its own (tests/surveys/views/test_export_jobs.py)."""
    settings.EXPORT_DIRECT_SECONDS = 24 * 3600


QUESTIONS = ("Have you ever cheated on a test?", "=1+1 a formula?", "Have you lied to a boss?")
TEAMS = ("=Sales", "'Quoted", "Research", "Nobody")
AGES = ("Under 30", "30 or over")


def store_without(survey, *, question, grouping_question, bits, options):
    """A submission that skipped ``question`` and ``grouping_question`` (optional answers,
    issue 14 item 2): no key in its reports, no group answer, and tallies to match."""
    keys = {f"q{q.pk}": bit for q, bit in zip(survey.questions.all(), bits, strict=True)}
    del keys[f"q{question.pk}"]
    submission = Submission.objects.create(
        survey=survey,
        submission_id=uuid.uuid4(),
        received_on=timezone.now().date(),
        reports=keys,
    )
    for gq, option in zip(survey.grouping_questions.all(), options, strict=True):
        if gq.pk != grouping_question.pk:
            GroupAnswer.objects.create(submission=submission, grouping_question=gq, option=option)
    shard = TallyShard.objects.filter(survey=survey).first()
    shard.responses += 1
    for key, bit in keys.items():
        n, yes = shard.reports.get(key, (0, 0))
        shard.reports[key] = (n + 1, yes + int(bit))
    shard.save()


@pytest.fixture
def api(owner):
    """The owner as a script: by API token."""
    client = APIClient()
    client.credentials(
        HTTP_AUTHORIZATION=f"Token {tokens.token_issue(user=owner, name='tests').key}"
    )
    return client


@pytest.fixture
def study(make_survey):
    """Three yes/no questions, two grouping questions, uneven coins, 300 answers of which six
    skipped Q2 and G2."""
    survey = make_survey(
        status="draft", questions=QUESTIONS, p_truth=0.6, p_forced_yes=0.3, min_n=5
    )
    team = grouping.grouping_question_add(survey=survey, text="@Team?", options=TEAMS)
    age = grouping.grouping_question_add(survey=survey, text="Age?", options=AGES)
    survey = services.survey_open(survey=survey)
    rng = np.random.default_rng(14)
    team_ids = list(team.options.values_list("id", flat=True))
    age_ids = list(age.options.values_list("id", flat=True))
    options = [[team_ids[i % 3], age_ids[i % 2]] for i in range(294)]
    services.simulated_submissions_record(
        survey=survey, reports=rng.random((294, 3)) < [0.5, 0.3, 0.6], options=options
    )
    questions = list(survey.questions.all())
    for i in range(6):
        store_without(
            survey,
            question=questions[1],
            grouping_question=age,
            bits=[True, i % 2 == 0, False],
            options=[team.options.all()[i % 3], age.options.all()[0]],
        )
    survey.refresh_from_db()
    return survey


# --- the stranger: only the files, only dpengine ----------------------------------------------


def read_codebook(rows):
    header, *body = rows
    records = [dict(zip(header, row, strict=True)) for row in body]
    facts = {r["name"]: r["value"] for r in records if r["section"] == "survey"}
    columns = {r["name"]: r for r in records if r["section"] == "column"}
    values = {}
    for r in records:
        if r["section"] == "value":
            values.setdefault(r["name"], {})[r["value"]] = r["text"]
    return facts, columns, values


def recompute(report_rows, codebook_rows):
    """Each randomized column's n, yes and estimate, from the files alone."""
    facts, columns, values = read_codebook(codebook_rows)
    header, *rows = report_rows
    results = {}
    for name, column in columns.items():
        index = header.index(name)
        cells = [row[index] for row in rows]
        assert set(cells) <= set(values.get(name, {})) | {""} or column["type"] in (
            "identifier",
            "date",
        ), name
        if column["type"] != "randomized_yes_no":
            continue
        answered = [cell for cell in cells if cell != ""]  # blank = not answered
        design = dpengine.ForcedResponse(
            p_truth=float(column["p_truth"]), p_forced_yes=float(column["p_forced_yes"])
        )
        results[name] = dpengine.estimate_with_coverage(
            yes=answered.count("1"),
            n=len(answered),
            design=design,
            confidence=float(facts["confidence"]),
            method=facts["ci_method"],
        )
    return facts, results


def csv_text(rows_text):
    return list(csv.reader(io.StringIO(rows_text)))


def unzip(response):
    assert response.status_code == 200
    body = b"".join(response.streaming_content)
    # Sent whole with its length (a cut download is seen as cut), the codebook last: it names
    # reports.csv's rows and SHA-256, known once that is written.
    assert int(response["Content-Length"]) == len(body)
    with zipfile.ZipFile(io.BytesIO(body)) as archive:
        assert archive.namelist() == ["reports.csv", "estimates.csv", "codebook.csv"]
        return {name: csv_text(archive.read(name).decode()) for name in archive.namelist()}


def sheet_rows(book, name):
    return [
        ["" if cell is None else str(cell) for cell in row]
        for row in book[name].iter_rows(values_only=True)
    ]


def assert_matches_the_api_and_the_page(results, *, api, page):
    assert list(results) == [row["column"] for row in api["estimates"]] == ["Q1", "Q2", "Q3"]
    for row in api["estimates"]:
        mine = results[row["column"]]
        for field in ("n", "yes", "estimate", "clamped", "std_error", "ci_low", "ci_high"):
            assert getattr(mine, field) == row[field], (row["column"], field)
        # The results page's row with the same label shows the same numbers.
        shown = re.search(
            rf'<th scope="row"[^>]*>{row["column"]}</th>(.*?)</tr>', page, re.S
        ).group(1)
        assert f">{grouped(mine.n)}</td>" in shown
        assert f">{grouped(mine.yes)}</td>" in shown
        assert f"{pct(mine.ci_low)} – {pct(mine.ci_high)}" in shown


# --- acceptance: the round trip -------------------------------------------------------------


def test_a_stranger_recomputes_the_results_page_from_the_zip_alone(study, owner_client, api):
    query = {"method": "exact", "level": "0.9"}
    files = unzip(owner_client.get(reverse("surveys:export-zip", kwargs={"pk": study.pk}), query))
    facts, results = recompute(files["reports.csv"], files["codebook.csv"])
    assert (facts["ci_method"], float(facts["confidence"])) == ("exact", 0.9)
    api = api.get(
        f"/api/v1/surveys/{study.pk}/estimates/", {"method": "exact", "confidence": "0.9"}
    ).json()
    page = owner_client.get(reverse("surveys:results", kwargs={"pk": study.pk}), query)
    assert_matches_the_api_and_the_page(results, api=api, page=page.content.decode())
    # The skipped question counts on its own n (blank cells, not zeros).
    assert [results[name].n for name in ("Q1", "Q2", "Q3")] == [300, 294, 300]
    # The estimates file in the same ZIP says the same, under the same names.
    header, *rows = files["estimates.csv"]
    for row in rows:
        record = dict(zip(header, row, strict=True))
        assert float(record["ci_high"]) == results[record["column"]].ci_high


def test_a_stranger_recomputes_the_api_numbers_from_the_plain_csv_files(study, api):
    reports = api.get(f"/api/v1/surveys/{study.pk}/responses.csv")
    # The data file names its codebook; fetched as a client would, from the header alone.
    link = re.match(r"<http://testserver(.*?)>", reports["Link"]).group(1)
    codebook = api.get(link)
    facts, results = recompute(
        csv_text(b"".join(reports.streaming_content).decode()),
        csv_text(b"".join(codebook.streaming_content).decode()),
    )
    api = api.get(f"/api/v1/surveys/{study.pk}/estimates/").json()
    assert (facts["ci_method"], float(facts["confidence"])) == (api["method"], api["confidence"])
    for row in api["estimates"]:
        mine = results[row["column"]]
        assert (mine.n, mine.yes, mine.estimate, mine.ci_low, mine.ci_high) == (
            row["n"],
            row["yes"],
            row["estimate"],
            row["ci_low"],
            row["ci_high"],
        )


@pytest.mark.slow
def test_a_stranger_recomputes_the_results_page_from_the_workbook(study, owner_client, api):
    response = owner_client.get(reverse("surveys:export-xlsx", kwargs={"pk": study.pk}))
    assert response.status_code == 200
    assert response["Content-Type"] == export_bundles.XLSX_CONTENT_TYPE
    assert response["Content-Disposition"].endswith('.xlsx"')
    book = openpyxl.load_workbook(io.BytesIO(b"".join(response.streaming_content)))
    assert book.sheetnames == ["estimates", "reports", "codebook"]
    _facts, results = recompute(sheet_rows(book, "reports"), sheet_rows(book, "codebook"))
    api = api.get(f"/api/v1/surveys/{study.pk}/estimates/").json()
    page = owner_client.get(reverse("surveys:results", kwargs={"pk": study.pk}))
    assert_matches_the_api_and_the_page(results, api=api, page=page.content.decode())


# --- the files' contract --------------------------------------------------------------------


def test_raw_reports_name_columns_as_the_screen_with_labels_and_blanks(study, api):
    response = api.get(f"/api/v1/surveys/{study.pk}/responses.csv")
    header, *rows = csv_text(b"".join(response.streaming_content).decode())
    assert header == [
        "submission_id", "received_on", "Q1", "Q2", "Q3", "G1", "G2", "P1", "P2", "P3",
    ]  # fmt: skip
    assert [row[0] for row in rows] == sorted(row[0] for row in rows)  # by the random id
    # Labels, never option ids; one leading ' on a label that starts like a formula or with '.
    assert {row[5] for row in rows} == {"'=Sales", "''Quoted", "Research"}
    assert {row[6] for row in rows} == {"Under 30", "30 or over", ""}
    skipped = [row for row in rows if row[6] == ""]
    assert len(skipped) == 6
    assert {row[3] for row in skipped} == {""}  # not answered is empty, never 0
    assert {row[2] for row in rows} == {"0", "1"}


def test_the_codebook_describes_every_column_with_the_cells_as_written(study, api):
    response = api.get(f"/api/v1/surveys/{study.pk}/codebook.csv")
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    rows = csv_text(b"".join(response.streaming_content).decode())
    facts, columns, values = read_codebook(rows)
    design = dpengine.ForcedResponse(p_truth=0.6, p_forced_yes=0.3)
    assert float(facts["epsilon_per_answer"]) == design.epsilon
    # 3 ε computed exactly and rounded up (issue 23): at least the float product.
    assert float(facts["total_epsilon"]) == dpengine.survey_epsilon(design, questions=3)
    assert float(facts["total_epsilon"]) >= 3 * design.epsilon
    assert facts["language"] == study.language
    assert list(columns) == [
        "submission_id", "received_on", "Q1", "Q2", "Q3", "G1", "G2", "P1", "P2", "P3",
    ]  # fmt: skip
    # Where each question was shown: a whole number from 1, or empty when not recorded.
    assert columns["P2"]["type"] == "position" and "Q2" in columns["P2"]["text"]
    assert [columns[name]["type"] for name in columns] == [
        "identifier", "date", "randomized_yes_no", "randomized_yes_no", "randomized_yes_no",
        "grouping", "grouping", "position", "position", "position",
    ]  # fmt: skip
    assert columns["Q2"]["text"] == "'=1+1 a formula?"  # neutralised like every text cell
    assert columns["G1"]["text"] == "'@Team?"
    assert float(columns["Q1"]["a"]) == design.p_yes_given_yes
    assert float(columns["Q1"]["b"]) == design.p_yes_given_no
    assert float(columns["Q1"]["epsilon"]) == design.epsilon
    assert columns["G1"]["epsilon"] == ""  # grouping answers are not randomized
    # Every option, unused ones too, in builder order, escaped exactly as in the data file.
    assert list(values["Q1"]) == ["1", "0", ""]
    assert list(values["G1"]) == [
        "'=Sales",
        "''Quoted",
        "Research",
        "Nobody",
        "prefer_not_to_say",
        "",
    ]
    assert values["Q1"][""] == values["G1"][""] == "Skipped: not answered."
    assert not any(cell.startswith(("=", "+", "-", "@")) for row in rows for cell in row)


@pytest.mark.slow
def test_every_export_tells_prefer_not_to_say_from_a_skip(study, api, respondent):
    """Issue 24: both were an empty cell and "Not answered." in the codebook, although the
    database keeps them apart. One respondent declines G2; six (the fixture's) skipped it."""
    questions = list(study.questions.values_list("id", flat=True))
    team, age = study.grouping_questions.all()
    body = {
        "submission_id": str(uuid.uuid4()),
        "answers": {str(q): True for q in questions},
        "groups": {str(team.pk): str(team.options.first().pk), str(age.pk): "prefer_not_to_say"},
    }
    sent = respondent.post(f"/api/v1/public/surveys/{study.slug}/responses/", body, format="json")
    assert sent.status_code == 201

    def g2_cells(rows):
        index = rows[0].index("G2")
        return sorted(row[index] for row in rows[1:] if row[index] not in AGES)

    for path in ("responses.csv", "for-r.csv"):
        rows = csv_text(
            b"".join(api.get(f"/api/v1/surveys/{study.pk}/{path}").streaming_content).decode()
        )
        assert g2_cells(rows) == [""] * 6 + ["prefer_not_to_say"], path
    book = openpyxl.load_workbook(
        io.BytesIO(b"".join(api.get(f"/api/v1/surveys/{study.pk}/export.xlsx").streaming_content))
    )
    assert g2_cells(sheet_rows(book, "reports")) == [""] * 6 + ["prefer_not_to_say"]
    codebook = csv_text(
        b"".join(api.get(f"/api/v1/surveys/{study.pk}/codebook.csv").streaming_content).decode()
    )
    _facts, _columns, values = read_codebook(codebook)
    assert values["G2"]["prefer_not_to_say"] != values["G2"][""]
    assert "Prefer not to say" in values["G2"]["prefer_not_to_say"]
    assert values["G2"][""] == "Skipped: not answered."
    _facts, _columns, values = read_codebook(sheet_rows(book, "codebook"))
    assert set(values["G2"]) == {"Under 30", "30 or over", "prefer_not_to_say", ""}


EXPORT_FILES = (
    "estimates.csv",
    "responses.csv",
    "codebook.csv",
    "export.zip",
    "export.xlsx",
    "for-r.csv",
)


@pytest.mark.parametrize(
    ("title", "stem"),
    [
        ("Workplace habits: 2026 / Wave 2?", "workplace-habits-2026-wave-2"),
        ("직장 습관 조사", "직장-습관-조사"),
        ("???", "survey"),
    ],
)
def test_export_file_names_carry_the_title_and_date_never_the_link_code(
    make_survey, owner_client, api, title, stem
):
    """Issue 24: ``rrsurvey-<respondent-link code>-export-….xlsx`` leaked the link to anyone
    the file was emailed to."""
    survey = make_survey(title=title)
    today = timezone.localdate().isoformat()
    for name in EXPORT_FILES:
        kind, extension = name.split(".")
        kind = {"responses": "reports", "for-r": "for-r"}.get(kind, kind)
        expected = f"{stem}-{kind}-{today}.{extension}"
        for response in (
            api.get(f"/api/v1/surveys/{survey.pk}/{name}"),
            owner_client.get(f"/surveys/{survey.pk}/{name}"),
        ):
            assert response.status_code == 200, name
            disposition = urllib.parse.unquote(response["Content-Disposition"])
            assert survey.slug not in disposition
            assert disposition.startswith("attachment; filename")
            assert disposition.endswith((f'"{expected}"', f"''{expected}")), disposition
    # The R code reads the file under the name it is downloaded with.
    assert f'read.csv("{stem}-for-r-{today}.csv"' in r_export.r_estimates_script(survey=survey)


def test_the_workbook_is_readable_as_opened_frozen_filterable_sized_and_annotated(study, api):
    """Issue 24: no frozen header, no filters, default widths, and the question texts only
    on the codebook sheet."""
    response = api.get(f"/api/v1/surveys/{study.pk}/export.xlsx")
    book = openpyxl.load_workbook(io.BytesIO(b"".join(response.streaming_content)))
    for sheet in book.worksheets:
        assert sheet.freeze_panes == "A2", sheet.title
        assert (
            sheet.auto_filter.ref
            == f"A1:{sheet.cell(1, sheet.max_column).column_letter}{sheet.max_row}"
        )
        assert all(cell.font.bold for cell in sheet[1])
        widths = [sheet.column_dimensions[cell.column_letter].width for cell in sheet[1]]
        assert all(8 <= width <= 60 for width in widths), (sheet.title, widths)
    reports = book["reports"]
    assert reports.max_row == 301  # one header row: programs read the sheet as before
    widths = {
        cell.value: reports.column_dimensions[cell.column_letter].width for cell in reports[1]
    }
    assert widths["submission_id"] >= 38  # a whole UUID is visible
    assert widths["Q1"] < widths["submission_id"]
    notes = {cell.value: cell.comment.text if cell.comment else None for cell in reports[1]}
    assert [notes[name] for name in ("Q1", "Q2", "Q3")] == list(QUESTIONS)
    assert (notes["G1"], notes["G2"]) == ("@Team?", "Age?")
    assert "Random id" in notes["submission_id"]
    # The long question column of the estimates is capped, the short ones are not stretched.
    estimates = {cell.value: cell.column_letter for cell in book["estimates"][1]}
    dims = book["estimates"].column_dimensions
    assert dims[estimates["question"]].width == len(QUESTIONS[0]) + 2
    assert dims[estimates["n"]].width == 8


def test_sheet_columns_are_sized_for_wide_scripts_and_capped():
    header, *rows = [["a", "직장 습관"], ["x" * 200, None], ["abcdefgh", "습관"]]
    assert export_bundles.column_widths([header, *rows]) == [60, 9 + 5]
    assert export_bundles.column_widths([["n"], ["3000"]]) == [8]


def test_the_workbook_keeps_text_as_text_never_a_formula(study, api):
    response = api.get(f"/api/v1/surveys/{study.pk}/export.xlsx")
    book = openpyxl.load_workbook(io.BytesIO(b"".join(response.streaming_content)))
    cells = [cell for name in book.sheetnames for row in book[name].iter_rows() for cell in row]
    assert not [cell.coordinate for cell in cells if cell.data_type == "f"]
    texts = {cell.value for cell in cells if cell.data_type == "s"}
    # The labels as chosen (no CSV escape in a workbook), stored as text.
    assert {"=Sales", "'Quoted", "=1+1 a formula?", "@Team?"} <= texts
    reports = sheet_rows(book, "reports")
    assert reports[0][:7] == ["submission_id", "received_on", "Q1", "Q2", "Q3", "G1", "G2"]
    assert {row[3] for row in reports[1:]} == {"0", "1", ""}


@pytest.mark.slow
def test_the_r_export_is_the_raw_reports_file(study, api):
    def body(path):
        return b"".join(api.get(path).streaming_content)

    assert body(f"/api/v1/surveys/{study.pk}/for-r.csv") == body(
        f"/api/v1/surveys/{study.pk}/responses.csv"
    )


@pytest.mark.slow
def test_the_zip_is_streamed_in_chunks_for_a_large_survey(make_survey, api):
    survey = make_survey(questions=[f"Question {i}?" for i in range(10)])
    rng = np.random.default_rng(1)
    services.simulated_submissions_record(survey=survey, reports=rng.random((6000, 10)) < 0.5)
    response = api.get(f"/api/v1/surveys/{survey.pk}/export.zip")
    chunks = list(response.streaming_content)
    # Chunks leave as rows are compressed, not as one archive built first.
    assert len(chunks) > 3
    assert max(len(chunk) for chunk in chunks) < 4 * export_bundles.CHUNK_BYTES
    with zipfile.ZipFile(io.BytesIO(b"".join(chunks))) as archive:
        assert archive.read("reports.csv").decode().count("\n") == 6001


@pytest.mark.parametrize("name", ["export-zip", "export-xlsx", "codebook-csv"])
def test_a_bad_interval_is_a_400_naming_the_field(study, owner_client, api, name):
    page = owner_client.get(reverse(f"surveys:{name}", kwargs={"pk": study.pk}), {"level": "2"})
    assert page.status_code == 400
    assert page.content.decode().startswith("level:")
    api = api.get(reverse(f"api:survey-{name}", kwargs={"survey_id": study.pk}), {"method": "=cmd"})
    assert api.status_code == 400
    assert list(api.json()["errors"]) == ["method"]


def test_a_survey_too_large_for_a_sheet_gets_no_workbook(study, owner_client, api, monkeypatch):
    monkeypatch.setattr(export_bundles, "XLSX_MAX_ROWS", study.response_count)
    page = owner_client.get(reverse("surveys:export-xlsx", kwargs={"pk": study.pk}))
    assert page.status_code == 409
    assert "ZIP" in page.content.decode()
    api = api.get(f"/api/v1/surveys/{study.pk}/export.xlsx")
    assert api.status_code == 409
    assert "300 responses" in api.json()["detail"]
    results = owner_client.get(reverse("surveys:results", kwargs={"pk": study.pk}))
    assert reverse("surveys:export-xlsx", kwargs={"pk": study.pk}) not in results.content.decode()
    assert reverse("surveys:export-zip", kwargs={"pk": study.pk}) in results.content.decode()


def test_analysis_pages_label_grouping_questions_as_the_exports(study, owner_client):
    breakdown = owner_client.get(reverse("surveys:breakdown", kwargs={"pk": study.pk}))
    assert ">G1: @Team?</option>" in breakdown.content.decode()
    assert ">G2: Age?</option>" in breakdown.content.decode()
    regression = owner_client.get(reverse("surveys:regression", kwargs={"pk": study.pk}))
    content = html.unescape(regression.content.decode())
    assert re.search(r"<h3><span[^>]*>G1</span> <span[^>]*>@Team\?</span></h3>", content)
    assert "d$G1 <- factor(d$G1" in content


def test_a_member_that_may_pass_2_gib_is_written_with_zip64_and_reads_back():
    rows = [["a", "=b"], *([str(i), i] for i in range(2000))]
    body = b"".join(export_bundles.zip_stream([("big.csv", iter(rows), True)]))
    # The local header needs ZIP64 (version 4.5) and carries its extra field.
    assert int.from_bytes(body[4:6], "little") >= zipfile.ZIP64_VERSION
    assert int.from_bytes(body[28:30], "little") > 0
    with zipfile.ZipFile(io.BytesIO(body)) as archive:
        assert csv_text(archive.read("big.csv").decode())[:2] == [["a", "'=b"], ["0", "0"]]
