"""WCAG 2.2 AA in a real Chromium: axe-core on the co-researcher pages, and on the pilot,
consent and schedule pages and states.

The pages, languages, widths and checks are in this folder's __init__.py."""

import datetime

import numpy as np
import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from playwright.sync_api import expect

from surveys import services
from surveys.models import Survey
from surveys.services import members
from tests.e2e.accessibility import (
    LANGUAGES,
    WIDTHS,
    axe_violations,
    check_page,
    open_page,
)
from tests.helpers import PASSWORD, add_member

pytestmark = pytest.mark.e2e


# Co-researchers (docs/researchers.md, "Co-researchers"): the members and transfer pages as the
# owner (with an invitation and an offer waiting), the members page, dashboard (with an
# invitation waiting) and results as a viewer (the survey "shared with me"), and the viewer's
# account page with an unverified address.
MEMBER_PAGES = {
    "members": ("owner", "/surveys/{pk}/members/"),
    "transfer": ("owner", "/surveys/{pk}/transfer/"),
    "members-as-viewer": ("viewer", "/surveys/{pk}/members/"),
    "dashboard-as-viewer": ("viewer", "/surveys/"),
    "results-as-viewer": ("viewer", "/surveys/{pk}/results/"),
    "public-settings-as-viewer": ("viewer", "/surveys/{pk}/public/"),
    "account-as-viewer": ("viewer", "/accounts/"),
}


@pytest.mark.parametrize("width", WIDTHS.values(), ids=WIDTHS.keys())
@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("name", MEMBER_PAGES)
def test_axe_finds_no_wcag_violation_on_the_co_researcher_pages(
    live_server, new_context, sign_in, owner, surveys, name, language, width
):
    survey = surveys["open"]
    accounts = get_user_model().objects
    viewer = accounts.create_user("vera", password=PASSWORD, email="vera@example.org")
    add_member(survey=survey, user=viewer, role="viewer")
    editor = accounts.create_user("ed", password=PASSWORD)
    add_member(survey=survey, user=editor, role="editor")
    members.member_invite(survey=survey, by=owner, user="new@example.org", role="viewer")
    members.survey_transfer(survey=survey, by=owner, user_id=editor.pk)
    members.member_invite(survey=surveys["draft"], by=owner, user="vera", role="editor")
    who, path = MEMBER_PAGES[name]
    page = open_page(
        new_context,
        sign_in,
        live_server,
        viewer if who == "viewer" else owner,
        path=path.format(pk=survey.pk),
        locale=LANGUAGES[language][0],
        width=width,
    )
    check_page(page, name=name, language=language, width=width)


# --- pilot, consent, schedule and target (issue 14): the pages and states they add ---------

NEW_STATE_PAGES = (
    "pilot-respondent",
    "pilot-builder",
    "pilot-results",
    "pilot-discard",
    "scheduled-respondent",
    "dashboard-target",
)


@pytest.fixture
def pilot_surveys(make_survey, make_translated_survey):
    # Offered in every language, so the respondent page shows each
    # (docs/languages-accessibility.md, "One survey,
    # several languages").
    pilot = make_translated_survey(
        title="Pilot run",
        status=Survey.Status.DRAFT,
        consent_text="Taking part is voluntary.",
        response_target=385,
    )
    pilot = services.survey_pilot_start(survey=pilot)
    services.submission_receive(
        slug=pilot.slug,
        submission_id="0b9c4a49-5d0f-4f52-9d55-2f0b8bd1f9c1",
        answers=dict.fromkeys(pilot.questions.values_list("id", flat=True), True),
    )
    scheduled = make_survey(title="Starts tomorrow", status=Survey.Status.DRAFT)
    now = timezone.now()
    services.survey_schedule(
        survey=scheduled,
        opens_at=now + datetime.timedelta(days=1),
        closes_at=now + datetime.timedelta(days=8),
    )
    running = make_survey(title="With a target", response_target=40)
    services.simulated_submissions_record(survey=running, reports=np.ones((10, 2), dtype=bool))
    return {"pilot": pilot, "scheduled": scheduled}


def new_state_path(name, surveys):
    pilot, scheduled = surveys["pilot"], surveys["scheduled"]
    return {
        "pilot-respondent": f"/s/{pilot.slug}/",
        "pilot-builder": f"/surveys/{pilot.pk}/",
        "pilot-results": f"/surveys/{pilot.pk}/results/",
        "pilot-discard": f"/surveys/{pilot.pk}/discard-pilot/",
        "scheduled-respondent": f"/s/{scheduled.slug}/",
        "dashboard-target": "/surveys/",
    }[name]


@pytest.mark.parametrize(
    ("language", "width"),
    [("en", 1280), ("en", 390), ("ko", 390), ("zh-hans", 1280)],
    ids=["en-desktop", "en-phone", "ko-phone", "zh-desktop"],
)
@pytest.mark.parametrize("name", NEW_STATE_PAGES)
def test_axe_finds_no_violation_in_the_pilot_consent_and_schedule_pages(
    live_server, new_context, sign_in, owner, pilot_surveys, name, language, width
):
    path = new_state_path(name, pilot_surveys)
    page = open_page(
        new_context,
        sign_in,
        live_server,
        owner,
        path=path,
        locale=LANGUAGES[language][0],
        width=width,
    )
    if name == "pilot-respondent":
        expect(page.locator("#respond-questions")).to_be_hidden()
        assert axe_violations(page) == []  # before consent: the consent card alone
        page.locator("#respond-consent-accept").check()
        expect(page.locator("#respond-questions")).to_be_visible()
    check_page(page, name=name, language=language, width=width)
