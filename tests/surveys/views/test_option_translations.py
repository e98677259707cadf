"""A multiple-choice question's option labels on the Translations page (issue 17): one text
each, stored as ``Question.translations[lang]["options"]`` aligned with ``options``, needed
before a language is offered, named by the design fingerprint and frozen at opening."""

import pytest
from django.urls import reverse

from surveys import selectors, services
from surveys.selectors import languages
from surveys.services import translations

pytestmark = pytest.mark.django_db

QUESTIONS = [
    {"text": "Ever?"},
    {"text": "Which?", "type": "choice", "options": ["Red", "Green", "Blue"]},
]


@pytest.fixture
def choice_draft(make_survey):
    return make_survey(status="draft", questions=QUESTIONS)


def choice_question(survey):
    return survey.questions.get(kind="choice")


def page_url(survey):
    return reverse("surveys:translations", args=[survey.pk])


def test_each_option_label_has_its_own_row_and_inputs(owner_client, choice_draft):
    question = choice_question(choice_draft)
    html = owner_client.get(page_url(choice_draft)).content.decode()
    for index, (label, number) in enumerate(
        [("Red", "Q2 · 1"), ("Green", "Q2 · 2"), ("Blue", "Q2 · 3")]
    ):
        key = f"q{question.pk}o{index}"
        assert f'id="src-{key}"' in html and f">{label}</p>" in html
        assert f'name="ko-{key}"' in html and f'name="zh-hans-{key}"' in html
        assert f"{number}</span>" in html


def test_saved_labels_are_stored_aligned_with_the_options(owner_client, choice_draft):
    question = choice_question(choice_draft)
    data = {f"ko-q{question.pk}o0": "빨강", f"ko-q{question.pk}o2": " 파랑 "}
    response = owner_client.post(page_url(choice_draft), data)
    assert response.status_code == 302
    question.refresh_from_db()
    assert question.translations == {"ko": {"options": ["빨강", "", "파랑"]}}
    # Clearing every label removes the list (and the empty language).
    owner_client.post(
        page_url(choice_draft), {f"ko-q{question.pk}o0": "", f"ko-q{question.pk}o2": ""}
    )
    question.refresh_from_db()
    assert question.translations == {}


def test_a_language_is_offered_only_with_every_label_translated(choice_draft):
    table = languages.survey_translation_table(survey=choice_draft)
    question = choice_question(choice_draft)
    texts = {f"ko-{text.key}": f"{text.source} [ko]" for text in table.texts}
    missing = texts.pop(f"ko-q{question.pk}o1")
    translations.survey_translations_save(survey=choice_draft, texts=texts)
    choice_draft.refresh_from_db()  # the title's translation
    assert languages.survey_languages(survey=choice_draft) == ["en"]
    translations.survey_translations_save(
        survey=choice_draft, texts={f"ko-q{question.pk}o1": missing}
    )
    assert languages.survey_languages(survey=choice_draft) == ["en", "ko"]
    shown = languages.survey_for_respondent(survey=choice_draft, preferences=["ko"])
    assert shown.questions.all()[1].options == ["Red [ko]", "Green [ko]", "Blue [ko]"]
    # Nothing is saved by showing it.
    assert choice_question(choice_draft).options == ["Red", "Green", "Blue"]


def test_a_changed_label_translation_changes_the_fingerprint(choice_draft):
    key = f"ko-q{choice_question(choice_draft).pk}o1"
    before = selectors.survey_design_fingerprint(survey=choice_draft)
    translations.survey_translations_save(survey=choice_draft, texts={key: "초록"})
    first = selectors.survey_design_fingerprint(survey=choice_draft)
    translations.survey_translations_save(survey=choice_draft, texts={key: "녹색"})
    second = selectors.survey_design_fingerprint(survey=choice_draft)
    assert len({before, first, second}) == 3


def test_a_yes_no_only_surveys_fingerprint_is_unchanged_by_option_support(make_survey):
    survey = make_survey(status="draft", questions=["Ever?"])
    key = f"ko-q{survey.questions.get().pk}"
    translations.survey_translations_save(survey=survey, texts={key: "한 번이라도?"})
    assert (
        "options"
        not in languages.fingerprint_translations(
            survey=survey, questions=list(survey.questions.all()), grouping=[]
        )["ko"]
    )


def test_label_translations_freeze_at_opening(owner_client, make_translated_survey):
    survey = make_translated_survey(into=("ko",), questions=QUESTIONS)  # open: frozen
    question = choice_question(survey)
    html = owner_client.get(page_url(survey)).content.decode()
    assert f'name="ko-q{question.pk}o0"' not in html
    with pytest.raises(services.SurveyConflict):
        translations.survey_translations_save(
            survey=survey, texts={f"ko-q{question.pk}o0": "다른 것"}
        )


def test_changing_the_options_drops_their_translations(choice_draft):
    question = choice_question(choice_draft)
    translations.survey_translations_save(
        survey=choice_draft, texts={f"ko-q{question.pk}o0": "빨강", f"ko-q{question.pk}": "어느?"}
    )
    question.refresh_from_db()
    services.question_update(
        question=question,
        text="Which?",
        question_type={"type": "choice", "options": ["Cyan", "Magenta"]},
    )
    question.refresh_from_db()
    assert question.translations == {"ko": {"text": "어느?"}}
