"""The builder's question block: several questions pasted at once (one per line, all or
none, within the limits), and the JSON replies builder.js swaps in without a reload, next to
the page replies a form posted without a script still gets (issue 14)."""

import pytest
from django.core.exceptions import ValidationError
from django.test import override_settings
from django.urls import reverse

from surveys import services

pytestmark = pytest.mark.django_db

JSON = {"HTTP_ACCEPT": "application/json"}


def add_url(survey):
    return reverse("surveys:question-add", kwargs={"pk": survey.pk})


def texts(survey):
    return list(survey.questions.values_list("text", flat=True))


def test_pasted_lines_become_one_question_each_in_order(make_survey, owner_client):
    survey = make_survey(status="draft", questions=["First?"])
    pasted = "Second?\r\n\r\n   Third?  \nFourth?\n"
    response = owner_client.post(add_url(survey), {"text": pasted})
    assert response.status_code == 302  # no script: the page as before
    assert texts(survey) == ["First?", "Second?", "Third?", "Fourth?"]
    assert "3 questions added." in owner_client.get(response["Location"]).content.decode()


def test_the_script_gets_the_new_question_block_as_json(make_survey, owner_client):
    survey = make_survey(status="draft", questions=["First?"])
    response = owner_client.post(add_url(survey), {"text": "Second?\nThird?"}, **JSON)
    assert response.status_code == 200
    reply = response.json()
    assert reply["questions"] == 3
    assert reply["message"] == "2 questions added."
    assert "Q3" in reply["html"] and "Third?" in reply["html"]
    assert 'id="questions-title"' in reply["html"] and "(3)" in reply["html"]
    assert 'data-async="add"' in reply["html"]
    # no flash message left behind for the next page
    page = owner_client.get(reverse("surveys:builder", kwargs={"pk": survey.pk}))
    assert "questions added" not in page.content.decode()


def test_one_line_too_long_stores_none_and_names_it(make_survey, owner_client):
    survey = make_survey(status="draft", questions=["First?"])
    pasted = "Fine?\n" + "x" * 1001 + "\nAlso fine?"
    response = owner_client.post(add_url(survey), {"text": pasted}, **JSON)
    assert response.status_code == 400
    reply = response.json()
    message = reply["errors"]["text"][0]["message"]
    assert message == "Question 2 has 1001 characters; at most 1000 are allowed."
    assert message in reply["html"]
    assert "Also fine?" in reply["html"]  # what was typed stays in the box
    assert texts(survey) == ["First?"]


def test_a_paste_past_the_accounts_question_limit_stores_none(make_survey, owner_client):
    survey = make_survey(status="draft", questions=["First?", "Second?"])
    with override_settings(MAX_QUESTIONS_PER_USER=4):
        response = owner_client.post(add_url(survey), {"text": "A?\nB?\nC?"}, **JSON)
        assert response.status_code == 400
        assert "at most 4 questions in all; this would make 5" in response.json()["html"]
        assert texts(survey) == ["First?", "Second?"]
        assert owner_client.post(add_url(survey), {"text": "A?\nB?"}).status_code == 302
    assert texts(survey) == ["First?", "Second?", "A?", "B?"]


def test_a_paste_past_a_surveys_question_limit_stores_none(make_survey, owner_client):
    survey = make_survey(status="draft", questions=[f"Q{i}?" for i in range(98)])
    response = owner_client.post(add_url(survey), {"text": "A?\nB?\nC?"})
    assert response.status_code == 400
    assert "At most 100 questions in a survey; this would make 101." in response.content.decode()
    assert survey.questions.count() == 98


def test_the_service_adds_all_or_none(make_survey):
    survey = make_survey(status="draft", questions=["First?"])
    with pytest.raises(ValidationError) as error:
        services.questions_add(survey=survey, texts=["Fine?", "   "])
    assert error.value.message_dict == {"text": ["Line 2: This field may not be blank."]}
    added = services.questions_add(survey=survey, texts=["A?", "B?"])
    assert [q.position for q in added] == [1, 2]
    assert texts(survey) == ["First?", "A?", "B?"]


def test_a_frozen_survey_refuses_the_script_with_a_conflict(make_survey, owner_client):
    survey = make_survey()  # open: frozen
    response = owner_client.post(add_url(survey), {"text": "Late?"}, **JSON)
    assert response.status_code == 409
    assert "frozen" in response.json()["message"]
    assert texts(survey) == list(survey.questions.values_list("text", flat=True))


def test_move_and_delete_answer_the_script_with_the_block(make_survey, owner_client):
    survey = make_survey(status="draft", questions=["First?", "Second?"])
    second = survey.questions.get(text="Second?")
    kwargs = {"pk": survey.pk, "qid": second.pk}
    moved = owner_client.post(
        reverse("surveys:question-move", kwargs=kwargs), {"direction": "up"}, **JSON
    )
    assert moved.status_code == 200
    html = moved.json()["html"]
    assert html.index("Second?") < html.index("First?")
    assert texts(survey) == ["Second?", "First?"]
    deleted = owner_client.post(reverse("surveys:question-delete", kwargs=kwargs), **JSON)
    assert deleted.json()["questions"] == 1 and "Second?" not in deleted.json()["html"]
    assert texts(survey) == ["First?"]


def test_another_owners_survey_is_404_for_the_script_too(make_survey, other_client):
    survey = make_survey(status="draft")
    assert other_client.post(add_url(survey), {"text": "Mine?"}, **JSON).status_code == 404
