"""Every write route of the pages and the API, run outside a test transaction.

pytest-django runs an ordinary test inside one transaction, which hides a service that locks a
row (``select_for_update``) without ``transaction.atomic`` of its own: on PostgreSQL the
real request is a 500 (issue 24: deleting a survey failed so, and the survey stayed open).
Here each test is ``django_db(transaction=True)``: requests commit as in production, and
``lock_recorder`` (tests/helpers.py) fails a test in which any lock was taken in autocommit,
on SQLite too. Each write is checked by what it stored, read back from the database.

The routes come from the URL configuration (``write_routes``): every method other than GET
and HEAD that a view implements (class views), declares (``survey_roles`` of the pages'
``member_view``) or, for a plain function view, does not refuse with a 405 when asked with
POST. Each must be in ``WRITES`` (with a test of its effect) or in ``STORES_NOTHING`` (checked
to change no table); ``test_every_write_route_is_listed`` fails on a new one. Django's admin
is left out (``NOT_HERE``).
"""

import re
import uuid
from datetime import timedelta
from html.parser import HTMLParser
from types import SimpleNamespace

import pytest
from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.core import mail
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from django.urls.converters import IntConverter
from django.utils import timezone
from rest_framework.test import APIClient

from surveys import mail as after_commit_mail
from surveys import services
from surveys.models import (
    ApiToken,
    GroupingQuestion,
    Invitation,
    MemberInvitation,
    Submission,
    Survey,
    SurveyMember,
    SurveyTokenKey,
    VerifiedEmail,
)
from surveys.services import accounts as account_services
from surveys.services import grouping, invitations, members
from tests.helpers import PASSWORD, add_member, lock_recorder, stored_row_counts, token_client

pytestmark = pytest.mark.django_db(transaction=True)

WRITE_METHODS = ("POST", "PUT", "PATCH", "DELETE")
NOT_HERE = {
    "admin/": "Django's admin: ModelAdmin runs its change and delete views in transaction.atomic "
    "(tests/surveys/test_admin.py covers what it may change)",
}


# --- the routes ------------------------------------------------------------------------------


def _walk(patterns, prefix=""):
    for entry in patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            yield from _walk(entry.url_patterns, route)
        elif isinstance(entry, URLPattern):
            yield route, entry


def declared_write_methods(pattern):
    """The write methods a view says it takes, or None for a plain function view."""
    callback = pattern.callback
    view_class = getattr(callback, "view_class", None) or getattr(callback, "cls", None)
    if view_class is not None:
        return {
            method
            for method in WRITE_METHODS
            if hasattr(view_class, method.lower())
            and method.lower() in view_class.http_method_names
        }
    roles = getattr(callback, "survey_roles", None)
    if roles is not None:
        return {method for method in roles if method in WRITE_METHODS}
    return None


def write_routes(client, *, survey, trashed):
    """(route, method) of every write the URL configuration serves; ``client`` asks the plain
    function views (signed in, with ``survey``'s slug and ``trashed``'s id in the address)."""
    found = set()
    for route, pattern in _walk(get_resolver().url_patterns):
        if any(route.startswith(prefix) for prefix in NOT_HERE):
            continue
        methods = declared_write_methods(pattern)
        if methods is None:
            converters = getattr(pattern.pattern, "converters", {})
            url = "/" + route
            for name, converter in converters.items():
                # A number where the route takes one (else the URL misses it: a 404 to every
                # method, which would read as taking them all).
                value = trashed.pk if isinstance(converter, IntConverter) else survey.slug
                url = re.sub(rf"<(\w+:)?{name}>", str(value), url)
            # POST last: it may act (restore ``trashed``), and the others then ask too late.
            methods = {
                method
                for method in ("PUT", "PATCH", "DELETE", "POST")
                if client.generic(method, url).status_code != 405
            }
        found |= {(route, method) for method in methods}
    return found


# --- what a browser would send ---------------------------------------------------------------


class _Forms(HTMLParser):
    """The forms of a page and what each sends unchanged: inputs with their values, checked
    boxes and radios, the selected option, textareas (no buttons)."""

    def __init__(self):
        super().__init__()
        self.forms = []  # (action, [(name, value)])
        self._select = None
        self._textarea = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self.forms.append((attrs.get("action"), []))
        if not self.forms:
            return
        fields = self.forms[-1][1]
        name = attrs.get("name")
        if tag == "input" and name:
            kind = attrs.get("type", "text")
            if kind in ("checkbox", "radio") and "checked" not in attrs:
                return
            if kind not in ("submit", "button", "image", "reset"):
                fields.append((name, attrs.get("value", "on" if kind == "checkbox" else "")))
        elif tag == "select" and name:
            self._select = [name, None, False]  # name, first value, a selected one seen
        elif tag == "option" and self._select is not None:
            value = attrs.get("value", "")
            if self._select[1] is None:
                self._select[1] = value
            if "selected" in attrs and not self._select[2]:
                self._select[1:] = [value, True]
        elif tag == "textarea" and name:
            self._textarea = [name, ""]

    def handle_data(self, data):
        if self._textarea is not None:
            self._textarea[1] += data

    def handle_endtag(self, tag):
        if tag == "select" and self._select is not None:
            if self._select[1] is not None:
                self.forms[-1][1].append((self._select[0], self._select[1]))
            self._select = None
        elif tag == "textarea" and self._textarea is not None:
            name, text = self._textarea
            # A browser drops the newline that follows <textarea> (HTML's parsing rules).
            self.forms[-1][1].append((name, text.removeprefix("\n")))
            self._textarea = None


def form_data(client, page, *, action=None, **changes):
    """What the form of ``page`` posting to ``action`` (the page itself when None) sends, with
    ``changes``; repeated names become lists, as Django's test client takes them."""
    response = client.get(page)
    assert response.status_code == 200, (page, response.status_code)
    parser = _Forms()
    parser.feed(response.content.decode())
    wanted = action or page
    for form_action, fields in parser.forms:
        if (form_action or page) == wanted:
            data = {}
            for name, value in fields:
                data.setdefault(name, []).append(value)
            data = {k: v[0] if len(v) == 1 else v for k, v in data.items()}
            data.pop("csrfmiddlewaretoken", None)
            data.update(changes)
            return data
    raise AssertionError(f"no form posting to {wanted} on {page}: {[f[0] for f in parser.forms]}")


# --- the cast --------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def no_lock_outside_a_transaction():
    with lock_recorder() as outside:
        yield
    assert outside == [], f"row locks taken outside transaction.atomic: {outside}"


@pytest.fixture
def w(owner, make_survey, settings):
    """The owner signed in on the pages (``page``) and by token (``api``), an editor member
    (``member``, signed in as ``member_page`` and by token as ``member_api``), a respondent
    (``anon``), and surveys: ``w.survey(status=...)`` (two yes/no questions and a grouping
    question; the member invited and accepted unless ``members_too=False``)."""
    accounts = get_user_model().objects
    member = accounts.create_user("member", password=PASSWORD, email="member@example.org")
    page = Client()
    page.force_login(owner)
    member_page = Client()
    member_page.force_login(member)

    def survey(status=Survey.Status.OPEN, members_too=True):
        made = make_survey(status=Survey.Status.DRAFT, questions=["Q1?", "Q2?"])
        grouping.grouping_question_add(survey=made, text="Which team?", options=["Red", "Blue"])
        if members_too:
            add_member(survey=made, user=member, role="editor")
        if status == Survey.Status.OPEN:
            made = services.survey_open(survey=made)
        elif status == Survey.Status.PILOT:
            made = services.survey_pilot_start(survey=made)
        elif status == Survey.Status.CLOSED:
            made = services.survey_close(survey=services.survey_open(survey=made))
        return Survey.all_objects.get(pk=made.pk)

    return SimpleNamespace(
        owner=owner,
        member=member,
        page=page,
        member_page=member_page,
        api=token_client(owner),
        member_api=token_client(member),
        anon=APIClient(),
        survey=survey,
        settings=settings,
    )


def submission(survey, bits=(True, False), submission_id=None):
    ids = list(survey.questions.values_list("id", flat=True))
    group = survey.grouping_questions.first()
    body = {
        "submission_id": str(submission_id or uuid.uuid4()),
        "answers": {str(qid): bit for qid, bit in zip(ids, bits, strict=True)},
    }
    if group is not None:
        body["groups"] = {str(group.pk): group.options.first().pk}
    return body


def send(w, survey, **kwargs):
    return w.anon.post(
        f"/api/v1/public/surveys/{survey.slug}/responses/",
        submission(survey, **kwargs),
        format="json",
    )


def row(survey):
    return Survey.all_objects.get(pk=survey.pk)


def assert_gone(w, survey):
    """Trashed: closed, out of every list, its link a 404 and submissions refused."""
    stored = row(survey)
    assert stored.deleted_at is not None
    assert stored.status == Survey.Status.CLOSED
    count = Submission.objects.filter(survey_id=survey.pk).count()
    assert w.anon.get(f"/s/{survey.slug}/").status_code == 404
    assert w.anon.get(f"/api/v1/public/surveys/{survey.slug}/").status_code == 404
    assert send(w, survey).status_code == 404
    assert Submission.objects.filter(survey_id=survey.pk).count() == count
    assert w.api.get(f"/api/v1/surveys/{survey.pk}/").status_code == 404


def builder(survey, route=""):
    return f"/surveys/{survey.pk}/{route}"


# --- each write and what it stores -----------------------------------------------------------

WRITES = {}  # (route, method): [check, ...]: one route may do several things (an action)


def writes(route, method="POST"):
    def register(check):
        WRITES.setdefault((route, method), []).append(check)
        return check

    return register


@writes("surveys/new/")
def _new_survey_page(w):
    data = form_data(w.page, "/surveys/new/", title="Made on the page")
    response = w.page.post("/surveys/new/", data)
    made = Survey.objects.get(title="Made on the page")
    assert response.status_code == 302
    assert (made.owner, made.status) == (w.owner, Survey.Status.DRAFT)


@writes("surveys/trash/<int:pk>/restore/")
def _restore_page(w):
    survey = w.survey()
    services.survey_delete(survey=survey)
    assert w.page.post(f"/surveys/trash/{survey.pk}/restore/").status_code == 302
    assert row(survey).deleted_at is None
    assert w.page.get(builder(survey)).status_code == 200


@writes("surveys/<int:pk>/")
def _builder_settings(w):
    survey = w.survey(status=Survey.Status.DRAFT)
    data = form_data(w.page, builder(survey), title="Renamed on the page", p_truth="0.75")
    data["preset"] = "custom"
    assert w.page.post(builder(survey), data).status_code == 302
    stored = row(survey)
    assert (stored.title, stored.p_truth) == ("Renamed on the page", 0.75)


@writes("surveys/<int:pk>/open/")
def _open_page(w):
    survey = w.survey(status=Survey.Status.DRAFT)
    assert w.page.post(builder(survey, "open/")).status_code == 302
    stored = row(survey)
    assert stored.status == Survey.Status.OPEN and stored.design_fingerprint
    assert send(w, stored).status_code == 201


@writes("surveys/<int:pk>/close/")
def _close_page(w):
    survey = w.survey()
    assert w.page.post(builder(survey, "close/")).status_code == 302
    assert row(survey).status == Survey.Status.CLOSED
    assert send(w, survey).status_code == 409


@writes("surveys/<int:pk>/pilot/")
def _pilot_page(w):
    survey = w.survey(status=Survey.Status.DRAFT)
    assert w.page.post(builder(survey, "pilot/")).status_code == 302
    assert row(survey).status == Survey.Status.PILOT
    assert send(w, survey).status_code == 201


@writes("surveys/<int:pk>/discard-pilot/")
def _discard_pilot_page(w):
    survey = w.survey(status=Survey.Status.PILOT)
    assert send(w, survey).status_code == 201
    assert w.page.post(builder(survey, "discard-pilot/")).status_code == 302
    assert not Submission.objects.filter(survey_id=survey.pk).exists()
    assert row(survey).response_count == 0


@writes("surveys/<int:pk>/schedule/")
def _schedule_page(w):
    survey = w.survey()
    closes = (timezone.now() + timedelta(days=3)).replace(second=0, microsecond=0)
    data = form_data(
        w.page,
        builder(survey),
        action=builder(survey, "schedule/"),
        closes_at=timezone.localtime(closes).strftime("%Y-%m-%dT%H:%M"),
    )
    assert w.page.post(builder(survey, "schedule/"), data).status_code == 302
    assert row(survey).closes_at == closes


@writes("surveys/<int:pk>/duplicate/")
def _duplicate_page(w):
    survey = w.survey()
    response = w.page.post(builder(survey, "duplicate/"))
    copy = Survey.objects.exclude(pk=survey.pk).get(owner=w.owner)
    assert response.status_code == 302 and response["Location"] == builder(copy)
    assert list(copy.questions.values_list("text", flat=True)) == ["Q1?", "Q2?"]
    assert copy.grouping_questions.get().options.count() == 2


@writes("surveys/<int:pk>/delete/")
def _delete_page(w):
    survey = w.survey()
    assert send(w, survey).status_code == 201
    response = w.page.post(builder(survey, "delete/"))
    assert response.status_code == 302 and response["Location"] == "/surveys/"
    assert_gone(w, survey)


@writes("surveys/<int:pk>/translations/")
def _translations_page(w):
    survey = w.survey(status=Survey.Status.DRAFT)
    page = builder(survey, "translations/")
    data = form_data(w.page, page)
    korean = [name for name in data if re.search(r"(^|\W|_)ko($|\W|_)", name)]
    assert korean, sorted(data)
    for name in korean:
        data[name] = f"번역 {name}"
    assert w.page.post(page, data).status_code == 302
    assert row(survey).translations.get("ko")


@writes("surveys/<int:pk>/questions/add/")
def _question_add_page(w):
    survey = w.survey(status=Survey.Status.DRAFT)
    data = form_data(w.page, builder(survey), action=builder(survey, "questions/add/"), text="Q3?")
    assert w.page.post(builder(survey, "questions/add/"), data).status_code == 302
    assert list(survey.questions.values_list("text", flat=True)) == ["Q1?", "Q2?", "Q3?"]


@writes("surveys/<int:pk>/questions/<int:qid>/edit/")
def _question_edit_page(w):
    survey = w.survey(status=Survey.Status.DRAFT)
    question = survey.questions.first()
    page = builder(survey, f"questions/{question.pk}/edit/")
    assert w.page.post(page, form_data(w.page, page, text="Q1, edited?")).status_code == 302
    question.refresh_from_db()
    assert question.text == "Q1, edited?"


@writes("surveys/<int:pk>/questions/<int:qid>/delete/")
def _question_delete_page(w):
    survey = w.survey(status=Survey.Status.DRAFT)
    question = survey.questions.first()
    assert w.page.post(builder(survey, f"questions/{question.pk}/delete/")).status_code == 302
    assert list(survey.questions.values_list("text", flat=True)) == ["Q2?"]


@writes("surveys/<int:pk>/questions/<int:qid>/move/")
def _question_move_page(w):
    survey = w.survey(status=Survey.Status.DRAFT)
    second = survey.questions.last()
    url = builder(survey, f"questions/{second.pk}/move/")
    assert w.page.post(url, {"direction": "up"}).status_code == 302
    assert list(survey.questions.order_by("position").values_list("text", flat=True)) == [
        "Q2?",
        "Q1?",
    ]


@writes("surveys/<int:pk>/groups/add/")
def _grouping_add_page(w):
    survey = w.survey(status=Survey.Status.DRAFT)
    url = builder(survey, "groups/add/")
    data = form_data(w.page, builder(survey), action=url)
    data.update({"grouping-text": "Which site?", "grouping-options": "North\nSouth"})
    assert w.page.post(url, data).status_code == 302
    added = GroupingQuestion.objects.get(survey=survey, text="Which site?")
    assert list(added.options.values_list("label", flat=True)) == ["North", "South"]


@writes("surveys/<int:pk>/groups/<int:gid>/edit/")
def _grouping_edit_page(w):
    survey = w.survey(status=Survey.Status.DRAFT)
    group = survey.grouping_questions.get()
    page = builder(survey, f"groups/{group.pk}/edit/")
    assert w.page.post(page, form_data(w.page, page, text="Which squad?")).status_code == 302
    group.refresh_from_db()
    assert group.text == "Which squad?"
    assert list(group.options.values_list("label", flat=True)) == ["Red", "Blue"]


@writes("surveys/<int:pk>/groups/<int:gid>/delete/")
def _grouping_delete_page(w):
    survey = w.survey(status=Survey.Status.DRAFT)
    group = survey.grouping_questions.get()
    assert w.page.post(builder(survey, f"groups/{group.pk}/delete/")).status_code == 302
    assert not GroupingQuestion.objects.filter(pk=group.pk).exists()


@writes("surveys/<int:pk>/public/")
def _public_settings_page(w):
    survey = w.survey()
    page = builder(survey, "public/")
    data = form_data(w.page, page, public_results="on")
    assert w.page.post(page, data).status_code == 302
    assert row(survey).public_results is True


def pending(survey):
    """The survey's invitations waiting for an answer, as comparable tuples."""
    return sorted(
        (invitation.user_id, invitation.email, invitation.role, invitation.invited_by_id)
        for invitation in MemberInvitation.objects.filter(survey=survey)
    )


def invite(w, survey, role="viewer"):
    """The member invited to ``survey`` (not yet accepted): the pending invitation."""
    return members.member_invite(survey=survey, by=w.owner, user="member", role=role)


@writes("surveys/<int:pk>/members/")
def _member_invite_page(w):
    survey = w.survey(members_too=False)
    data = {"user": "member", "role": "viewer"}
    assert w.page.post(builder(survey, "members/"), data).status_code == 302
    assert pending(survey) == [(w.member.pk, "", "viewer", w.owner.pk)]
    assert not SurveyMember.objects.filter(survey=survey).exists()  # nothing until accepted


@writes("surveys/<int:pk>/invitations/<int:iid>/withdraw/")
def _invitation_withdraw_page(w):
    survey = w.survey(members_too=False)
    invitation = invite(w, survey)
    url = builder(survey, f"invitations/{invitation.pk}/withdraw/")
    assert w.page.post(url).status_code == 302
    assert pending(survey) == []
    assert not SurveyMember.objects.filter(survey=survey).exists()


@writes("invitations/<int:iid>/accept/")
def _invitation_accept_page(w):
    survey = w.survey(members_too=False)
    invitation = invite(w, survey)
    assert w.member_page.post(f"/invitations/{invitation.pk}/accept/").status_code == 302
    assert SurveyMember.objects.get(survey=survey, user=w.member).role == "viewer"
    assert pending(survey) == []
    assert w.member_page.get(builder(survey, "results/")).status_code == 200


@writes("invitations/<int:iid>/accept/")
def _ownership_offer_accept_page(w):
    survey = w.survey()
    offer = members.survey_transfer(survey=survey, by=w.owner, user_id=w.member.pk)
    assert w.member_page.post(f"/invitations/{offer.pk}/accept/").status_code == 302
    assert row(survey).owner == w.member
    assert SurveyMember.objects.get(survey=survey, user=w.owner).role == "editor"
    assert not SurveyMember.objects.filter(survey=survey, user=w.member).exists()
    assert pending(survey) == []


@writes("invitations/<int:iid>/decline/")
def _invitation_decline_page(w):
    survey = w.survey(members_too=False)
    invitation = invite(w, survey)
    assert w.member_page.post(f"/invitations/{invitation.pk}/decline/").status_code == 302
    assert pending(survey) == []
    assert not SurveyMember.objects.filter(survey=survey).exists()


@writes("surveys/<int:pk>/members/leave/")
def _member_leave_page(w):
    survey = w.survey()
    assert w.member_page.post(builder(survey, "members/leave/")).status_code == 302
    assert not SurveyMember.objects.filter(survey=survey, user=w.member).exists()


@writes("surveys/<int:pk>/members/<int:uid>/role/")
def _member_role_page(w):
    survey = w.survey()
    url = builder(survey, f"members/{w.member.pk}/role/")
    assert w.page.post(url, {"role": "viewer"}).status_code == 302
    assert SurveyMember.objects.get(survey=survey, user=w.member).role == "viewer"


@writes("surveys/<int:pk>/members/<int:uid>/remove/")
def _member_remove_page(w):
    survey = w.survey()
    assert w.page.post(builder(survey, f"members/{w.member.pk}/remove/")).status_code == 302
    assert not SurveyMember.objects.filter(survey=survey, user=w.member).exists()


@writes("surveys/<int:pk>/transfer/")
def _transfer_page(w):
    survey = w.survey()
    url = builder(survey, "transfer/")
    assert w.page.post(url, {"user_id": w.member.pk}).status_code == 302
    assert pending(survey) == [(w.member.pk, "", "owner", w.owner.pk)]  # an offer, no more
    assert row(survey).owner == w.owner
    assert SurveyMember.objects.get(survey=survey, user=w.member).role == "editor"


# --- accounts --------------------------------------------------------------------------------


@writes("accounts/login/")
def _login(w):
    browser = Client()
    response = browser.post("/accounts/login/", {"username": "owner", "password": PASSWORD})
    assert response.status_code == 302
    key = browser.cookies["sessionid"].value
    assert Session.objects.get(session_key=key).get_decoded()["_auth_user_id"] == str(w.owner.pk)


@writes("accounts/logout/")
def _logout(w):
    key = w.page.cookies["sessionid"].value
    assert Session.objects.filter(session_key=key).exists()
    assert w.page.post("/accounts/logout/").status_code == 302
    assert not Session.objects.filter(session_key=key).exists()


@writes("accounts/signup/")
def _signup(w):
    w.settings.SIGNUP_ENABLED = True
    browser = Client()
    data = form_data(
        browser,
        "/accounts/signup/",
        username="newcomer",
        email="newcomer@example.org",
        password1="a-Long-pass-phrase-77",
        password2="a-Long-pass-phrase-77",
    )
    assert browser.post("/accounts/signup/", data).status_code == 302
    assert get_user_model().objects.get(username="newcomer").check_password("a-Long-pass-phrase-77")


def verified(user, email):
    """``user`` has ``email``, proved (as following the link would leave it)."""
    user.email = email
    user.save()
    VerifiedEmail.objects.create(user=user, email=email, verified_at=timezone.now())


@writes("accounts/")
def _account_tokens(w):
    assert w.page.post("/accounts/", {"action": "issue", "name": "laptop"}).status_code == 200
    issued = ApiToken.objects.get(user=w.owner, name="laptop")
    revoke = {"action": "revoke", "token": str(issued.pk)}
    assert w.page.post("/accounts/", revoke).status_code == 302
    assert not ApiToken.objects.filter(pk=issued.pk).exists()


@writes("accounts/")
def _account_email_change(w):
    w.settings.MAIL_ENABLED = True
    verified(w.owner, "owner@example.org")
    data = {"action": "email", "email": "new-owner@example.org", "password": PASSWORD}
    assert w.page.post("/accounts/", data).status_code == 302
    w.owner.refresh_from_db()
    assert w.owner.email == "new-owner@example.org"
    # The new address starts unverified: the row still names the old one.
    assert VerifiedEmail.objects.get(user=w.owner).email == "owner@example.org"
    assert after_commit_mail.wait_for_mail()
    assert [message.to for message in mail.outbox] == [["new-owner@example.org"]]


@writes("accounts/")
def _account_verification_resend(w):
    w.settings.MAIL_ENABLED = True
    w.owner.email = "owner@example.org"
    w.owner.save()
    before = stored_row_counts()
    assert w.page.post("/accounts/", {"action": "resend"}).status_code == 302
    assert after_commit_mail.wait_for_mail()
    assert [message.to for message in mail.outbox] == [["owner@example.org"]]
    assert stored_row_counts() == before  # a mail, nothing stored
    assert not VerifiedEmail.objects.filter(user=w.owner).exists()


@writes("accounts/email/verify/<str:token>/")
def _email_verify(w):
    w.owner.email = "Owner@Example.org"
    w.owner.save()
    link = f"/accounts/email/verify/{account_services.verification_token(user=w.owner)}/"
    assert Client().post(link).status_code == 302  # to sign in: only its account verifies
    assert w.page.get(link).status_code == 200  # the page with the button verifies nothing
    assert not VerifiedEmail.objects.filter(user=w.owner).exists()
    assert w.page.post(link).status_code == 200
    assert VerifiedEmail.objects.get(user=w.owner).email == "owner@example.org"


@writes("accounts/password/change/")
def _password_change(w):
    new = "another-Long-pass-77"
    data = {"old_password": PASSWORD, "new_password1": new, "new_password2": new}
    assert w.page.post("/accounts/password/change/", data).status_code == 302
    w.owner.refresh_from_db()
    assert w.owner.check_password(new)
    assert not ApiToken.objects.filter(user=w.owner).exists()  # a new password revokes them


@writes("accounts/password/reset/")
def _password_reset(w):
    w.settings.PASSWORD_RESET_ENABLED = True
    verified(w.owner, "owner@example.org")
    before = stored_row_counts()
    response = Client().post("/accounts/password/reset/", {"email": "owner@example.org"})
    assert response.status_code == 302
    assert after_commit_mail.wait_for_mail()  # sent on a thread after the answer
    assert [message.to for message in mail.outbox] == [["owner@example.org"]]
    assert stored_row_counts() == before  # a mail, nothing stored
    w.owner.refresh_from_db()
    assert w.owner.check_password(PASSWORD)


@writes("accounts/password/reset/<uidb64>/<token>/")
def _password_reset_confirm(w):
    w.settings.PASSWORD_RESET_ENABLED = True
    verified(w.owner, "owner@example.org")
    browser = Client()
    browser.post("/accounts/password/reset/", {"email": "owner@example.org"})
    assert after_commit_mail.wait_for_mail()
    link = re.search(r"/accounts/password/reset/[^/\s]+/[^/\s]+/", mail.outbox[0].body).group()
    form_page = browser.get(link)  # the token moves to the session; the form is at set-password
    assert form_page.status_code == 302
    new = "reset-Long-pass-77"
    data = {"new_password1": new, "new_password2": new}
    assert browser.post(form_page["Location"], data).status_code == 302
    w.owner.refresh_from_db()
    assert w.owner.check_password(new)
    assert Client().get(link, follow=True).context["validlink"] is False  # the link is used


@writes("i18n/setlang/")
def _set_language(w):
    before = stored_row_counts()
    response = Client().post("/i18n/setlang/", {"language": "ko", "next": "/"})
    assert response.status_code == 302
    assert response.cookies["django_language"].value == "ko"
    assert stored_row_counts() == before  # a cookie, nothing in the database


# --- the API ---------------------------------------------------------------------------------


def api(survey, route=""):
    return f"/api/v1/surveys/{survey.pk}/{route}"


@writes("api/v1/auth/token/")
def _token_obtain(w):
    response = APIClient().post(
        "/api/v1/auth/token/", {"username": "owner", "password": PASSWORD}, format="json"
    )
    assert response.status_code in (200, 201)
    assert ApiToken.objects.filter(user=w.owner).count() == 2  # the cast's and this one
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {response.json()['token']}")
    assert client.get("/api/v1/surveys/").status_code == 200


@writes("api/v1/auth/token/", "DELETE")
def _token_revoke_own(w):
    assert ApiToken.objects.filter(user=w.owner).count() == 1
    assert w.api.delete("/api/v1/auth/token/").status_code == 204
    assert not ApiToken.objects.filter(user=w.owner).exists()
    assert w.api.get("/api/v1/surveys/").status_code == 401


@writes("api/v1/auth/tokens/<int:token_id>/", "DELETE")
def _token_revoke_by_id(w):
    token = ApiToken.objects.get(user=w.owner)
    assert w.page.delete(f"/api/v1/auth/tokens/{token.pk}/").status_code == 204
    assert not ApiToken.objects.filter(pk=token.pk).exists()


@writes("api/v1/surveys/")
def _survey_create_api(w):
    body = {
        "title": "Made by a script",
        "p_truth": 0.5,
        "p_forced_yes": 0.5,
        "questions": [{"text": "A?"}, {"text": "B?"}],
    }
    response = w.api.post("/api/v1/surveys/", body, format="json")
    assert response.status_code == 201, response.json()
    made = Survey.objects.get(pk=response.json()["id"])
    assert made.title == "Made by a script"
    assert list(made.questions.values_list("text", flat=True)) == ["A?", "B?"]


@writes("api/v1/surveys/<int:survey_id>/", "PATCH")
def _survey_update_api(w):
    survey = w.survey(status=Survey.Status.DRAFT)
    response = w.api.patch(api(survey), {"title": "Renamed by a script"}, format="json")
    assert response.status_code == 200
    assert row(survey).title == "Renamed by a script"


@writes("api/v1/surveys/<int:survey_id>/", "DELETE")
def _survey_delete_api(w):
    survey = w.survey()
    assert send(w, survey).status_code == 201
    assert w.api.delete(api(survey)).status_code == 204
    assert_gone(w, survey)


@writes("api/v1/surveys/<int:survey_id>/open/")
def _open_api(w):
    survey = w.survey(status=Survey.Status.DRAFT)
    assert w.api.post(api(survey, "open/")).status_code == 200
    assert row(survey).status == Survey.Status.OPEN
    assert send(w, survey).status_code == 201


@writes("api/v1/surveys/<int:survey_id>/close/")
def _close_api(w):
    survey = w.survey()
    assert w.api.post(api(survey, "close/")).status_code == 200
    assert row(survey).status == Survey.Status.CLOSED


def held_batch(w):
    """A closed survey (a link survey batched by three) whose last batch holds one response."""
    survey = w.survey(status=Survey.Status.DRAFT)
    services.survey_update(survey=survey, data={"release_batch": 3})
    survey = services.survey_open(survey=survey)
    assert send(w, survey).status_code == 201
    services.survey_close(survey=survey)
    assert Submission.all_objects.filter(survey_id=survey.pk, held=True).count() == 1
    return survey


@writes("surveys/<int:pk>/release-batch/")
def _release_batch_page(w):
    survey = held_batch(w)
    assert w.page.post(builder(survey, "release-batch/"), {"responses": "1"}).status_code == 302
    assert Submission.objects.filter(survey_id=survey.pk).count() == 1
    assert not Submission.all_objects.filter(survey_id=survey.pk, held=True).exists()


@writes("api/v1/surveys/<int:survey_id>/release-batch/")
def _release_batch_api(w):
    survey = held_batch(w)
    response = w.api.post(api(survey, "release-batch/"), {"responses": 1}, format="json")
    assert response.status_code == 200 and response.json()["released"] == 1
    assert row(survey).response_count == 1
    assert not Submission.all_objects.filter(survey_id=survey.pk, held=True).exists()


@writes("api/v1/surveys/<int:survey_id>/pilot/")
def _pilot_api(w):
    survey = w.survey(status=Survey.Status.DRAFT)
    assert w.api.post(api(survey, "pilot/")).status_code == 200
    assert row(survey).status == Survey.Status.PILOT


@writes("api/v1/surveys/<int:survey_id>/discard-pilot/")
def _discard_pilot_api(w):
    survey = w.survey(status=Survey.Status.PILOT)
    assert send(w, survey).status_code == 201
    assert w.api.post(api(survey, "discard-pilot/")).status_code == 200
    assert not Submission.objects.filter(survey_id=survey.pk).exists()


@writes("api/v1/surveys/<int:survey_id>/duplicate/")
def _duplicate_api(w):
    survey = w.survey()
    response = w.api.post(api(survey, "duplicate/"))
    assert response.status_code == 201
    copy = Survey.objects.get(pk=response.json()["id"])
    assert copy.status == Survey.Status.DRAFT and copy.questions.count() == 2


@writes("api/v1/surveys/<int:survey_id>/schedule/")
def _schedule_api(w):
    survey = w.survey()
    closes = (timezone.now() + timedelta(days=2)).replace(microsecond=0)
    body = {"closes_at": closes.isoformat()}
    assert w.api.post(api(survey, "schedule/"), body, format="json").status_code == 200
    assert row(survey).closes_at == closes


@writes("api/v1/surveys/<int:survey_id>/members/")
def _member_invite_api(w):
    survey = w.survey(members_too=False)
    body = {"user": "member", "role": "viewer"}
    response = w.api.post(api(survey, "members/"), body, format="json")
    assert response.status_code == 201
    assert response.json()["status"] == "pending"
    assert pending(survey) == [(w.member.pk, "", "viewer", w.owner.pk)]
    assert not SurveyMember.objects.filter(survey=survey).exists()


@writes("api/v1/surveys/<int:survey_id>/members/")
def _member_invite_by_email_api(w):
    w.settings.MAIL_ENABLED = True
    survey = w.survey(members_too=False)
    body = {"user": "Colleague@Example.org", "role": "editor"}
    assert w.api.post(api(survey, "members/"), body, format="json").status_code == 201
    assert pending(survey) == [(None, "colleague@example.org", "editor", w.owner.pk)]
    assert not SurveyMember.objects.filter(survey=survey).exists()
    assert after_commit_mail.wait_for_mail()
    assert [message.to for message in mail.outbox] == [["colleague@example.org"]]


@writes("api/v1/surveys/<int:survey_id>/member-invitations/<int:invitation_id>/", "DELETE")
def _invitation_withdraw_api(w):
    survey = w.survey(members_too=False)
    invitation = invite(w, survey)
    assert w.api.delete(api(survey, f"member-invitations/{invitation.pk}/")).status_code == 204
    assert pending(survey) == []
    assert not SurveyMember.objects.filter(survey=survey).exists()


@writes("api/v1/invitations/<int:invitation_id>/accept/")
def _invitation_accept_api(w):
    survey = w.survey(members_too=False)
    invitation = invite(w, survey, role="editor")
    response = w.member_api.post(f"/api/v1/invitations/{invitation.pk}/accept/")
    assert response.status_code == 200
    assert SurveyMember.objects.get(survey=survey, user=w.member).role == "editor"
    assert pending(survey) == []
    assert w.member_api.get(api(survey)).status_code == 200


@writes("api/v1/invitations/<int:invitation_id>/accept/")
def _ownership_offer_accept_api(w):
    survey = w.survey()
    offer = members.survey_transfer(survey=survey, by=w.owner, user_id=w.member.pk)
    assert w.member_api.post(f"/api/v1/invitations/{offer.pk}/accept/").status_code == 200
    assert row(survey).owner == w.member
    assert SurveyMember.objects.get(survey=survey, user=w.owner).role == "editor"
    assert pending(survey) == []


@writes("api/v1/invitations/<int:invitation_id>/decline/")
def _invitation_decline_api(w):
    survey = w.survey(members_too=False)
    invitation = invite(w, survey)
    assert w.member_api.post(f"/api/v1/invitations/{invitation.pk}/decline/").status_code == 204
    assert pending(survey) == []
    assert not SurveyMember.objects.filter(survey=survey).exists()


@writes("api/v1/surveys/<int:survey_id>/members/<int:user_id>/", "PATCH")
def _member_role_api(w):
    survey = w.survey()
    url = api(survey, f"members/{w.member.pk}/")
    assert w.api.patch(url, {"role": "viewer"}, format="json").status_code == 200
    assert SurveyMember.objects.get(survey=survey, user=w.member).role == "viewer"


@writes("api/v1/surveys/<int:survey_id>/members/<int:user_id>/", "DELETE")
def _member_remove_api(w):
    survey = w.survey()
    assert w.api.delete(api(survey, f"members/{w.member.pk}/")).status_code == 204
    assert not SurveyMember.objects.filter(survey=survey, user=w.member).exists()


@writes("api/v1/surveys/<int:survey_id>/transfer/")
def _transfer_api(w):
    survey = w.survey()
    body = {"user_id": w.member.pk}
    response = w.api.post(api(survey, "transfer/"), body, format="json")
    assert response.status_code == 202
    assert (response.json()["role"], response.json()["user_id"]) == ("owner", w.member.pk)
    assert pending(survey) == [(w.member.pk, "", "owner", w.owner.pk)]  # an offer, no more
    assert row(survey).owner == w.owner


@writes("api/v1/public/surveys/<str:slug>/responses/")
def _submission(w):
    survey = w.survey()
    sid = uuid.uuid4()
    assert send(w, survey, bits=(True, False), submission_id=sid).status_code == 201
    assert send(w, survey, bits=(True, False), submission_id=sid).status_code == 201  # replay
    stored = Submission.objects.get(survey_id=survey.pk)
    assert sorted(stored.reports.values()) == [False, True]
    assert row(survey).response_count == 1


# Routes that take a write method and must store nothing: what each is.
# Routes that take a write method and must store nothing, and what each is.
READ_ANY_METHOD = {
    "": "the home page",
    "surveys/": "the dashboard",
    "surveys/design-preview/": "the builder's live privacy numbers",
    "surveys/trash/": "the trash page",
}
POST_ONLY_WRITES = ("surveys/new/", "accounts/signup/", "i18n/setlang/")  # else the form
STORES_NOTHING = {
    **{
        (route, method): f"{what}, any method"
        for route, what in READ_ANY_METHOD.items()
        for method in WRITE_METHODS
    },
    **{
        (route, method): "a plain view that writes on POST alone; other methods read"
        for route in POST_ONLY_WRITES
        for method in ("PUT", "PATCH", "DELETE")
    },
    # Django's FormView.put is its post, but Django parses no PUT body: an empty form.
    ("accounts/login/", "PUT"): "the sign-in form, empty",
    ("accounts/password/change/", "PUT"): "the password form, empty",
    ("accounts/password/reset/", "PUT"): "the reset request form, empty",
    ("accounts/password/reset/<uidb64>/<token>/", "PUT"): "the new-password form, empty",
    # An invitation code's state, asked by its holder (tests/surveys/api/test_invitation_status.py).
    ("api/v1/public/surveys/<str:slug>/invitation-status/", "POST"): "a code's state, read",
}


# --- respondent invitations (docs/invitations.md) ------------------------------------------


def invitation_study(w, access="invitation"):
    survey = w.survey(status=Survey.Status.DRAFT)
    services.survey_update(survey=survey, data={"access": access})
    return Survey.all_objects.get(pk=services.survey_open(survey=survey).pk)


def respondent_invitations(survey):
    return sorted(
        Invitation.objects.filter(survey=survey).values_list("email", "status", "mail_pending")
    )


@writes("api/v1/surveys/<int:survey_id>/invitations/")
def _invitations_create_api(w):
    survey = invitation_study(w)
    body = {"emails": ["a@example.org", "B@example.org"]}
    assert w.member_api.post(api(survey, "invitations/"), body, format="json").status_code == 201
    assert respondent_invitations(survey) == [
        ("a@example.org", "unused", "invitation"),
        ("b@example.org", "unused", "invitation"),
    ]
    assert SurveyTokenKey.objects.filter(survey=survey).exists()


@writes("api/v1/surveys/<int:survey_id>/invitations/<int:invitation_id>/", "DELETE")
def _invitation_revoke_api(w):
    survey = invitation_study(w)
    (made,) = invitations.invitations_create(survey=survey, count=1)
    assert w.api.delete(api(survey, f"invitations/{made.id}/")).status_code == 204
    assert respondent_invitations(survey) == [("", "revoked", "")]


@writes("api/v1/surveys/<int:survey_id>/invitations/<int:invitation_id>/reset/")
def _invitation_reset_api(w):
    survey = invitation_study(w)
    (made,) = invitations.invitations_create(survey=survey, count=1)
    response = w.api.post(api(survey, f"invitations/{made.id}/reset/"))
    assert response.status_code == 200
    assert response.json()["code"] != made.code
    assert row(survey).invitation_resets == 1


@writes("api/v1/surveys/<int:survey_id>/invitations/remind/")
def _invitations_remind_api(w):
    survey = invitation_study(w)
    invitations.invitations_create(survey=survey, emails=["a@example.org"])
    Invitation.objects.filter(survey=survey).update(mail_pending="")
    assert w.api.post(api(survey, "invitations/remind/")).status_code == 202
    assert respondent_invitations(survey) == [("a@example.org", "unused", "reminder")]


@writes("api/v1/public/surveys/<str:slug>/tokens/")
def _token_issue_api(w):
    import blindrsa

    survey = invitation_study(w)
    (made,) = invitations.invitations_create(survey=survey, count=1)
    key = blindrsa.public_key_decode(SurveyTokenKey.objects.get(survey=survey).public_key)
    prepared = blindrsa.prepare(message=bytes(32))
    blinded = blindrsa.blind(public_key=key, prepared_message=prepared)
    body = {"code": made.code, "blinded_message": blindrsa.b64url_encode(blinded.blinded_message)}
    response = w.anon.post(f"/api/v1/public/surveys/{survey.slug}/tokens/", body, format="json")
    assert response.status_code == 201
    assert respondent_invitations(survey) == [("", "issued", "")]
    assert (
        w.anon.post(
            f"/api/v1/public/surveys/{survey.slug}/tokens/", body, format="json"
        ).status_code
        == 409
    )


@writes("surveys/<int:pk>/invitees/")
def _invitations_create_page(w):
    survey = invitation_study(w)
    page = builder(survey, "invitees/")
    response = w.page.post(page, {"emails": "a@example.org\n\nb@example.org"})
    assert response.status_code == 302
    assert w.page.post(page, {"count": "2"}).status_code == 302
    assert [email for email, _s, _m in respondent_invitations(survey)] == [
        "",
        "",
        "a@example.org",
        "b@example.org",
    ]


@writes("surveys/<int:pk>/invitees/<int:iid>/reset/")
def _invitation_reset_page(w):
    survey = invitation_study(w)
    (made,) = invitations.invitations_create(survey=survey, count=1)
    assert w.page.post(builder(survey, f"invitees/{made.id}/reset/")).status_code == 302
    assert row(survey).invitation_resets == 1


@writes("surveys/<int:pk>/invitees/<int:iid>/revoke/")
def _invitation_revoke_page(w):
    survey = invitation_study(w)
    (made,) = invitations.invitations_create(survey=survey, count=1)
    assert w.page.post(builder(survey, f"invitees/{made.id}/revoke/")).status_code == 302
    assert respondent_invitations(survey) == [("", "revoked", "")]


@writes("surveys/<int:pk>/invitees/remind/")
def _invitations_remind_page(w):
    survey = invitation_study(w, access="both")
    invitations.invitations_create(survey=survey, emails=["a@example.org"])
    Invitation.objects.filter(survey=survey).update(mail_pending="")
    assert w.page.post(builder(survey, "invitees/remind/")).status_code == 302
    assert respondent_invitations(survey) == [("a@example.org", "unused", "reminder")]


@writes("s/unsubscribe/<str:token>/")
def _invitation_unsubscribe(w):
    from surveys.services import invitation_mail

    survey = invitation_study(w)
    (made,) = invitations.invitations_create(survey=survey, emails=["a@example.org"])
    url = f"/s/unsubscribe/{invitation_mail.unsubscribe_token(made.id)}/"
    assert w.anon.post(url).status_code == 200
    assert Invitation.objects.get(pk=made.id).unsubscribed
    assert respondent_invitations(survey) == [("a@example.org", "unused", "")]


@writes("surveys/<int:pk>/invitees/")
def _invitation_sender_page(w):
    survey = invitation_study(w)
    data = {"contact_name": "Dr. Park", "contact_email": "park@example.org"}
    assert w.page.post(builder(survey, "invitees/"), data).status_code == 302
    assert (row(survey).contact_name, row(survey).contact_email) == ("Dr. Park", "park@example.org")


@writes("api/v1/surveys/<int:survey_id>/invitations/sender/", "PUT")
def _invitation_sender_api(w):
    survey = invitation_study(w)
    body = {"contact_name": "Dr. Park", "contact_email": "park@example.org"}
    response = w.member_api.put(api(survey, "invitations/sender/"), body, format="json")
    assert response.status_code == 200
    assert (row(survey).contact_name, row(survey).contact_email) == ("Dr. Park", "park@example.org")


def pilot_with_invitations(w):
    survey = w.survey(status=Survey.Status.DRAFT)
    services.survey_update(survey=survey, data={"access": "invitation"})
    survey = services.survey_pilot_start(survey=survey)
    invitations.invitations_create(survey=survey, emails=["t@example.org"])
    return survey


@writes("surveys/<int:pk>/open/")
def _open_pilot_reissuing_its_invitations_page(w):
    survey = pilot_with_invitations(w)
    data = {"pilot_invitations": "reissue"}
    assert w.page.post(builder(survey, "open/"), data).status_code == 302
    assert row(survey).status == Survey.Status.OPEN
    assert sorted(Invitation.objects.filter(survey=survey).values_list("pilot", "status")) == [
        (False, "unused"),
        (True, "revoked"),
    ]


@writes("api/v1/surveys/<int:survey_id>/open/")
def _open_pilot_revoking_its_invitations_api(w):
    survey = pilot_with_invitations(w)
    assert w.api.post(api(survey, "open/"), {}, format="json").status_code == 200
    assert list(Invitation.objects.filter(survey=survey).values_list("pilot", "status")) == [
        (True, "revoked")
    ]


@pytest.mark.parametrize("route", sorted({route for route, _method in STORES_NOTHING}))
def test_a_route_that_writes_nothing_stores_nothing(w, route):
    w.settings.PASSWORD_RESET_ENABLED = True
    survey = w.survey()
    url = "/" + re.sub(r"<(\w+:)?(uidb64|token)>", "x", route)
    before = stored_row_counts()
    for listed, method in sorted(STORES_NOTHING):
        if listed == route:
            response = w.page.generic(method, url, "email=owner%40example.org")
            assert response.status_code < 500, (method, response.status_code)
    assert stored_row_counts() == before
    assert row(survey).status == Survey.Status.OPEN


@pytest.mark.parametrize(
    "check",
    [
        pytest.param(check, id=f"{route}-{method}-{check.__name__.lstrip('_')}")
        for (route, method), checks in sorted(WRITES.items())
        for check in checks
    ],
)
@pytest.mark.slow
def test_each_write_route_stores_its_effect_outside_a_test_transaction(w, check):
    check(w)


@pytest.mark.django_db
@pytest.mark.slow
def test_every_write_route_is_listed(w):
    survey = w.survey()
    trashed = w.survey()
    services.survey_delete(survey=trashed)
    found = write_routes(w.page, survey=survey, trashed=trashed)
    listed = set(WRITES) | set(STORES_NOTHING)
    unlisted = sorted(found - listed)
    assert not unlisted, (
        "Write routes with no test in tests/surveys/services/test_write_routes.py: add each to "
        "WRITES (a check of what it stores, run outside a test transaction) or, if it stores "
        f"nothing, to STORES_NOTHING: {unlisted}"
    )
    assert not sorted(listed - found), f"listed but no longer served: {sorted(listed - found)}"
