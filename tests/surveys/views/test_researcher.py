"""The researcher's pages of surveys/views/researcher.py: the landing page and dashboard,
creating a survey and the builder's settings (frozen ones too), the live privacy numbers
(design preview), open/close, delete, the respondent-page preview, share and QR code."""

import json
from xml.etree import ElementTree

import pytest
from django.urls import reverse

from dpengine import ForcedResponse
from surveys import selectors
from surveys.formatting import epsilon_text
from surveys.models import Survey
from tests.helpers import FROZEN_WHY, new_survey_form, with_responses

pytestmark = pytest.mark.django_db


# --- landing, dashboard -------------------------------------------------------------------


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


# --- creating and building ----------------------------------------------------------------


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


# --- frozen surveys -----------------------------------------------------------------------


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


def test_design_preview_route_is_json(owner_client):
    response = owner_client.get(
        reverse("surveys:design-preview"), {"p_truth": "0.5", "p_forced_yes": "0.5"}
    )
    assert response["Content-Type"] == "application/json"
    assert json.loads(response.content)["total_epsilon"] == 0


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
