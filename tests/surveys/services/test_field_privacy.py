"""Issue 12 on the server side: no arrival order, frozen designs, unpublished drafts, logs.

The browser side (shared devices, retakes, cookies, page wording) is in
tests/e2e/test_field_privacy.py; the gunicorn log check in tests/production.
"""

import csv
import io
import logging
import uuid
import zipfile

import openpyxl
import pytest
from django.urls import reverse

from surveys import services
from surveys.log_filters import DropRespondentPaths
from surveys.models import GroupingTally, Survey, design_fingerprint_of
from surveys.services import grouping
from tests.helpers import new_survey_form

pytestmark = pytest.mark.django_db

DEPARTMENTS = ("Sales", "Research")


def descending_ids(count):
    """Submission ids whose arrival order is the reverse of their sort order."""
    return sorted((uuid.uuid4() for _ in range(count)), reverse=True)


def csv_rows(response):
    if response["Content-Type"] == "application/zip":  # the reports file in the bundle
        body = b"".join(response.streaming_content)
        with zipfile.ZipFile(io.BytesIO(body)) as archive:
            text = archive.read("reports.csv").decode()
    elif response["Content-Type"].startswith("application/vnd.openxmlformats"):
        book = openpyxl.load_workbook(io.BytesIO(b"".join(response.streaming_content)))
        return [
            ["" if cell is None else str(cell) for cell in row]
            for row in book["reports"].iter_rows(values_only=True)
        ]
    else:
        text = b"".join(response.streaming_content).decode()
    return list(csv.reader(io.StringIO(text)))


@pytest.fixture
def grouped_open_survey(make_survey):
    survey = make_survey(status="draft")
    grouping.grouping_question_add(survey=survey, text="Department?", options=DEPARTMENTS)
    return services.survey_open(survey=survey)


def submit_in_order(respondent, survey, ids):
    question_ids = list(survey.questions.values_list("id", flat=True))
    gq = survey.grouping_questions.first()
    options = list(gq.options.values_list("id", flat=True)) if gq else []
    for index, submission_id in enumerate(ids):
        body = {
            "submission_id": str(submission_id),
            "answers": {str(qid): index % 2 == 0 for qid in question_ids},
        }
        if gq:
            body["groups"] = {str(gq.pk): options[index % 2]}
        response = respondent.post(
            f"/api/v1/public/surveys/{survey.slug}/responses/", body, format="json"
        )
        assert response.status_code == 201


# --- no arrival order in any export -------------------------------------------------------


def test_every_export_lists_submissions_by_id_not_arrival(
    grouped_open_survey,
    respondent,
    owner_client,
    owner_api,
):
    survey = grouped_open_survey
    arrival = descending_ids(12)
    submit_in_order(respondent, survey, arrival)
    exports = {
        "raw csv page": owner_client.get(
            reverse("surveys:responses-csv", kwargs={"pk": survey.pk})
        ),
        "raw csv api": owner_api.get(
            reverse("api:survey-responses-csv", kwargs={"survey_id": survey.pk})
        ),
        "r export page": owner_client.get(reverse("surveys:r-export", kwargs={"pk": survey.pk})),
        "r export api": owner_api.get(
            reverse("api:survey-r-export", kwargs={"survey_id": survey.pk})
        ),
        "zip page": owner_client.get(reverse("surveys:export-zip", kwargs={"pk": survey.pk})),
        "zip api": owner_api.get(reverse("api:survey-export-zip", kwargs={"survey_id": survey.pk})),
        "xlsx page": owner_client.get(reverse("surveys:export-xlsx", kwargs={"pk": survey.pk})),
    }
    first_bit_by_id = {str(sid): index % 2 == 0 for index, sid in enumerate(arrival)}
    for name, response in exports.items():
        assert response.status_code == 200, name
        header, *rows = csv_rows(response)
        assert header[:2] == ["submission_id", "received_on"], name
        ids = [row[0] for row in rows]
        # Ordered by the respondent-drawn id: here exactly the reverse of arrival.
        assert ids == sorted(ids) == [str(sid) for sid in reversed(arrival)], name
        for row in rows:
            # Each row is still that submission's own (the grouping merge follows the order).
            assert row[2] == ("1" if first_bit_by_id[row[0]] else "0"), name
            # A date, never a time (the workbook's date cell reads back at midnight).
            assert len(row[1].removesuffix(" 00:00:00")) == len("2026-11-23"), name
        # Every file has the grouping answers, as labels.
        expected = {str(sid): DEPARTMENTS[index % 2] for index, sid in enumerate(arrival)}
        at = header.index("G1")
        assert {row[0]: row[at] for row in rows} == expected, name
        # No auto-increment value anywhere: no column but the documented ones.
        assert not any(column in {"id", "pk", "received_at"} for column in header), name


# --- the design is frozen at the first opening --------------------------------------------


def test_opening_records_the_fingerprint_of_what_respondents_get(grouped_open_survey):
    survey = grouped_open_survey
    gq = survey.grouping_questions.get()
    assert survey.opened_at is not None
    assert survey.design_fingerprint == design_fingerprint_of(
        p_truth=0.5,
        p_forced_yes=0.5,
        questions=list(survey.questions.values_list("id", "text")),
        grouping=[(gq.pk, gq.text, list(gq.options.values_list("id", "label")))],
    )


@pytest.mark.parametrize(
    "change",
    [
        {"p_truth": 0.25},
        {"text": "Reworded?"},
        {"options": ["Sales", "Research", "Support"]},
        {"shared_devices": True},
        {"pilot": True},
    ],
)
def test_fingerprints_differ_for_any_design_change(change):
    base = {
        "p_truth": 0.5,
        "p_forced_yes": 0.5,
        "questions": [(1, "Q?")],
        "grouping": [(7, "Department?", [(8, "Sales"), (9, "Research")])],
    }
    changed = dict(base)
    if "p_truth" in change:
        changed["p_truth"] = change["p_truth"]
    if "text" in change:
        changed["questions"] = [(1, change["text"])]
    if "options" in change:
        changed["grouping"] = [
            (7, "Department?", [(8 + i, label) for i, label in enumerate(change["options"])])
        ]
    for flag in ("shared_devices", "pilot"):
        if flag in change:
            changed[flag] = change[flag]
    assert design_fingerprint_of(**base) == design_fingerprint_of(**dict(base))
    assert design_fingerprint_of(**changed) != design_fingerprint_of(**base)


def test_the_device_mode_and_pilot_flags_leave_earlier_fingerprints_as_they_were():
    """Surveys opened before these flags existed keep their stored fingerprint, and any other
    survey without them is named as before: the values were computed with the code of main
    before issue 24 (design_fingerprint_of without these parameters)."""
    base = {
        "p_truth": 0.5,
        "p_forced_yes": 0.5,
        "questions": [(1, "Q?")],
        "grouping": [(7, "Department?", [(8, "Sales"), (9, "Research")])],
    }
    assert design_fingerprint_of(**base) == "7bd92538799ac06bb05d22a4a9e4d7b2"
    assert (
        design_fingerprint_of(
            **base,
            shared_devices=False,
            pilot=False,
            types=[(1, {"kind": "choice"})],
            translations={"ko": {"t": "x"}},
        )
        == "9109f3e613a1518ce036e8f4b437ffc0"
    )


def test_reopening_after_close_keeps_the_first_opening(make_survey):
    survey = make_survey()
    first = (survey.opened_at, survey.design_fingerprint)
    services.survey_close(survey=survey)
    survey = services.survey_open(survey=survey)
    assert (survey.opened_at, survey.design_fingerprint) == first


def test_grouping_questions_are_frozen_once_opened_without_responses(grouped_open_survey):
    gq = grouped_open_survey.grouping_questions.get()
    with pytest.raises(services.SurveyFrozen):
        grouping.grouping_question_update(grouping_question=gq, text="Team?", options=["A", "B"])
    with pytest.raises(services.SurveyFrozen):
        grouping.grouping_question_add(survey=grouped_open_survey, text="Age?", options=["A"])


def test_the_builder_locks_coins_and_questions_once_opened(make_survey, owner_client):
    survey = services.survey_close(survey=make_survey())  # opened, closed, no responses
    page = owner_client.get(reverse("surveys:builder", kwargs={"pk": survey.pk}))
    assert page.context["form"].fields["p_truth"].disabled
    response = owner_client.post(
        reverse("surveys:question-add", kwargs={"pk": survey.pk}), {"text": "Late?"}
    )
    assert response.status_code == 409
    assert "questions and coins are frozen" in response.content.decode()
    assert survey.questions.count() == 2


# --- the submission names the design it was randomized with --------------------------------


def test_a_submission_from_another_design_is_409_and_stores_nothing(open_survey, respondent):
    question_ids = list(open_survey.questions.values_list("id", flat=True))
    url = f"/api/v1/public/surveys/{open_survey.slug}/responses/"

    def body(fingerprint, submission_id=None):
        data = {
            "submission_id": str(submission_id or uuid.uuid4()),
            "answers": {str(qid): True for qid in question_ids},
        }
        if fingerprint is not None:
            data["design_fingerprint"] = fingerprint
        return data

    for attempt in range(2):  # the first response, then a survey that has responses
        stale = respondent.post(url, body("0" * 32), format="json")
        assert stale.status_code == 409, attempt
        assert list(stale.json()["errors"]) == ["design_fingerprint"]
        assert "reload the page" in stale.json()["detail"]
        open_survey.refresh_from_db()
        assert open_survey.response_count == attempt
        stored = respondent.post(url, body(open_survey.design_fingerprint), format="json")
        assert stored.status_code == 201
    assert respondent.post(url, body(None), format="json").status_code == 201  # optional
    open_survey.refresh_from_db()
    assert open_survey.response_count == 3


def test_a_malformed_fingerprint_is_a_400_naming_it(open_survey, respondent):
    question_ids = list(open_survey.questions.values_list("id", flat=True))
    response = respondent.post(
        f"/api/v1/public/surveys/{open_survey.slug}/responses/",
        {
            "submission_id": str(uuid.uuid4()),
            "answers": {str(qid): True for qid in question_ids},
            "design_fingerprint": ["not", "text"],
        },
        format="json",
    )
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["design_fingerprint"]


# --- the public definition ----------------------------------------------------------------


def test_the_public_definition_of_a_draft_is_404(make_survey, respondent):
    draft = make_survey(status="draft")
    response = respondent.get(f"/api/v1/public/surveys/{draft.slug}/")
    assert response.status_code == 404
    assert draft.questions.first().text not in response.content.decode()


def test_the_public_definition_of_a_closed_survey_lists_no_questions(
    grouped_open_survey, respondent
):
    survey = services.survey_close(survey=grouped_open_survey)
    response = respondent.get(f"/api/v1/public/surveys/{survey.slug}/")
    assert response.status_code == 200
    body = response.json()
    assert (body["status"], body["accepting_responses"]) == ("closed", False)
    assert body["questions"] == body["grouping_questions"] == []
    text = response.content.decode()
    for question in survey.questions.all():
        assert question.text not in text
    assert "Department?" not in text


def test_the_definition_carries_the_fingerprint_and_the_device_mode(make_survey, respondent):
    survey = make_survey(shared_devices=True)
    body = respondent.get(f"/api/v1/public/surveys/{survey.slug}/").json()
    assert body["design_fingerprint"] == Survey.objects.get(pk=survey.pk).design_fingerprint
    assert body["shared_devices"] is True


# --- logs ---------------------------------------------------------------------------------


def record(name, level, msg, *args):
    return logging.LogRecord(name, level, __file__, 1, msg, args, None)


REQUEST_LINE = '"%s" %s %s'  # django.server's (runserver's) format


@pytest.mark.parametrize(
    ("name", "level", "msg", "args", "kept"),
    [
        ("django.server", logging.INFO, REQUEST_LINE, ("POST /api/v1/public/x/", 201, 2), False),
        ("django.server", logging.INFO, REQUEST_LINE, ("GET /s/AbC_d-9/ HTTP/1.1", 200, 9), False),
        ("django.server", logging.INFO, REQUEST_LINE, ("GET /r/AbC/?lang=ko", 200, 9), False),
        ("django.request", logging.WARNING, "%s: %s", ("Bad Request", "/api/v1/public/"), False),
        # The respondent page's files (shared with researchers' pages: none is logged).
        ("django.server", logging.INFO, REQUEST_LINE, ("GET /static/js/body.js", 200, 9), False),
        ("django.server", logging.INFO, REQUEST_LINE, ("GET /jsi18n/?language=ko", 200, 9), False),
        ("gunicorn.access", logging.INFO, "%s", ("GET /static/css/app.1a2b.css 200",), False),
        # A file system path with a "static" folder is no request for a file.
        ("django.utils", logging.DEBUG, "read %s", ("/srv/rrsurvey/static/js/x.js",), True),
        ("django.server", logging.INFO, REQUEST_LINE, ("GET /surveys/ HTTP/1.1", 200, 9), True),
        ("django.request", logging.WARNING, "%s: %s", ("Not Found", "/no/such/page/"), True),
    ],
)
def test_respondents_requests_never_reach_a_log_line(name, level, msg, args, kept):
    assert DropRespondentPaths().filter(record(name, level, msg, *args)) is kept


class Kept(logging.Handler):
    """What a handler with the site's filter (config/settings.py) would write."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.addFilter(DropRespondentPaths())
        self.records = []

    def emit(self, record):
        self.records.append(record)


def test_nothing_below_error_is_logged_while_a_respondents_request_is_handled(
    client, owner_client, open_survey, settings
):
    """With DEBUG on, Django logs every SQL query at debug level: the respondent page's name
    the survey's slug, a submission's its values. None reaches a log."""
    settings.DEBUG = True
    kept = Kept()
    sql = logging.getLogger("django.db.backends")
    level = sql.level
    sql.setLevel(logging.DEBUG)
    sql.addHandler(kept)
    try:
        assert client.get(f"/s/{open_survey.slug}/").status_code == 200
        body = {"submission_id": str(uuid.uuid4()), "answers": {}}
        client.post(
            f"/api/v1/public/surveys/{open_survey.slug}/responses/",
            body,
            content_type="application/json",
        )
        respondent_lines = [record.getMessage() for record in kept.records]
        assert owner_client.get("/surveys/").status_code == 200
    finally:
        sql.removeHandler(kept)
        sql.setLevel(level)
    assert respondent_lines == []
    # The same handler writes the researcher's page's queries: the filter is not mute.
    assert len(kept.records) > 0


def test_an_error_on_a_respondents_path_is_logged_without_the_path():
    error = record("django.request", logging.ERROR, "%s: %s", "Internal Server Error", "/s/AbC/")
    assert DropRespondentPaths().filter(error) is True
    assert "/s/AbC" not in error.getMessage()
    assert "Internal Server Error" in error.getMessage()


# --- duplicating: the way to change a frozen design ----------------------------------------


def test_duplicating_copies_the_design_into_a_new_draft_with_its_own_link(
    grouped_open_survey, respondent, owner_client
):
    survey = grouped_open_survey
    submit_in_order(respondent, survey, descending_ids(2))
    Survey.objects.filter(pk=survey.pk).update(shared_devices=True, min_n=7)
    response = owner_client.post(reverse("surveys:duplicate", kwargs={"pk": survey.pk}))
    copy = Survey.objects.exclude(pk=survey.pk).get()
    assert response.status_code == 302
    assert response.headers["Location"] == reverse("surveys:builder", kwargs={"pk": copy.pk})
    assert copy.title == f"{survey.title} (copy)"
    assert (copy.status, copy.opened_at, copy.design_fingerprint) == ("draft", None, "")
    assert copy.slug != survey.slug
    assert (copy.p_truth, copy.p_forced_yes, copy.shared_devices, copy.min_n) == (
        0.5,
        0.5,
        True,
        7,
    )
    assert copy.response_count == 0 and not copy.submissions.exists()
    assert list(copy.questions.values_list("position", "text")) == list(
        survey.questions.values_list("position", "text")
    )
    (gq,) = copy.grouping_questions.all()
    assert gq.text == "Department?"
    assert list(gq.options.values_list("label", flat=True)) == ["Sales", "Research"]
    assert not GroupingTally.objects.filter(grouping_question=gq, count__gt=0).exists()
    # The copy is a draft: its design can change again.
    services.survey_update(survey=copy, data={"p_truth": 0.25})


def test_duplicating_over_the_api_answers_201_with_the_new_id_and_slug(
    open_survey,
    owner_api,
):
    response = owner_api.post(reverse("api:survey-duplicate", kwargs={"survey_id": open_survey.pk}))
    assert response.status_code == 201
    body = response.json()
    copy = Survey.objects.get(pk=body["id"])
    assert body["slug"] == copy.slug != open_survey.slug
    assert body["status"] == "draft" and body["questions_locked"] is False


def test_another_researchers_survey_cannot_be_duplicated(open_survey, other_client):
    response = other_client.post(reverse("surveys:duplicate", kwargs={"pk": open_survey.pk}))
    assert response.status_code == 404
    assert Survey.objects.count() == 1


# --- the shared-devices setting ------------------------------------------------------------


def test_shared_devices_is_set_over_the_api_and_refuses_non_booleans(
    make_survey,
    owner_api,
):
    survey = make_survey(status="draft")
    url = reverse("api:survey-detail", kwargs={"survey_id": survey.pk})
    assert owner_api.get(url).json()["shared_devices"] is False
    response = owner_api.patch(url, {"shared_devices": True})
    assert response.status_code == 200
    assert response.json()["shared_devices"] is True
    refused = owner_api.patch(url, {"shared_devices": "yes"})
    assert refused.status_code == 400
    assert list(refused.json()["errors"]) == ["shared_devices"]
    survey.refresh_from_db()
    assert survey.shared_devices is True


@pytest.mark.parametrize("status", ["open", "closed"])
def test_shared_devices_is_frozen_once_the_survey_has_opened(make_survey, owner_api, status):
    """Switched on, every browser would drop its memo; switched back, the same browser would
    draw fresh coins: two stored reports from one person with the same true answer."""
    survey = make_survey()
    if status == "closed":
        survey = services.survey_close(survey=survey)
    url = reverse("api:survey-detail", kwargs={"survey_id": survey.pk})
    refused = owner_api.patch(url, {"shared_devices": True}, format="json")
    assert refused.status_code == 409
    assert list(refused.json()["errors"]) == ["shared_devices"]
    survey.refresh_from_db()
    assert survey.shared_devices is False
    # Sending the value it has changes nothing, so it is no change to refuse.
    assert owner_api.patch(url, {"shared_devices": False}, format="json").status_code == 200


def test_the_builder_locks_shared_devices_once_opened(make_survey, owner_client):
    survey = make_survey()
    url = reverse("surveys:builder", kwargs={"pk": survey.pk})
    html = owner_client.get(url).content.decode()
    start = html.index('name="shared_devices"')
    checkbox = html[html.rindex("<input", 0, start) : html.index(">", start)]
    assert " disabled" in checkbox
    assert "The coins and the device setting are locked" in html
    # A crafted post that ticks it anyway changes nothing.
    owner_client.post(url, new_survey_form(shared_devices="on"))
    survey.refresh_from_db()
    assert survey.shared_devices is False


def test_a_pilots_device_mode_can_change_until_it_has_responses(make_survey, owner_api):
    survey = make_survey(status="pilot")
    url = reverse("api:survey-detail", kwargs={"survey_id": survey.pk})
    before = Survey.objects.get(pk=survey.pk).design_fingerprint
    assert owner_api.patch(url, {"shared_devices": True}, format="json").status_code == 200
    # Renamed: a pilot page loaded before the change reloads instead of keeping its memo.
    assert Survey.objects.get(pk=survey.pk).design_fingerprint != before


def test_the_builder_checkbox_sets_shared_devices(make_survey, owner_client):
    survey = make_survey(status="draft")
    page = owner_client.get(reverse("surveys:builder", kwargs={"pk": survey.pk}))
    assert 'name="shared_devices"' in page.content.decode()
    data = new_survey_form(shared_devices="on")
    response = owner_client.post(reverse("surveys:builder", kwargs={"pk": survey.pk}), data)
    assert response.status_code == 302
    survey.refresh_from_db()
    assert survey.shared_devices is True
    del data["shared_devices"]
    owner_client.post(reverse("surveys:builder", kwargs={"pk": survey.pk}), data)
    survey.refresh_from_db()
    assert survey.shared_devices is False


def test_a_closed_surveys_page_links_to_its_published_results(make_survey, client):
    survey = services.survey_close(survey=make_survey())
    page = reverse("surveys:respond", args=[survey.slug])
    link = reverse("surveys:public-results", args=[survey.slug])
    assert link not in client.get(page).content.decode()
    Survey.objects.filter(pk=survey.pk).update(public_results=True)
    html = client.get(page, {"lang": "ko"}).content.decode()
    assert f'href="{link}?lang=ko"' in html
    assert "공개된 결과 보기" in html


def test_duplicating_respects_the_accounts_survey_limit(
    open_survey,
    owner_client,
    owner_api,
    settings,
):
    settings.MAX_SURVEYS_PER_USER = 1
    page = owner_client.post(reverse("surveys:duplicate", kwargs={"pk": open_survey.pk}))
    assert page.status_code == 302
    assert page.headers["Location"] == reverse("surveys:builder", kwargs={"pk": open_survey.pk})
    api = owner_api.post(reverse("api:survey-duplicate", kwargs={"survey_id": open_survey.pk}))
    assert api.status_code == 400
    assert "limit of 1 surveys" in api.json()["detail"]
    assert Survey.objects.count() == 1
