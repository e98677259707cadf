"""Password change and reset (Django's views), the account page and its API tokens."""

import io
import re
import statistics
import time

import pytest
from django.contrib.auth import SESSION_KEY, get_user_model
from django.core import mail as django_mail
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from surveys import mail
from surveys.models import ApiToken, VerifiedEmail
from surveys.services import tokens
from tests.helpers import PASSWORD, SlowMailBackend

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "a-brand-new-passphrase-77"


def bearer(key):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def change_password(client):
    return client.post(
        "/accounts/password/change/",
        {
            "old_password": PASSWORD,
            "new_password1": NEW_PASSWORD,
            "new_password2": NEW_PASSWORD,
        },
    )


def test_changing_the_password_ends_other_sessions_and_revokes_tokens(owner, owner_client):
    elsewhere = Client()
    elsewhere.force_login(owner)
    assert elsewhere.get("/surveys/").status_code == 200
    key = tokens.token_issue(user=owner, name="script").key

    response = change_password(owner_client)
    assert response.status_code == 302
    assert response["Location"] == "/accounts/password/change/done/"

    assert owner_client.get("/surveys/").status_code == 200  # this session stays
    assert elsewhere.get("/surveys/").status_code == 302  # the other one is signed out
    assert bearer(key).get("/api/v1/surveys/").status_code == 401
    assert not ApiToken.objects.filter(user=owner).exists()
    owner.refresh_from_db()
    assert owner.check_password(NEW_PASSWORD)


def test_a_wrong_old_password_changes_nothing(owner, owner_client):
    key = tokens.token_issue(user=owner).key
    response = owner_client.post(
        "/accounts/password/change/",
        {"old_password": "wrong", "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert response.status_code == 200
    assert "old_password" in response.context["form"].errors
    assert bearer(key).get("/api/v1/surveys/").status_code == 200
    owner.refresh_from_db()
    assert owner.check_password(PASSWORD)


def test_password_change_needs_sign_in(client):
    assert client.get("/accounts/password/change/").status_code == 302


def verify(user, email):
    user.email = email
    user.save()
    VerifiedEmail.objects.create(user=user, email=email.lower(), verified_at=timezone.now())


@pytest.mark.django_db(transaction=True)
def test_password_reset_sends_a_link_that_sets_a_new_password(client, owner, settings):
    settings.PASSWORD_RESET_ENABLED = True
    verify(owner, "owner@example.org")
    key = tokens.token_issue(user=owner).key
    response = client.post("/accounts/password/reset/", {"email": "owner@example.org"})
    assert response.status_code == 302
    assert mail.wait_for_mail()
    assert len(django_mail.outbox) == 1
    body = django_mail.outbox[0].body
    link = re.search(r"http://testserver(/accounts/password/reset/\S+/)", body)
    assert link, body

    form_page = client.get(link.group(1), follow=True)
    assert form_page.status_code == 200
    done = client.post(
        form_page.redirect_chain[-1][0],
        {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert done.status_code == 302
    owner.refresh_from_db()
    assert owner.check_password(NEW_PASSWORD)
    assert bearer(key).get("/api/v1/surveys/").status_code == 401
    # The link works once.
    assert client.get(link.group(1), follow=True).context["form"] is None


@pytest.mark.django_db(transaction=True)
def test_an_unknown_or_unverified_address_gets_the_same_answer_and_no_mail(client, owner, settings):
    settings.PASSWORD_RESET_ENABLED = True
    owner.email = "owner@example.org"  # given at sign-up, never verified
    owner.save()
    answers = [
        client.post("/accounts/password/reset/", {"email": address})
        for address in ("nobody@example.org", "owner@example.org")
    ]
    assert mail.wait_for_mail()
    assert [(a.status_code, a["Location"]) for a in answers] == [
        (302, "/accounts/password/reset/sent/")
    ] * 2
    assert django_mail.outbox == []


@pytest.mark.django_db(transaction=True)
def test_password_reset_answers_in_the_same_time_whether_or_not_the_address_exists(
    client, settings
):
    """The mail goes out on a thread after the answer; with a backend as slow as a remote SMTP
    server, sending it inline would make known addresses answer ~0.25 s slower."""
    settings.PASSWORD_RESET_ENABLED = True
    settings.PASSWORD_RESET_RATE_LIMIT = None
    settings.EMAIL_BACKEND = "tests.helpers.SlowMailBackend"
    rounds = 7
    known = []
    for n in range(rounds):
        user = get_user_model().objects.create_user(f"known{n}", password=PASSWORD)
        verify(user, f"known{n}@example.org")
        known.append(user.email)
    unknown = [f"unknown{n}@example.org" for n in range(rounds)]
    client.post("/accounts/password/reset/", {"email": "warm-up@example.org"})
    timings = {"known": [], "unknown": []}
    for n in range(rounds):
        for kind, address in (("known", known[n]), ("unknown", unknown[n])):
            started = time.perf_counter()
            response = client.post("/accounts/password/reset/", {"email": address})
            timings[kind].append(time.perf_counter() - started)
            assert response.status_code == 302
    medians = {kind: statistics.median(values) for kind, values in timings.items()}
    # The two kinds differ by what a found account costs to read and its token to make (a few
    # milliseconds, noise on a busy machine, which a ratio of two such small times is not
    # robust to), never by a send: sent inline, the known addresses would be DELAY slower.
    assert abs(medians["known"] - medians["unknown"]) < SlowMailBackend.DELAY / 5, medians
    assert medians["known"] < SlowMailBackend.DELAY, medians
    assert mail.wait_for_mail(timeout=30)
    assert sorted(m.to[0] for m in django_mail.outbox) == sorted(known)


def test_password_reset_requests_are_limited_per_client(client, owner, settings):
    settings.PASSWORD_RESET_ENABLED = True
    settings.PASSWORD_RESET_RATE_LIMIT = "2/h"
    statuses = [
        client.post("/accounts/password/reset/", {"email": "x@example.org"}).status_code
        for _ in range(3)
    ]
    assert statuses == [302, 302, 429]


def test_without_email_settings_the_reset_pages_do_not_exist(client, settings):
    settings.PASSWORD_RESET_ENABLED = False
    assert client.get("/accounts/password/reset/").status_code == 404
    assert b"/accounts/password/reset/" not in client.get("/accounts/login/").content


def test_the_account_page_issues_a_token_shown_once(owner, owner_client):
    response = owner_client.post("/accounts/", {"action": "issue", "name": "laptop"})
    assert response.status_code == 200
    key = re.search(r'<code id="new-token">(rrs_[\w-]+)</code>', response.content.decode())
    assert key
    assert bearer(key.group(1)).get("/api/v1/surveys/").status_code == 200
    listing = owner_client.get("/accounts/").content.decode()
    assert "laptop" in listing
    assert key.group(1) not in listing


def test_the_account_page_revokes_only_its_owners_tokens(owner, other_researcher, client):
    mine = tokens.token_issue(user=owner, name="mine")
    theirs = tokens.token_issue(user=other_researcher, name="theirs")
    client.force_login(owner)
    client.post("/accounts/", {"action": "revoke", "token": str(theirs.token.pk)})
    assert bearer(theirs.key).get("/api/v1/surveys/").status_code == 200
    client.post("/accounts/", {"action": "revoke", "token": str(mine.token.pk)})
    assert bearer(mine.key).get("/api/v1/surveys/").status_code == 401


@pytest.mark.parametrize(
    "data",
    [
        {"action": "issue", "name": "n" * 101},
        {"action": "revoke", "token": "９"},
        {"action": "revoke", "token": "99999999999999999999999"},
        {"action": "nonsense"},
        {},
    ],
)
def test_the_account_page_answers_bad_posts_without_a_server_error(owner_client, data):
    response = owner_client.post("/accounts/", data)
    assert response.status_code in (302, 400)


def test_signing_out_does_not_touch_tokens(owner, owner_client):
    key = tokens.token_issue(user=owner).key
    owner_client.post("/accounts/logout/")
    assert SESSION_KEY not in owner_client.session
    assert bearer(key).get("/api/v1/surveys/").status_code == 200


# --- every way a password changes revokes the API tokens, not only the pages ----------------


def test_manage_py_changepassword_revokes_the_users_api_tokens(owner, monkeypatch):
    from django.core.management import call_command

    key = tokens.token_issue(user=owner, name="script").key
    assert bearer(key).get("/api/v1/surveys/").status_code == 200
    monkeypatch.setattr("getpass.getpass", lambda prompt="": NEW_PASSWORD)

    call_command("changepassword", owner.get_username(), stdout=io.StringIO())

    assert bearer(key).get("/api/v1/surveys/").status_code == 401
    assert not ApiToken.objects.filter(user=owner).exists()


def test_a_password_set_in_code_revokes_the_tokens_and_other_saves_keep_them(
    owner, other_researcher, django_assert_num_queries
):
    kept = tokens.token_issue(user=other_researcher, name="theirs")
    tokens.token_issue(user=owner, name="mine")

    owner.first_name = "Ada"
    owner.save()  # a save without a new password keeps the tokens
    assert ApiToken.objects.filter(user=owner).count() == 1
    with django_assert_num_queries(1):  # sign-in's save: only the UPDATE, no lookup
        owner.save(update_fields=["last_login"])

    owner.set_password(NEW_PASSWORD)
    owner.save()

    assert not ApiToken.objects.filter(user=owner).exists()
    assert ApiToken.objects.filter(pk=kept.token.pk).exists()  # another user's stay
