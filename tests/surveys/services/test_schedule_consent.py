"""Scheduling, response targets and consent (issue 14, items 3 and 7). The schedule is enforced
by comparing with the current time on the submission path (both databases) and the respondent
page; ``apply_schedule`` only brings the stored status in line."""

import re
import uuid
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.test import override_settings
from django.utils import timezone, translation

from surveys import services
from surveys.models import Submission, Survey
from surveys.services import schedule
from tests.helpers import answers_for

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def english():
    """Messages are checked in English, whatever language an earlier test left active."""
    with translation.override("en"):
        yield


both_paths = pytest.mark.parametrize(
    "statement", [True, False], ids=["one-statement", "orm-transaction"]
)


def send(survey, bits=(True, False)):
    return services.submission_receive(
        slug=survey.slug,
        submission_id=str(uuid.uuid4()),
        answers={str(k): v for k, v in answers_for(survey, list(bits)).items()},
    )


def move_window(survey, **times):
    """Let time pass: the window is stored, and compared with the clock when a response comes."""
    Survey.objects.filter(pk=survey.pk).update(**times)
    survey.refresh_from_db()


# --- schedule -----------------------------------------------------------------------------


def test_scheduling_an_opening_freezes_the_design_at_once(make_survey):
    survey = make_survey(status="draft")
    opens = timezone.now() + timedelta(days=1)
    scheduled = services.survey_schedule(survey=survey, opens_at=opens, closes_at=None)
    assert scheduled.status == Survey.Status.OPEN
    assert scheduled.opened_at is not None and scheduled.design_fingerprint
    assert schedule.phase_of(scheduled) == schedule.Phase.SCHEDULED
    with pytest.raises(services.SurveyFrozen):
        services.question_add(survey=scheduled, text="One more")


def test_scheduling_a_pilots_opening_discards_its_responses(make_survey):
    survey = make_survey(status="pilot")
    send(survey)
    services.survey_schedule(
        survey=survey, opens_at=timezone.now() + timedelta(hours=2), closes_at=None
    )
    assert Submission.objects.filter(survey=survey).count() == 0


@both_paths
def test_a_scheduled_survey_refuses_responses_before_and_after_its_window(make_survey, statement):
    survey = make_survey(status="draft")
    now = timezone.now()
    services.survey_schedule(
        survey=survey, opens_at=now + timedelta(days=1), closes_at=now + timedelta(days=2)
    )
    with override_settings(SUBMISSION_STATEMENT=statement):
        with pytest.raises(services.SurveyNotAcceptingResponses) as early:
            send(survey)
        assert "opens on" in early.value.message
        move_window(survey, opens_at=now - timedelta(minutes=1))
        assert send(survey).created is True
        move_window(survey, closes_at=now - timedelta(seconds=1))
        with pytest.raises(services.SurveyNotAcceptingResponses) as late:
            send(survey)
        assert "closed on" in late.value.message
    assert survey.status == Survey.Status.OPEN  # nothing had to run for that
    assert Submission.objects.filter(survey=survey).count() == 1


def test_the_public_endpoint_answers_409_outside_the_window(make_survey, submit):
    survey = make_survey(status="draft")
    opens = timezone.now() + timedelta(days=3)
    services.survey_schedule(survey=survey, opens_at=opens, closes_at=None)
    response = submit(survey, [True, True])
    assert response.status_code == 409
    assert opens.strftime("%Y-%m-%d") in response.json()["detail"]


@pytest.mark.parametrize(
    ("opens", "closes", "field"),
    [
        (-1, None, "opens_at"),
        (None, -1, "closes_at"),
        (2, 1, "closes_at"),
        (2, 2, "closes_at"),
    ],
)
def test_a_schedule_must_be_in_the_future_and_close_after_opening(
    make_survey, opens, closes, field
):
    survey = make_survey(status="draft")
    now = timezone.now()
    with pytest.raises(ValidationError) as caught:
        services.survey_schedule(
            survey=survey,
            opens_at=None if opens is None else now + timedelta(hours=opens),
            closes_at=None if closes is None else now + timedelta(hours=closes),
        )
    assert list(caught.value.message_dict) == [field]
    assert Survey.objects.get(pk=survey.pk).status == Survey.Status.DRAFT


def test_an_opened_survey_can_only_schedule_its_close(open_survey):
    with pytest.raises(services.SurveyConflict) as caught:
        services.survey_schedule(
            survey=open_survey, opens_at=timezone.now() + timedelta(days=1), closes_at=None
        )
    assert caught.value.field == "opens_at"
    closes = timezone.now() + timedelta(days=5)
    updated = services.survey_schedule(survey=open_survey, opens_at=None, closes_at=closes)
    assert updated.closes_at == closes and schedule.accepts_responses(updated)


def test_opening_by_hand_drops_a_later_opening_time(make_survey):
    survey = make_survey(status="draft")
    services.survey_schedule(
        survey=survey, opens_at=timezone.now() + timedelta(days=1), closes_at=None
    )
    opened = services.survey_open(survey=survey)
    assert opened.opens_at is None and schedule.accepts_responses(opened)


def test_apply_schedule_stores_ended_surveys_as_closed(make_survey, capsys):
    ended, running = make_survey(), make_survey()
    now = timezone.now()
    move_window(ended, closes_at=now - timedelta(minutes=5))
    move_window(running, closes_at=now + timedelta(minutes=5))
    assert schedule.phase_of(ended) == schedule.Phase.ENDED
    call_command("apply_schedule")
    assert "Closed 1 survey" in capsys.readouterr().out
    assert Survey.objects.get(pk=ended.pk).status == Survey.Status.CLOSED
    assert Survey.objects.get(pk=running.pk).status == Survey.Status.OPEN


def test_the_respondent_page_says_when_a_survey_opens_and_closed(make_survey, client):
    survey = make_survey(status="draft")
    services.survey_schedule(
        survey=survey, opens_at=timezone.now() + timedelta(days=1), closes_at=None
    )
    page = client.get(f"/s/{survey.slug}/").content.decode()
    assert "It opens on" in page and 'name="q-' not in page
    move_window(
        survey,
        opens_at=timezone.now() - timedelta(days=2),
        closes_at=timezone.now() - timedelta(days=1),
    )
    page = client.get(f"/s/{survey.slug}/").content.decode()
    assert "This survey is closed" in page and "It closed on" in page


def test_the_public_definition_says_whether_responses_are_taken(make_survey, client):
    survey = make_survey(status="draft")
    services.survey_schedule(
        survey=survey, opens_at=timezone.now() + timedelta(days=1), closes_at=None
    )
    body = client.get(f"/api/v1/public/surveys/{survey.slug}/").json()
    assert body["accepting_responses"] is False and body["opens_at"]


# --- response target ----------------------------------------------------------------------


def test_the_target_shows_as_progress_on_the_dashboard_and_results(make_survey, owner_client):
    survey = make_survey(response_target=4)
    send(survey)
    for path in ("/surveys/", f"/surveys/{survey.pk}/results/"):
        page = owner_client.get(path).content.decode()
        assert 'max="4" value="1"' in page, path
        assert "1 of 4 responses (25%)" in page, path


def test_the_builder_suggests_the_planners_n_as_target(make_survey, owner_client):
    from surveys import selectors

    survey = make_survey(status="draft")
    n = selectors.survey_privacy(survey=survey).respondents_for_margin
    page = owner_client.get(f"/surveys/{survey.pk}/").content.decode()
    assert f'placeholder="{n}"' in page


@pytest.mark.parametrize("bad", [0, -3, True, "12", 1.5])
def test_a_bad_target_is_refused_naming_the_field(open_survey, bad):
    with pytest.raises(ValidationError) as caught:
        services.survey_update(survey=open_survey, data={"response_target": bad})
    assert list(caught.value.message_dict) == ["response_target"]


# --- consent ------------------------------------------------------------------------------


def test_the_consent_version_counts_changes_of_the_text(make_survey):
    survey = make_survey(status="draft")
    assert survey.consent_version == 0
    survey = services.survey_update(survey=survey, data={"consent_text": "I agree."})
    first = survey.consent_changed_at
    assert survey.consent_version == 1 and first is not None
    survey = services.survey_update(survey=survey, data={"consent_text": "I agree.", "title": "T"})
    assert survey.consent_version == 1 and survey.consent_changed_at == first
    survey = services.survey_update(survey=survey, data={"consent_text": "I agree, v2."})
    assert survey.consent_version == 2


def test_the_consent_text_is_frozen_at_opening(make_survey):
    survey = make_survey(consent_text="I agree.")
    with pytest.raises(services.SurveyFrozen):
        services.survey_update(survey=survey, data={"consent_text": "Something else"})
    services.survey_update(survey=survey, data={"consent_text": "I agree."})  # unchanged: fine
    assert Survey.objects.get(pk=survey.pk).consent_version == 1


def test_the_respondent_page_shows_consent_first_and_hides_the_questions(make_survey, client):
    survey = make_survey(consent_text="Your participation is voluntary.")
    page = client.get(f"/s/{survey.slug}/").content.decode()
    assert page.index("Your participation is voluntary.") < page.index('id="respond-questions"')
    assert 'id="respond-consent-accept"' in page
    assert "data-needs-consent hidden" in page


def test_nothing_about_consent_rides_with_a_submission(make_survey, submit, respondent):
    survey = make_survey(consent_text="I agree.")
    assert submit(survey, [True, False]).status_code == 201
    stored = Submission.objects.get(survey=survey)
    assert set(stored.reports) == {
        f"q{qid}" for qid in survey.questions.values_list("id", flat=True)
    }
    body = {
        "submission_id": str(uuid.uuid4()),
        "answers": {str(q): True for q in survey.questions.values_list("id", flat=True)},
        "consent": True,
    }
    # The API has no field for it: one sent anyway is refused, not stored.
    refused = respondent.post(
        f"/api/v1/public/surveys/{survey.slug}/responses/", body, format="json"
    )
    assert refused.status_code == 400 and "consent" in refused.json()["errors"]


# --- the survey's time zone (issue 24: times were UTC only) --------------------------------

SEOUL = ZoneInfo("Asia/Seoul")


def seoul_evening(days=10):
    """18:00 in Seoul some days from now (09:00 UTC), as a researcher there means it."""
    day = timezone.now().astimezone(SEOUL).date() + timedelta(days=days)
    return datetime(day.year, day.month, day.day, 18, 0, tzinfo=SEOUL)


def test_a_time_zone_is_stored_with_the_schedule_and_checked(make_survey):
    survey = make_survey(status="draft")
    assert survey.time_zone == "" and survey.zone_name == "UTC"
    closes = seoul_evening()
    saved = services.survey_schedule(
        survey=survey, opens_at=None, closes_at=closes, time_zone="Asia/Seoul"
    )
    assert (saved.time_zone, saved.closes_at) == ("Asia/Seoul", closes)
    assert saved.closes_at.astimezone(UTC).hour == 9  # stored as the instant it is
    # None leaves the zone as it is; "" goes back to none chosen (UTC).
    services.survey_schedule(survey=survey, opens_at=None, closes_at=closes)
    survey.refresh_from_db()
    assert survey.time_zone == "Asia/Seoul"
    for bad in ("Mars/Olympus_Mons", "KST", "+09:00", "asia/seoul"):
        with pytest.raises(ValidationError) as error:
            services.survey_schedule(survey=survey, opens_at=None, closes_at=None, time_zone=bad)
        assert list(error.value.message_dict) == ["time_zone"]
    survey.refresh_from_db()
    assert (survey.time_zone, survey.closes_at) == ("Asia/Seoul", closes)  # nothing half-way


def test_a_duplicate_keeps_the_time_zone(make_survey):
    survey = make_survey(status="draft")
    services.survey_schedule(survey=survey, opens_at=None, closes_at=None, time_zone="Asia/Seoul")
    survey.refresh_from_db()
    assert services.survey_duplicate(survey=survey).time_zone == "Asia/Seoul"


@pytest.mark.slow
def test_the_builder_takes_and_shows_the_schedule_in_the_surveys_zone(make_survey, owner_client):
    survey = make_survey(status="draft")
    closes = seoul_evening()
    response = owner_client.post(
        f"/surveys/{survey.pk}/schedule/",
        {"time_zone": "Asia/Seoul", "closes_at": closes.strftime("%Y-%m-%dT18:00")},
    )
    assert response.status_code == 302
    survey.refresh_from_db()
    assert survey.closes_at == closes and survey.time_zone == "Asia/Seoul"
    page = owner_client.get(f"/surveys/{survey.pk}/").content.decode()
    # The input shows the wall-clock time as typed, the card the same time with the zone named.
    assert f'value="{closes.strftime("%Y-%m-%dT18:00")}"' in page
    assert "6 p.m. (Asia/Seoul time)" in page
    assert '<option value="Asia/Seoul" selected>' in page


@pytest.mark.parametrize(
    ("language", "shown"),
    [
        ("en", "6 p.m. (Asia/Seoul time)"),
        ("ko", "6:00 오후 (Asia/Seoul 기준)"),
        ("zh-hans", "18:00（Asia/Seoul 时间）"),
    ],
)
def test_respondents_read_the_closing_time_in_the_surveys_zone_named(
    make_translated_survey, client, language, shown
):
    survey = make_translated_survey(status="draft")
    services.survey_schedule(
        survey=survey, opens_at=None, closes_at=seoul_evening(), time_zone="Asia/Seoul"
    )
    services.survey_open(survey=survey)
    page = client.get(f"/s/{survey.slug}/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    closes = re.search(r'id="respond-closes">([^<]*)<', page).group(1)
    assert shown in closes, closes
    assert "UTC" not in closes
    # Before it opens, the notice names the zone too.
    later = make_translated_survey(status="draft")
    services.survey_schedule(
        survey=later, opens_at=seoul_evening(3), closes_at=None, time_zone="Asia/Seoul"
    )
    page = client.get(f"/s/{later.slug}/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    notice = re.search(r"<p>([^<]*Asia/Seoul[^<]*)<span", page)
    assert notice and shown[-12:] in notice.group(1), page[-3000:]
