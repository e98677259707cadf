"""One survey, several languages: which languages a survey is offered in, the respondent page
and the public definition in the respondent's language, what freezes at opening, and that
answers in every language pool into one set of tallies."""

import csv
import io
import re
import uuid

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from surveys import selectors, services
from surveys.models import Survey, design_fingerprint_of
from surveys.selectors import languages
from surveys.services import grouping, translations
from tests.helpers import question_tallies, translation_texts

pytestmark = pytest.mark.django_db


def page(client, survey, params=None, **headers):
    return client.get(reverse("surveys:respond", args=[survey.slug]), params, **headers)


def switcher_codes(html):
    form = re.search(r'<form class="language-switcher".*?</form>', html, re.DOTALL)
    return re.findall(r'<option value="([^"]+)"', form.group(0)) if form else []


def definition(respondent, survey, **params):
    return respondent.get(f"/api/v1/public/surveys/{survey.slug}/", params)


@pytest.fixture
def grouped_draft(make_survey):
    survey = make_survey(status=Survey.Status.DRAFT, intro="Please answer honestly.")
    grouping.grouping_question_add(survey=survey, text="Your age?", options=["Under 40", "40+"])
    return survey


# --- offered languages ----------------------------------------------------------------------


def offered(survey):
    survey.refresh_from_db()
    return languages.survey_languages(survey=survey)


def test_a_language_is_offered_only_once_every_text_is_translated(grouped_draft):
    texts = translation_texts(grouped_draft, into=("ko",))
    # title, intro, two questions, one grouping question and its two options
    assert len(texts) == 7
    assert offered(grouped_draft) == ["en"]
    option_key = next(key for key in texts if key.startswith("ko-o"))
    last = texts.pop(option_key)
    translations.survey_translations_save(survey=grouped_draft, texts=texts)
    assert offered(grouped_draft) == ["en"]  # one label missing
    translations.survey_translations_save(survey=grouped_draft, texts={option_key: last})
    assert offered(grouped_draft) == ["en", "ko"]
    # A blank text removes that translation: the language is no longer offered.
    translations.survey_translations_save(survey=grouped_draft, texts={option_key: "  "})
    assert offered(grouped_draft) == ["en"]


def test_the_translations_page_lists_every_text_with_what_is_missing(owner_client, grouped_draft):
    translations.survey_translations_save(survey=grouped_draft, texts={"ko-title": "직장 습관"})
    response = owner_client.get(reverse("surveys:translations", args=[grouped_draft.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    for text in ("Workplace habits", "Please answer honestly.", "Your age?", "Under 40", "40+"):
        assert text in html
    assert 'value="직장 습관"' in html
    assert "6 of 7 texts missing: not offered yet" in html  # Korean
    assert "7 of 7 texts missing: not offered yet" in html  # Chinese
    # One input per text and other language, none for the survey's own language.
    names = re.findall(r'name="((?:ko|zh-hans|en)-[a-z0-9]+)"', html)
    assert len(names) == 14 and not any(name.startswith("en-") for name in names)


def test_saving_the_translations_page_offers_the_language(owner_client, grouped_draft):
    url = reverse("surveys:translations", args=[grouped_draft.pk])
    response = owner_client.post(url, translation_texts(grouped_draft, into=("ko",)))
    assert response.status_code == 302
    assert offered(grouped_draft) == ["en", "ko"]
    html = owner_client.get(url).content.decode()
    assert "Complete: offered to respondents" in html
    assert f"{reverse('surveys:preview', args=[grouped_draft.pk])}?lang=ko" in html


def test_a_too_long_translation_is_refused_naming_the_field_and_nothing_is_stored(
    owner_client, grouped_draft
):
    texts = translation_texts(grouped_draft, into=("ko",))
    texts["ko-title"] = "x" * 201
    response = owner_client.post(reverse("surveys:translations", args=[grouped_draft.pk]), texts)
    assert response.status_code == 400
    assert response.context["form"].errors["ko-title"]
    grouped_draft.refresh_from_db()
    assert grouped_draft.translations == {}
    assert all(q.translations == {} for q in grouped_draft.questions.all())


def test_the_service_refuses_a_key_that_names_no_text_of_the_survey(grouped_draft, make_survey):
    other = make_survey()
    key = f"ko-q{other.questions.first().pk}"
    with pytest.raises(ValidationError) as caught:
        translations.survey_translations_save(survey=grouped_draft, texts={key: "문항"})
    assert key in caught.value.message_dict
    with pytest.raises(ValidationError) as caught:
        translations.survey_translations_save(survey=grouped_draft, texts={"en-title": "x"})
    assert "en-title" in caught.value.message_dict  # the survey's own language


def test_another_owners_translations_page_is_a_404(other_client, grouped_draft):
    url = reverse("surveys:translations", args=[grouped_draft.pk])
    assert other_client.get(url).status_code == 404
    assert other_client.post(url, {"ko-title": "x"}).status_code == 404
    grouped_draft.refresh_from_db()
    assert grouped_draft.translations == {}


def test_the_default_language_cannot_become_one_the_survey_is_translated_into(
    make_translated_survey,
):
    survey = make_translated_survey(status=Survey.Status.DRAFT, into=("ko",))
    with pytest.raises(ValidationError) as caught:
        services.survey_update(survey=survey, data={"language": "ko"})
    assert "language" in caught.value.message_dict
    services.survey_update(survey=survey, data={"language": "zh-hans"})  # not translated: fine


# --- the respondent page --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"HTTP_ACCEPT_LANGUAGE": "ko-KR,ko;q=0.9"}, "ko"),
        ({"HTTP_ACCEPT_LANGUAGE": "fr,zh-CN;q=0.8,ko;q=0.5"}, "zh-hans"),  # best offered
        ({"HTTP_ACCEPT_LANGUAGE": "ko;q=0.2,zh-CN;q=0.9"}, "zh-hans"),  # by quality
        ({}, "en"),
    ],
)
def test_the_page_shows_the_survey_and_its_chrome_in_the_browsers_language(
    client, make_translated_survey, headers, expected
):
    survey = make_translated_survey()
    response = page(client, survey, **headers)
    html = response.content.decode()
    bcp47 = {"en": "en", "ko": "ko", "zh-hans": "zh-Hans"}[expected]
    assert f'<html lang="{bcp47}">' in html
    assert response.headers["Content-Language"] == expected
    suffix = "" if expected == "en" else f" [{expected}]"
    assert f'<h1 lang="{bcp47}">{survey.title}{suffix}</h1>' in html
    for question in survey.questions.all():
        assert f'<span class="question-text" lang="{bcp47}">{question.text}{suffix}</span>' in html
    send = {"en": "Randomize and send my answers", "ko": "무작위화하여 응답 보내기"}
    send["zh-hans"] = "随机化并发送我的回答"
    assert send[expected] in html
    assert not response.cookies


def test_grouping_questions_and_options_are_shown_translated(client, grouped_draft):
    translations.survey_translations_save(
        survey=grouped_draft, texts=translation_texts(grouped_draft, into=("ko",))
    )
    services.survey_open(survey=grouped_draft)
    html = page(client, grouped_draft, HTTP_ACCEPT_LANGUAGE="ko").content.decode()
    assert '<span class="question-text" lang="ko">Your age? [ko]</span>' in html
    assert '<span lang="ko">Under 40 [ko]</span>' in html and "40+ [ko]" in html


def test_a_language_not_offered_falls_back_to_the_default_for_text_and_chrome(
    client, make_translated_survey
):
    survey = make_translated_survey(into=("ko",))
    html = page(client, survey, {"lang": "zh-hans"}).content.decode()
    assert '<html lang="en">' in html
    assert f'<h1 lang="en">{survey.title}</h1>' in html
    assert "Randomize and send my answers" in html


def test_lang_in_the_address_wins_over_the_browser(client, make_translated_survey):
    survey = make_translated_survey()
    response = client.get(
        reverse("surveys:respond", args=[survey.slug]), {"lang": "ko"}, HTTP_ACCEPT_LANGUAGE="zh"
    )
    assert '<html lang="ko">' in response.content.decode()
    assert not response.cookies


def test_the_switcher_offers_only_the_surveys_languages(
    client, make_survey, make_translated_survey
):
    assert switcher_codes(page(client, make_translated_survey(into=("ko",))).content.decode()) == [
        "en",
        "ko",
    ]
    assert switcher_codes(page(client, make_translated_survey()).content.decode()) == [
        "en",
        "ko",
        "zh-hans",
    ]
    # One language: nothing to switch to, so no switcher.
    assert switcher_codes(page(client, make_survey()).content.decode()) == []


# --- the public definition ------------------------------------------------------------------


def test_the_public_definition_comes_in_the_requested_language(respondent, make_translated_survey):
    survey = make_translated_survey(into=("ko",))
    korean = definition(respondent, survey, lang="ko")
    assert korean.status_code == 200
    body = korean.json()
    assert body["language"] == "ko" and body["default_language"] == "en"
    assert body["languages"] == ["en", "ko"]
    assert body["title"] == f"{survey.title} [ko]"
    assert [q["text"] for q in body["questions"]] == [
        f"{q.text} [ko]" for q in survey.questions.all()
    ]
    assert korean.headers["Content-Language"] == "ko"
    assert "Accept-Language" in korean.headers["Vary"]
    by_browser = respondent.get(
        f"/api/v1/public/surveys/{survey.slug}/", HTTP_ACCEPT_LANGUAGE="ko-KR"
    ).json()
    assert by_browser["language"] == "ko"
    english = definition(respondent, survey, lang="zh-hans").json()  # not offered
    assert english["language"] == "en" and english["title"] == survey.title
    # One design whatever the language: the same fingerprint, so the browser's memoised
    # draws are shared by every language (switching cannot redraw the coins).
    assert body["design_fingerprint"] == english["design_fingerprint"]
    assert body["design_fingerprint"] == survey.design_fingerprint


def test_the_definition_reads_no_more_than_without_translations(
    respondent, make_translated_survey, django_assert_max_num_queries
):
    survey = make_translated_survey()
    with django_assert_max_num_queries(5):  # survey, its copy, questions, grouping, options
        assert definition(respondent, survey, lang="ko").status_code == 200


# --- frozen at opening, one fingerprint -----------------------------------------------------


def test_an_untranslated_survey_keeps_the_fingerprint_it_always_had(open_survey):
    expected = design_fingerprint_of(
        p_truth=0.5,
        p_forced_yes=0.5,
        questions=open_survey.questions.values_list("id", "text"),
        grouping=[],
    )
    assert open_survey.design_fingerprint == expected


def test_question_translations_enter_the_fingerprint(grouped_draft):
    before = selectors.survey_design_fingerprint(survey=grouped_draft)
    key = f"ko-q{grouped_draft.questions.first().pk}"
    translations.survey_translations_save(survey=grouped_draft, texts={key: "문항 하나"})
    changed = selectors.survey_design_fingerprint(survey=grouped_draft)
    assert changed != before
    translations.survey_translations_save(survey=grouped_draft, texts={key: "문항 둘"})
    assert selectors.survey_design_fingerprint(survey=grouped_draft) not in (before, changed)
    # The title is not a question: it changes no fingerprint (it stays editable when open).
    same = selectors.survey_design_fingerprint(survey=grouped_draft)
    translations.survey_translations_save(survey=grouped_draft, texts={"ko-title": "제목"})
    assert selectors.survey_design_fingerprint(survey=grouped_draft) == same


def test_question_translations_freeze_at_opening_but_title_and_intro_do_not(
    make_translated_survey,
):
    survey = make_translated_survey(into=("ko",))
    fingerprint = survey.design_fingerprint
    question_key = f"zh-hans-q{survey.questions.first().pk}"
    with pytest.raises(services.SurveyFrozen):
        translations.survey_translations_save(survey=survey, texts={question_key: "问题"})
    option_free = {"zh-hans-title": "工作习惯", "ko-title": "직장 습관"}
    translations.survey_translations_save(survey=survey, texts=option_free)
    survey.refresh_from_db()
    assert survey.translations["zh-hans"] == {"title": "工作习惯"}
    assert survey.design_fingerprint == fingerprint
    assert all("zh-hans" not in q.translations for q in survey.questions.all())
    # Unchanged question texts may be sent again (the page posts every field).
    translations.survey_translations_save(
        survey=survey,
        texts={f"ko-q{survey.questions.first().pk}": survey.questions.first().text + " [ko]"},
    )


def test_a_frozen_page_shows_question_translations_read_only(owner_client, make_translated_survey):
    survey = make_translated_survey(into=("ko",))
    html = owner_client.get(reverse("surveys:translations", args=[survey.pk])).content.decode()
    assert "Question and option translations are locked." in html
    names = set(re.findall(r'name="((?:ko|zh-hans)-[a-z0-9]+)"', html))
    assert names == {"ko-title", "zh-hans-title"}


# --- answers pool, nothing about language is stored -----------------------------------------


def test_answers_in_three_languages_pool_into_one_tally(respondent, make_translated_survey):
    survey = make_translated_survey()
    bodies = []
    for lang in ("en", "ko", "zh-hans"):
        shown = definition(respondent, survey, lang=lang).json()
        assert shown["language"] == lang
        body = {
            "submission_id": str(uuid.uuid4()),
            "answers": {str(q["id"]): True for q in shown["questions"]},
            "design_fingerprint": shown["design_fingerprint"],
        }
        bodies.append(body)
        response = respondent.post(
            f"/api/v1/public/surveys/{survey.slug}/responses/",
            body,
            format="json",
            HTTP_ACCEPT_LANGUAGE=lang,
        )
        assert response.status_code == 201
    assert question_tallies(survey) == [(3, 3), (3, 3)]
    assert selectors.survey_tallies(survey=survey).responses == 3
    # A submission that names its language is refused: the body has no such field.
    body = {**bodies[0], "submission_id": str(uuid.uuid4()), "language": "ko"}
    response = respondent.post(
        f"/api/v1/public/surveys/{survey.slug}/responses/", body, format="json"
    )
    assert response.status_code == 400 and "language" in response.json()["errors"]


def rows_named(rows, name):
    [row] = [row for row in rows if row[:2] == ["survey", name]]
    return row[:4]


def test_exports_name_the_languages_only_in_aggregate(owner_client, make_translated_survey, submit):
    survey = make_translated_survey(into=("ko",))
    assert submit(survey, [True, False]).status_code == 201
    codebook = owner_client.get(reverse("surveys:codebook-csv", args=[survey.pk]))
    rows = list(csv.reader(io.StringIO(b"".join(codebook.streaming_content).decode())))
    assert rows_named(rows, "languages_offered") == ["survey", "languages_offered", "", "en ko"]
    raw = owner_client.get(reverse("surveys:responses-csv", args=[survey.pk]))
    text = b"".join(raw.streaming_content).decode()
    assert "ko" not in text.splitlines()[0] and "lang" not in text
    # Results use the survey's own language.
    results = owner_client.get(reverse("surveys:results", args=[survey.pk])).content.decode()
    assert survey.questions.first().text in results and "[ko]" not in results


@pytest.mark.slow
def test_duplicating_copies_every_translation(grouped_draft):
    translations.survey_translations_save(
        survey=grouped_draft, texts=translation_texts(grouped_draft, into=("ko", "zh-hans"))
    )
    grouped_draft.refresh_from_db()
    copy = services.survey_duplicate(survey=grouped_draft)
    assert offered(copy) == ["en", "ko", "zh-hans"]
    original = languages.survey_translation_table(survey=grouped_draft)
    copied = languages.survey_translation_table(survey=copy)
    assert [
        (text.kind, text.translated("ko"), text.translated("zh-hans")) for text in copied.texts
    ] == [(text.kind, text.translated("ko"), text.translated("zh-hans")) for text in original.texts]
    assert copy.slug != grouped_draft.slug


def test_the_preview_shows_an_offered_language_on_request(owner_client, make_translated_survey):
    survey = make_translated_survey(into=("ko",), status=Survey.Status.DRAFT)
    url = reverse("surveys:preview", args=[survey.pk])
    korean = owner_client.get(url, {"lang": "ko"}).content.decode()
    assert f'<h1 lang="ko">{survey.title} [ko]</h1>' in korean
    assert "Preview" in korean  # the researcher's own interface language stays
    english = owner_client.get(url, {"lang": "zh-hans"}).content.decode()  # not offered
    assert f'<h1 lang="en">{survey.title}</h1>' in english


def test_the_consent_text_is_translated_and_frozen_with_the_questions(make_translated_survey):
    survey = make_translated_survey(
        into=("ko",), status="draft", consent_text="Taking part is voluntary."
    )
    survey.refresh_from_db()
    # Offered in Korean only because the consent text is translated too.
    assert survey.translations["ko"]["consent_text"] == "Taking part is voluntary. [ko]"
    assert languages.survey_languages(survey=survey) == ["en", "ko"]
    korean = languages.survey_for_respondent(survey=survey, preferences=["ko"])
    assert korean.consent_text == "Taking part is voluntary. [ko]"

    survey = services.survey_open(survey=survey)
    with pytest.raises(services.SurveyFrozen):
        translations.survey_translations_save(
            survey=survey, texts={"ko-consent": "Something else."}
        )
    with pytest.raises(services.SurveyFrozen):
        translations.survey_update_translated(
            survey=survey, data={}, translations={"ko": {"title": "T", "consent_text": "Other"}}
        )
    survey.refresh_from_db()
    assert survey.translations["ko"]["consent_text"] == "Taking part is voluntary. [ko]"
    # The title's translation stays editable after opening, as the title itself is.
    translations.survey_update_translated(
        survey=survey,
        data={},
        translations={"ko": {"title": "T", "consent_text": "Taking part is voluntary. [ko]"}},
    )
    survey.refresh_from_db()
    assert survey.translations["ko"]["title"] == "T"
