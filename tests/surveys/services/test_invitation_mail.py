"""Invitation and reminder emails through a real SMTP server on loopback (aiosmtpd): the
links are right, a failed send is kept, shown and retried, and nothing is sent twice."""

import email
import email.header
import re
import socket

import pytest
from aiosmtpd.controller import Controller
from django.core.management import CommandError, call_command

from surveys.models import Invitation
from surveys.services import invitation_mail, invitations

BASE_URL = "https://surveys.example.org"


class Inbox:
    """An SMTP handler that keeps what it receives; ``refuse`` addresses get a 451 (a
    temporary failure) as long as they are listed."""

    def __init__(self):
        self.messages = []
        self.refuse = set()

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address in self.refuse:
            return "451 4.3.0 Mailbox temporarily unavailable"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        self.messages.append(
            (envelope.rcpt_tos, email.message_from_bytes(envelope.original_content))
        )
        return "250 Message accepted"

    def bodies(self, to):
        return [
            message.get_payload(decode=True).decode()
            for recipients, message in self.messages
            if to in recipients
        ]


@pytest.fixture
def smtp(settings):
    inbox = Inbox()
    with socket.socket() as probe:  # a free port on loopback (the controller needs a number)
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST = "127.0.0.1"
    settings.EMAIL_PORT = port
    settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
    settings.EMAIL_HOST_USER = settings.EMAIL_HOST_PASSWORD = ""
    settings.MAIL_ENABLED = True
    yield inbox
    controller.stop()


@pytest.fixture
def study(make_survey, owner):
    owner.email = "owner-private@example.org"
    owner.save()
    survey = make_survey(access="invitation", intro="A short staff survey.")
    return invitation_mail.invitation_sender_update(
        survey=survey, contact_name="Dr. Min Park", contact_email="researcher@example.org"
    )


def links_in(text):
    return re.findall(r"https://\S+", text)


def test_invitations_arrive_with_their_personal_links(smtp, study):
    made = invitations.invitations_create(
        survey=study, emails=["ann@example.org", "bo@example.org"]
    )
    report = invitation_mail.invitations_send(base_url=BASE_URL)
    assert (report.sent, report.failed) == (2, 0)
    for view in made:
        (body,) = smtp.bodies(view.email)
        personal, unsubscribe = links_in(body)
        assert personal == f"{BASE_URL}/s/{study.slug}/#invitation={view.code}"
        assert unsubscribe.startswith(f"{BASE_URL}/s/unsubscribe/")
        assert "A short staff survey." in body
        # Named as they chose to be shown, never by their username or account address.
        assert "Questions about the study: Dr. Min Park, researcher@example.org" in body
        assert "owner" not in body
        assert "the researcher sees how many people answered, never whether you did" in (
            body.lower()
        )
    # Nothing waits any more, so a second run sends nothing.
    assert invitation_mail.invitations_send(base_url=BASE_URL).sent == 0
    assert len(smtp.messages) == 2
    assert list(Invitation.objects.values_list("mails_sent", "mail_pending")) == [(1, "")] * 2


def test_a_failed_send_is_kept_shown_and_retried(smtp, study, owner_client):
    invitations.invitations_create(survey=study, emails=["ann@example.org", "bo@example.org"])
    smtp.refuse.add("bo@example.org")
    with pytest.raises(CommandError):
        call_command("send_invitations", base_url=BASE_URL)
    failed = Invitation.objects.get(email="bo@example.org")
    assert (failed.mail_pending, failed.mail_attempts) == ("invitation", 1)
    assert "451" in failed.mail_error
    page = owner_client.get(f"/surveys/{study.pk}/invitees/").content.decode()
    assert "Not sent yet (attempts: 1)" in page and "451" in page
    # The server takes it again: the next run sends it, and only it.
    smtp.refuse.clear()
    call_command("send_invitations", base_url=BASE_URL)
    assert len(smtp.bodies("bo@example.org")) == 1
    assert len(smtp.bodies("ann@example.org")) == 1
    failed.refresh_from_db()
    assert (failed.mail_pending, failed.mail_attempts, failed.mail_error) == ("", 0, "")


def test_sending_gives_up_after_the_last_attempt(smtp, study, settings):
    invitations.invitations_create(survey=study, emails=["bo@example.org"])
    smtp.refuse.add("bo@example.org")
    for _attempt in range(8):
        invitation_mail.invitations_send(base_url=BASE_URL)
    invitation = Invitation.objects.get()
    assert invitation.mail_attempts == 5  # limits.MAIL_ATTEMPTS_MAX
    assert invitation.mail_pending == "invitation"


def test_reminders_go_only_to_those_whose_code_has_not_obtained_a_token(smtp, study, anonymous_api):
    made = invitations.invitations_create(
        survey=study, emails=["ann@example.org", "bo@example.org", "cy@example.org"]
    )
    invitation_mail.invitations_send(base_url=BASE_URL)
    Invitation.objects.filter(email="bo@example.org").update(status="issued")
    # Cy opts out with the link in the email (a GET only asks; the POST acts).
    (body,) = smtp.bodies("cy@example.org")
    unsubscribe = links_in(body)[1].removeprefix(BASE_URL)
    assert anonymous_api.get(unsubscribe).status_code == 200
    assert not Invitation.objects.get(email="cy@example.org").unsubscribed
    assert anonymous_api.post(unsubscribe).status_code == 200
    assert Invitation.objects.get(email="cy@example.org").unsubscribed
    assert invitations.reminders_queue(survey=study) == 1
    assert invitation_mail.invitations_send(base_url=BASE_URL).sent == 1
    (reminder,) = smtp.bodies("ann@example.org")[1:]
    assert "reminder" in reminder.lower()
    assert links_in(reminder)[0].endswith(f"#invitation={made[0].code}")
    assert len(smtp.bodies("bo@example.org")) == len(smtp.bodies("cy@example.org")) == 1


def test_a_forged_unsubscribe_link_is_a_404(anonymous_api, db):
    assert anonymous_api.post("/s/unsubscribe/not-a-token/").status_code == 404


def test_the_command_needs_the_sites_address(db, settings):
    settings.SITE_URL = ""
    with pytest.raises(CommandError, match="base-url"):
        call_command("send_invitations")


def test_the_email_is_in_the_invitees_language_else_the_surveys_first(smtp, make_survey):
    from surveys.services import translations
    from tests.helpers import translation_texts

    survey = make_survey(access="invitation", intro="A short staff survey.", status="draft")
    translations.survey_translations_save(
        survey=survey, texts=translation_texts(survey, into=("ko",), mark=lambda code: "(한국어)")
    )
    invitation_mail.invitation_sender_update(
        survey=survey, contact_name="박민 연구원", contact_email="park@example.org"
    )
    invitations.invitations_create(survey=survey, emails=["ko@example.org"], language="ko")
    # Chinese is a site language, but this survey is not offered in it: its first, English.
    invitations.invitations_create(survey=survey, emails=["zh@example.org"], language="zh-hans")
    invitations.invitations_create(survey=survey, emails=["en@example.org"])
    assert invitation_mail.invitations_send(base_url=BASE_URL).sent == 3
    subjects = {
        recipients[0]: str(email.header.make_header(email.header.decode_header(message["Subject"])))
        for recipients, message in smtp.messages
    }
    (korean,) = smtp.bodies("ko@example.org")
    assert subjects["ko@example.org"] == "초대: Workplace habits (한국어)"
    assert "A short staff survey. (한국어)" in korean
    assert "연구자는 몇 명이 응답했는지만 볼 수 있고, 귀하가 응답했는지는 알 수 없습니다." in korean
    assert "박민 연구원, park@example.org" in korean
    assert "Your personal link" not in korean
    for address in ("zh@example.org", "en@example.org"):
        (body,) = smtp.bodies(address)
        assert subjects[address] == "You are invited: Workplace habits"
        assert "Your personal link" in body and "(한국어)" not in body
