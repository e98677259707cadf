"""Responses become visible in batches (surveys/services/batches.py, docs/invitations.md,
"Batches"): invitees answer one at a time through the API while a viewer polls every
researcher view and export after each step; nothing changes until ``release_batch``
submissions have arrived, then everything changes at once. The tallies kept at write time
stay those of the released submissions, and a closed survey's last batch waits for its owner.
"""

import io
import json
import re
import tempfile
import uuid
import zipfile
from datetime import timedelta

import openpyxl
import pyreadstat
import pytest
from django.conf import settings
from django.core.exceptions import ValidationError

import blindrsa
import dpengine.continual
from surveys import selectors, services
from surveys.models import (
    GroupCell,
    GroupingTally,
    GroupTally,
    Invitation,
    NumericTally,
    SpentToken,
    Submission,
    Survey,
)
from surveys.services import batches, grouping, invitations, public_release
from surveys.services.errors import SurveyConflict, SurveyFrozen
from tests.helpers import add_member, token_client
from tests.routes import finished_export

QUESTIONS = (
    {"text": "Have you taken office supplies home?"},
    {"text": "Have you lied to your manager?"},
    {"text": "Drinks in a week?", "type": "numeric", "min": 0, "max": 30, "epsilon": 2.0},
)
BATCH = 5
INVITEES = 6
VOLATILE = re.compile(
    r"(csrfmiddlewaretoken\" value=\"[^\"]*\"|nonce=\"[^\"]*\"|generated[^\n]*|"
    r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[^\s\",<]*)"
)


class Invitee:
    """One invitee's browser: opens the invitation (obtains its token), then submits."""

    def __init__(self, code, rng_index):
        self.code = code
        self.index = rng_index
        self.submission_id = str(uuid.uuid4())

    def open(self, client, survey):
        key = blindrsa.public_key_decode(
            client.get(f"/api/v1/public/surveys/{survey.slug}/").json()["token_key"]
        )
        self.prepared = blindrsa.prepare(message=uuid.uuid4().bytes * 2)
        blinded = blindrsa.blind(public_key=key, prepared_message=self.prepared)
        response = client.post(
            f"/api/v1/public/surveys/{survey.slug}/tokens/",
            {"code": self.code, "blinded_message": blindrsa.b64url_encode(blinded.blinded_message)},
            format="json",
        )
        assert response.status_code == 201, response.content
        self.signature = blindrsa.finalize(
            public_key=key,
            prepared_message=self.prepared,
            blind_signature=blindrsa.b64url_decode(response.json()["blind_signature"]),
            inverse=blinded.inverse,
        )

    def order(self, ids):
        """The order this invitee's page showed the questions in (each its own rotation)."""
        turn = self.index % len(ids)
        return ids[turn:] + ids[:turn]

    def submit(self, client, survey, *, expect=201):
        """Send the submission; its status code, which must be ``expect`` unless that is None."""
        ids = list(survey.questions.values_list("id", flat=True))
        grouping_question = survey.grouping_questions.get()
        options = list(grouping_question.options.values_list("id", flat=True))
        body = {
            "submission_id": self.submission_id,
            "answers": {
                str(ids[0]): self.index % 2 == 0,
                str(ids[1]): self.index % 3 == 0,
                str(ids[2]): 3 + self.index,
            },
            "groups": {str(grouping_question.pk): options[self.index % len(options)]},
            "order": self.order(ids),
            "token": {
                "message": blindrsa.b64url_encode(self.prepared),
                "signature": blindrsa.b64url_encode(self.signature),
            },
        }
        response = client.post(
            f"/api/v1/public/surveys/{survey.slug}/responses/", body, format="json"
        )
        assert expect is None or response.status_code == expect, response.content
        return response.status_code


def batched_study(make_survey, *, release_batch=BATCH, invitees=INVITEES):
    survey = make_survey(
        access="invitation", questions=QUESTIONS, release_batch=release_batch, status="draft"
    )
    grouping.grouping_question_add(
        survey=survey, text="Your department?", options=["Sales", "Research", "Support"]
    )
    survey = services.survey_open(survey=survey)
    made = invitations.invitations_create(survey=survey, count=invitees)
    return survey, [Invitee(view.code, index) for index, view in enumerate(made)]


def _text(content):
    return VOLATILE.sub("", content.decode() if isinstance(content, bytes) else content)


def _body(response):
    assert response.status_code == 200, (response.status_code, response.content[:300])
    if getattr(response, "streaming", False):
        return b"".join(response.streaming_content)
    return response.content


def _sorted_lines(content):
    lines = _text(content).splitlines()
    return sorted(lines)


def _stat(content, kind):
    with tempfile.NamedTemporaryFile(suffix=f".{kind}") as handle:
        handle.write(content)
        handle.flush()
        reader = pyreadstat.read_sav if kind == "sav" else pyreadstat.read_dta
        frame, _meta = reader(handle.name)
    return sorted(json.dumps(row, default=str) for row in frame.to_dict("records"))


def _zip(content):
    with zipfile.ZipFile(io.BytesIO(content)) as archive:
        return {name: _sorted_lines(archive.read(name)) for name in sorted(archive.namelist())}


def _xlsx(content):
    book = openpyxl.load_workbook(io.BytesIO(content), read_only=True)
    return {
        sheet.title: sorted(
            json.dumps([_text(str(cell)) for cell in row])
            for row in sheet.iter_rows(values_only=True)
        )
        for sheet in book.worksheets
    }


def _stable(data):
    """``data`` without its times (``generated_at``, ``updated_at``...)."""
    if isinstance(data, dict):
        return {
            key: _stable(value)
            for key, value in data.items()
            if "generated" not in key and not key.endswith("_at")
        }
    if isinstance(data, list):
        return [_stable(value) for value in data]
    return data


def _json(response):
    return _stable(json.loads(_body(response)))


def researcher_views(api, web, survey):
    """Everything a viewer can read about the survey's responses, each made comparable
    (times and per-request tokens left out; raw rows sorted: their order is random)."""
    base = f"/api/v1/surveys/{survey.pk}"
    page = f"/surveys/{survey.pk}"
    gid = survey.grouping_questions.get().pk
    detail = _json(api.get(f"{base}/"))
    listed = [row for row in _json(api.get("/api/v1/surveys/")) if row["id"] == survey.pk]
    job = finished_export(survey)
    views = {
        "api detail": detail,
        "api list": listed,
        "estimates": _json(api.get(f"{base}/estimates/")),
        "estimates.csv": _sorted_lines(_body(api.get(f"{base}/estimates.csv"))),
        "responses.csv": _sorted_lines(_body(api.get(f"{base}/responses.csv"))),
        "responses.sav": _stat(_body(api.get(f"{base}/responses.sav")), "sav"),
        "responses.dta": _stat(_body(api.get(f"{base}/responses.dta")), "dta"),
        "export.zip": _zip(_body(api.get(f"{base}/export.zip"))),
        "export.xlsx": _xlsx(_body(api.get(f"{base}/export.xlsx"))),
        "regression": _json(api.get(f"{base}/regression/?grouping={gid}")),
        "for-r.csv": _sorted_lines(_body(api.get(f"{base}/for-r.csv"))),
        "export job": _sorted_lines((settings.EXPORT_DIR / job.file_name).read_bytes()),
        "answered": _json(api.get(f"{base}/invitations/"))["counts"]["answered"],
        "results page": _text(_body(web.get(f"{page}/results/"))),
        "breakdown page": _text(_body(web.get(f"{page}/breakdown/?grouping={gid}"))),
        "regression page": _text(_body(web.get(f"{page}/regression/"))),
        "dashboard": _text(_body(web.get("/surveys/"))),
    }
    job.delete()
    return views


@pytest.fixture
def direct_exports(settings):
    """Every export a viewer polls built in the request, however long a loaded machine takes
    to build it: past ``EXPORT_DIRECT_SECONDS`` it would be handed to a job instead (202, a
    view that changed between two polls). The hand-over has tests of its own
    (tests/surveys/views/test_export_jobs.py)."""
    settings.EXPORT_DIRECT_SECONDS = 24 * 3600


@pytest.fixture
def viewer_clients(django_user_model, client):
    def make(survey):
        viewer = django_user_model.objects.create_user("viewer-of-batches")
        add_member(survey=survey, user=viewer, role="viewer")
        client.force_login(viewer)
        return token_client(viewer), client

    return make


def test_no_view_changes_until_a_batch_is_complete_then_all_change_together(
    make_survey, respondent, viewer_clients, direct_exports
):
    survey, invitees = batched_study(make_survey)
    api, web = viewer_clients(survey)
    before = researcher_views(api, web, survey)
    assert researcher_views(api, web, survey) == before  # comparable: polling alone changes none
    assert before["api detail"]["response_count"] == 0
    for invitee in invitees[: BATCH - 1]:
        invitee.open(respondent, survey)
        assert researcher_views(api, web, survey) == before
        invitee.submit(respondent, survey)
        assert researcher_views(api, web, survey) == before
    invitees[BATCH - 1].open(respondent, survey)
    assert researcher_views(api, web, survey) == before
    invitees[BATCH - 1].submit(respondent, survey)
    after = researcher_views(api, web, survey)
    changed = {name for name in before if after[name] != before[name]}
    assert changed == set(before), set(before) - changed
    assert after["api detail"]["response_count"] == BATCH
    assert after["answered"] == BATCH
    assert len(after["responses.csv"]) == BATCH + 1  # the header and the batch
    # The sixth starts the next batch: nothing moves again.
    invitees[BATCH].open(respondent, survey)
    invitees[BATCH].submit(respondent, survey)
    assert researcher_views(api, web, survey) == after
    assert Submission.all_objects.filter(survey=survey, held=True).count() == 1


def test_the_kept_tallies_are_those_of_the_released_submissions(make_survey, respondent):
    survey, invitees = batched_study(make_survey, invitees=BATCH + 2)
    for invitee in invitees:
        invitee.open(respondent, survey)
        invitee.submit(respondent, survey)
    assert Submission.objects.filter(survey=survey).count() == BATCH
    assert Submission.all_objects.filter(survey=survey, held=True).count() == 2
    assert SpentToken.objects.filter(survey=survey, held=True).count() == 2
    kept = _kept_tallies(survey)
    # Recounted from the released rows, the tallies are the same.
    services.group_tallies_rebuild(survey=survey)
    assert _kept_tallies(survey) == kept
    released = list(Submission.objects.filter(survey=survey).values_list("reports", flat=True))
    ids = list(survey.questions.values_list("id", flat=True))
    assert survey.response_count == BATCH
    tallies = selectors.survey_tallies(survey=survey)
    assert tallies.of(ids[0]) == (BATCH, sum(r[f"q{ids[0]}"] for r in released))
    histogram = {
        report: n for _qid, report, n in NumericTally.objects.filter(question_id=ids[2]).totals()
    }
    expected = {}
    for reports in released:
        expected[reports[f"q{ids[2]}"]] = expected.get(reports[f"q{ids[2]}"], 0) + 1
    assert histogram == expected
    assert sum(GroupingTally.objects.exclude(option=None).values_list("count", flat=True)) == BATCH
    # One grouping question: the regression reads the per-(question, option) tallies; no cells.
    assert not GroupCell.objects.filter(question__survey=survey).exists()
    assert (
        sum(n for _qid, _oid, n, _yes in GroupTally.objects.totals(question_ids=[ids[0]])) == BATCH
    )
    # Rewritten at the release, each keeps where its page showed each question.
    shown = {
        invitee.submission_id: {f"q{qid}": n for n, qid in enumerate(invitee.order(ids), 1)}
        for invitee in invitees
    }
    kept_positions = Submission.objects.filter(survey=survey).values_list(
        "submission_id", "positions"
    )
    assert len(kept_positions) == BATCH
    for submission_id, positions in kept_positions:
        assert positions == shown[str(submission_id)]


def _kept_tallies(survey):
    return (
        sorted(GroupTally.objects.filter(option__grouping_question__survey=survey).totals()),
        sorted(GroupCell.objects.filter(question__survey=survey).totals()),
        sorted(GroupingTally.objects.filter(grouping_question__survey=survey).totals(), key=repr),
    )


def test_a_closed_surveys_last_batch_waits_for_its_owner(make_survey, respondent, owner_api):
    survey, invitees = batched_study(make_survey, invitees=BATCH + 2)
    for invitee in invitees:
        invitee.open(respondent, survey)
        invitee.submit(respondent, survey)
    url = f"/api/v1/surveys/{survey.pk}/"
    assert owner_api.get(url).json()["held_responses"] is None  # open: no count that moves
    release = f"/api/v1/surveys/{survey.pk}/release-batch/"
    refused = owner_api.post(release, {"responses": 2}, format="json")
    assert refused.status_code == 409  # still open: batches fill as they come
    services.survey_close(survey=survey)
    shown = owner_api.get(url).json()
    assert shown["held_responses"] == 2 and shown["response_count"] == BATCH
    wrong = owner_api.post(release, {"responses": 3}, format="json")
    assert wrong.status_code == 409 and "responses" in json.dumps(wrong.json())
    bad = owner_api.post(release, {"responses": "two"}, format="json")
    assert bad.status_code == 400 and "responses" in bad.json()["errors"]
    done = owner_api.post(release, {"responses": 2}, format="json")
    assert done.status_code == 200, done.content
    assert done.json()["released"] == 2
    assert done.json()["survey"]["response_count"] == BATCH + 2
    assert done.json()["survey"]["held_responses"] == 0
    assert Invitation.objects.filter(survey=survey, reshuffle=True).count() == 0
    assert owner_api.post(release, {"responses": 2}, format="json").status_code == 409


def test_a_viewer_or_editor_cannot_release_the_last_batch(
    make_survey, respondent, django_user_model
):
    survey, invitees = batched_study(make_survey, invitees=2)
    for invitee in invitees:
        invitee.open(respondent, survey)
        invitee.submit(respondent, survey)
    services.survey_close(survey=survey)
    editor = django_user_model.objects.create_user("editor-of-batches")
    add_member(survey=survey, user=editor, role="editor")
    response = token_client(editor).post(
        f"/api/v1/surveys/{survey.pk}/release-batch/", {"responses": 2}, format="json"
    )
    assert response.status_code == 403
    assert Submission.all_objects.filter(survey=survey, held=True).count() == 2


def test_release_batch_defaults_by_access_and_freezes_with_the_design(make_survey):
    link = make_survey(status="draft")
    assert link.batch_size == 1
    invited = make_survey(access="invitation", status="draft")
    assert invited.batch_size == 10
    services.survey_update(survey=invited, data={"release_batch": 4})
    with pytest.raises(ValidationError) as refused:
        services.survey_open(survey=invited)
    assert "release_batch" in refused.value.message_dict
    services.survey_update(survey=invited, data={"release_batch": 5})
    opened = services.survey_open(survey=invited)
    with pytest.raises(SurveyFrozen) as frozen:
        services.survey_update(survey=opened, data={"release_batch": 6})
    assert frozen.value.field == "release_batch"
    for bad in (0, -1, 1.5, "5", True, 10**6):
        with pytest.raises(ValidationError) as invalid:
            services.survey_update(survey=link, data={"release_batch": bad})
        assert "release_batch" in invalid.value.message_dict


def test_the_api_takes_release_batch_and_answers_409_once_frozen(owner_api, make_survey):
    survey = make_survey(access="both", status="draft")
    url = f"/api/v1/surveys/{survey.pk}/"
    assert owner_api.get(url).json()["batch_size"] == 10
    assert owner_api.patch(url, {"release_batch": 7}, format="json").json()["batch_size"] == 7
    services.survey_open(survey=Survey.objects.get(pk=survey.pk))
    changed = owner_api.patch(url, {"release_batch": 8}, format="json")
    assert changed.status_code == 409 and "release_batch" in json.dumps(changed.json())


def test_a_link_survey_that_opts_in_is_batched_and_a_pilot_is_not(make_survey, respondent):
    survey = make_survey(release_batch=3, status="pilot")
    ids = list(survey.questions.values_list("id", flat=True))

    def send():
        body = {"submission_id": str(uuid.uuid4()), "answers": {str(i): True for i in ids}}
        response = respondent.post(
            f"/api/v1/public/surveys/{survey.slug}/responses/", body, format="json"
        )
        assert response.status_code == 201

    send()
    assert Submission.objects.filter(survey=survey).count() == 1  # a pilot: not held
    survey = services.survey_open(survey=Survey.objects.get(pk=survey.pk))
    send()
    send()
    assert survey.response_count == 0
    send()
    assert Submission.objects.filter(survey=survey).count() == 3
    assert Survey.objects.get(pk=survey.pk).response_count == 3


def test_two_submissions_completing_a_batch_release_it_once(make_survey, respondent):
    """The release runs under the survey's batch lock, in the transaction of the submission
    that completed the batch: called again, it finds nothing held."""
    survey, invitees = batched_study(make_survey, invitees=BATCH)
    for invitee in invitees:
        invitee.open(respondent, survey)
        invitee.submit(respondent, survey)
    assert batches.batch_release(survey_id=survey.pk) == 0
    assert Submission.objects.filter(survey=survey).count() == BATCH
    assert Survey.objects.get(pk=survey.pk).response_count == BATCH


def test_a_replay_of_a_held_submission_answers_as_the_first_time(make_survey, respondent):
    survey, invitees = batched_study(make_survey, invitees=1)
    invitees[0].open(respondent, survey)
    invitees[0].submit(respondent, survey)
    # The same body again (the page's retry): 201 again, not a 409 nor a second row.
    invitees[0].submit(respondent, survey)
    assert Submission.all_objects.filter(survey=survey).count() == 1


def test_release_last_refuses_an_open_survey(make_survey):
    survey, _invitees = batched_study(make_survey, invitees=1)
    with pytest.raises(SurveyConflict):
        services.batch_release_last(survey=survey, responses=1)


def test_the_results_page_tells_the_owner_and_releases_the_last_batch(
    make_survey, respondent, owner_client
):
    survey, invitees = batched_study(make_survey, invitees=2)
    for invitee in invitees:
        invitee.open(respondent, survey)
        invitee.submit(respondent, survey)
    results = f"/surveys/{survey.pk}/results/"
    assert "held-batch-notice" not in owner_client.get(results).content.decode()  # open
    services.survey_close(survey=survey)
    page = owner_client.get(results).content.decode()
    assert "held-batch-notice" in page
    assert "The last batch holds 2 responses" in page and "easier to link" in page
    release = f"/surveys/{survey.pk}/release-batch/"
    # A number other than the one shown releases nothing.
    owner_client.post(release, {"responses": "3"})
    assert Submission.all_objects.filter(survey=survey, held=True).count() == 2
    response = owner_client.post(release, {"responses": "2"})
    assert response.status_code == 302 and response["Location"] == results
    assert Submission.objects.filter(survey=survey).count() == 2
    assert "held-batch-notice" not in owner_client.get(results).content.decode()


def test_the_public_results_count_released_submissions_only(make_survey, respondent, monkeypatch):
    """The public page's releases count a batch once it is released, never a held one."""
    monkeypatch.setattr(dpengine.continual, "sample_discrete_laplace", lambda scale, rng: 0)
    survey = make_survey(questions=("Q?",), release_batch=3)
    today = selectors.utc_today()
    public_release.public_results_update(
        survey=survey, enabled=True, epsilon=1.0, release_days=1, releases=10, today=today
    )
    question = survey.questions.get().pk

    def send():
        body = {"submission_id": str(uuid.uuid4()), "answers": {str(question): True}}
        url = f"/api/v1/public/surveys/{survey.slug}/responses/"
        assert respondent.post(url, body, format="json").status_code == 201

    send()
    send()
    survey.refresh_from_db()
    first = public_release.public_results_release(survey=survey, today=today + timedelta(days=1))
    assert first.source_count == 0 and first.counts["respondents"] == 0
    send()  # completes the batch
    second = public_release.public_results_release(survey=survey, today=today + timedelta(days=2))
    assert second.source_count == 3 and second.counts["respondents"] == 3
