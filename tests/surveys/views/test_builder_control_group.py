"""The builder's control group (issue 27 item 2): the survey's share and a question's
"Compare with asking directly" box, stored, refused naming the field, frozen once open."""

import pytest
from django.urls import reverse

from surveys.services.question_types import question_type_spec
from tests.helpers import new_survey_form

pytestmark = pytest.mark.django_db


def add_url(survey):
    return reverse("surveys:question-add", kwargs={"pk": survey.pk})


@pytest.fixture
def draft(make_survey):
    return make_survey(status="draft", questions=[])


def test_the_builder_offers_both_fields(draft, owner_client):
    page = owner_client.get(reverse("surveys:builder", kwargs={"pk": draft.pk})).content.decode()
    assert 'name="control_share"' in page and 'name="compare_direct"' in page
    assert "Direct-questioning control group" in page
    assert "Compare with asking directly (control group)" in page


def test_the_builder_saves_the_share_and_refuses_one_above_half(draft, owner_client):
    url = reverse("surveys:builder", kwargs={"pk": draft.pk})
    saved = owner_client.post(url, new_survey_form(title="Split", control_share="0.2"))
    assert saved.status_code == 302
    draft.refresh_from_db()
    assert draft.control_share == 0.2
    refused = owner_client.post(url, new_survey_form(title="Split", control_share="0.6"))
    assert refused.status_code == 400
    assert refused.context["form"].errors["control_share"]
    draft.refresh_from_db()
    assert draft.control_share == 0.2
    # Blank: no control group.
    assert owner_client.post(url, new_survey_form(title="Split")).status_code == 302
    draft.refresh_from_db()
    assert draft.control_share == 0


def test_a_question_is_marked_for_the_comparison(draft, owner_client):
    post = {
        "text": "Did you?",
        "question_type": "yes_no",
        "design": "warner",
        "compare_direct": "on",
    }
    assert owner_client.post(add_url(draft), post).status_code == 302
    (question,) = draft.questions.all()
    assert question.compare_direct
    assert question_type_spec(question)["compare_direct"] is True


def test_a_marked_choice_question_is_refused_next_to_the_box(draft, owner_client):
    post = {
        "text": "Which?",
        "question_type": "choice",
        "options": "A\nB",
        "compare_direct": "on",
    }
    refused = owner_client.post(add_url(draft), post)
    assert refused.status_code == 400
    assert "Only a randomized yes/no question can be compared" in refused.content.decode()
    assert not draft.questions.exists()


def test_the_results_page_compares_the_arms_in_plain_words(make_survey, owner_client):
    from tests.helpers import simulate_responses

    survey = make_survey(
        questions=[{"text": "Did you?", "compare_direct": True}], control_share=0.3, min_n=30
    )
    simulate_responses(survey, n=1000, seed=3, shares=[(0.4, 0.2)])
    page = owner_client.get(reverse("surveys:results", kwargs={"pk": survey.pk}))
    text = page.content.decode()
    assert page.status_code == 200
    assert "Randomized against asking directly" in text and "“more is better”" in text
    row = page.context["control_group"].rows[0]
    assert row.status == "compared"
    assert 'data-shown="p"' in text and 'data-shown="difference"' in text


def test_the_results_page_suppresses_an_arm_below_min_n(make_survey, owner_client):
    from tests.helpers import simulate_responses

    survey = make_survey(
        questions=[{"text": "Did you?", "compare_direct": True}], control_share=0.05, min_n=30
    )
    simulate_responses(survey, n=100, seed=3, shares=[0.3])
    text = owner_client.get(reverse("surveys:results", kwargs={"pk": survey.pk})).content.decode()
    assert "each group needs 30" in text
    assert 'data-shown="difference"' not in text
