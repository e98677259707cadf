"""The builder's yes/no questions through surveys/views/questions.py: adding, editing, moving
and deleting, refusals naming the field, and a frozen survey's refusal with the reason. (Other
question types: test_builder_types.py; the builder's JSON answers: test_builder_direct.py.)"""

import re

import pytest
from django.urls import reverse

from surveys import services
from tests.helpers import FROZEN_WHY

pytestmark = pytest.mark.django_db


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


def test_a_missing_question_of_an_own_survey_is_404(open_survey, owner_client):
    other = services.survey_create(owner=open_survey.owner, title="Other", questions=["Q?"])
    foreign_qid = other.questions.get().pk
    url = reverse("surveys:question-edit", kwargs={"pk": open_survey.pk, "qid": foreign_qid})
    assert owner_client.get(url).status_code == 404


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


def test_the_builder_keeps_a_pinned_question_pinned_and_its_box_unpins_it(
    make_survey, owner_client
):
    survey = make_survey(status="draft", questions=[])
    add = reverse("surveys:question-add", kwargs={"pk": survey.pk})
    comment = {"text": "Anything else?", "question_type": "text", "direct_confirmed": "on"}
    assert owner_client.post(add, {**comment, "pinned": "on"}).status_code == 302
    question = survey.questions.get()
    assert question.pinned
    edit = reverse("surveys:question-edit", kwargs={"pk": survey.pk, "qid": question.pk})
    # The edit form shows the box ticked, so saving it as shown keeps the pin.
    assert re.search(r'<input[^>]*name="pinned"[^>]*checked', owner_client.get(edit).text)
    assert owner_client.post(edit, {**comment, "pinned": "on"}).status_code == 302
    question.refresh_from_db()
    assert question.pinned
    # Unticked, it is shuffled with the others again.
    assert owner_client.post(edit, comment).status_code == 302
    question.refresh_from_db()
    assert not question.pinned
