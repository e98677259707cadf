"""English, Korean and Simplified Chinese: every interface string translated, and shown.

The catalogs are checked against the sources with gettext's own tools: Django's makemessages
extracts the strings of a copy of the sources (templates, Python, static/js) into fresh .pot
files, and ``msgcmp`` reports every message of those that ko or zh_Hans lacks, leaves empty
or marks fuzzy. Add a string anywhere without translating it and this fails; ``make messages``
then updates the catalogs.
"""

import ast
import contextlib
import gettext
import re
import shutil
import subprocess
import uuid
from pathlib import Path

import pytest
import rest_framework
from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.test import Client, RequestFactory, override_settings
from django.urls import reverse
from django.utils import translation
from django.views.defaults import server_error

from surveys import rate_limits, services
from surveys.api.drf_messages import DRF_MESSAGES
from surveys.models import Survey

ROOT = Path(settings.BASE_DIR)
LOCALES = ("ko", "zh_Hans")
DOMAINS = ("django", "djangojs")
# Where the sources of translatable strings are not (the Makefile's MESSAGES_IGNORE).
NOT_SOURCES = {
    ".git", ".venv", "node_modules", "locale", "tests", "bench", "docs", "deploy", "dpengine",
    "vendor", "staticfiles", "test-artifacts", "__pycache__", "migrations",
}  # fmt: skip
SOURCE_SUFFIXES = {".py", ".html", ".txt", ".js"}


def po_path(locale, domain):
    return ROOT / "locale" / locale / "LC_MESSAGES" / f"{domain}.po"


def catalog(mo_file):
    with open(mo_file, "rb") as handle:
        return gettext.GNUTranslations(handle)._catalog


def msgfmt(po_file, mo_file):
    subprocess.run(
        ["msgfmt", "--check", "-o", str(mo_file), str(po_file)],
        check=True,
        capture_output=True,
        text=True,
    )


def _only_sources(directory, names):
    def skipped(name):
        path = Path(directory) / name
        if path.is_dir():
            return name in NOT_SOURCES or name.startswith(".")
        return path.suffix not in SOURCE_SUFFIXES

    return [name for name in names if skipped(name)]


@pytest.fixture(scope="module")
def templates_pot(tmp_path_factory):
    """{domain: .pot file} extracted from a copy of the sources by Django's makemessages."""
    work = tmp_path_factory.mktemp("messages")
    sources = work / "src"
    shutil.copytree(ROOT, sources, ignore=_only_sources)
    out = work / "locale"
    out.mkdir()
    # A copy, so makemessages cannot find (or touch) the real locale/ folder.
    with override_settings(LOCALE_PATHS=[out]), contextlib.chdir(sources):
        for domain in DOMAINS:
            call_command("makemessages", locale=["ko"], domain=domain, keep_pot=True, verbosity=0)
    return {domain: out / f"{domain}.pot" for domain in DOMAINS}


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("locale", LOCALES)
@pytest.mark.slow
def test_every_string_in_the_sources_is_translated(templates_pot, locale, domain):
    pot = templates_pot[domain]
    assert pot.exists(), f"makemessages found no {domain} strings at all"
    assert pot.read_text(encoding="utf-8").count("msgid ") > 10
    result = subprocess.run(
        ["msgcmp", str(po_path(locale, domain)), str(pot)], capture_output=True, text=True
    )
    assert result.returncode == 0, (
        f"{locale}/{domain}.po lacks translations (run `make messages`, translate):\n"
        + result.stderr
    )


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("locale", LOCALES)
def test_catalogs_are_complete_checked_and_compiled(tmp_path, locale, domain):
    po = po_path(locale, domain)
    text = po.read_text(encoding="utf-8")
    assert "#, fuzzy" not in text and not re.search(r"#,.*\bfuzzy\b", text)
    expected_language = {"ko": "ko", "zh_Hans": "zh_Hans"}[locale]
    assert f'"Language: {expected_language}\\n"' in text
    assert '"Plural-Forms: nplurals=1; plural=0;\\n"' in text  # no plural forms in either
    # --check: every %(name)s / {name} of a message is in its translation, and vice versa.
    fresh = tmp_path / "fresh.mo"
    msgfmt(po, fresh)
    compiled = po.with_suffix(".mo")
    assert catalog(compiled) == catalog(fresh), f"{compiled} is stale: run `make messages`"
    empty = [key for key, value in catalog(fresh).items() if key and not value]
    assert empty == []


GETTEXT_FUNCTIONS = {"_", "gettext", "gettext_lazy", "ngettext", "ngettext_lazy", "gettext_noop"}


def test_no_translatable_string_hides_inside_an_f_string():
    # xgettext does not look inside f-strings: a _() there is never extracted, so never
    # translated, and the extraction test above cannot notice. Call it before the f-string.
    hidden = []
    for path in sorted([*ROOT.glob("surveys/**/*.py"), *ROOT.glob("config/**/*.py")]):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.JoinedStr):
                hidden += [
                    f"{path.relative_to(ROOT)}:{call.lineno}"
                    for call in ast.walk(node)
                    if isinstance(call, ast.Call)
                    and isinstance(call.func, ast.Name)
                    and call.func.id in GETTEXT_FUNCTIONS
                ]
    assert hidden == []


def test_drf_messages_listed_for_translation_are_still_messages_drf_sends():
    source = "\n".join(
        path.read_text(encoding="utf-8")
        for path in Path(rest_framework.__file__).parent.glob("*.py")
    )
    missing = [message for message in DRF_MESSAGES if f"'{message}'" not in source]
    assert missing == []


# --- the language a visitor gets -----------------------------------------------------------


@pytest.mark.parametrize(
    ("accept_language", "html_lang", "sign_in"),
    [
        ("", "en", "Sign in"),
        ("ko-KR,ko;q=0.9,en;q=0.8", "ko", "로그인"),
        ("zh-CN,zh;q=0.9", "zh-Hans", "登录"),
        ("zh-Hans", "zh-Hans", "登录"),
        ("fr-FR,fr;q=0.9", "en", "Sign in"),
    ],
)
def test_pages_follow_the_browsers_language_with_a_bcp47_html_lang(
    client, accept_language, html_lang, sign_in
):
    headers = {"HTTP_ACCEPT_LANGUAGE": accept_language} if accept_language else {}
    html = client.get(reverse("login"), **headers).content.decode()
    assert f'<html lang="{html_lang}">' in html
    assert f"<title>{sign_in} · rrsurvey</title>" in html


def switcher(html):
    match = re.search(r'<form class="language-switcher".*?</form>', html, re.DOTALL)
    assert match, "no language switcher on the page"
    return match.group(0)


@pytest.fixture
def every_page(owner_client, make_survey, make_translated_survey, submit):
    # Offered in every language, so its respondent page offers them all in its menu.
    survey = make_translated_survey()
    assert submit(survey, [True, False]).status_code == 201
    draft = make_survey(title="Draft", status=Survey.Status.DRAFT)
    return [
        reverse("surveys:dashboard"),
        reverse("surveys:survey-new"),
        reverse("surveys:builder", args=[survey.pk]),
        reverse("surveys:preview", args=[survey.pk]),
        reverse("surveys:translations", args=[survey.pk]),
        reverse("surveys:share", args=[survey.pk]),
        reverse("surveys:results", args=[survey.pk]) + "?method=exact&level=0.9",
        reverse("surveys:delete", args=[survey.pk]),
        reverse("surveys:respond", args=[survey.slug]),
        reverse("surveys:respond", args=[draft.slug]),
        reverse("surveys:respond", args=["no-such-survey"]),
    ]


def assert_switcher_returns_to(response, path):
    assert response.status_code in (200, 404), path
    form = switcher(response.content.decode())
    if path.startswith("/s/"):
        # Respondent pages set no cookie: the choice goes back to this page as ?lang=.
        assert f'method="get" action="{path.split("?")[0]}"' in form, path
        assert "csrfmiddlewaretoken" not in form and 'name="lang"' in form, path
        assert "Set-Cookie" not in response.headers, path
    else:
        assert f'action="{reverse("set_language")}"' in form, path
        assert 'method="post"' in form and "csrfmiddlewaretoken" in form, path
        assert f'name="next" value="{path.replace("&", "&amp;")}"' in form, path
    options = re.findall(r'<option value="([^"]+)" lang="([^"]+)"( selected)?>', form)
    assert options == [("en", "en", ""), ("ko", "ko", " selected"), ("zh-hans", "zh-Hans", "")]


def test_every_page_has_a_language_switcher_that_returns_to_it(owner_client, every_page):
    for path in every_page:
        assert_switcher_returns_to(owner_client.get(path, HTTP_ACCEPT_LANGUAGE="ko"), path)
    anonymous = Client()
    for path in (reverse("surveys:home"), reverse("login"), reverse("signup")):
        assert_switcher_returns_to(anonymous.get(path, HTTP_ACCEPT_LANGUAGE="ko"), path)


def test_switching_language_keeps_the_visitor_on_the_same_page(client, make_translated_survey):
    open_survey = make_translated_survey()
    page = reverse("surveys:respond", args=[open_survey.slug])
    response = client.get(page, {"lang": "zh-hans"}, HTTP_ACCEPT_LANGUAGE="ko")
    assert response.status_code == 200
    assert not response.cookies  # no language cookie, no CSRF cookie
    html = response.content.decode()
    assert '<html lang="zh-Hans">' in html
    assert "随机化并发送我的回答" in html
    # The researcher's words in the same language, from the survey's translation.
    assert f'<h1 lang="zh-Hans">{open_survey.title} [zh-hans]</h1>' in html
    # The scripts' catalog is asked for in the same language.
    assert f"{reverse('javascript-catalog')}?lang=zh-hans" in html
    catalog = client.get(reverse("javascript-catalog"), {"lang": "zh-hans"}).content.decode()
    assert "请选择“是”或“否”。".encode("unicode_escape").decode() in catalog


def test_an_unsupported_lang_falls_back_to_the_browsers_choice(client, make_translated_survey):
    open_survey = make_translated_survey()
    page = reverse("surveys:respond", args=[open_survey.slug])
    html = client.get(page, {"lang": "xx"}, HTTP_ACCEPT_LANGUAGE="ko").content.decode()
    assert '<html lang="ko">' in html


def test_respondent_page_follows_the_switcher_over_the_surveys_language(
    client, make_translated_survey
):
    survey = make_translated_survey(language="ko", into=("en",))
    page = reverse("surveys:respond", args=[survey.slug])
    assert '<html lang="ko">' in client.get(page).content.decode()
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    assert '<html lang="en">' in client.get(page).content.decode()


# --- strings from code: JavaScript catalog, API errors, services ---------------------------


@pytest.mark.parametrize(
    ("accept_language", "expected"),
    [("ko", "보내기 전에 모든 문항에 답해 주십시오:"), ("zh-hans", "发送前请回答所有问题：")],
)
def test_javascript_catalog_serves_the_scripts_strings_in_the_page_language(
    client, accept_language, expected
):
    response = client.get(reverse("javascript-catalog"), HTTP_ACCEPT_LANGUAGE=accept_language)
    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith("text/javascript")
    body = response.content.decode()
    assert expected.encode("unicode_escape").decode() in body or expected in body
    assert "Content-Security-Policy" in response.headers
    # Only the project's catalog: Django admin's JavaScript strings stay out of the download
    # (theirs would double it; the project's, invitation, practice-round and the respondent
    # procedure's instructions included, is about 26 kB in Korean, whose characters the catalog
    # writes as \uXXXX escapes).
    assert "Show all" not in body
    assert len(response.content) < 32_000


def test_javascript_catalog_is_loaded_before_the_modules(client, open_survey):
    html = client.get(reverse("surveys:respond", args=[open_survey.slug])).content.decode()
    catalog_at = html.index(f'<script src="{reverse("javascript-catalog")}?lang=en"></script>')
    assert catalog_at < html.index('<script type="module"')


def test_api_errors_a_respondent_can_see_are_in_their_language(respondent, make_survey, submit):
    closed = make_survey(status=Survey.Status.CLOSED)
    url = f"/api/v1/public/surveys/{closed.slug}/responses/"
    body = {"submission_id": str(uuid.uuid4()), "answers": {"1": True}}
    ko = respondent.post(url, body, format="json", HTTP_ACCEPT_LANGUAGE="ko").json()
    assert ko["detail"] == "이 설문조사는 마감되어 더 이상 응답을 받지 않습니다."
    zh = respondent.post(url, body, format="json", HTTP_ACCEPT_LANGUAGE="zh-Hans").json()
    assert zh["detail"] == "此问卷已结束，不再接受回答。"
    # DRF's own messages too (its Korean catalog is ko_KR, which Django would not load).
    gone = respondent.post(
        "/api/v1/public/surveys/no-such-survey/responses/", body, format="json",
        HTTP_ACCEPT_LANGUAGE="ko",
    )  # fmt: skip
    assert gone.status_code == 404 and gone.json()["detail"] == "찾을 수 없습니다."
    missing = respondent.post(
        f"/api/v1/public/surveys/{make_survey().slug}/responses/", {"answers": {"1": True}},
        format="json", HTTP_ACCEPT_LANGUAGE="ko",
    )  # fmt: skip
    assert missing.json()["errors"]["submission_id"] == ["필수 항목입니다."]


def test_throttled_respondents_read_why_in_their_language(
    respondent, open_survey, submit, settings, monkeypatch
):
    settings.RESPONSE_RATE_LIMIT = "1/min"
    monkeypatch.setattr(rate_limits, "clock", lambda: 1_800_000_030.0)  # 30 s into a minute
    assert submit(open_survey, [True, False]).status_code == 201
    ids = list(open_survey.questions.values_list("id", flat=True))
    response = respondent.post(
        f"/api/v1/public/surveys/{open_survey.slug}/responses/",
        {"submission_id": str(uuid.uuid4()), "answers": {str(i): True for i in ids}},
        format="json",
        HTTP_ACCEPT_LANGUAGE="zh-Hans",
    )
    assert response.status_code == 429
    assert response.json()["detail"] == "请求过于频繁。 请在 30 秒后重试。"


@pytest.mark.parametrize(
    ("language", "expected"),
    [("ko", "이 항목은 비워 둘 수 없습니다."), ("zh-hans", "此项不能为空。")],
)
def test_service_validation_messages_are_translated(owner, language, expected):
    with translation.override(language), pytest.raises(ValidationError) as error:
        services.survey_create(owner=owner, title="   ")
    assert error.value.message_dict == {"title": [expected]}


def test_an_impossible_coin_is_refused_in_the_researchers_language(owner):
    with translation.override("ko"), pytest.raises(ValidationError) as error:
        services.survey_create(owner=owner, title="Coins", p_truth=1.0)
    assert error.value.message_dict == {
        "p_truth": ["0과 1 사이(0과 1 제외)의 값이어야 합니다. 입력값: 1.0"]
    }


# --- error pages ---------------------------------------------------------------------------


def test_not_found_pages_speak_the_visitors_language_and_offer_the_switcher(client):
    response = client.get("/no/such/page/", HTTP_ACCEPT_LANGUAGE="ko")
    assert response.status_code == 404
    html = response.content.decode()
    assert '<html lang="ko">' in html
    assert '<h1 id="error-title">페이지를 찾을 수 없습니다</h1>' in html
    assert_switcher_returns_to(response, "/no/such/page/")


def test_another_researchers_survey_is_a_translated_404(other_client, open_survey):
    response = other_client.get(
        reverse("surveys:results", args=[open_survey.pk]), HTTP_ACCEPT_LANGUAGE="zh-Hans"
    )
    assert response.status_code == 404
    html = response.content.decode()
    assert '<html lang="zh-Hans">' in html and "未找到页面" in html
    assert open_survey.title not in html


def test_the_server_error_page_is_in_the_visitors_language():
    with translation.override("zh-hans"):
        response = server_error(RequestFactory().get("/"))
    html = response.content.decode()
    assert response.status_code == 500
    assert '<html lang="zh-Hans">' in html
    assert "<title>出现了问题 · rrsurvey</title>" in html


def test_a_language_switch_without_the_csrf_cookie_explains_itself_in_the_language(client):
    csrf_client = Client(enforce_csrf_checks=True)
    response = csrf_client.post(
        reverse("set_language"), {"language": "ko", "next": "/"}, HTTP_ACCEPT_LANGUAGE="ko"
    )
    assert response.status_code == 403
    html = response.content.decode()
    assert '<html lang="ko">' in html
    assert "양식을 보내지 못했습니다" in html
    # The page's own switcher carries a fresh token, so trying again works if cookies may be set.
    assert re.search(r'name="csrfmiddlewaretoken" value="\w{20,}"', switcher(html))
    assert "csrftoken" in response.cookies
