"""The researcher pages for grouping questions, breakdown, regression and planner, and the
respondent page's grouping questions. (Ownership of every route is covered by the URL-map
driven tests in tests/surveys/views/test_common.py and tests/surveys/api/test_ownership.py.)"""

import html
import re

import numpy as np
import pytest
from django.urls import reverse

from surveys import selectors
from surveys.models import GroupingQuestion
from surveys.services import grouping, translations
from tests.helpers import markup, translation_texts

pytestmark = pytest.mark.django_db


def url(name, survey, **kwargs):
    return reverse(f"surveys:{name}", kwargs={"pk": survey.pk, **kwargs})


def text_of(response):
    """The page's visible text, whitespace collapsed (tags dropped)."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode()))


# --- builder ------------------------------------------------------------------------------


def test_the_builder_adds_a_grouping_question_with_one_option_per_line(make_survey, owner_client):
    survey = make_survey(status="draft")
    response = owner_client.post(
        url("grouping-add", survey),
        {"grouping-text": "Age band?", "grouping-options": "18–29\r\n30–49\r\n\r\n50+\r\n"},
    )
    assert response.status_code == 302
    assert response["Location"].endswith("#grouping")
    gq = survey.grouping_questions.get()
    assert [o.label for o in gq.options.all()] == ["18–29", "30–49", "50+"]
    page = owner_client.get(url("builder", survey))
    assert "Age band?" in text_of(page)
    assert "Not randomized." in text_of(page)


@pytest.mark.slow
def test_a_grouping_question_with_one_option_is_refused_on_the_builder(make_survey, owner_client):
    survey = make_survey(status="draft")
    response = owner_client.post(
        url("grouping-add", survey), {"grouping-text": "Age?", "grouping-options": "Only"}
    )
    assert response.status_code == 400
    assert "Give at least 2 options." in text_of(response)
    assert not survey.grouping_questions.exists()
    page = markup(response)
    assert len(page.ids) == len(set(page.ids))  # two forms with a "text" field, no clash


def test_a_frozen_builder_offers_no_grouping_forms(
    grouped_survey, options, submit_grouped, owner_client
):
    submit_grouped(grouped_survey, [True, True], [options[0]])
    page = owner_client.get(url("builder", grouped_survey)).content.decode()
    assert reverse("surveys:grouping-add", kwargs={"pk": grouped_survey.pk}) not in page
    gq = grouped_survey.grouping_questions.get()
    response = owner_client.post(url("grouping-delete", grouped_survey, gid=gq.pk))
    assert response.status_code == 409
    assert grouped_survey.grouping_questions.exists()


def test_the_edit_page_saves_new_options(grouped_draft, owner_client):
    gq = grouped_draft.grouping_questions.get()
    edit = url("grouping-edit", grouped_draft, gid=gq.pk)
    assert "Research" in owner_client.get(edit).content.decode()
    response = owner_client.post(edit, {"text": "Team?", "options": "Red\nBlue"})
    assert response.status_code == 302
    assert [o.label for o in gq.options.all()] == ["Red", "Blue"]


def test_a_grouping_question_of_another_survey_is_404(grouped_survey, make_survey, owner_client):
    other = make_survey(status="draft")
    foreign = grouping.grouping_question_add(survey=other, text="Age?", options=["A", "B"])
    assert owner_client.get(url("grouping-edit", grouped_survey, gid=foreign.pk)).status_code == 404
    assert (
        owner_client.post(url("grouping-delete", grouped_survey, gid=foreign.pk)).status_code == 404
    )
    assert other.grouping_questions.exists()


# --- the respondent page ------------------------------------------------------------------


def test_the_respondent_page_asks_grouping_questions_and_says_they_are_not_randomized(
    grouped_survey, client
):
    response = client.get(reverse("surveys:respond", kwargs={"slug": grouped_survey.slug}))
    page = response.content.decode()
    gq = grouped_survey.grouping_questions.get()
    assert f'id="g-{gq.pk}"' in page
    assert text_of(response).count("This one is not randomized") == 1
    assert "the ε numbers above cover only the randomized questions" in text_of(response)
    questions = page[page.index('id="respond-questions"') :]
    questions = questions[: questions.index("</section>")]
    assert f'id="g-{gq.pk}"' in questions
    assert "<form" not in questions  # the radios belong to no form, like the yes/no inputs
    for option in gq.options.all():
        assert f'name="g-{gq.pk}" value="{option.pk}"' in page


def test_the_preview_shows_grouping_questions_too(grouped_survey, owner_client):
    response = owner_client.get(url("preview", grouped_survey))
    assert "This one is not randomized" in text_of(response)


def test_the_public_definition_lists_grouping_questions_with_their_options(
    grouped_survey, options, respondent
):
    body = respondent.get(f"/api/v1/public/surveys/{grouped_survey.slug}/").json()
    [gq] = body["grouping_questions"]
    assert [o["id"] for o in gq["options"]] == options
    assert [o["label"] for o in gq["options"]] == ["Sales", "Research", "Support"]


def test_a_submission_without_a_required_group_is_a_400_naming_it(grouped_survey, submit):
    gq = grouped_survey.grouping_questions.get()
    GroupingQuestion.objects.filter(pk=gq.pk).update(required=True)
    response = submit(grouped_survey, [True, False])
    assert response.status_code == 400
    assert list(response.json()["errors"]) == [f"groups.{gq.pk}"]


@pytest.mark.parametrize("groups", [["1"], {"1": True}, {"1": ["2"]}, "x"])
def test_a_malformed_groups_object_is_a_400(grouped_survey, respondent, groups):
    ids = list(grouped_survey.questions.values_list("id", flat=True))
    response = respondent.post(
        f"/api/v1/public/surveys/{grouped_survey.slug}/responses/",
        {
            "submission_id": "0b0e7b14-5f8c-4b5e-9a53-7d7c4f6a1e01",
            "answers": {str(i): True for i in ids},
            "groups": groups,
        },
        format="json",
    )
    assert response.status_code == 400
    assert "groups" in response.json()["errors"]


# --- analysis pages -----------------------------------------------------------------------


@pytest.mark.parametrize("name", ["breakdown", "regression", "planner", "public-settings"])
def test_analysis_pages_are_csp_clean_and_label_every_input(name, grouped_survey, owner_client):
    response = owner_client.get(url(name, grouped_survey))
    assert response.status_code == 200
    page = markup(response)
    assert page.style_attributes == 0
    assert page.inline_handlers == 0
    assert page.inline_scripts == 0
    assert len(page.ids) == len(set(page.ids))
    for attrs in page.inputs:
        if attrs.get("type") in {"radio", "checkbox"} or "id" in attrs:
            assert attrs.get("id") in page.labels_for, attrs


def test_the_breakdown_page_explains_its_absence_without_grouping_questions(
    open_survey, owner_client
):
    response = owner_client.get(url("breakdown", open_survey))
    assert response.status_code == 200
    assert "has no grouping questions" in text_of(response)


def test_a_bad_breakdown_query_is_a_400_naming_the_field(grouped_survey, owner_client):
    response = owner_client.get(url("breakdown", grouped_survey), {"by": "999999"})
    assert response.status_code == 400
    assert "Break down by" in text_of(response)
    assert "Choose one of this survey’s grouping questions" in text_of(response)


def test_the_breakdown_page_shows_n_per_group_and_why_cells_are_withheld(
    grouped_survey, options, simulate, owner_client
):
    sales, research, support = options
    rows = [[sales]] * 8 + [[research]] * 3 + [[support]] * 6
    rng = np.random.default_rng(7)
    simulate(grouped_survey, rng.random((len(rows), 2)) < 0.5, rows)
    response = owner_client.get(url("breakdown", grouped_survey))
    page = text_of(response)
    assert "8 respondents" in page and "3 respondents" in page and "6 respondents" in page
    assert "Withheld: 3 responses in this group, fewer than the survey’s minimum of 5" in page


def test_the_breakdown_says_where_the_exact_interval_replaces_the_requested_one(
    grouped_survey, options, simulate, owner_client
):
    sales, research, support = options
    rows = [[sales]] * 8 + [[research]] * 300 + [[support]] * 6
    rng = np.random.default_rng(7)
    simulate(grouped_survey, rng.random((len(rows), 2)) < 0.5, rows)
    result = selectors.survey_breakdown(
        survey=grouped_survey, grouping_question=grouped_survey.grouping_questions.get()
    )
    cells = result.rows[0].cells
    # 8 and 6 reports: Wilson could cover less than 93 %, so exact; 300 keep Wilson.
    assert [cell.estimate.method for cell in cells] == ["exact", "wilson", "exact"]
    assert {cell.estimate.requested_method for cell in cells} == {"wilson"}
    # Two questions, two small groups shown each (the minimum n is 5).
    assert result.methods_replaced == 4
    page = text_of(owner_client.get(url("breakdown", grouped_survey)))
    assert (
        "Where a group has so few reports that a 95% Wilson score interval could hold the true "
        "share less than 93% of the time, the exact (Clopper–Pearson) interval is shown instead"
    ) in page


def test_the_breakdown_shows_each_difference_with_its_exact_interval_and_says_so(
    grouped_survey, options, simulate, owner_client
):
    sales, research, support = options
    # Sales all "yes" (7), the rest all "no" (13): Wald's interval of this difference would
    # be a single point (both standard errors 0); the exact one is not.
    rows = [[sales]] * 7 + [[research]] * 7 + [[support]] * 6
    reports = np.array([[True, True]] * 7 + [[False, False]] * 13)
    simulate(grouped_survey, reports, rows)
    result = selectors.survey_breakdown(
        survey=grouped_survey, grouping_question=grouped_survey.grouping_questions.get()
    )
    shown = result.rows[0].cells[0].difference
    assert shown.method == "exact-product"
    assert shown.estimate == 1.0 and shown.low < 1.0 == shown.high
    page = owner_client.get(url("breakdown", grouped_survey)).content.decode()
    first_row = re.search(rf'<tr data-option="{sales}".*?</tr>', page, flags=re.S).group(0)
    assert 'data-method="exact-product" data-shown="difference">+100.0' in first_row
    low = f"{shown.low * 100:+.1f}"
    assert f"{low} to +100.0" in first_row
    text = text_of(owner_client.get(url("breakdown", grouped_survey)))
    assert (
        "The interval of a difference is exact, not the usual z-interval (which with small "
        "groups holds the true difference far less often than it says)"
    ) in text
    assert "levels whose product is 95%, so it holds the true difference at least 95%" in text
    korean = text_of(owner_client.get(url("breakdown", grouped_survey), HTTP_ACCEPT_LANGUAGE="ko"))
    assert "차이의 구간은 흔히 쓰는 z-구간" in korean


def test_the_regression_page_shows_the_model_and_the_r_code(
    grouped_survey, options, simulate, owner_client
):
    rng = np.random.default_rng(11)
    rows = [[options[i % 3]] for i in range(300)]
    simulate(grouped_survey, rng.random((300, 2)) < 0.5, rows)
    response = owner_client.get(url("regression", grouped_survey))
    page = text_of(response)
    assert response.status_code == 200
    assert "Reference group" in page
    assert "Which department do you work in?: Research (vs. Sales)" in page
    assert 'design = "forced-known"' in response.content.decode().replace("&quot;", '"')
    assert "p1 = 0.25" in page and "p0 = 0.25" in page


def test_the_planner_shows_the_needed_sample_and_a_chart(grouped_survey, owner_client):
    response = owner_client.get(url("planner", grouped_survey))
    page = response.content.decode()
    assert response.status_code == 200
    assert 'data-stat="respondents">1,537<' in page  # classic design, ±5 points, 95 %
    assert page.count('class="chart-curve') == 3


def test_the_planner_refuses_a_bad_margin_naming_the_field(grouped_survey, owner_client):
    response = owner_client.get(url("planner", grouped_survey), {"margin": "0"})
    assert response.status_code == 400
    assert "Half-width (percentage points, ±)" in text_of(response)


# --- a survey that mixes question types and designs -----------------------------------------


def test_the_breakdown_of_a_mixed_survey_covers_yes_no_questions_and_says_so(
    mixed_grouped, owner_client
):
    response = owner_client.get(url("breakdown", mixed_grouped))
    assert response.status_code == 200
    page = text_of(response)
    # Counted by kind, each with its reason and links to its results (selectors.left_out).
    assert "Not broken down by group: 1 multiple-choice question: randomized over" in page
    assert "1 numeric question: randomized with noise on a number" in page
    questions = list(mixed_grouped.questions.all())
    body = response.content.decode()
    assert f'data-question="{questions[1].pk}"' in body
    assert f'data-question="{questions[2].pk}"' not in body


def test_the_regression_of_a_mixed_survey_offers_yes_no_questions_only(mixed_grouped, owner_client):
    questions = list(mixed_grouped.questions.all())
    response = owner_client.get(url("regression", mixed_grouped), {"question": questions[1].pk})
    assert response.status_code == 200
    page = text_of(response)
    assert "Not offered in the regression" in page
    assert "1 multiple-choice question" in page and "1 numeric question" in page
    assert "Who answers “yes” to Q2?" in page
    code = html.unescape(response.content.decode())
    # A Warner question: RRreg's logistic regression with its model, not rr's forced design.
    assert "RRlog(Q2 ~ G1, data = d," in code and 'model = "Warner", p = 0.75' in code
    assert 'design = "forced-known"' not in code.split("Every question")[0]
    # The script for every question: RRuni per yes/no design, base R for the others.
    assert "y <- d$Q1[!is.na(d$Q1)]\nfit <- RRuni(response = y," in code
    assert 'model = "FR"' in code
    assert "shares <- (lambda - other) / (keep - other)" in code
    assert 'add("Q4", "mean", mean(y),' in code
    refused = owner_client.get(url("regression", mixed_grouped), {"question": questions[2].pk})
    assert refused.status_code == 400


def test_the_regression_api_refuses_a_choice_question(mixed_grouped, owner_api):
    questions = list(mixed_grouped.questions.all())
    path = f"/api/v1/surveys/{mixed_grouped.pk}/regression/"
    refused = owner_api.get(path, {"question": questions[3].pk})
    assert refused.status_code == 400 and list(refused.json()["errors"]) == ["question"]
    body = owner_api.get(path, {"question": questions[1].pk}).json()
    assert (body["design"], body["a"], body["b"]) == ("warner", 0.75, 0.25)
    assert body["p_truth"] is None and body["status"] == "fitted"


def test_the_planner_of_a_mixed_survey_gives_each_question_its_sample_size(
    mixed_grouped, owner_client
):
    response = owner_client.get(url("planner", mixed_grouped))
    assert response.status_code == 200
    page = response.content.decode()
    assert 'id="per-question-plan"' in page
    for kind in ("yes_no", "choice", "numeric"):
        assert f'data-kind="{kind}"' in page


@pytest.mark.parametrize("typed", ["Prefer not to say", "응답하지 않겠습니다", "不愿透露"])
@pytest.mark.slow
def test_the_builder_refuses_a_typed_prefer_not_to_say_and_names_the_built_in(
    make_survey, owner_client, typed
):
    survey = make_survey(status="draft")
    response = owner_client.post(
        url("grouping-add", survey),
        {"grouping-text": "Team?", "grouping-options": f"Sales\r\n{typed}\r\nOffice"},
    )
    assert response.status_code == 400
    assert "the built-in “Prefer not to say”" in html.unescape(text_of(response))
    assert not survey.grouping_questions.exists()


def test_the_translations_page_refuses_an_option_translated_into_prefer_not_to_say(
    grouped_draft, owner_client
):
    option = grouped_draft.grouping_questions.get().options.first()
    response = owner_client.post(
        reverse("surveys:translations", args=[grouped_draft.pk]),
        {f"zh-hans-o{option.pk}": "不愿透露"},
    )
    assert response.status_code == 400
    assert "the built-in “Prefer not to say”" in html.unescape(text_of(response))
    option.refresh_from_db()
    assert option.translations == {}


@pytest.mark.parametrize(
    ("lang", "named"), [("en", "Korean"), ("ko", "한국어"), ("zh-hans", "韩语")]
)
@pytest.mark.slow
def test_editing_a_grouping_question_says_which_language_it_stops_offering(
    grouped_draft, owner_client, lang, named
):
    """Issue 24: an edit wiped the options' translations and said only "saved"."""
    translations.survey_translations_save(
        survey=grouped_draft, texts=translation_texts(grouped_draft, into=("ko",))
    )
    gq = grouped_draft.grouping_questions.get()
    edit = url("grouping-edit", grouped_draft, gid=gq.pk)
    form = {"text": gq.text, "options": "Sales\nSupport"}
    response = owner_client.post(edit, form, follow=True, HTTP_ACCEPT_LANGUAGE=lang)
    assert "message--warning" not in response.content.decode()  # nothing lost: no warning
    form["options"] = "Sales\nSupport\nLegal"
    response = owner_client.post(edit, form, follow=True, HTTP_ACCEPT_LANGUAGE=lang)
    warning = re.search(r'class="message message--warning">([^<]*)<', response.content.decode())
    assert named in html.unescape(warning.group(1))
