"""The builder's question types (issue 17): adding and editing a yes/no question with a design,
a multiple-choice and a numeric question through the pages (with and without the script's JSON),
errors next to the field they concern, the list's type, design and ε, and the privacy ledger."""

import math
import re

import pytest
from django.urls import reverse
from django.utils import translation

import dpengine
from dpengine import Kuk, Mangat, UnrelatedQuestion, Warner
from dpengine.numeric import BoundedNumeric
from surveys.formatting import epsilon_text
from surveys.forms import QuestionAddForm
from surveys.services.question_types import question_type_spec

pytestmark = pytest.mark.django_db

JSON = {"HTTP_ACCEPT": "application/json"}


def add_url(survey):
    return reverse("surveys:question-add", kwargs={"pk": survey.pk})


def edit_url(question):
    return reverse("surveys:question-edit", kwargs={"pk": question.survey_id, "qid": question.pk})


def builder(client, survey):
    return client.get(reverse("surveys:builder", kwargs={"pk": survey.pk})).content.decode()


def specs(survey):
    return [question_type_spec(q) for q in survey.questions.all()]


@pytest.fixture
def draft(make_survey):
    return make_survey(status="draft", questions=[])


def test_a_post_without_a_type_adds_yes_no_questions_with_the_survey_coins(draft, owner_client):
    assert owner_client.post(add_url(draft), {"text": "Ever?"}).status_code == 302
    assert specs(draft) == [{"type": "yes_no", "design": {}}]


@pytest.mark.parametrize(
    ("post", "spec"),
    [
        ({"question_type": "yes_no", "design": "survey"}, {"type": "yes_no", "design": {}}),
        (
            {"question_type": "yes_no", "design": "warner", "warner_p": "0.8"},
            {"type": "yes_no", "design": {"kind": "warner", "p": 0.8}},
        ),
        (
            {
                "question_type": "yes_no",
                "design": "unrelated_question",
                "unrelated_question_p": "0.6",
                "unrelated_question_pi": "0.3",
            },
            {"type": "yes_no", "design": {"kind": "unrelated_question", "p": 0.6, "pi": 0.3}},
        ),
        (
            {"question_type": "yes_no", "design": "kuk", "kuk_theta1": "0.7", "kuk_theta2": "0.3"},
            {"type": "yes_no", "design": {"kind": "kuk", "theta1": 0.7, "theta2": 0.3}},
        ),
        (
            {"question_type": "yes_no", "design": "mangat", "mangat_p": "0.7", "mangat_t": "0.9"},
            {"type": "yes_no", "design": {"kind": "mangat", "p": 0.7, "t": 0.9}},
        ),
        (
            {
                "question_type": "yes_no",
                "design": "forced_response",
                "forced_response_p_truth": "0.4",
                "forced_response_p_forced_yes": "0.5",
            },
            {
                "type": "yes_no",
                "design": {"kind": "forced_response", "p_truth": 0.4, "p_forced_yes": 0.5},
            },
        ),
        (
            {
                "question_type": "choice",
                "options": "Never\r\n\r\n Once \nOften\n",
                "epsilon": "1.5",
            },
            {"type": "choice", "options": ["Never", "Once", "Often"], "epsilon": 1.5},
        ),
        (
            {"question_type": "numeric", "min": "0", "max": "30", "epsilon": "2"},
            {"type": "numeric", "min": 0, "max": 30, "epsilon": 2.0},
        ),
    ],
)
def test_each_type_and_design_is_stored_as_chosen(draft, owner_client, post, spec):
    response = owner_client.post(add_url(draft), {"text": "How?", **post})
    assert response.status_code == 302, response.content.decode()[:2000]
    assert specs(draft) == [spec]


def test_the_other_designs_fields_do_not_count(draft, owner_client):
    # Without a script every field is sent; only the chosen design's parameters are read.
    post = {
        "text": "Ever?",
        "question_type": "yes_no",
        "design": "warner",
        "warner_p": "0.7",
        "kuk_theta1": "0.1",
        "mangat_t": "0",
        "options": "A\nB",
        "min": "5",
        "max": "1",
        "epsilon": "9",
    }
    assert owner_client.post(add_url(draft), post).status_code == 302
    assert specs(draft) == [{"type": "yes_no", "design": {"kind": "warner", "p": 0.7}}]


def test_a_blank_parameter_takes_dpengines_default(draft, owner_client):
    post = {"text": "Ever?", "question_type": "yes_no", "design": "kuk", "kuk_theta1": ""}
    assert owner_client.post(add_url(draft), post).status_code == 302
    assert specs(draft)[0]["design"] == {"kind": "kuk", **Kuk().parameters}


def test_choice_and_numeric_default_to_the_classic_epsilon(draft, owner_client):
    owner_client.post(
        add_url(draft), {"text": "Which?", "question_type": "choice", "options": "A\nB"}
    )
    assert specs(draft)[0]["epsilon"] == pytest.approx(math.log(3))


def test_a_paste_adds_several_questions_of_the_chosen_type(draft, owner_client):
    post = {"text": "Pets?\nCars?", "question_type": "numeric", "min": "0", "max": "5"}
    response = owner_client.post(add_url(draft), post, **JSON)
    assert response.status_code == 200
    assert [s["type"] for s in specs(draft)] == ["numeric", "numeric"]


@pytest.mark.parametrize(
    ("post", "field", "message"),
    [
        (
            {"question_type": "yes_no", "design": "warner", "warner_p": "0.5"},
            "warner_p",
            "a report would say nothing about the true answer",
        ),
        (
            {"question_type": "yes_no", "design": "warner", "warner_p": "0.3"},
            "warner_p",
            "Outside the values this design allows.",
        ),
        (
            {"question_type": "yes_no", "design": "mangat", "mangat_p": "0.75", "mangat_t": "0"},
            "mangat_t",
            "some report would reveal the true answer",
        ),
        (
            {"question_type": "yes_no", "design": "warner", "warner_p": "0.99"},
            "design",
            "ceiling",
        ),
        ({"question_type": "choice", "options": "Only one"}, "options", "from 2 to 20"),
        ({"question_type": "choice", "options": "A\nA"}, "options", "label of its own"),
        (
            {"question_type": "choice", "options": "A\nB", "epsilon": "50"},
            "epsilon",
            "ceiling",
        ),
        (
            {"question_type": "numeric", "min": "30", "max": "10"},
            "max",
            "Must be greater than “Smallest answer (number)” (30).",
        ),
        ({"question_type": "numeric", "min": "", "max": "5"}, "min", "Required"),
        ({"question_type": "numeric", "min": "0", "max": "5000"}, "max", "at most"),
    ],
)
@pytest.mark.slow
def test_errors_show_next_to_their_field_and_nothing_is_stored(
    draft, owner_client, post, field, message
):
    response = owner_client.post(add_url(draft), {"text": "How?", **post}, **JSON)
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert list(errors) == [field]
    assert message in errors[field][0]["message"]
    assert draft.questions.count() == 0
    # The page (no script) shows it beside the field: the summary links to the field's id.
    page = owner_client.post(add_url(draft), {"text": "How?", **post})
    assert page.status_code == 400
    assert f'href="#id_{field}"' in page.content.decode()


@pytest.mark.parametrize(
    ("post", "field", "api_words"),
    [
        ({"question_type": "numeric", "min": "30", "max": "10"}, "max", "min"),
        ({"question_type": "yes_no", "design": "warner", "warner_p": "0.5"}, "warner_p", "p "),
        (
            {"question_type": "yes_no", "design": "kuk", "kuk_theta1": "0.5", "kuk_theta2": "0.5"},
            "kuk_theta2",
            "theta",
        ),
    ],
)
def test_builder_errors_use_the_forms_labels_in_the_pages_language(
    draft, owner_client, post, field, api_words
):
    """Issue 24: the builder said "Must be greater than min (30)", the API's field names (and
    dpengine's English for a design)."""
    english = None
    for language in ("en", "ko", "zh-hans"):
        response = owner_client.post(
            add_url(draft), {"text": "How?", **post}, HTTP_ACCEPT_LANGUAGE=language, **JSON
        )
        [error] = response.json()["errors"][field]
        assert api_words not in error["message"], (language, error)
        english = english or error["message"]
        assert language == "en" or error["message"] != english  # translated
    if field == "max":
        with translation.override("en"):
            assert str(QuestionAddForm().fields["min"].label) in english


def test_the_api_keeps_its_own_field_names_in_errors(draft, owner_api):
    response = owner_api.patch(
        f"/api/v1/surveys/{draft.pk}/",
        {"questions": [{"text": "How many?", "type": "numeric", "min": 30, "max": 10}]},
        format="json",
    )
    assert response.status_code == 400
    assert "Must be greater than min (30)." in str(response.json())


def test_every_design_error_code_is_a_dpengine_reason():
    from dpengine.errors import Reason
    from surveys.forms.question_types import DESIGN_ERROR_MESSAGES

    assert set(DESIGN_ERROR_MESSAGES) <= {reason.value for reason in Reason}


def test_the_field_map_covers_every_spec_path():
    form = QuestionAddForm({"text": "x", "question_type": "yes_no", "design": "unrelated_question"})
    assert form.is_valid()
    assert form.field_for_service_error("design.pi") == "unrelated_question_pi"
    assert form.field_for_service_error("design.kind") == "design"
    assert form.field_for_service_error("options.3") == "options"
    assert form.field_for_service_error("min") == "min"
    assert form.field_for_service_error("max") == "max"
    assert form.field_for_service_error("type") == "question_type"
    assert form.field_for_service_error("__all__") is None


@pytest.mark.slow
def test_the_list_shows_each_questions_type_design_and_epsilon(make_survey, owner_client):
    survey = make_survey(
        status="draft",
        questions=[
            {"text": "Coins?"},
            {"text": "Warner?", "design": {"kind": "warner", "p": 0.75}},
            {"text": "Unrelated?", "design": {"kind": "unrelated_question"}},
            {"text": "Pick?", "type": "choice", "options": ["Red", "Blue"], "epsilon": 0.5},
            {"text": "Count?", "type": "numeric", "min": 0, "max": 30, "epsilon": 2.0},
        ],
    )
    html = builder(owner_client, survey)
    assert "Yes/no</span> · survey coins (forced response) · <span" in html
    assert "Yes/no</span> · Warner · p = 0.75 · <span" in html
    assert "unrelated question · p = 0.5 · π = 0.25 · <span" in html
    assert f"ε = {epsilon_text(UnrelatedQuestion().epsilon)}" in html  # ln 5 = 1.61
    assert (
        'Multiple choice</span> · 2 options · <span data-stat="question-epsilon">ε = 0.50' in html
    )
    assert "<li>Red</li><li>Blue</li>" in html
    assert (
        'Number</span> · whole numbers from 0 to 30 · <span data-stat="question-epsilon">ε = 2.00'
        in html
    )


def test_the_ledger_lists_each_questions_epsilon_and_the_total(make_survey, owner_client):
    survey = make_survey(
        status="draft",
        questions=[
            {"text": "Coins?"},
            {"text": "Mangat?", "design": {"kind": "mangat"}},
            {"text": "Pick?", "type": "choice", "options": ["Red", "Blue"], "epsilon": 0.5},
        ],
    )
    html = builder(owner_client, survey)
    total = math.log(3) + Mangat().epsilon + 0.5  # ln 3 + ln 4 + 0.5 = 2.9849...
    assert round(total, 2) == 2.98
    assert html.count('data-stat="ledger-epsilon"') == 3
    # Shown rounded up (issue 23): 2.99, never the 2.98 that reads below the true total.
    assert 'data-stat="ledger-total">2.99<' in html
    assert 'data-stat="total-epsilon">2.99<' in html
    assert "The sum of the ε of 3 questions" in html
    assert "<td>Mangat</td>" in html and "<td>Multiple choice</td>" in html


def test_the_live_preview_counts_the_saved_questions_designs(make_survey, owner_client):
    survey = make_survey(
        status="draft", questions=[{"text": "Coins?"}, {"text": "W?", "design": {"kind": "warner"}}]
    )
    query = {"p_truth": "0.25", "p_forced_yes": "0.5", "questions": "2", "survey": survey.pk}
    data = owner_client.get(reverse("surveys:design-preview"), query).json()
    # The unsaved coins (ln 5/3) for the coins question, Warner's own ln 3 for the other.
    assert data["total_epsilon"] == pytest.approx(math.log(5 / 3) + Warner().epsilon)
    assert 'data-stat="ledger-total"' in data["html"]


def test_the_live_preview_of_another_owners_survey_is_404(make_survey, other_client):
    survey = make_survey(status="draft")
    query = {"p_truth": "0.5", "p_forced_yes": "0.5", "survey": survey.pk}
    assert other_client.get(reverse("surveys:design-preview"), query).status_code == 404


def test_editing_changes_the_type_and_drops_stale_parameters(make_survey, owner_client):
    survey = make_survey(
        status="draft", questions=[{"text": "Pick?", "type": "choice", "options": ["A", "B"]}]
    )
    question = survey.questions.get()
    page = owner_client.get(edit_url(question)).content.decode()
    assert 'value="choice" id="id_question_type_1" checked' in page
    assert "A\nB</textarea>" in page
    post = {
        "text": "How many?",
        "required": "on",
        "question_type": "numeric",
        "min": "1",
        "max": "7",
    }
    assert owner_client.post(edit_url(question), post).status_code == 302
    question.refresh_from_db()
    assert question_type_spec(question) == {
        "type": "numeric",
        "min": 1,
        "max": 7,
        "epsilon": pytest.approx(math.log(3)),
    }
    assert question.options == []


def test_an_edit_without_type_fields_keeps_the_type(make_survey, owner_client):
    survey = make_survey(status="draft", questions=[{"text": "W?", "design": {"kind": "warner"}}])
    question = survey.questions.get()
    assert owner_client.post(edit_url(question), {"text": "Warner?"}).status_code == 302
    question.refresh_from_db()
    assert question.text == "Warner?" and question.design["kind"] == "warner"


def test_the_edit_page_starts_from_the_stored_design(make_survey, owner_client):
    survey = make_survey(
        status="draft", questions=[{"text": "K?", "design": {"kind": "kuk", "theta1": 0.7}}]
    )
    page = owner_client.get(edit_url(survey.questions.get())).content.decode()
    assert '<option value="kuk" selected>' in page
    assert 'name="kuk_theta1" value="0.7"' in page


def test_an_edit_error_shows_beside_its_field(make_survey, owner_client):
    survey = make_survey(status="draft", questions=["Ever?"])
    question = survey.questions.get()
    post = {"text": "Ever?", "question_type": "yes_no", "design": "kuk", "kuk_theta1": "0.2"}
    response = owner_client.post(edit_url(question), post)
    assert response.status_code == 400
    # theta1 = 0.2 below the default theta2 = 1/4: dpengine names theta2 (decks swapped).
    assert 'href="#id_kuk_theta2"' in response.content.decode()
    question.refresh_from_db()
    assert question.design == {}


def test_a_frozen_survey_refuses_a_type_change(make_survey, owner_client):
    survey = make_survey(questions=["Ever?"])  # open: frozen
    question = survey.questions.get()
    post = {"text": "Ever?", "question_type": "choice", "options": "A\nB"}
    response = owner_client.post(edit_url(question), post)
    assert response.status_code == 409
    question.refresh_from_db()
    assert question.kind == "yes_no"


def test_after_an_add_the_scripts_box_keeps_the_type_and_parameters(draft, owner_client):
    post = {
        "text": "Which?",
        "question_type": "choice",
        "options": "Never\nSometimes\nOften",
        "epsilon": "0.7",
    }
    html = owner_client.post(add_url(draft), post, **JSON).json()["html"]
    assert 'value="choice" id="id_question_type_1" checked' in html
    assert 'id="id_options">\nNever\nSometimes\nOften</textarea>' in html
    assert 'name="epsilon" value="0.7"' in html
    assert 'id="id_text">\n</textarea>' in html  # the next question's text is new


def test_the_ledger_says_the_respondents_each_question_needs(make_survey, owner_client):
    survey = make_survey(
        status="draft",
        questions=[
            {"text": "Coins?"},
            {"text": "Pick?", "type": "choice", "options": ["Red", "Blue", "Green"]},
            {"text": "Count?", "type": "numeric", "min": 0, "max": 30, "epsilon": 2.0},
        ],
    )
    html = builder(owner_client, survey)
    cells = re.findall(r'data-stat="ledger-respondents">([^<]*)<', html)
    choice = dpengine.required_sample_size_choice(
        mechanism=dpengine.KaryRandomizedResponse(k=3, epsilon=math.log(3)), margin=0.05
    )
    numeric = dpengine.required_sample_size_mean(
        question=BoundedNumeric(lo=0, hi=30, epsilon=2.0), margin=0.05 * 30
    )
    # 1,537 for the classic coins: dpengine.required_sample_size's documented value.
    assert cells == ["1,537", f"{choice:,}", f"{numeric:,}"]
    assert choice > 1537  # three shares at once (Bonferroni) cost more than one
    assert "Respondents for ±5 points" in html


def test_the_live_preview_recomputes_the_needs_under_the_coins_asked_about(
    make_survey, owner_client
):
    survey = make_survey(status="draft", questions=[{"text": "Coins?"}])
    query = {"p_truth": "0.75", "p_forced_yes": "0.5", "survey": survey.pk}
    html = owner_client.get(reverse("surveys:design-preview"), query).json()["html"]
    design = dpengine.ForcedResponse(p_truth=0.75, p_forced_yes=0.5)
    expected = dpengine.required_sample_size(design=design, margin=0.05)
    assert re.findall(r'data-stat="ledger-respondents">([^<]*)<', html) == [f"{expected:,}"]


def test_the_formatted_help_texts_follow_the_request_and_the_site_ceiling(
    draft, owner_client, settings
):
    settings.MAX_EPSILON_PER_ANSWER = 2.5
    html = builder(owner_client, draft)
    assert "at most 2.5 on this site." in html
    assert "From 2 to 20 options." in html
