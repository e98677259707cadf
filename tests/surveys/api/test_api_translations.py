"""Translations through the researcher API: survey and question objects accept and return
``translations: {"ko": {...}, "zh-hans": {...}}``, documented in the OpenAPI schema."""

import pytest

from surveys.models import Question, Survey

pytestmark = pytest.mark.django_db

LIST_URL = "/api/v1/surveys/"


def detail_url(survey_id):
    return f"/api/v1/surveys/{survey_id}/"


def translated_survey(**fields):
    return {
        "title": "Workplace habits",
        "intro": "Anonymous.",
        "p_truth": 0.5,
        "p_forced_yes": 0.5,
        "translations": {
            "ko": {"title": "직장 습관", "intro": "익명입니다."},
            "zh-hans": {"title": "工作习惯", "intro": "匿名。"},
        },
        "questions": [
            {
                "text": "Taken office supplies home?",
                "translations": {"ko": {"text": "사무용품을 집에 가져간 적이 있습니까?"}},
            },
            {
                "text": "Used drugs at work?",
                "translations": {"ko": {"text": "직장에서 약물을 사용한 적이 있습니까?"}},
            },
        ],
        **fields,
    }


def test_create_stores_and_returns_the_translations(owner_api):
    response = owner_api.post(LIST_URL, translated_survey(), format="json")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["translations"]["zh-hans"] == {"title": "工作习惯", "intro": "匿名。"}
    assert body["questions"][0]["translations"] == {
        "ko": {"text": "사무용품을 집에 가져간 적이 있습니까?"}
    }
    # Korean is complete; Chinese has only the title and intro.
    assert body["languages"] == ["en", "ko"]
    survey = Survey.objects.get(pk=body["id"])
    assert survey.translations["ko"]["title"] == "직장 습관"
    assert owner_api.get(detail_url(survey.pk)).json() == body


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        ({"translations": {"fr": {"title": "x"}}}, "translations", "'fr' is not a language"),
        ({"translations": {"en": {"title": "x"}}}, "translations", "survey's own language"),
        ({"translations": {"ko": {"text": "x"}}}, "translations", "'text' is not a translatable"),
        ({"translations": {"ko": {"title": 3}}}, "translations", "ko: title: Must be text"),
        ({"translations": {"ko": {"title": "x" * 201}}}, "translations", "At most 200"),
        ({"translations": ["ko"]}, "translations", "Must be an object"),
        ({"translations": {"ko": {"title": "a\x00b"}}}, "translations", "Null characters"),
    ],
)
def test_bad_translations_are_refused_naming_the_field_and_nothing_is_stored(
    owner_api, change, field, words
):
    response = owner_api.post(LIST_URL, translated_survey(**change), format="json")
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert list(errors) == [field]
    assert words in errors[field][0]
    assert not Survey.objects.exists() and not Question.objects.exists()


def test_a_bad_question_translation_names_the_question(owner_api):
    body = translated_survey()
    body["questions"][1]["translations"] = {"ko": {"label": "x"}}
    response = owner_api.post(LIST_URL, body, format="json")
    assert response.status_code == 400
    assert response.json()["errors"]["questions"][0].startswith("[1] translations: ko: ")
    assert not Survey.objects.exists()


def test_patch_replaces_the_translations_and_survey_texts_stay_editable_once_open(owner_api):
    created = owner_api.post(LIST_URL, translated_survey(), format="json").json()
    assert owner_api.post(f"/api/v1/surveys/{created['id']}/open/").status_code == 200
    response = owner_api.patch(
        detail_url(created["id"]),
        {"translations": {"ko": {"title": "직장 생활", "intro": "익명입니다."}}},
        format="json",
    )
    assert response.status_code == 200
    assert response.json()["translations"] == {"ko": {"title": "직장 생활", "intro": "익명입니다."}}
    assert response.json()["languages"] == ["en", "ko"]
    # The questions (and their translations) are frozen: 409, nothing changes.
    questions = [
        {"text": q["text"], "translations": {"ko": {"text": "바뀐 문항"}}}
        for q in created["questions"]
    ]
    response = owner_api.patch(detail_url(created["id"]), {"questions": questions}, format="json")
    assert response.status_code == 409
    assert Question.objects.filter(translations__ko__text="바뀐 문항").count() == 0


def test_another_owners_survey_translations_are_a_404(owner_api, other_api):
    created = owner_api.post(LIST_URL, translated_survey(), format="json").json()
    response = other_api.patch(
        detail_url(created["id"]), {"translations": {"ko": {"title": "x"}}}, format="json"
    )
    assert response.status_code == 404
    assert Survey.objects.get(pk=created["id"]).translations["ko"]["title"] == "직장 습관"


def test_the_schema_documents_translations_on_surveys_and_questions(anonymous_api):
    schema = anonymous_api.get("/api/schema/?format=json").json()
    components = schema["components"]["schemas"]
    survey = components["Survey"]["properties"]
    question = components["Question"]["properties"]
    assert survey["translations"]["additionalProperties"]["properties"].keys() == {
        "title",
        "intro",
        "consent_text",
    }
    assert question["translations"]["additionalProperties"]["properties"].keys() == {
        "text",
        "options",
    }
    assert "languages" in survey and survey["languages"]["readOnly"] is True
    public = components["PublicSurvey"]["properties"]
    assert {"language", "default_language", "languages"} <= public.keys()
    parameters = schema["paths"]["/api/v1/public/surveys/{slug}/"]["get"]["parameters"]
    assert "lang" in [parameter["name"] for parameter in parameters]
