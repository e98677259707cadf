"""Researcher pages: ownership on every route, the builder, open/close, delete, share."""

import json
from html.parser import HTMLParser
from xml.etree import ElementTree

import numpy as np
import pytest
from django.urls import reverse

from surveys import selectors, services
from surveys import urls as page_urls
from surveys.exports import jobs as export_files
from surveys.formatting import epsilon_text
from surveys.models import GroupingOption, GroupingQuestion, Survey
from surveys.services import export_jobs

pytestmark = pytest.mark.django_db

# What the owner gets for a plain GET on each survey route. Built against the URL map: a new
# route fails test_owner_route_table_covers_the_url_map until it is listed here.
GET_STATUS_FOR_OWNER = {
    "builder": 200,
    "question-add": 405,
    "question-edit": 200,
    "question-delete": 405,
    "question-move": 405,
    "preview": 200,
    "translations": 200,
    "open": 405,
    "close": 405,
    "duplicate": 405,
    "pilot": 405,
    "pilot-discard": 200,  # the confirmation page
    "schedule": 405,
    "delete": 200,
    "restore": 404,  # only a survey in the owner's trash can be restored
    "share": 200,
    "qr": 200,
    "results": 200,
    "estimates-csv": 200,
    "responses-csv": 200,
    "responses-sav": 200,
    "responses-dta": 200,
    "codebook-csv": 200,
    "export-zip": 200,
    "export-xlsx": 200,
    "grouping-add": 405,
    "grouping-edit": 200,
    "grouping-delete": 405,
    "breakdown": 200,
    "regression": 200,
    "r-export": 200,
    "planner": 200,
    "public-settings": 200,
    "members": 200,
    "member-leave": 405,
    "member-role": 405,
    "member-remove": 405,
    "transfer": 200,
    "invitation-withdraw": 405,
    "export-job": 200,
    "export-job-status": 200,
    "export-job-file": 200,
    "export-job-codebook": 200,
    "invitees": 200,
    "invitees-remind": 405,
    "invitees-links-csv": 200,
    "invitees-export-csv": 200,
    "invitees-sheet": 200,
    "invitee-reset": 405,
    "invitee-revoke": 405,
}


def owner_routes():
    """Every page route that takes a survey id, read from surveys/urls.py."""
    return [
        pattern
        for pattern in page_urls.urlpatterns
        if "pk" in pattern.pattern.converters and pattern.name
    ]


def route_url(pattern, survey):
    kwargs = {"pk": survey.pk}
    if "qid" in pattern.pattern.converters:
        kwargs["qid"] = survey.questions.first().pk
    if "gid" in pattern.pattern.converters:
        grouping_question = survey.grouping_questions.first() or with_grouping_question(survey)
        kwargs["gid"] = grouping_question.pk
    if "uid" in pattern.pattern.converters:
        member = survey.members.first()
        kwargs["uid"] = member.user_id if member else survey.owner_id
    if "iid" in pattern.pattern.converters and pattern.name.startswith("invitee-"):
        kwargs["iid"] = respondent_invitation(survey).pk
    elif "iid" in pattern.pattern.converters:
        invitation = survey.invitations.first()
        kwargs["iid"] = invitation.pk if invitation else 0
    if "job_id" in pattern.pattern.converters:
        kwargs["job_id"] = (survey.export_jobs.first() or finished_export(survey)).pk
    return reverse(f"surveys:{pattern.name}", kwargs=kwargs)


def finished_export(survey):
    """A responses CSV written by an export job, as the worker would."""
    job = export_jobs.export_job_start(survey=survey, user=survey.owner, kind="reports", options={})
    return export_files.export_job_run(job_id=job.pk)


def respondent_invitation(survey):
    """An invitation of ``survey`` to answer it (docs/invitations.md), stored directly."""
    from surveys.models import Invitation
    from surveys.services import invitations

    found = Invitation.objects.filter(survey=survey).first()
    if found is not None:
        return found
    code = invitations.new_code()
    return Invitation.objects.create(
        survey=survey,
        code_digest=invitations.code_digest(code),
        sealed_code=invitations.code_seal(code, survey_id=survey.pk),
    )


def with_grouping_question(survey):
    """A grouping question on ``survey`` even when it is open (frozen): stored directly, as
    one added before the survey opened would be."""
    question = GroupingQuestion.objects.create(survey=survey, position=0, text="Which team?")
    GroupingOption.objects.bulk_create(
        GroupingOption(grouping_question=question, position=index, label=label)
        for index, label in enumerate(["Red", "Blue"])
    )
    return question


def with_responses(survey, bits):
    """Store randomized reports (a respondents × questions 0/1 array) as a browser would."""
    services.simulated_submissions_record(survey=survey, reports=np.array(bits, dtype=bool))
    survey.refresh_from_db()
    return survey


class Markup(HTMLParser):
    """Collects what the CSP and accessibility rules forbid or require in a page."""

    def __init__(self):
        super().__init__()
        self.style_attributes = 0
        self.inline_handlers = 0
        self.inline_scripts = 0
        self.ids = []
        self.labels_for = set()
        self.inputs = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.style_attributes += "style" in attrs or tag == "style"
        self.inline_handlers += any(name.startswith("on") for name in attrs)
        if tag == "script" and "src" not in attrs and attrs.get("type") != "application/json":
            self.inline_scripts += 1
        if "id" in attrs:
            self.ids.append(attrs["id"])
        if tag == "label" and "for" in attrs:
            self.labels_for.add(attrs["for"])
        if tag in {"input", "select", "textarea"} and attrs.get("type") not in {"hidden"}:
            self.inputs.append(attrs)


def markup(response):
    parser = Markup()
    parser.feed(response.content.decode())
    return parser


# --- ownership ----------------------------------------------------------------------------


def test_owner_route_table_covers_the_url_map():
    assert {pattern.name for pattern in owner_routes()} == set(GET_STATUS_FOR_OWNER)


@pytest.mark.parametrize("method", ["get", "post"])
@pytest.mark.parametrize("pattern", owner_routes(), ids=lambda p: p.name)
def test_another_researchers_survey_is_404_on_every_route(
    pattern, method, make_survey, other_client
):
    survey = make_survey()
    response = getattr(other_client, method)(route_url(pattern, survey), {"direction": "up"})
    assert response.status_code == 404
    survey.refresh_from_db()
    assert survey.status == Survey.Status.OPEN
    assert survey.questions.count() == 2


@pytest.mark.parametrize("pattern", owner_routes(), ids=lambda p: p.name)
def test_anonymous_visitors_are_sent_to_sign_in(pattern, open_survey, client):
    url = route_url(pattern, open_survey)
    response = client.get(url)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


@pytest.mark.parametrize("pattern", owner_routes(), ids=lambda p: p.name)
@pytest.mark.slow
def test_every_route_answers_its_owner(pattern, open_survey, owner_client):
    response = owner_client.get(route_url(pattern, open_survey))
    assert response.status_code == GET_STATUS_FOR_OWNER[pattern.name]


def test_a_missing_question_of_an_own_survey_is_404(open_survey, owner_client):
    other = services.survey_create(owner=open_survey.owner, title="Other", questions=["Q?"])
    foreign_qid = other.questions.get().pk
    url = reverse("surveys:question-edit", kwargs={"pk": open_survey.pk, "qid": foreign_qid})
    assert owner_client.get(url).status_code == 404


@pytest.mark.parametrize(
    "name", ["builder", "share", "results", "delete", "question-edit", "dashboard", "survey-new"]
)
def test_researcher_pages_are_csp_clean_and_label_every_input(name, open_survey, owner_client):
    kwargs = {} if name in {"dashboard", "survey-new"} else {"pk": open_survey.pk}
    if name == "question-edit":
        kwargs["qid"] = open_survey.questions.first().pk
    page = markup(owner_client.get(reverse(f"surveys:{name}", kwargs=kwargs)))
    assert page.style_attributes == 0
    assert page.inline_handlers == 0
    assert page.inline_scripts == 0
    assert len(page.ids) == len(set(page.ids)), "duplicate id"
    unlabelled = [
        field
        for field in page.inputs
        if field.get("id") not in page.labels_for and "aria-label" not in field
    ]
    assert unlabelled == []


# --- landing, dashboard, accounts ---------------------------------------------------------


def test_landing_page_invites_signed_out_visitors_to_sign_in(client):
    response = client.get("/")
    assert response.status_code == 200
    assert reverse("login").encode() in response.content


def test_landing_page_sends_signed_in_researchers_to_their_dashboard(owner_client):
    response = owner_client.get("/")
    assert response.status_code == 302
    assert response["Location"] == reverse("surveys:dashboard")


def test_dashboard_lists_only_own_surveys_with_counts(make_survey, other_researcher, owner_client):
    mine = with_responses(make_survey(title="Mine"), [[1, 0], [0, 0], [1, 1]])
    make_survey(title="Someone else's", by=other_researcher)
    response = owner_client.get(reverse("surveys:dashboard"))
    content = response.content.decode()
    assert "Mine" in content
    assert "Someone else" not in content
    assert reverse("surveys:results", kwargs={"pk": mine.pk}) in content
    assert reverse("surveys:share", kwargs={"pk": mine.pk}) in content
    assert ">Open</span>" in content  # the status is stated in text, not only by colour
    page = response.context["surveys"]
    assert [(s.question_total, s.response_count) for s in page] == [(2, 3)]


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


# --- creating and building ----------------------------------------------------------------


def new_survey_form(**overrides):
    return {
        "title": "Exam honesty",
        "intro": "Two questions about exams.",
        "language": "en",
        "preset": "classic",
        "p_truth": "0.5",
        "p_forced_yes": "0.5",
        "ci_method": "wilson",
        "confidence": "0.95",
        "min_n": "30",
        **overrides,
    }


def test_new_survey_with_a_preset_uses_the_presets_coins(owner, owner_client):
    # The coin inputs still hold the classic values (as without JavaScript); the preset wins.
    response = owner_client.post(
        reverse("surveys:survey-new"), new_survey_form(preset="strong_privacy")
    )
    survey = Survey.objects.get(owner=owner)
    assert response.status_code == 302
    assert response["Location"] == reverse("surveys:builder", kwargs={"pk": survey.pk})
    assert (survey.p_truth, survey.p_forced_yes) == (0.25, 0.5)
    assert survey.status == Survey.Status.DRAFT


def test_new_survey_with_custom_coins_stores_them(owner, owner_client):
    owner_client.post(
        reverse("surveys:survey-new"),
        new_survey_form(preset="custom", p_truth="0.6", p_forced_yes="0.3"),
    )
    survey = Survey.objects.get(owner=owner)
    assert (survey.p_truth, survey.p_forced_yes) == (0.6, 0.3)


@pytest.mark.parametrize(
    ("field", "value"),
    [("p_truth", "1"), ("p_truth", "0"), ("p_forced_yes", "-0.2"), ("p_forced_yes", "abc")],
)
def test_invalid_custom_coins_are_refused_naming_the_field(field, value, owner, owner_client):
    response = owner_client.post(
        reverse("surveys:survey-new"), new_survey_form(preset="custom", **{field: value})
    )
    assert response.status_code == 400
    form = response.context["form"]
    assert list(form.errors) == [field]
    content = response.content.decode()
    assert f"({field})" in content  # the error summary names the coin
    assert f'id="id_{field}_error"' in content
    assert 'aria-invalid="true"' in content
    assert not Survey.objects.filter(owner=owner).exists()


def test_new_survey_without_title_is_refused(owner, owner_client):
    response = owner_client.post(
        reverse("surveys:survey-new"), new_survey_form(title=" ", preset="high_precision")
    )
    assert response.status_code == 400
    assert "title" in response.context["form"].errors
    assert not Survey.objects.filter(owner=owner).exists()
    # The privacy numbers shown are those of the design that was chosen (ln 7).
    assert response.context["privacy"].per_answer_epsilon == pytest.approx(1.9459, abs=1e-4)


def test_builder_shows_the_selectors_privacy_numbers(make_survey, owner_client):
    survey = make_survey(status="draft", p_truth=0.75, p_forced_yes=0.5)
    privacy = selectors.survey_privacy(survey=survey)
    response = owner_client.get(reverse("surveys:builder", kwargs={"pk": survey.pk}))
    content = response.content.decode()
    assert f"{epsilon_text(privacy.per_answer_epsilon)}" in content  # ln 7 = 1.95
    # 2 ln 7 = 3.8918...: shown rounded up, 3.90 (issue 23).
    assert f"{epsilon_text(privacy.total_epsilon)}" in content
    assert f"{privacy.respondents_for_margin:,}" in content
    assert response.context["form"]["preset"].value() == "high_precision"


def test_builder_saves_settings(make_survey, owner_client):
    survey = make_survey(status="draft")
    data = new_survey_form(
        title="Renamed", preset="custom", p_truth="0.7", p_forced_yes="0.4", min_n="50"
    )
    response = owner_client.post(reverse("surveys:builder", kwargs={"pk": survey.pk}), data)
    assert response.status_code == 302
    survey.refresh_from_db()
    assert (survey.title, survey.p_truth, survey.p_forced_yes, survey.min_n) == (
        "Renamed",
        0.7,
        0.4,
        50,
    )


def test_builder_adds_edits_moves_and_deletes_questions(make_survey, owner_client):
    survey = make_survey(status="draft", questions=["First?", "Second?"])
    pk = survey.pk

    def texts():
        return list(survey.questions.values_list("text", flat=True))

    response = owner_client.post(
        reverse("surveys:question-add", kwargs={"pk": pk}), {"text": "Third?"}
    )
    assert response.status_code == 302
    assert texts() == ["First?", "Second?", "Third?"]

    third = survey.questions.get(text="Third?")
    owner_client.post(
        reverse("surveys:question-move", kwargs={"pk": pk, "qid": third.pk}), {"direction": "up"}
    )
    assert texts() == ["First?", "Third?", "Second?"]

    first = survey.questions.get(text="First?")
    owner_client.post(
        reverse("surveys:question-move", kwargs={"pk": pk, "qid": first.pk}),
        {"direction": "down"},
    )
    assert texts() == ["Third?", "First?", "Second?"]

    owner_client.post(
        reverse("surveys:question-edit", kwargs={"pk": pk, "qid": first.pk}),
        {"text": "First, reworded?"},
    )
    assert texts() == ["Third?", "First, reworded?", "Second?"]

    owner_client.post(reverse("surveys:question-delete", kwargs={"pk": pk, "qid": third.pk}))
    assert texts() == ["First, reworded?", "Second?"]


@pytest.mark.slow
def test_blank_question_is_refused_naming_the_field(make_survey, owner_client):
    survey = make_survey(status="draft")
    response = owner_client.post(
        reverse("surveys:question-add", kwargs={"pk": survey.pk}), {"text": "  "}
    )
    assert response.status_code == 400
    assert "text" in response.context["question_form"].errors
    assert survey.questions.count() == 2


def test_moving_in_an_unknown_direction_is_a_400(make_survey, owner_client):
    survey = make_survey(status="draft")
    question = survey.questions.first()
    response = owner_client.post(
        reverse("surveys:question-move", kwargs={"pk": survey.pk, "qid": question.pk}),
        {"direction": "sideways"},
    )
    assert response.status_code == 400
    assert survey.questions.first().pk == question.pk


# --- frozen surveys -----------------------------------------------------------------------

FROZEN_WHY = "questions and coins are frozen"


@pytest.fixture
def answered_survey(make_survey):
    return with_responses(make_survey(), [[1, 0]])


def test_builder_of_an_answered_survey_shows_questions_read_only_and_says_why(
    answered_survey, owner_client
):
    response = owner_client.get(reverse("surveys:builder", kwargs={"pk": answered_survey.pk}))
    content = response.content.decode()
    assert FROZEN_WHY in content
    assert reverse("surveys:question-add", kwargs={"pk": answered_survey.pk}) not in content
    assert "/move/" not in content
    form = response.context["form"]
    assert form.fields["p_truth"].disabled
    assert form.fields["preset"].disabled


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("question-add", {"text": "A new question?"}),
        ("question-edit", {"text": "Reworded?"}),
        ("question-delete", {}),
        ("question-move", {"direction": "down"}),
    ],
)
def test_frozen_survey_refuses_question_changes_with_the_explanation(
    name, data, answered_survey, owner_client
):
    before = list(answered_survey.questions.values_list("id", "position", "text"))
    kwargs = {"pk": answered_survey.pk}
    if name != "question-add":
        kwargs["qid"] = answered_survey.questions.first().pk
    response = owner_client.post(reverse(f"surveys:{name}", kwargs=kwargs), data)
    assert response.status_code == 409
    assert FROZEN_WHY in response.content.decode()
    assert list(answered_survey.questions.values_list("id", "position", "text")) == before


@pytest.mark.slow
def test_frozen_survey_keeps_its_coins_but_saves_other_settings(answered_survey, owner_client):
    data = new_survey_form(title="New title", preset="custom", p_truth="0.9", p_forced_yes="0.1")
    response = owner_client.post(
        reverse("surveys:builder", kwargs={"pk": answered_survey.pk}), data
    )
    assert response.status_code == 302
    answered_survey.refresh_from_db()
    assert answered_survey.title == "New title"
    assert (answered_survey.p_truth, answered_survey.p_forced_yes) == (0.5, 0.5)


# --- live privacy numbers -----------------------------------------------------------------


def test_design_preview_returns_the_selectors_numbers(owner_client):
    response = owner_client.get(
        reverse("surveys:design-preview"),
        {"p_truth": "0.25", "p_forced_yes": "0.5", "questions": 4},
    )
    assert response.status_code == 200
    data = response.json()
    from dpengine import ForcedResponse

    expected = selectors.design_privacy(
        design=ForcedResponse(p_truth=0.25, p_forced_yes=0.5), questions=4
    )
    assert data["per_answer_epsilon"] == expected.per_answer_epsilon
    assert data["total_epsilon"] == expected.total_epsilon
    assert data["respondents_for_margin"] == expected.respondents_for_margin
    assert f"{expected.respondents_for_margin:,}" in data["html"]
    assert 'data-stat="over-ceiling"' not in data["html"]


def test_design_preview_warns_when_the_coins_exceed_the_epsilon_ceiling(owner_client):
    # p_truth 0.9: a = 0.95, b = 0.05, ε = ln 19 > ln 9 (the default ceiling).
    response = owner_client.get(
        reverse("surveys:design-preview"), {"p_truth": "0.9", "p_forced_yes": "0.5"}
    )
    assert response.status_code == 200
    assert 'data-stat="over-ceiling"' in response.json()["html"]
    assert "ceiling of ε = 2.20" in response.json()["html"]


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"p_truth": "1", "p_forced_yes": "0.5"}, "p_truth"),
        ({"p_truth": "0.5", "p_forced_yes": "nan"}, "p_forced_yes"),
        ({"p_truth": "0.5"}, "p_forced_yes"),
        ({"p_truth": "0.5", "p_forced_yes": "0.5", "questions": "-1"}, "questions"),
    ],
)
def test_design_preview_names_the_bad_field(query, field, owner_client):
    response = owner_client.get(reverse("surveys:design-preview"), query)
    assert response.status_code == 400
    data = response.json()
    assert list(data["errors"]) == [field]
    assert data["html"]


def test_design_preview_needs_sign_in(client):
    response = client.get(reverse("surveys:design-preview"), {"p_truth": 0.5, "p_forced_yes": 0.5})
    assert response.status_code == 302


# --- lifecycle ----------------------------------------------------------------------------


def test_open_and_close_change_the_status(make_survey, owner_client):
    survey = make_survey(status="draft")
    assert owner_client.post(reverse("surveys:open", kwargs={"pk": survey.pk})).status_code == 302
    survey.refresh_from_db()
    assert survey.status == Survey.Status.OPEN
    assert owner_client.post(reverse("surveys:close", kwargs={"pk": survey.pk})).status_code == 302
    survey.refresh_from_db()
    assert survey.status == Survey.Status.CLOSED


def test_opening_a_survey_without_questions_explains_why_not(make_survey, owner_client):
    survey = make_survey(status="draft", questions=())
    response = owner_client.post(reverse("surveys:open", kwargs={"pk": survey.pk}))
    assert response.status_code == 409
    assert "at least one question" in response.content.decode()
    survey.refresh_from_db()
    assert survey.status == Survey.Status.DRAFT


def test_delete_asks_for_confirmation_then_moves_to_the_trash(answered_survey, owner_client):
    url = reverse("surveys:delete", kwargs={"pk": answered_survey.pk})
    confirm = owner_client.get(url)
    assert confirm.status_code == 200
    assert Survey.objects.filter(pk=answered_survey.pk).exists()
    response = owner_client.post(url)
    assert response.status_code == 302
    assert response["Location"] == reverse("surveys:dashboard")
    assert not Survey.objects.filter(pk=answered_survey.pk).exists()
    assert Survey.all_objects.get(pk=answered_survey.pk).deleted_at is not None


def test_preview_renders_the_respondent_page_in_preview_mode(make_survey, owner_client):
    survey = make_survey(status="draft", title="Draft to preview")
    response = owner_client.get(reverse("surveys:preview", kwargs={"pk": survey.pk}))
    assert response.status_code == 200
    assert response.templates[0].name == "respond/respond.html"
    assert response.context["preview"] is True
    content = response.content.decode()
    assert "Draft to preview" in content
    for question in survey.questions.all():
        assert question.text in content


# --- share --------------------------------------------------------------------------------


def test_share_page_shows_the_absolute_respondent_link_and_the_qr_code(open_survey, owner_client):
    response = owner_client.get(reverse("surveys:share", kwargs={"pk": open_survey.pk}))
    content = response.content.decode()
    link = f"http://testserver/s/{open_survey.slug}/"
    assert f'value="{link}"' in content
    qr = reverse("surveys:qr", kwargs={"pk": open_survey.pk})
    assert f'src="{qr}"' in content
    assert f'alt="QR code that opens {link}"' in content


def test_qr_code_is_server_side_svg(open_survey, owner_client):
    response = owner_client.get(reverse("surveys:qr", kwargs={"pk": open_survey.pk}))
    assert response["Content-Type"] == "image/svg+xml"
    root = ElementTree.fromstring(response.content)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert open_survey.title in root.find("{http://www.w3.org/2000/svg}title").text


def test_design_preview_route_is_json(owner_client):
    response = owner_client.get(
        reverse("surveys:design-preview"), {"p_truth": "0.5", "p_forced_yes": "0.5"}
    )
    assert response["Content-Type"] == "application/json"
    assert json.loads(response.content)["total_epsilon"] == 0
