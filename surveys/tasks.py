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
"""

import logging
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django_tasks import task

logger = logging.getLogger(__name__)


def enqueue_after_commit(task_to_run, *args, **kwargs) -> None:
    transaction.on_commit(lambda: task_to_run.enqueue(*args, **kwargs))


@task()
def export_job_task(job_id: str) -> None:
    """Write an export job's file (``exports.jobs.export_job_run``)."""
    from .exports.jobs import export_job_run

    export_job_run(job_id=job_id)


@task()
def invitations_send_task() -> None:
    """Send the invitation and reminder emails that wait (``invitation_mail.invitations_send``),
    links starting with ``settings.SITE_URL``; queued when invitations or reminders are made,
    and again ``MAIL_RETRY_SECONDS`` later while a failed mail waits for another try."""
    from .services.invitation_mail import invitations_send

    if not settings.SITE_URL:
        logger.warning("SITE_URL is not set: invitation emails wait for send_invitations.")
        return
    report = invitations_send(base_url=settings.SITE_URL)
    if report.failed and report.waiting:
        later = timezone.now() + timedelta(seconds=settings.MAIL_RETRY_SECONDS)
        invitations_send_task.using(run_after=later).enqueue()
