"""Background tasks, run by the worker (``manage.py db_worker``; docs/deploying.md).

The queue is django-tasks (Django's DEP 0014 tasks; ``django.tasks`` from Django 6.0) with its
database backend (``settings.TASKS``). To run something off the web workers:

    from django_tasks import task

    @task()
    def invitation_send(invitation_id: int) -> None:   # JSON-serialisable arguments only
        ...

    enqueue_after_commit(invitation_send, invitation.pk)

``enqueue_after_commit`` enqueues once the surrounding transaction commits (at once outside
one), so the worker never picks up a task whose rows it cannot see yet, and a rolled-back
request enqueues nothing. Tasks take ids, never model instances, and read what they need.

A task sits on the floor of what it runs: the export job's here, in the exports; the
invitation emails' in ``services.invitation_mail`` (``invitations_send_task``), so that the
invitation services that queue it import nothing above them.
"""

from django.db import transaction
from django_tasks import task

from .jobs import export_job_run


def enqueue_after_commit(task_to_run, *args, **kwargs) -> None:
    transaction.on_commit(lambda: task_to_run.enqueue(*args, **kwargs))


@task()
def export_job_task(job_id: str) -> None:
    """Write an export job's file (``exports.jobs.export_job_run``)."""
    export_job_run(job_id=job_id)
