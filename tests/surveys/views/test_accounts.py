"""Signing in, signing up and signing out (surveys/views/accounts.py and Django's auth views).
Passwords and the account page are in test_passwords_and_account.py, sign-up limits in
test_signup.py."""

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_sign_in_page_links_to_sign_up_only_when_it_is_enabled(client, settings):
    settings.SIGNUP_ENABLED = True
    assert reverse("signup").encode() in client.get(reverse("login")).content
    settings.SIGNUP_ENABLED = False
    assert reverse("signup").encode() not in client.get(reverse("login")).content
    assert client.get(reverse("signup")).status_code == 404


def test_sign_up_creates_an_account_and_signs_in(client, settings):
    settings.SIGNUP_ENABLED = True
    assert client.get(reverse("signup")).status_code == 200
    response = client.post(
        reverse("signup"),
        {
            "username": "newcomer",
            "password1": "plum-orbit-58-lantern",
            "password2": "plum-orbit-58-lantern",
        },
    )
    assert response.status_code == 302
    assert client.get(reverse("surveys:dashboard")).status_code == 200


def test_wrong_password_is_refused_with_an_alert(client, owner):
    response = client.post(reverse("login"), {"username": "owner", "password": "nope"})
    assert response.status_code == 200
    assert b'role="alert"' in response.content
    assert "_auth_user_id" not in client.session


def test_sign_out_is_a_post(owner_client):
    assert owner_client.get(reverse("logout")).status_code == 405
    assert owner_client.post(reverse("logout")).status_code == 302
    assert owner_client.get(reverse("surveys:dashboard")).status_code == 302
