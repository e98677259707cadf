"""A raw export for a request (surveys/exports/delivery.py): the whole file below the threshold,
else a job whose task is enqueued once, when the request commits, and never again for a
request that joins it."""

import pytest
from django.core.exceptions import ValidationError
from django_tasks_db.models import DBTaskResult

from surveys.exports.delivery import export_deliver
from surveys.models import ExportJob
from surveys.services.export_jobs import export_job_start


@pytest.fixture(autouse=True)
def export_dir(settings, tmp_path):
    settings.EXPORT_DIR = tmp_path / "exports"


def deliver(survey, kind="reports"):
    return export_deliver(survey=survey, user=survey.owner, kind=kind, options={})


def test_a_new_job_is_enqueued_once_and_a_joined_one_not_again(
    grouped_survey, settings, django_capture_on_commit_callbacks
):
    settings.EXPORT_JOB_THRESHOLD = 0
    with django_capture_on_commit_callbacks(execute=True):
        first = deliver(grouped_survey)
        assert not DBTaskResult.objects.exists()  # not before the request commits
    with django_capture_on_commit_callbacks(execute=True):
        second = deliver(grouped_survey)
    assert first.job is not None and first.handle is None
    assert second.job == first.job
    task = DBTaskResult.objects.get()
    assert task.task_path == "surveys.exports.tasks.export_job_task"
    assert task.args_kwargs == {"args": [str(first.job.pk)], "kwargs": {}}


def test_below_the_threshold_the_file_is_built_and_nothing_is_queued(
    grouped_survey, settings, django_capture_on_commit_callbacks
):
    settings.EXPORT_JOB_THRESHOLD = 1
    with django_capture_on_commit_callbacks(execute=True):
        delivery = deliver(grouped_survey)
    assert delivery.job is None and delivery.size > 0
    assert delivery.handle.read(delivery.size).startswith(b"submission_id")
    assert not ExportJob.objects.exists() and not DBTaskResult.objects.exists()


def test_an_unknown_kind_is_refused_naming_the_field(grouped_survey):
    with pytest.raises(ValidationError) as refused:
        deliver(grouped_survey, kind="pdf")
    assert "kind" in refused.value.message_dict
    assert not ExportJob.objects.exists()


def test_the_service_hands_only_a_new_job_to_enqueue(grouped_survey):
    enqueued = []
    start = dict(survey=grouped_survey, user=grouped_survey.owner, kind="reports", options={})
    job = export_job_start(**start, enqueue=enqueued.append)
    assert export_job_start(**start, enqueue=enqueued.append) == job
    assert enqueued == [job]
    export_job_start(**start)  # no queue given: the row alone (tests, benchmarks)
    assert ExportJob.objects.count() == 1
