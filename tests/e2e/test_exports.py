"""Downloads from the results page in a real Chromium, as a researcher would click them, in
English, Korean and Chinese: every download carries the codebook."""

import csv
import io
import zipfile

import numpy as np
import openpyxl
import pytest
from playwright.sync_api import expect

from surveys import services
from surveys.services import grouping

pytestmark = pytest.mark.e2e

# browser locale -> (the ZIP link, the Excel link, the codebook link, the download heading)
LINKS = {
    "en-US": ("CSV files (ZIP)", "Excel (.xlsx)", "Codebook only (CSV)", "Download with codebook"),
    "ko-KR": ("CSV 파일(ZIP)", "Excel(.xlsx)", "코드북만(CSV)", "코드북과 함께 내려받기"),
    "zh-CN": ("CSV 文件（ZIP）", "Excel（.xlsx）", "仅编码簿（CSV）", "连同编码簿下载"),
}


@pytest.fixture
def answered(make_survey):
    survey = make_survey(status="draft", min_n=1, questions=["=Ever cheated?", "Ever lied?"])
    team = grouping.grouping_question_add(survey=survey, text="Team?", options=["=Red", "Blue"])
    survey = services.survey_open(survey=survey)
    ids = list(team.options.values_list("id", flat=True))
    rng = np.random.default_rng(5)
    services.simulated_submissions_record(
        survey=survey, reports=rng.random((40, 2)) < 0.5, options=[[ids[i % 2]] for i in range(40)]
    )
    return survey


def download(page, name):
    with page.expect_download() as info:
        page.get_by_role("link", name=name, exact=True).click()
    return info.value


@pytest.mark.parametrize("locale", LINKS)
def test_every_download_from_the_results_page_carries_the_codebook(
    live_server, new_context, sign_in, owner, answered, locale
):
    zip_link, xlsx_link, codebook_link, heading = LINKS[locale]
    page = new_context(locale=locale).new_page()
    sign_in(page, live_server, owner)
    page.goto(f"{live_server.url}/surveys/{answered.pk}/results/")
    expect(page.get_by_role("heading", name=heading)).to_be_visible()
    # The interval chosen on the page travels with the downloads.
    page.locator("#id_method").select_option("exact")
    page.locator(".results-controls button[type=submit]").click()
    expect(page.locator("#id_method")).to_have_value("exact")

    archive = download(page, zip_link)
    assert archive.suggested_filename.endswith(".zip")
    with zipfile.ZipFile(archive.path()) as bundle:
        # The codebook last: it names reports.csv's rows and SHA-256.
        assert bundle.namelist() == ["reports.csv", "estimates.csv", "codebook.csv"]
        codebook = list(csv.reader(io.StringIO(bundle.read("codebook.csv").decode())))
        reports = list(csv.reader(io.StringIO(bundle.read("reports.csv").decode())))
    facts = {row[1]: row[3] for row in codebook if row[0] == "survey"}
    assert facts["ci_method"] == "exact"
    columns = {row[1]: row[4] for row in codebook if row[0] == "column"}
    assert columns["Q1"] == "'=Ever cheated?"  # neutralised, as every text cell
    assert reports[0] == ["submission_id", "received_on", "Q1", "Q2", "G1", "P1", "P2"]
    assert {row[4] for row in reports[1:]} == {"'=Red", "Blue"}
    # The page's table names the rows as the files name the columns.
    expect(page.locator(".results-table tbody th")).to_have_text(["Q1", "Q2"])

    workbook = download(page, xlsx_link)
    assert workbook.suggested_filename.endswith(".xlsx")
    with open(workbook.path(), "rb") as handle:  # the download's path has no extension
        book = openpyxl.load_workbook(io.BytesIO(handle.read()))
    assert book.sheetnames == ["estimates", "reports", "codebook"]
    assert book["codebook"]["A1"].value == "section"
    texts = [cell for row in book["reports"].iter_rows() for cell in row if cell.value == "=Red"]
    assert texts and all(cell.data_type == "s" for cell in texts)  # text, not a formula

    alone = download(page, codebook_link)
    with open(alone.path(), encoding="utf-8") as handle:
        assert next(csv.reader(handle))[:3] == ["section", "name", "type"]
