"""The invitations page, its exports and the API's list as researchers see them
(docs/invitations.md): counts only, never whether one invitee's code obtained or spent a
token; a pilot's invitations set apart; slips in the invitee's language."""

import csv
import io
import re
import uuid

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

import blindrsa
from surveys import services
from surveys.models import Invitation
from surveys.services import invitation_mail, invitations, translations
from tests.helpers import PASSWORD, add_member, answers_for, token_client, translation_texts

pytestmark = pytest.mark.django_db


def b64(data):
    return blindrsa.b64url_encode(data)


class Browser:
    """One invitee's browser, a step at a time: open the page, obtain the token, submit."""

    def __init__(self, survey, code):
        self.survey, self.code = survey, code
        self.client = Client()

    def open(self):
        assert self.client.get(f"/s/{self.survey.slug}/").status_code == 200
        self.definition = self.client.get(f"/api/v1/public/surveys/{self.survey.slug}/").json()

    def obtain_token(self):
        key = blindrsa.public_key_decode(self.definition["token_key"])
        self.prepared = blindrsa.prepare(message=uuid.uuid4().bytes * 2)
        blinded = blindrsa.blind(public_key=key, prepared_message=self.prepared)
        response = self.client.post(
            f"/api/v1/public/surveys/{self.survey.slug}/tokens/",
            {"code": self.code, "blinded_message": b64(blinded.blinded_message)},
            content_type="application/json",
        )
        assert response.status_code == 201, response.content
        self.signature = blindrsa.finalize(
            public_key=key,
            prepared_message=self.prepared,
            blind_signature=blindrsa.b64url_decode(response.json()["blind_signature"]),
            inverse=blinded.inverse,
        )

    def submit(self):
        body = {
            "submission_id": str(uuid.uuid4()),
            "answers": {str(k): v for k, v in answers_for(self.survey, [True, False]).items()},
            "token": {"message": b64(self.prepared), "signature": b64(self.signature)},
        }
        response = self.client.post(
            f"/api/v1/public/surveys/{self.survey.slug}/responses/",
            body,
            content_type="application/json",
        )
        assert response.status_code == 201, response.content


def text_of(response):
    if response.streaming:
        return b"".join(response.streaming_content).decode()
    return response.content.decode()


CSRF = re.compile(r'name="csrfmiddlewaretoken" value="[^"]+"')


def per_invitee_part(page_html):
    """The invitation list of the page (its table rows), without the per-request CSRF token."""
    rows = re.findall(r"<tbody>.*?</tbody>", page_html, flags=re.S)
    assert rows, page_html
    return CSRF.sub("", "".join(rows))


def researcher_views(survey, clients):
    """Everything a researcher can read about the invitees one by one, per role."""
    seen = {}
    for role, (page, api) in clients.items():
        base = f"/surveys/{survey.pk}/invitees/"
        seen[role, "page"] = per_invitee_part(text_of(page.get(base)))
        seen[role, "export.csv"] = text_of(page.get(base + "export.csv"))
        seen[role, "api"] = api.get(f"/api/v1/surveys/{survey.pk}/invitations/").json()[
            "invitations"
        ]
        if role == "editor":
            seen[role, "links.csv"] = text_of(page.get(base + "links.csv"))
            seen[role, "sheet"] = CSRF.sub("", text_of(page.get(base + "sheet/")))
    return seen


def test_no_researcher_view_shows_whether_an_invitee_opened_or_answered(make_survey, owner):
    survey = make_survey(access="invitation")
    made = invitations.invitations_create(
        survey=survey, emails=["alice@example.org", "bob@example.org", "cy@example.org"]
    )
    (slip,) = invitations.invitations_create(survey=survey, count=1)
    Invitation.objects.update(mail_pending="", mails_sent=1)  # the invitations went out
    accounts = get_user_model().objects
    clients = {}
    for role in ("viewer", "editor"):
        user = accounts.create_user(role, password=PASSWORD)
        add_member(survey=survey, user=user, role=role)
        page = Client()
        page.force_login(user)
        clients[role] = (page, token_client(user))
    promise = "The researcher sees how many people answered, never whether you did."
    assert promise in text_of(Client().get(f"/s/{survey.slug}/"))  # what this test holds
    before = researcher_views(survey, clients)
    assert "alice@example.org" in before["viewer", "page"]  # the list is there to compare
    assert [row["email"] for row in before["viewer", "api"]] == [
        "alice@example.org",
        "bob@example.org",
        "cy@example.org",
        None,
    ]

    browsers = [Browser(survey, view.code) for view in [*made, slip]]
    steps = 0
    for browser in browsers:
        for step in (browser.open, browser.obtain_token, browser.submit):
            step()
            steps += 1
            assert researcher_views(survey, clients) == before, (steps, step.__name__)
    # Every code did obtain and spend its token: the views stayed the same regardless.
    assert set(Invitation.objects.values_list("status", flat=True)) == {"issued"}
    counts = clients["viewer"][1].get(f"/api/v1/surveys/{survey.pk}/invitations/").json()
    assert counts["counts"]["invited"] == 4


def test_reminders_are_counted_and_never_shown_per_invitee(make_survey, owner, owner_client):
    survey = make_survey(access="invitation")
    invitations.invitations_create(survey=survey, emails=["a@example.org", "b@example.org"])
    Invitation.objects.update(mail_pending="", mails_sent=1)
    Invitation.objects.filter(email="b@example.org").update(status="issued")
    page_before = per_invitee_part(text_of(owner_client.get(f"/surveys/{survey.pk}/invitees/")))
    response = owner_client.post(f"/surveys/{survey.pk}/invitees/remind/", follow=True)
    page = text_of(response)
    assert "1 reminder will be sent" in page
    assert per_invitee_part(page) == page_before
    # A reminder that fails is not shown on its row either.
    Invitation.objects.filter(email="a@example.org").update(mail_error="451 try later")
    after = text_of(owner_client.get(f"/surveys/{survey.pk}/invitees/"))
    assert per_invitee_part(after) == page_before
    assert "451" not in after.split("<tbody>")[1]


def grouped(code):
    return " ".join(code[index : index + 4] for index in range(0, len(code), 4))


def test_pilot_invitations_are_gone_from_the_real_studys_counts_and_sheet(
    make_survey, owner_client
):
    survey = make_survey(access="invitation", status="pilot")
    pilot_codes = invitations.invitations_create(survey=survey, count=2)
    invitations.invitations_create(survey=survey, emails=["tester@example.org"])
    page_url = f"/surveys/{survey.pk}/invitees/"
    sheet = text_of(owner_client.get(page_url + "sheet/"))
    assert all(grouped(view.code) in sheet for view in pilot_codes)  # printed for the pilot
    assert 'data-count="invited">3<' in text_of(owner_client.get(page_url))

    survey = services.survey_open(survey=survey)
    page = text_of(owner_client.get(page_url))
    assert 'data-count="invited">0<' in page
    assert 'data-count="revoked">0<' in page
    assert 'id="pilot-invitations"' in page  # shown apart
    assert page.index("tester@example.org") > page.index('id="pilot-invitations"')
    sheet = text_of(owner_client.get(page_url + "sheet/"))
    assert 'class="slip"' not in sheet
    assert not any(grouped(view.code) in sheet for view in pilot_codes)
    links = text_of(owner_client.get(page_url + "links.csv"))
    assert list(csv.reader(io.StringIO(links))) == [["email", "code", "link"]]
    # Real invitations made now are the only ones counted and printed.
    (real,) = invitations.invitations_create(survey=survey, count=1)
    sheet = text_of(owner_client.get(page_url + "sheet/"))
    assert sheet.count('class="slip"') == 1 and grouped(real.code) in sheet
    assert 'data-count="invited">1<' in text_of(owner_client.get(page_url))


def test_slips_are_printed_in_the_invitees_language(make_survey, owner_client):
    survey = make_survey(access="invitation", title="Workplace habits", status="draft")
    translations.survey_translations_save(
        survey=survey, texts=translation_texts(survey, into=("ko",), mark=lambda code: "(한국어)")
    )
    invitation_mail.invitation_sender_update(
        survey=survey, contact_name="박민 연구원", contact_email="park@example.org"
    )
    invitations.invitations_create(survey=survey, count=1, language="ko")
    invitations.invitations_create(survey=survey, count=1)
    sheet = text_of(owner_client.get(f"/surveys/{survey.pk}/invitees/sheet/"))
    korean, english = re.findall(r'<div class="slip__text" lang="[^"]+">.*?</div>', sheet, re.S)
    assert 'lang="ko"' in korean
    assert "코드를 스캔하거나" in korean
    assert "Scan the code" in english and "Scan the code" not in korean
    assert "Workplace habits (한국어)" in korean and "(한국어)" not in english
    assert "박민 연구원" in korean and "owner" not in korean


def test_the_sender_form_names_the_researcher_and_refuses_a_bad_address(make_survey, owner_client):
    survey = make_survey(access="invitation")
    url = f"/surveys/{survey.pk}/invitees/"
    bad = owner_client.post(url, {"contact_name": "Dr. Park", "contact_email": "not-an-address"})
    assert bad.status_code == 400
    assert "not an email address" in bad.content.decode()
    survey.refresh_from_db()
    assert (survey.contact_name, survey.contact_email) == ("", "")
    good = owner_client.post(url, {"contact_name": "Dr. Park", "contact_email": "p@example.org"})
    assert good.status_code == 302
    survey.refresh_from_db()
    assert (survey.contact_name, survey.contact_email) == ("Dr. Park", "p@example.org")
