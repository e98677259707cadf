"""A survey's time zone in a real Chromium (issue 24: times were UTC only): the builder proposes
the browser's zone, and a respondent elsewhere reads the closing time in the survey's zone,
named, and in their own, in English, Korean and Chinese."""

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from surveys import services

pytestmark = pytest.mark.e2e

SEOUL = ZoneInfo("Asia/Seoul")


def seoul_evening():
    day = timezone.now().astimezone(SEOUL).date() + timedelta(days=10)
    return datetime(day.year, day.month, day.day, 18, 0, tzinfo=SEOUL)


def test_the_builder_proposes_the_browsers_zone_until_one_is_chosen(
    live_server, new_context, sign_in, owner, make_survey
):
    survey = make_survey(status="draft")
    page = new_context(timezone_id="Asia/Seoul").new_page()
    sign_in(page, live_server, owner)
    page.goto(f"{live_server.url}/surveys/{survey.pk}/")
    zone = page.locator("#id_time_zone")
    expect(zone).to_have_value("Asia/Seoul")
    page.fill("#id_closes_at", seoul_evening().strftime("%Y-%m-%dT18:00"))
    page.get_by_role("button", name="Save schedule").click()
    expect(page.locator("#schedule")).to_contain_text("6 p.m. (Asia/Seoul time)")
    survey.refresh_from_db()
    assert (survey.time_zone, survey.closes_at) == ("Asia/Seoul", seoul_evening())
    # A researcher elsewhere sees the choice kept, not their own zone proposed over it.
    other = new_context(timezone_id="America/New_York").new_page()
    sign_in(other, live_server, owner)
    other.goto(f"{live_server.url}/surveys/{survey.pk}/")
    expect(other.locator("#id_time_zone")).to_have_value("Asia/Seoul")


@pytest.mark.parametrize(
    ("locale", "survey_time", "own_time"),
    [
        ("en-US", "6 p.m. (Asia/Seoul time)", "10:00\u202fAM (Europe/Berlin)"),
        ("ko-KR", "6:00 오후 (Asia/Seoul 기준)", "오전 10:00 (Europe/Berlin)"),
        ("zh-CN", "18:00（Asia/Seoul 时间）", "10:00（Europe/Berlin）"),
    ],
)
def test_a_respondent_elsewhere_reads_the_surveys_time_and_their_own(
    live_server, new_context, make_translated_survey, locale, survey_time, own_time
):
    survey = make_translated_survey(status="draft")
    services.survey_schedule(
        survey=survey, opens_at=None, closes_at=seoul_evening(), time_zone="Asia/Seoul"
    )
    services.survey_open(survey=survey)
    page = new_context(locale=locale, timezone_id="Europe/Berlin").new_page()
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    notice = page.locator("#respond-closes")
    expect(notice).to_contain_text(survey_time)
    expect(notice.locator(".respond-local-time")).to_be_visible()
    expect(notice).to_contain_text(own_time)
    # In the survey's own zone the page says it once.
    seoul = new_context(locale=locale, timezone_id="Asia/Seoul").new_page()
    seoul.goto(f"{live_server.url}/s/{survey.slug}/")
    expect(seoul.locator("#respond-closes")).to_contain_text(survey_time)
    expect(seoul.locator("#respond-closes .respond-local-time")).to_be_hidden()
