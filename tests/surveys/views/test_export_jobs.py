"""Raw exports as whole files or as background jobs (issue 28): never a truncated 200."""

import csv
import hashlib
import io
import stat
import zipfile
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import OperationalError
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from surveys import limits
from surveys.exports import csv as csv_export
from surveys.exports import jobs as export_files
from surveys.exports import kinds
from surveys.exports.codebook import survey_codebook
from surveys.exports.tasks import export_job_task
from surveys.models import PREFER_NOT_TO_SAY, ExportJob, GroupAnswer, Submission, question_key
from surveys.selectors.export_jobs import export_path
from surveys.services import export_jobs
from tests.helpers import lock_recorder, simulate_responses

# Every raw download of a survey, each an export kind (surveys/exports/kinds.py).
EXPORT_URLS = [
    "responses.csv",
    "for-r.csv",
    "export.zip",
    "export.xlsx",
    "responses.sav",
    "responses.dta",
]


@pytest.fixture(autouse=True)
def export_dir(settings, tmp_path):
    settings.EXPORT_DIR = tmp_path / "exports"
    return settings.EXPORT_DIR


@pytest.fixture
def grouped(mixed_grouped):
    return mixed_grouped  # 400 respondents of every question type, with a grouping question


def body_of(response):
    return b"".join(response.streaming_content)


def legacy_reports_csv(survey):
    """The responses CSV built another way, one submission and answer at a time through the
    ORM (the oracle of the one-query export)."""
    questions = list(survey.questions.all())
    grouping = list(survey.grouping_questions.all())
    answers = {
        (answer.submission_id, answer.grouping_question_id): answer.option
        for answer in GroupAnswer.objects.filter(submission__survey=survey).select_related("option")
    }
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(survey_codebook(survey=survey).columns)
    for submission in Submission.objects.filter(survey=survey).order_by("submission_id"):
        labels = []
        for gq in grouping:
            key = (submission.pk, gq.pk)
            if key not in answers:
                labels.append(None)
            elif answers[key] is None:
                labels.append(PREFER_NOT_TO_SAY)
            else:
                labels.append(csv_export.escape_label(answers[key].label))
        bits = [submission.reports.get(question_key(q.pk)) for q in questions]
        # Where the page showed each question (P1...), empty when no order was sent.
        positions = [submission.positions.get(question_key(q.pk)) for q in questions]
        row = [
            str(submission.submission_id),
            submission.received_on.isoformat(),
            *bits,
            *labels,
            *positions,
        ]
        writer.writerow([csv_export.csv_safe(cell) for cell in row])
    return buffer.getvalue().encode()


def run_jobs():
    """What the worker does: run every waiting export job."""
    for job in ExportJob.objects.filter(status=ExportJob.Status.QUEUED):
        export_job_task.call(str(job.pk))


def test_small_export_is_the_whole_file_with_its_length(owner_client, grouped):
    response = owner_client.get(f"/surveys/{grouped.pk}/responses.csv")
    body = body_of(response)
    assert response.status_code == 200
    assert int(response["Content-Length"]) == len(body)
    assert body == legacy_reports_csv(grouped)
    assert 'rel="describedby"' in response["Link"]
    assert not ExportJob.objects.exists()


@pytest.mark.parametrize("url", EXPORT_URLS)
def test_large_export_is_a_job_with_a_page(owner_client, grouped, settings, url):
    settings.EXPORT_JOB_THRESHOLD = 100
    response = owner_client.get(f"/surveys/{grouped.pk}/{url}")
    job = ExportJob.objects.get()
    assert response.status_code == 303
    assert response["Location"] == f"/surveys/{grouped.pk}/exports/{job.pk}/"
    page = owner_client.get(response["Location"])
    assert page.status_code == 200
    assert 'role="progressbar"' in page.content.decode() or "<progress" in page.content.decode()
    status = owner_client.get(f"/surveys/{grouped.pk}/exports/{job.pk}/status").json()
    assert (status["status"], status["rows_written"], status["rows_total"]) == ("queued", 0, 400)
    assert status["file_url"] is None


def test_a_second_request_joins_the_waiting_job(owner_client, grouped, settings):
    settings.EXPORT_JOB_THRESHOLD = 100
    first = owner_client.get(f"/surveys/{grouped.pk}/responses.csv")
    second = owner_client.get(f"/surveys/{grouped.pk}/responses.csv")
    assert first["Location"] == second["Location"]
    assert ExportJob.objects.count() == 1


def test_a_job_is_enqueued_on_the_database_queue_when_the_request_commits(
    owner_client, grouped, settings, django_capture_on_commit_callbacks
):
    settings.EXPORT_JOB_THRESHOLD = 100
    with django_capture_on_commit_callbacks(execute=True):
        owner_client.get(f"/surveys/{grouped.pk}/responses.csv")
    job = ExportJob.objects.get()
    task = DBTaskResult.objects.get()
    assert task.task_path == "surveys.exports.tasks.export_job_task"
    assert task.args_kwargs == {"args": [str(job.pk)], "kwargs": {}}


def test_job_file_is_the_direct_file_with_rows_and_checksum(owner_client, grouped, settings):
    direct = body_of(owner_client.get(f"/surveys/{grouped.pk}/responses.csv"))
    settings.EXPORT_JOB_THRESHOLD = 100
    page_url = owner_client.get(f"/surveys/{grouped.pk}/responses.csv")["Location"]
    run_jobs()
    job = ExportJob.objects.get()
    state = owner_client.get(page_url + "status").json()
    assert (state["status"], state["progress"], state["rows"]) == ("done", 1.0, 400)
    response = owner_client.get(state["file_url"])
    body = body_of(response)
    assert body == direct
    assert int(response["Content-Length"]) == len(body) == job.size
    assert hashlib.sha256(body).hexdigest() == job.sha256 == state["sha256"]
    # The file name under EXPORT_DIR is random; the download keeps the usual name.
    assert job.download_name.endswith(".csv") and job.file_name not in job.download_name
    # Its codebook names the file, its rows and checksum, as the file really is.
    codebook = body_of(owner_client.get(page_url + "codebook.csv")).decode()
    facts = {row[1]: row[3] for row in csv.reader(io.StringIO(codebook)) if row[0] == "survey"}
    assert facts["raw_file_rows"] == str(len(body.decode().splitlines()) - 1) == "400"
    assert facts["raw_file_sha256"] == hashlib.sha256(body).hexdigest()
    page = owner_client.get(page_url).content.decode()
    assert job.sha256 in page and state["file_url"] in page


def test_zip_job_codebook_checks_its_reports(owner_client, grouped, settings):
    settings.EXPORT_JOB_THRESHOLD = 100
    owner_client.get(f"/surveys/{grouped.pk}/export.zip")
    run_jobs()
    job = ExportJob.objects.get()
    body = body_of(owner_client.get(f"/surveys/{grouped.pk}/exports/{job.pk}/file"))
    archive = zipfile.ZipFile(io.BytesIO(body))
    assert archive.namelist() == ["reports.csv", "estimates.csv", "codebook.csv"]
    reports = archive.read("reports.csv")
    codebook = archive.read("codebook.csv").decode()
    facts = {row[1]: row[3] for row in csv.reader(io.StringIO(codebook)) if row[0] == "survey"}
    assert facts["raw_file"] == "reports.csv"
    assert facts["raw_file_rows"] == "400" == str(len(reports.decode().splitlines()) - 1)
    assert facts["raw_file_sha256"] == hashlib.sha256(reports).hexdigest()
    assert reports == legacy_reports_csv(grouped)


def test_xlsx_job_writes_every_row(owner_client, grouped, settings):
    from openpyxl import load_workbook

    settings.EXPORT_JOB_THRESHOLD = 100
    owner_client.get(f"/surveys/{grouped.pk}/export.xlsx")
    run_jobs()
    job = ExportJob.objects.get()
    assert (job.status, job.rows) == ("done", 400)
    body = body_of(owner_client.get(f"/surveys/{grouped.pk}/exports/{job.pk}/file"))
    sheet = load_workbook(io.BytesIO(body), read_only=True)["reports"]
    assert sum(1 for _row in sheet.iter_rows(values_only=True)) == 401
    assert hashlib.sha256(body).hexdigest() == job.sha256


@pytest.mark.parametrize("url", EXPORT_URLS)
def test_a_direct_export_past_its_time_is_a_job_never_a_cut_file(
    owner_client, grouped, settings, url
):
    # Below the threshold, but no time to build it: the answer is a job, not a part of a file.
    settings.EXPORT_DIRECT_SECONDS = 0
    response = owner_client.get(f"/surveys/{grouped.pk}/{url}")
    assert response.status_code == 303
    assert ExportJob.objects.get().status == ExportJob.Status.QUEUED


def test_job_pages_are_404_for_non_members_and_other_surveys(
    owner_client, other_researcher, grouped, make_survey, settings
):
    settings.EXPORT_JOB_THRESHOLD = 100
    page_url = owner_client.get(f"/surveys/{grouped.pk}/responses.csv")["Location"]
    run_jobs()
    job = ExportJob.objects.get()
    other_survey = make_survey(title="Another")
    for suffix in ("", "status", "file", "codebook.csv"):
        assert owner_client.get(page_url + suffix).status_code == 200
        # The same job under another of the owner's surveys is not found.
        assert (
            owner_client.get(f"/surveys/{other_survey.pk}/exports/{job.pk}/{suffix}").status_code
            == 404
        )
    owner_client.force_login(other_researcher)
    for suffix in ("", "status", "file", "codebook.csv"):
        assert owner_client.get(page_url + suffix).status_code == 404


def test_failed_job_keeps_no_file(grouped, owner, export_dir, monkeypatch):
    job = ExportJob.objects.create(survey=grouped, requested_by=owner, kind="reports")

    def broken(handle, **kwargs):
        handle.write(b"submission_id,received_on\n")
        raise RuntimeError("disk full")

    kind = export_files.EXPORT_KINDS["reports"]
    monkeypatch.setitem(
        export_files.EXPORT_KINDS, "reports", type(kind)(**{**kind.__dict__, "write": broken})
    )
    with pytest.raises(RuntimeError):
        export_files.export_job_run(job_id=job.pk)
    job.refresh_from_db()
    assert job.status == ExportJob.Status.FAILED
    assert list(Path(export_dir).iterdir()) == []


@pytest.mark.parametrize("kind", ["reports", "sav"])
def test_a_progress_that_cannot_be_written_does_not_fail_the_job(
    grouped, owner, export_dir, monkeypatch, kind
):
    # SQLite: the job's connection reads the rows from one snapshot and may not write once a
    # submission has written since; the file is written whole all the same.
    job = ExportJob.objects.create(survey=grouped, requested_by=owner, kind=kind)

    def locked(job, *, rows):
        raise OperationalError("database is locked")

    monkeypatch.setattr(export_files, "export_job_progressed", locked)
    monkeypatch.setattr(export_files, "job_progress", export_files.ProgressWriter)
    done = export_files.export_job_run(job_id=job.pk)
    assert done.status == ExportJob.Status.DONE
    assert done.rows == grouped.submissions.count() > 0


def test_expired_exports_are_deleted(grouped, owner, settings):
    settings.EXPORT_RETENTION_HOURS = 2
    job = export_jobs.export_job_start(survey=grouped, user=owner, kind="reports", options={})
    done = export_files.export_job_run(job_id=job.pk)
    path = export_path(done)
    assert path.exists()
    assert export_jobs.export_jobs_purge(now=timezone.now() + timedelta(hours=1)) == 0
    assert export_jobs.export_jobs_purge(now=timezone.now() + timedelta(hours=3)) == 1
    assert not path.exists()
    assert not ExportJob.objects.exists()


def test_api_large_export_is_202_with_a_job_then_the_file(owner_api, other_api, grouped, settings):
    settings.EXPORT_JOB_THRESHOLD = 100
    response = owner_api.get(f"/api/v1/surveys/{grouped.pk}/responses.csv")
    assert response.status_code == 202
    body = response.json()
    assert response["Location"] == body["url"]
    assert (body["status"], body["progress"], body["file_url"]) == ("queued", 0.0, None)
    run_jobs()
    state = owner_api.get(body["url"]).json()
    assert state["status"] == "done" and state["rows"] == 400
    file_response = owner_api.get(state["file_url"])
    data = body_of(file_response)
    assert hashlib.sha256(data).hexdigest() == state["sha256"]
    assert other_api.get(body["url"]).status_code == 404
    assert other_api.get(state["file_url"]).status_code == 404


def test_api_direct_export_past_its_time_is_202(owner_api, grouped, settings):
    settings.EXPORT_DIRECT_SECONDS = 0
    for url in EXPORT_URLS:
        response = owner_api.get(f"/api/v1/surveys/{grouped.pk}/{url}")
        assert response.status_code == 202, url
        run_jobs()  # at most limits.EXPORT_JOBS_ACTIVE_MAX of them may wait at once


def test_a_survey_without_grouping_questions_exports_from_one_query(owner_client, make_survey):
    survey = simulate_responses(make_survey(), n=30, seed=3, shares=[0.3, 0.6])
    response = owner_client.get(f"/surveys/{survey.pk}/responses.csv")
    assert body_of(response) == legacy_reports_csv(survey)


def test_a_deleted_surveys_export_files_go_with_the_next_purge(grouped, owner):
    job = export_jobs.export_job_start(survey=grouped, user=owner, kind="reports", options={})
    path = export_path(export_files.export_job_run(job_id=job.pk))
    grouped.delete()  # as purge_trash does, for good: the job goes with its survey
    assert path.exists()
    export_jobs.export_jobs_purge()
    assert not path.exists()


@pytest.mark.parametrize("extension", ["sav", "dta"])
def test_spss_and_stata_jobs_write_the_direct_file(owner_client, grouped, settings, extension):
    direct = body_of(owner_client.get(f"/surveys/{grouped.pk}/responses.{extension}"))
    settings.EXPORT_JOB_THRESHOLD = 100
    page_url = owner_client.get(f"/surveys/{grouped.pk}/responses.{extension}")["Location"]
    run_jobs()
    state = owner_client.get(page_url + "status").json()
    assert state["status"] == "done" and state["file_name"].endswith(f".{extension}")
    body = body_of(owner_client.get(state["file_url"]))
    assert hashlib.sha256(body).hexdigest() == state["sha256"]
    # The same file but for the moment it was written (SPSS stamps it): same length.
    assert len(body) == len(direct)


@pytest.mark.parametrize("kind", ["reports", "zip"])
def test_an_export_out_of_time_half_way_is_stopped_and_the_next_is_whole(
    owner_client, grouped, monkeypatch, kind
):
    # The budget runs out after the first 50 rows (on PostgreSQL inside the COPY): nothing is
    # sent, and the connection is left as it was (the request goes on to start a job).
    monkeypatch.setattr(kinds, "PROGRESS_EVERY_ROWS", 50)
    ticks = iter([0, 0, 0, 0, 10**6])  # deadline, before the first row, header, 50 rows, ...

    def clock():
        return next(ticks, 10**6)

    with pytest.raises(kinds.DirectExportTooSlow):
        kinds.build_direct(kind=kinds.EXPORT_KINDS[kind], survey=grouped, options={}, clock=clock)
    assert next(ticks, None) is None  # stopped at the first check past the deadline
    response = owner_client.get(f"/surveys/{grouped.pk}/responses.csv")
    assert body_of(response) == legacy_reports_csv(grouped)


def test_a_user_may_have_three_export_jobs_waiting_then_429_with_retry_after(
    owner_api, other_api, grouped, settings
):
    # Issue 32: a viewer queued 41 jobs by varying the confidence level.
    settings.EXPORT_JOB_THRESHOLD = 100
    url = f"/api/v1/surveys/{grouped.pk}/export.zip?confidence="
    for level in ("0.8", "0.9", "0.95"):
        assert owner_api.get(url + level).status_code == 202
    refused = owner_api.get(url + "0.99")
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) == limits.EXPORT_JOBS_RETRY_SECONDS
    assert "3 exports" in refused.json()["detail"]
    assert ExportJob.objects.count() == 3
    # Asking again for one that waits joins it; once they have run, new ones may start.
    assert owner_api.get(url + "0.9").status_code == 202
    run_jobs()
    assert owner_api.get(url + "0.99").status_code == 202


def test_the_page_says_why_a_fourth_export_job_is_refused(owner_client, grouped, settings):
    settings.EXPORT_JOB_THRESHOLD = 100
    for url in ("responses.csv", "for-r.csv", "export.zip"):
        assert owner_client.get(f"/surveys/{grouped.pk}/{url}").status_code == 303
    refused = owner_client.get(f"/surveys/{grouped.pk}/export.xlsx")
    assert refused.status_code == 429
    assert refused["Retry-After"] == str(limits.EXPORT_JOBS_RETRY_SECONDS)
    page = refused.content.decode()
    assert "You already have 3 exports of this survey being prepared" in page
    assert ExportJob.objects.count() == 3


def kept_file(survey, user, *, size, hours=5):
    """A finished job's record holding ``size`` bytes for ``hours`` more hours."""
    return ExportJob.objects.create(
        survey=survey,
        requested_by=user,
        kind="reports",
        status=ExportJob.Status.DONE,
        file_name="kept.csv",
        size=size,
        expires_at=timezone.now() + timedelta(hours=hours),
    )


def test_no_job_starts_while_the_kept_files_fill_the_disk_budget(
    owner_api, owner, grouped, settings
):
    settings.EXPORT_JOB_THRESHOLD = 100
    settings.EXPORT_DISK_BUDGET_MB = 1
    kept_file(grouped, owner, size=2**20)
    refused = owner_api.get(f"/api/v1/surveys/{grouped.pk}/responses.csv")
    assert refused.status_code == 503
    # Until the kept file expires, in five hours.
    assert 5 * 3600 - 60 < int(refused["Retry-After"]) <= 5 * 3600
    assert "full" in refused.json()["detail"]
    assert ExportJob.objects.count() == 1
    settings.EXPORT_DISK_BUDGET_MB = 2
    assert owner_api.get(f"/api/v1/surveys/{grouped.pk}/responses.csv").status_code == 202


def test_a_job_whose_file_would_pass_the_disk_budget_fails_and_says_so(
    owner_api, owner_client, owner, grouped, settings, export_dir
):
    settings.EXPORT_JOB_THRESHOLD = 100
    settings.EXPORT_DISK_BUDGET_MB = 1
    kept_file(grouped, owner, size=2**20 - 1000)  # 1000 bytes left; the file is larger
    body = owner_api.get(f"/api/v1/surveys/{grouped.pk}/responses.csv").json()
    run_jobs()
    state = owner_api.get(body["url"]).json()
    assert (state["status"], state["error"]) == ("failed", "disk budget exceeded")
    assert list(Path(export_dir).iterdir()) == []
    page = owner_client.get(f"/surveys/{grouped.pk}/exports/{body['id']}/").content.decode()
    assert "would not fit in the space this server keeps for export files" in page


def test_export_files_are_0600_in_a_0700_folder(grouped, owner, export_dir):
    Path(export_dir).mkdir(mode=0o755)
    Path(export_dir).chmod(0o755)  # as an older release (or a umask of 022) left it
    job = export_jobs.export_job_start(survey=grouped, user=owner, kind="zip", options={})
    done = export_files.export_job_run(job_id=job.pk)
    assert stat.S_IMODE(Path(export_dir).stat().st_mode) == 0o700
    assert stat.S_IMODE(export_path(done).stat().st_mode) == 0o600


@pytest.mark.django_db(transaction=True)
def test_the_job_cap_holds_outside_a_test_transaction(owner_api, mixed_grouped, settings):
    # The cap is read under the survey's row lock, inside the service's own transaction.
    settings.EXPORT_JOB_THRESHOLD = 100
    url = f"/api/v1/surveys/{mixed_grouped.pk}/export.zip?confidence="
    with lock_recorder() as outside:
        answers = [
            owner_api.get(url + level).status_code for level in ("0.8", "0.9", "0.95", "0.99")
        ]
    assert answers == [202, 202, 202, 429]
    assert outside == []
    assert ExportJob.objects.count() == 3
