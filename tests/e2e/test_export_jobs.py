"""A large export in a real Chromium: the download link leads to the job's page, whose
progress bar follows the worker and which offers the file once it is written (issue 28)."""

import csv
import dataclasses
import io
import re
import threading
import zipfile

import numpy as np
import pytest
from django.db import connection
from playwright.sync_api import expect

from surveys import services
from surveys.exports import jobs as export_files
from surveys.exports import kinds

pytestmark = pytest.mark.e2e

ROWS = 40


@pytest.fixture
def answered(make_survey):
    survey = make_survey(min_n=1)
    services.simulated_submissions_record(
        survey=survey, reports=np.random.default_rng(3).random((ROWS, 2)) < 0.5
    )
    survey.refresh_from_db()
    return survey


def test_a_large_export_shows_its_progress_then_the_file(
    live_server, page, sign_in, owner, answered, settings, monkeypatch
):
    settings.EXPORT_JOB_THRESHOLD = 10  # the survey's 40 responses make it a job
    monkeypatch.setattr(kinds, "PROGRESS_EVERY_ROWS", 10)
    # The worker stops at its first progress report until the page has shown it.
    shown = threading.Event()
    zip_kind = kinds.EXPORT_KINDS["zip"]

    def paused_write(handle, *, survey, options, progress):
        def report(rows):
            progress(rows)
            if 0 < rows < ROWS:
                assert shown.wait(30)

        return zip_kind.write(handle, survey=survey, options=options, progress=report)

    monkeypatch.setitem(
        kinds.EXPORT_KINDS, "zip", dataclasses.replace(zip_kind, write=paused_write)
    )

    sign_in(page, live_server, owner)
    page.goto(f"{live_server.url}/surveys/{answered.pk}/results/")
    page.get_by_role("link", name="CSV files (ZIP)", exact=True).click()
    expect(page.get_by_role("heading", name="Your download is being prepared")).to_be_visible()
    bar = page.get_by_role("progressbar")
    expect(bar).to_have_attribute("aria-valuenow", "0")
    expect(page.locator("#export-job-status")).to_contain_text("Waiting for the worker")
    job_id = re.search(r"/exports/([0-9a-f-]+)/", page.url).group(1)

    def work():
        try:
            export_files.export_job_run(job_id=job_id)
        finally:
            connection.close()  # this thread's own, so the test database can be dropped

    worker = threading.Thread(target=work)
    worker.start()
    try:
        # The page follows the worker: 10 of 40 rows is a quarter of the bar.
        expect(page.locator("#export-job-status")).to_contain_text("Writing: 10 of 40 rows.")
        expect(bar).to_have_attribute("aria-valuenow", "25")
    finally:
        shown.set()
        worker.join(30)

    # Done: the page reloads itself with the file, its rows and its checksum.
    expect(page.get_by_role("heading", name="Your download is ready")).to_be_visible()
    link = page.get_by_role("link", name=re.compile(r"^Download .*\.zip$"))
    expect(link).to_be_visible()
    expect(bar).to_have_attribute("aria-valuenow", "100")
    with page.expect_download() as info:
        link.click()
    with zipfile.ZipFile(info.value.path()) as archive:
        reports = archive.read("reports.csv").decode()
    assert len(list(csv.reader(io.StringIO(reports)))) == ROWS + 1
    expect(page.locator(".export-job__facts")).to_contain_text(str(ROWS))
