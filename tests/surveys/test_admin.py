"""The admin keeps the services' rules: frozen surveys read-only, designs and public ε valid."""

import pytest
from django.contrib.auth import get_user_model

from surveys.models import Question, Survey
from surveys.selectors import tokens as token_reads
from surveys.services import tokens
from tests.helpers import add_member

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_browser(client, db):
    staff = get_user_model().objects.create_superuser("root", password="root-pass-correct-42")
    client.force_login(staff)
    return client


def change_url(survey):
    return f"/admin/surveys/survey/{survey.pk}/change/"


def form_data(response):
    """What the admin's change form would post back unchanged (main form and inlines)."""
    data = {}
    form = response.context["adminform"].form
    for name, field in form.fields.items():
        value = form.initial.get(name, field.initial)
        if isinstance(value, bool):
            if value:
                data[name] = "on"
        elif value is not None:
            data[name] = getattr(value, "pk", value)
    for inline in response.context["inline_admin_formsets"]:
        formset = inline.formset
        for name, value in formset.management_form.initial.items():
            data[f"{formset.prefix}-{name}"] = value
        for index, inline_form in enumerate(formset.forms):
            for name in inline_form.fields:
                value = inline_form.instance.pk if name == "id" else inline_form.initial.get(name)
                if value is not None:
                    data[f"{formset.prefix}-{index}-{name}"] = getattr(value, "pk", value)
    return data


def test_a_frozen_surveys_coins_and_questions_cannot_change_in_the_admin(
    admin_browser, frozen_survey
):
    page = admin_browser.get(change_url(frozen_survey))
    assert page.status_code == 200
    form = page.context["adminform"].form
    assert "p_truth" not in form.fields and "p_forced_yes" not in form.fields
    data = form_data(page)
    data["title"] = "Renamed"
    data["p_truth"] = "0.9"  # not a field of the form: ignored
    texts = list(frozen_survey.questions.values_list("text", flat=True))
    for key in [k for k in data if k.endswith("-text")]:
        data[key] = "Changed?"
    response = admin_browser.post(change_url(frozen_survey), data)
    assert response.status_code == 302
    frozen_survey.refresh_from_db()
    assert frozen_survey.title == "Renamed"
    assert frozen_survey.p_truth == 0.5
    assert list(frozen_survey.questions.values_list("text", flat=True)) == texts


@pytest.mark.slow
def test_an_unfrozen_survey_stays_editable_in_the_admin(admin_browser, make_survey):
    survey = make_survey(status=Survey.Status.DRAFT)
    page = admin_browser.get(change_url(survey))
    data = form_data(page)
    data["p_truth"] = "0.25"
    assert admin_browser.post(change_url(survey), data).status_code == 302
    survey.refresh_from_db()
    assert survey.p_truth == 0.25


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("p_truth", "0.9999", "Must be between"),
        ("confidence", "0.3", "Must be a number from 0.5 to 0.999999"),
        ("public_epsilon", "1000", "Must be a number from 0.05 to 10.0"),
        ("public_epsilon", "0.001", "Must be a number from 0.05 to 10.0"),
    ],
)
def test_the_admin_refuses_what_the_services_refuse(
    admin_browser, make_survey, field, value, message
):
    survey = make_survey(status=Survey.Status.DRAFT)
    data = form_data(admin_browser.get(change_url(survey)))
    data[field] = value
    response = admin_browser.post(change_url(survey), data)
    assert response.status_code == 200
    assert message in str(response.context["adminform"].form.errors[field])
    survey.refresh_from_db()
    assert str(getattr(survey, field)) != value


def test_a_password_set_in_the_admin_revokes_the_users_api_tokens(admin_browser, owner):
    tokens.token_issue(user=owner, name="laptop")
    assert token_reads.tokens_of(user=owner)
    url = f"/admin/auth/user/{owner.pk}/password/"
    refused = admin_browser.post(url, {"password1": "short", "password2": "other"})
    assert refused.status_code == 200  # not set: the tokens stay
    assert token_reads.tokens_of(user=owner)
    new = "a-brand-new-password-77"
    response = admin_browser.post(
        url, {"password1": new, "password2": new, "usable_password": "true"}
    )
    assert response.status_code == 302
    owner.refresh_from_db()
    assert owner.check_password(new)
    assert token_reads.tokens_of(user=owner) == []


def test_the_admin_shows_a_surveys_members_and_refuses_the_owner_as_one(
    admin_browser, make_survey, owner, other_researcher
):
    survey = make_survey()
    add_member(survey=survey, user=other_researcher, role="viewer")
    page = admin_browser.get(change_url(survey))
    data = form_data(page)
    prefix = next(
        inline.formset.prefix
        for inline in page.context["inline_admin_formsets"]
        if inline.formset.model.__name__ == "SurveyMember"
    )
    assert data[f"{prefix}-0-user"] == other_researcher.pk  # the member, shown inline
    assert data[f"{prefix}-0-role"] == "viewer"
    data[f"{prefix}-0-user"] = owner.pk
    refused = admin_browser.post(change_url(survey), data)
    assert refused.status_code == 200
    assert "The owner of a survey cannot also be a member." in refused.content.decode()
    assert list(survey.members.values_list("user_id", flat=True)) == [other_researcher.pk]


def test_the_admin_shows_a_questions_type_and_parameters_and_cannot_change_them(
    admin_browser, make_survey
):
    survey = make_survey(
        status=Survey.Status.DRAFT,
        questions=[
            {"text": "W?", "design": {"kind": "warner", "p": 0.75}},
            {"text": "Pick?", "type": "choice", "options": ["Red", "Blue"], "epsilon": 0.5},
            {"text": "Count?", "type": "numeric", "min": 0, "max": 30, "epsilon": 2.0},
        ],
    )
    page = admin_browser.get(change_url(survey))
    html = page.content.decode()
    assert "warner, p=0.75 · ε = 1.10" in html
    assert "Red / Blue · ε = 0.50" in html
    assert "0–30 · ε = 2.00" in html
    (questions,) = [
        i.formset for i in page.context["inline_admin_formsets"] if i.formset.model is Question
    ]
    assert not {"kind", "design", "options", "epsilon", "min_value", "max_value"} & set(
        questions.forms[0].fields
    )
    data = form_data(page)
    prefix = questions.prefix
    data[f"{prefix}-0-kind"] = "numeric"  # not a field of the form: ignored
    data[f"{prefix}-0-design"] = '{"kind": "warner", "p": 0.5}'
    assert admin_browser.post(change_url(survey), data).status_code == 302
    assert survey.questions.get(text="W?").design == {"kind": "warner", "p": 0.75}
