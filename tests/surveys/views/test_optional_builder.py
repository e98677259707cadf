"""Setting "required" in the builder and over the API, and what the respondent page says about
optional questions and skipping (docs/researchers.md, "Optional questions")."""

import re

import pytest
from django.urls import reverse

from surveys import services
from surveys.models import PREFER_NOT_TO_SAY, GroupingQuestion, Question
from surveys.services import grouping, translations
from tests.helpers import translation_texts

pytestmark = pytest.mark.django_db


def url(name, survey, **kwargs):
    return reverse(f"surveys:{name}", kwargs={"pk": survey.pk, **kwargs})


def text_of(response):
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode()))


def body_for(questions):
    return {"title": "Habits", "p_truth": 0.5, "p_forced_yes": 0.5, "questions": questions}


# --- API ------------------------------------------------------------------------------------


def test_api_questions_are_required_unless_they_say_otherwise(owner_api):
    response = owner_api.post(
        "/api/v1/surveys/",
        body_for([{"text": "Old client?"}, {"text": "Optional?", "required": False}]),
        format="json",
    )
    assert response.status_code == 201, response.json()
    assert [q["required"] for q in response.json()["questions"]] == [True, False]
    survey_id = response.json()["id"]
    assert list(
        Question.objects.filter(survey_id=survey_id).values_list("required", flat=True)
    ) == [
        True,
        False,
    ]
    patched = owner_api.patch(
        f"/api/v1/surveys/{survey_id}/",
        {"questions": [{"text": "Now optional?", "required": False}]},
        format="json",
    )
    assert patched.status_code == 200, patched.json()
    assert [q["required"] for q in patched.json()["questions"]] == [False]


@pytest.mark.parametrize("value", ["no", 0, None])
def test_api_required_must_be_true_or_false(owner_api, value):
    response = owner_api.post(
        "/api/v1/surveys/", body_for([{"text": "Q?", "required": value}]), format="json"
    )
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["questions"]
    assert not Question.objects.exists()


def test_services_refuse_a_required_flag_that_is_not_a_boolean(make_survey):
    survey = make_survey(status="draft")
    with pytest.raises(services.ValidationError) as error:
        services.question_add(survey=survey, text="Q?", required="yes")
    assert "'yes'" in error.value.message_dict["required"][0]


def test_a_duplicate_keeps_which_questions_are_required(make_survey):
    survey = make_survey(
        status="draft", questions=[{"text": "A?", "required": False}, {"text": "B?"}]
    )
    grouping.grouping_question_add(survey=survey, text="Team?", options=["R", "B"], required=True)
    copy = services.survey_duplicate(survey=services.survey_open(survey=survey))
    assert list(copy.questions.values_list("required", flat=True)) == [False, True]
    assert list(copy.grouping_questions.values_list("required", flat=True)) == [True]


# --- builder --------------------------------------------------------------------------------


def test_the_builder_adds_and_edits_optional_questions(make_survey, owner_client):
    survey = make_survey(status="draft")
    page = owner_client.get(url("builder", survey))
    checkbox = re.search(r'<input type="checkbox" name="required"[^>]*>', page.content.decode())
    assert "checked" in checkbox[0]  # a new yes/no question is required unless unticked
    # An unticked checkbox is absent from the form data.
    owner_client.post(url("question-add", survey), {"text": "Optional one?"})
    owner_client.post(url("question-add", survey), {"text": "Required one?", "required": "on"})
    added = list(survey.questions.order_by("-id")[:2].values_list("text", "required"))
    assert added == [("Required one?", True), ("Optional one?", False)]
    optional = survey.questions.get(text="Optional one?")
    assert "Optional" in text_of(owner_client.get(url("builder", survey)))
    owner_client.post(
        url("question-edit", survey, qid=optional.pk), {"text": "Optional one?", "required": "on"}
    )
    optional.refresh_from_db()
    assert optional.required


def test_the_builder_adds_grouping_questions_optional_by_default(make_survey, owner_client):
    survey = make_survey(status="draft")
    owner_client.post(
        url("grouping-add", survey), {"grouping-text": "Age?", "grouping-options": "Young\nOld"}
    )
    owner_client.post(
        url("grouping-add", survey),
        {"grouping-text": "Team?", "grouping-options": "R\nB", "grouping-required": "on"},
    )
    assert list(survey.grouping_questions.values_list("text", "required")) == [
        ("Age?", False),
        ("Team?", True),
    ]
    age = survey.grouping_questions.get(text="Age?")
    owner_client.post(
        url("grouping-edit", survey, gid=age.pk),
        {"text": "Age?", "options": "Young\nOld", "required": "on"},
    )
    assert GroupingQuestion.objects.get(pk=age.pk).required
    assert "Prefer not to say" in text_of(owner_client.get(url("builder", survey)))


# --- the respondent page --------------------------------------------------------------------


@pytest.fixture
def mixed(make_survey):
    survey = make_survey(
        status="draft",
        questions=[{"text": "Asked of all?"}, {"text": "Skippable?", "required": False}],
    )
    grouping.grouping_question_add(survey=survey, text="Team?", options=["Red", "Blue"])
    # Offered in Korean and Chinese too, so their pages are in those languages.
    translations.survey_translations_save(survey=survey, texts=translation_texts(survey))
    return services.survey_open(survey=survey)


def test_the_respondent_page_marks_optional_questions_and_explains_skipping(mixed, client):
    page = client.get(reverse("surveys:respond", kwargs={"slug": mixed.slug}))
    html = page.content.decode()
    text = text_of(page)
    q1, q2 = mixed.questions.values_list("id", flat=True)
    gq = mixed.grouping_questions.get()
    fieldset = re.compile(r'<fieldset class="question[^"]*" id="([qg]-\d+)"[^>]*>')
    required = {match[1]: 'aria-required="true"' in match[0] for match in fieldset.finditer(html)}
    assert required == {f"q-{q1}": True, f"q-{q2}": False, f"g-{gq.pk}": False}
    assert html.count('class="optional-tag"') == 2
    assert f'data-clear="q-{q2}"' in html and f'data-clear="q-{q1}"' not in html
    assert f'data-clear="g-{gq.pk}"' in html
    assert f'name="g-{gq.pk}" value="{PREFER_NOT_TO_SAY}"' in html
    assert "the server learns that you skipped that question (but not why)" in text
    assert "the researcher sees that you skipped it, though not why" in text
    # The whole-survey ε is an upper bound: it counts only the questions answered.
    assert "at most ε = 2.20" in text
    assert "the total counts only the questions you answer" in text


def test_a_survey_of_required_questions_reads_as_before(open_survey, client):
    text = text_of(client.get(reverse("surveys:respond", kwargs={"slug": open_survey.slug})))
    assert "ε = 2.20" in text and "at most ε" not in text
    assert "skipped" not in text and "optional" not in text


def test_the_respondent_page_speaks_korean_and_chinese_about_skipping(mixed, client):
    address = reverse("surveys:respond", kwargs={"slug": mixed.slug})
    korean = text_of(client.get(address, {"lang": "ko"}))
    chinese = text_of(client.get(address, {"lang": "zh-hans"}))
    for text in (korean, chinese):
        assert "Prefer not to say" not in text
        assert "optional" not in text
        assert "Clear answer" not in text
