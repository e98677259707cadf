"""Korean and Chinese sentences a respondent reads never hang a particle on a quoted word.

A Korean particle depends on the word before it ("예를", "아니요를"; "답변이", "예가"), so a
sentence with a placeholder in front of a particle either reads "“예”을(를)" or is wrong for
some answer. The catalogs write such sentences around the quote instead ("“예”라고",
"“예” 쪽을", "기기가 보내는 답은 “예”입니다"). Every sentence a respondent reads is
rendered here in ko and zh-Hans with every answer label: the respondent page of a survey of
every kind (its practice and its feedback are the page script's messages, static/js/
messages.js, filled in with each label), the invitation email and the printed slips.
Researcher-side error messages about a value may keep the usual "은(는)" form.
"""

import gettext
import json
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.core import mail
from django.utils import translation

from surveys import services
from surveys.services import invitation_mail, invitations, translations
from tests.helpers import EVERY_KIND_QUESTIONS, EVERY_KIND_SETTINGS, translation_texts

ROOT = Path(settings.BASE_DIR)
BOTH_FORMS = ("(를)", "(을)", "(가)", "(이)", "(은)", "(는)")
LOCALES = {"ko": "ko", "zh-hans": "zh_Hans"}  # language code: catalog directory
BCP47 = {"ko": "ko", "zh-hans": "zh-Hans"}
JS_MESSAGES = ROOT / "static" / "js" / "messages.js"
GETTEXT_CALL = re.compile(r'gettext\(\s*"((?:[^"\\]|\\.)*)"', re.S)
PLACEHOLDER = re.compile(r"%\((\w+)\)s")


def both_forms_in(text):
    return [form for form in BOTH_FORMS if form in text]


def js_catalog(locale):
    return gettext.translation("djangojs", localedir=ROOT / "locale", languages=[locale])


def js_msgids():
    return [json.loads(f'"{found}"') for found in GETTEXT_CALL.findall(JS_MESSAGES.read_text())]


def answer_labels(catalog):
    """Every label an answer placeholder can hold in this language: yes, no, and the card
    colours of the practice."""
    return sorted({catalog.gettext(label) for label in ("Yes", "No", "yes", "no", "red", "black")})


def test_the_script_messages_are_found():
    ids = js_msgids()
    assert "Right: your device sends “%(sent)s”." in ids
    assert len(ids) > 40


@pytest.mark.parametrize("locale", LOCALES.values())
def test_every_script_sentence_reads_whole_with_every_answer(locale):
    catalog = js_catalog(locale)
    labels = answer_labels(catalog)
    assert len(labels) == 6 and all(labels)  # translated, not the English fallbacks
    checked = 0
    for msgid in js_msgids():
        translated = catalog.gettext(msgid)
        names = PLACEHOLDER.findall(translated)
        for label in labels:
            text = translated % {name: label for name in names} if names else translated
            assert both_forms_in(text) == [], (msgid, text)
            checked += 1
    assert checked > 200


def test_the_particles_follow_no_answer_in_korean():
    """The Korean feedback of the practice names the answer without a particle on it."""
    catalog = js_catalog("ko")
    sent = catalog.gettext("Right: your device sends “%(sent)s”.")
    for label in answer_labels(catalog):
        shown = sent % {"sent": label}
        assert shown.endswith(f"“{label}”입니다.")


@pytest.fixture
def every_kind_survey(make_survey):
    survey = make_survey(
        questions=EVERY_KIND_QUESTIONS,
        status="draft",
        consent_text="I agree.",
        **EVERY_KIND_SETTINGS,
    )
    translations.survey_translations_save(
        survey=survey, texts=translation_texts(survey, into=tuple(LOCALES))
    )
    return survey


@pytest.mark.parametrize("language", LOCALES)
def test_the_respondent_page_reads_whole(client, every_kind_survey, language):
    survey = services.survey_open(survey=every_kind_survey)
    response = client.get(f"/s/{survey.slug}/", HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    html = response.content.decode()
    assert f'<html lang="{BCP47[language]}">' in html
    assert 'id="respond-practice"' in html  # the practice is on the page
    assert both_forms_in(html) == []


@pytest.mark.parametrize("language", LOCALES)
def test_the_invitation_email_and_slips_read_whole(make_survey, owner_client, settings, language):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    survey = make_survey(status="draft", access="invitation", language=language)
    invitations.invitations_create(survey=survey, emails=["ana@example.org"], count=None)
    invitations.invitations_create(survey=survey, count=3)
    # The email says whom it is sent for, as the researcher chose to be shown: a sentence
    # around a name (never their username).
    survey.contact_name = "Dr. Kim Jiwoo"
    survey.save(update_fields=["contact_name"])
    report = invitation_mail.invitations_send(base_url="https://rr.example")
    assert report.sent == 1
    body = mail.outbox[0].subject + mail.outbox[0].body
    assert "Dr. Kim Jiwoo" in body
    assert survey.owner.get_username() not in body
    assert both_forms_in(body) == []
    # The slips of anonymous codes are handed to respondents: in the researcher's language.
    with translation.override(language):
        sheet = owner_client.get(
            f"/surveys/{survey.pk}/invitees/sheet/", HTTP_ACCEPT_LANGUAGE=language
        )
    assert sheet.status_code == 200
    assert both_forms_in(sheet.content.decode()) == []
