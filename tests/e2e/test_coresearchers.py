"""Co-researchers in a real Chromium, in English, Korean and Simplified Chinese: the owner
invites a viewer (by username) and an editor (by verified email address) on the members page;
each accepts on their dashboard; the viewer reads the results and downloads the raw CSV but
finds no control that changes the survey; the editor adds a question; the owner offers
ownership to the editor, who accepts it."""

import csv
import io
import re
import zipfile

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone, translation
from django.utils.translation import gettext
from playwright.sync_api import expect

from surveys import services
from surveys.models import Survey, VerifiedEmail
from tests.helpers import PASSWORD

pytestmark = pytest.mark.e2e

# browser locale -> the language the pages are served in
LOCALES = {"en-US": "en", "ko-KR": "ko", "zh-CN": "zh-hans"}


def text(language, message):
    with translation.override(language):
        return gettext(message)


@pytest.fixture
def accounts(db):
    users = get_user_model().objects
    cast = {
        name: users.create_user(name, password=PASSWORD, email=f"{name}@example.org")
        for name in ("olga", "vera", "ed")
    }
    # Ed followed the verification link: invitations to his address reach his account.
    VerifiedEmail.objects.create(
        user=cast["ed"], email="ed@example.org", verified_at=timezone.now()
    )
    return cast


def accept_on_dashboard(page, live_server, t, title):
    page.goto(f"{live_server.url}/surveys/")
    invitations = page.get_by_role("region", name=t("Invitations for you"))
    invitations.get_by_role("button", name=f"{t('Accept')} {title}").click()
    expect(page.get_by_role("region", name=t("Invitations for you"))).to_have_count(0)


def browser_for(new_context, sign_in, live_server, user, locale):
    page = new_context(locale=locale).new_page()
    sign_in(page, live_server, user)
    return page


@pytest.mark.parametrize("locale", LOCALES)
def test_the_owner_shares_a_survey_and_hands_it_over(
    live_server, new_context, sign_in, accounts, locale
):
    language = LOCALES[locale]
    t = lambda message: text(language, message)  # noqa: E731
    owner, viewer, editor = accounts["olga"], accounts["vera"], accounts["ed"]
    survey = services.survey_create(
        owner=owner, title="Lab habits", questions=["Have you ever skipped a safety check?"]
    )

    # The owner invites a viewer by username and an editor by email address.
    page = browser_for(new_context, sign_in, live_server, owner, locale)
    page.goto(f"{live_server.url}/surveys/{survey.pk}/")
    page.get_by_role("navigation", name=t("Survey pages")).get_by_role(
        "link", name=t("Members"), exact=True
    ).click()
    expect(page.get_by_role("heading", name=t("Invite a co-researcher"))).to_be_visible()
    page.get_by_label(t("Username or email address")).fill("vera")
    page.get_by_label(
        re.compile(re.escape(t("Viewer: sees results, analysis and exports")))
    ).check()
    page.get_by_role("button", name=t("Invite"), exact=True).click()
    page.get_by_label(t("Username or email address")).fill("ed@example.org")
    page.get_by_label(
        re.compile(re.escape(t("Editor: also builds, opens and closes the survey")))
    ).check()
    page.get_by_role("button", name=t("Invite"), exact=True).click()
    # Nothing is granted yet: the owner alone has access, two invitations wait.
    expect(page.locator(".member-table:not(.pending-table) tbody tr")).to_have_count(1)
    expect(page.locator(".pending-table tbody tr")).to_have_count(2)
    waiting = browser_for(new_context, sign_in, live_server, viewer, locale)
    assert waiting.goto(f"{live_server.url}/surveys/{survey.pk}/results/").status == 404

    # Each accepts on their dashboard.
    seen = waiting
    accept_on_dashboard(seen, live_server, t, "Lab habits")
    builds = browser_for(new_context, sign_in, live_server, editor, locale)
    accept_on_dashboard(builds, live_server, t, "Lab habits")
    page.reload()
    rows = page.locator(".member-table:not(.pending-table) tbody tr")
    expect(rows).to_have_count(3)  # the owner, then the two members
    expect(page.locator(".pending-table")).to_have_count(0)
    expect(page.get_by_label(t("Role of %(user)s") % {"user": "vera"})).to_have_value("viewer")
    expect(page.get_by_label(t("Role of %(user)s") % {"user": "ed"})).to_have_value("editor")

    # The viewer finds it under "Shared with me", reads the results, downloads the raw CSV,
    # and finds nothing that builds, shares or deletes.
    seen.goto(f"{live_server.url}/surveys/")
    expect(seen.get_by_role("heading", name=t("Shared with me"))).to_be_visible()
    expect(seen.locator("td.member-role")).to_have_text(t("Viewer"))
    seen.get_by_role("link", name="Lab habits", exact=True).click()
    expect(seen).to_have_url(re.compile(rf"/surveys/{survey.pk}/results/$"))
    tabs = seen.get_by_role("navigation", name=t("Survey pages"))
    expect(tabs.get_by_role("link", name=t("Results"), exact=True)).to_be_visible()
    expect(tabs.get_by_role("link", name=t("Build"), exact=True)).to_have_count(0)
    expect(tabs.get_by_role("link", name=t("Share"), exact=True)).to_have_count(0)
    with seen.expect_download() as info:
        seen.get_by_role("link", name=t("CSV files (ZIP)"), exact=True).click()
    with zipfile.ZipFile(info.value.path()) as bundle:
        reports = io.TextIOWrapper(bundle.open("reports.csv"), encoding="utf-8", newline="")
        assert "submission_id" in next(csv.reader(reports))
    edit_forms = seen.locator("main form[method=post]")
    expect(edit_forms).to_have_count(0)
    seen.goto(f"{live_server.url}/surveys/{survey.pk}/public/")
    expect(seen.locator("main").get_by_role("checkbox")).to_be_disabled()
    expect(seen.locator("#id_public_epsilon")).to_be_disabled()
    expect(seen.get_by_role("button", name=t("Save"), exact=True)).to_have_count(0)
    assert seen.goto(f"{live_server.url}/surveys/{survey.pk}/").status == 403

    # The editor adds a question in the builder.
    builds.goto(f"{live_server.url}/surveys/")
    builds.get_by_role("link", name="Lab habits", exact=True).click()
    builds.get_by_label(t("Question"), exact=True).fill("Have you ever worked alone at night?")
    builds.get_by_role("button", name=t("Add question"), exact=True).click()
    expect(builds.locator(".question-item__text")).to_have_count(2)
    assert list(survey.questions.values_list("text", flat=True))[-1] == (
        "Have you ever worked alone at night?"
    )
    expect(builds.get_by_role("link", name=t("Delete survey…"))).to_have_count(0)

    # The owner offers the survey to the editor; nothing moves until he accepts.
    page.get_by_role("link", name=t("Transfer ownership to a member…")).click()
    page.get_by_label(t("New owner")).select_option(label="ed")
    page.get_by_role("button", name=t("Offer ownership"), exact=True).click()
    expect(page.locator(".pending-table tbody tr")).to_have_count(1)
    assert Survey.objects.get(pk=survey.pk).owner == owner
    accept_on_dashboard(builds, live_server, t, "Lab habits")
    page.goto(f"{live_server.url}/surveys/{survey.pk}/results/")
    expect(page.locator(".role-note")).to_have_text(
        t("Shared with you as editor by %(owner)s") % {"owner": "ed"}
    )
    stored = Survey.objects.get(pk=survey.pk)
    assert stored.owner == editor
    assert stored.members.get(user=owner).role == "editor"
    assert not stored.members.filter(user=editor).exists()
