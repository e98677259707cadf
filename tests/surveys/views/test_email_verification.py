"""Verified email addresses: a link mailed at sign-up, on a change of address and on request
proves the account reads the address; until then the account page marks it unverified and it
receives no invitation and no reset link (docs/researchers.md, "Accounts and access")."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.core import mail as django_mail
from django.core import signing
from django.urls import reverse

from surveys import mail
from surveys.selectors.accounts import member_invitations_for, verified_address
from surveys.services import accounts as account_services
from surveys.services import members
from tests.helpers import PASSWORD

pytestmark = pytest.mark.django_db

LINK = re.compile(r"http://testserver(/accounts/email/verify/[^/\s]+/)")


def the_link(outbox_index=-1):
    found = LINK.search(django_mail.outbox[outbox_index].body)
    assert found, django_mail.outbox[outbox_index].body
    return found.group(1)


def sent_mail(capture, action):
    """Run ``action`` and wait for the mail it hands over after commit."""
    with capture(execute=True):
        response = action()
    assert mail.wait_for_mail()
    return response


def test_sign_up_mails_a_link_that_verifies_the_address(
    client, settings, django_capture_on_commit_callbacks
):
    settings.SIGNUP_ENABLED = True
    settings.MAIL_ENABLED = True
    data = {
        "username": "dana",
        "email": "Dana@Uni.example",
        "password1": PASSWORD,
        "password2": PASSWORD,
    }
    response = sent_mail(
        django_capture_on_commit_callbacks, lambda: client.post(reverse("signup"), data)
    )
    assert response.status_code == 302
    dana = get_user_model().objects.get(username="dana")
    assert verified_address(user=dana) == ""
    assert django_mail.outbox[-1].to == ["Dana@uni.example"]  # Django lower-cases the domain
    account_page = client.get(reverse("account")).content.decode()
    assert "Not verified" in account_page
    assert "Send the verification link again" in account_page

    link = the_link()
    confirm = client.get(link)  # a mail scanner fetching the link verifies nothing
    assert confirm.status_code == 200
    assert "dana@uni.example" in confirm.content.decode()
    assert verified_address(user=dana) == ""
    done = client.post(link)
    assert done.status_code == 200
    assert verified_address(user=dana) == "dana@uni.example"
    assert ">Verified<" in client.get(reverse("account")).content.decode()


def test_a_forged_or_expired_link_verifies_nothing(client, owner, settings):
    owner.email = "owner@example.org"
    owner.save()
    token = account_services.verification_token(user=owner)
    forged = token[:-2] + ("AA" if not token.endswith("AA") else "BB")
    for bad in (forged, "nonsense"):
        url = reverse("email_verify", kwargs={"token": bad})
        assert client.get(url).status_code == 400
        assert client.post(url).status_code == 400
    settings.SECRET_KEY = "another-key-entirely-" + "x" * 40  # as good as expired
    assert client.post(reverse("email_verify", kwargs={"token": token})).status_code == 400
    assert verified_address(user=owner) == ""


def test_a_link_expires(client, owner, monkeypatch):
    owner.email = "owner@example.org"
    owner.save()
    token = account_services.verification_token(user=owner)
    real_loads = signing.loads
    # Read the link as if VERIFICATION_MAX_AGE had passed: any age over 0 s is too old.
    monkeypatch.setattr(
        signing, "loads", lambda value, **kw: real_loads(value, **{**kw, "max_age": -1})
    )
    assert client.post(reverse("email_verify", kwargs={"token": token})).status_code == 400
    assert verified_address(user=owner) == ""


def test_changing_the_address_needs_the_password_and_makes_it_unverified(
    owner, owner_client, settings, django_capture_on_commit_callbacks
):
    settings.MAIL_ENABLED = True
    owner.email = "old@example.org"
    owner.save()
    with django_capture_on_commit_callbacks(execute=True):
        owner_client.post(reverse("account"), {"action": "resend"})
    assert mail.wait_for_mail()
    old_link = the_link()
    assert owner_client.post(old_link).status_code == 200
    assert verified_address(user=owner) == "old@example.org"

    wrong = owner_client.post(
        reverse("account"), {"action": "email", "email": "new@example.org", "password": "nope"}
    )
    assert wrong.status_code == 400
    assert "This is not your password." in wrong.content.decode()
    owner.refresh_from_db()
    assert owner.email == "old@example.org"

    response = sent_mail(
        django_capture_on_commit_callbacks,
        lambda: owner_client.post(
            reverse("account"),
            {"action": "email", "email": "new@example.org", "password": PASSWORD},
        ),
    )
    assert response.status_code == 302
    owner.refresh_from_db()
    assert owner.email == "new@example.org"
    assert verified_address(user=owner) == ""
    assert django_mail.outbox[-1].to == ["new@example.org"]
    # The link to the old address no longer verifies anything.
    assert owner_client.post(old_link).status_code == 400
    assert "Not verified" in owner_client.get(reverse("account")).content.decode()
    assert owner_client.post(the_link()).status_code == 200
    assert verified_address(user=owner) == "new@example.org"


def test_resending_is_limited(owner, owner_client, settings, django_capture_on_commit_callbacks):
    settings.MAIL_ENABLED = True
    settings.EMAIL_VERIFICATION_RATE_LIMIT = "2/h"
    owner.email = "owner@example.org"
    owner.save()
    with django_capture_on_commit_callbacks(execute=True):
        for _ in range(3):
            owner_client.post(reverse("account"), {"action": "resend"})
    assert mail.wait_for_mail()
    assert len(django_mail.outbox) == 2
    page = owner_client.get(reverse("account")).content.decode()
    assert "Too many verification links" in page


def test_without_mail_the_account_page_says_the_address_cannot_be_verified(
    owner, owner_client, settings
):
    settings.MAIL_ENABLED = False
    owner.email = "owner@example.org"
    owner.save()
    page = owner_client.get(reverse("account")).content.decode()
    assert "Not verified" in page
    assert "Mail cannot leave this server" in page
    assert "Send the verification link again" not in page


def test_an_invitation_reaches_an_address_only_once_it_is_verified(
    owner, client, make_survey, settings
):
    settings.MAIL_ENABLED = True
    survey = make_survey()
    dana = get_user_model().objects.create_user("dana", password=PASSWORD, email="d@uni.example")
    members.member_invite(survey=survey, by=owner, user="D@Uni.example", role="editor")
    assert member_invitations_for(user=dana) == []
    client.force_login(dana)
    assert "Invitations for you" not in client.get(reverse("surveys:dashboard")).content.decode()
    client.post(
        reverse("email_verify", kwargs={"token": account_services.verification_token(user=dana)})
    )
    assert [i.survey for i in member_invitations_for(user=dana)] == [survey]
    assert "Invitations for you" in client.get(reverse("surveys:dashboard")).content.decode()


def test_a_link_verifies_only_for_the_signed_in_account_that_asked_for_it(
    owner, client, other_researcher
):
    """Someone signs up with a victim's address; the victim, signed in to their own account,
    or not signed in at all, clicks the link mailed to them: the address stays unbound."""
    owner.email = "victim@example.org"  # the sign-up that used someone else's address
    owner.save()
    url = reverse("email_verify", kwargs={"token": account_services.verification_token(user=owner)})

    anonymous = client.post(url)
    assert anonymous.status_code == 302
    assert anonymous["Location"].startswith(reverse("login"))
    assert verified_address(user=owner) == ""

    client.force_login(other_researcher)  # the victim's own account
    for response in (client.get(url), client.post(url)):
        assert response.status_code == 403
        page = response.content.decode()
        assert "This link is not for your account" in page
        assert "Verify this address" not in page
    assert verified_address(user=owner) == ""
    assert verified_address(user=other_researcher) == ""

    client.force_login(owner)
    confirm = client.get(url).content.decode()
    assert "victim@example.org" in confirm
    assert "your account owner" in confirm  # the page names the account it verifies for
    assert client.post(url).status_code == 200
    assert verified_address(user=owner) == "victim@example.org"
