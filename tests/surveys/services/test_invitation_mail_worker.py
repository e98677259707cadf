"""The invitation emails' task (surveys/services/invitation_mail.py): emails reach people
through the worker that `make run` starts (``manage.py db_worker``), with no hand step."""

import socket

import pytest
from aiosmtpd.controller import Controller
from django.core.management import call_command
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from config.env import env_email_url
from surveys.models import Invitation
from surveys.services import invitations
from tests.surveys.services.test_invitation_mail import Inbox

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def sink(settings, monkeypatch):
    """A local SMTP server, and the settings ``EMAIL_URL`` pointing at it give."""
    inbox = Inbox()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    monkeypatch.setenv("EMAIL_URL", f"smtp://127.0.0.1:{port}")
    for name, value in env_email_url("EMAIL_URL").items():
        setattr(settings, name, value)
    settings.MAIL_ENABLED = True
    settings.SITE_URL = "http://127.0.0.1:8000"  # what `make run` gives the worker
    yield inbox
    controller.stop()


def run_worker():
    """The worker `make run` starts, until nothing is left to do."""
    call_command("db_worker", "--batch", "--no-reload", "--interval", "0", verbosity=0)


def test_the_worker_delivers_a_queued_invitation_without_a_hand_step(sink, make_survey):
    survey = make_survey(access="invitation")
    (view,) = invitations.invitations_create(survey=survey, emails=["ann@example.org"])
    # Inviting queued the sending; nothing was sent inside the request.
    assert DBTaskResult.objects.filter(
        task_path="surveys.services.invitation_mail.invitations_send_task"
    ).exists()
    assert sink.messages == []
    run_worker()
    (body,) = sink.bodies("ann@example.org")
    assert f"http://127.0.0.1:8000/s/{survey.slug}/#invitation={view.code}" in body
    assert Invitation.objects.get().mail_pending == ""


def test_the_worker_sends_reminders_and_counts_them(sink, make_survey):
    survey = make_survey(access="invitation")
    invitations.invitations_create(survey=survey, emails=["ann@example.org", "bo@example.org"])
    run_worker()
    Invitation.objects.filter(email="bo@example.org").update(status="issued")
    assert invitations.reminders_queue(survey=survey) == 1
    run_worker()
    assert len(sink.bodies("ann@example.org")) == 2
    assert len(sink.bodies("bo@example.org")) == 1
    survey.refresh_from_db()
    assert survey.reminders_sent == 1


def test_a_failed_send_is_tried_again_later_by_the_worker(sink, make_survey, settings):
    survey = make_survey(access="invitation")
    sink.refuse.add("ann@example.org")
    invitations.invitations_create(survey=survey, emails=["ann@example.org"])
    run_worker()
    assert sink.messages == []
    waiting = DBTaskResult.objects.filter(
        task_path="surveys.services.invitation_mail.invitations_send_task", status="READY"
    )
    (retry,) = waiting
    assert retry.run_after > timezone.now()  # later, not at once
    sink.refuse.clear()
    waiting.update(run_after=timezone.now())  # its time has come
    run_worker()
    assert len(sink.bodies("ann@example.org")) == 1
