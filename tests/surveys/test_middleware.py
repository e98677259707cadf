"""Pages are sent gzip-compressed only when they carry no secret (surveys/middleware.py,
``SecretFreePageGZipMiddleware``): BREACH needs a secret and attacker-chosen text in one
compressed response, so a page with a CSRF token or anything bound to a person is sent as is."""

import gzip

import pytest
from django.test import Client

from surveys.models import Survey

pytestmark = pytest.mark.django_db

GZIP = {"HTTP_ACCEPT_ENCODING": "gzip, deflate, br"}


def compressed(response):
    return response.get("Content-Encoding") == "gzip"


def html(response):
    return gzip.decompress(response.content).decode() if compressed(response) else response.text


def test_the_respondent_page_is_compressed_and_reads_the_same(respondent, open_survey):
    plain = respondent.get(f"/s/{open_survey.slug}/")
    response = respondent.get(f"/s/{open_survey.slug}/", **GZIP)
    assert response.status_code == 200
    assert compressed(response) and not compressed(plain)
    assert "Accept-Encoding" in response["Vary"]
    assert len(response.content) < len(plain.content) / 2
    # The page reads the same once inflated (apart from the CSP nonce, new on each response).
    assert 'id="respond-definition"' in html(response)
    assert html(response).count(open_survey.title) == plain.text.count(open_survey.title)
    assert "csrfmiddlewaretoken" not in html(response)
    assert response.cookies == {}


def test_the_public_results_page_and_the_api_docs_are_compressed(respondent, open_survey):
    Survey.objects.filter(pk=open_survey.pk).update(public_results=True)
    response = respondent.get(f"/r/{open_survey.slug}/", **GZIP)
    assert response.status_code == 200
    assert compressed(response)
    assert open_survey.title in html(response)
    docs = respondent.get("/api/docs/", **GZIP)
    assert docs.status_code == 200 and compressed(docs)


def test_the_scripts_catalog_is_compressed_and_reads_the_same(respondent):
    plain = respondent.get("/jsi18n/?lang=ko")
    response = respondent.get("/jsi18n/?lang=ko", **GZIP)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/javascript")
    assert compressed(response) and not compressed(plain)
    assert gzip.decompress(response.content) == plain.content
    assert len(response.content) < len(plain.content) / 2


def test_a_page_with_a_csrf_token_is_not_compressed_even_when_it_reflects_the_address():
    # The sign-in form: a CSRF token, and `next` from the address written into the page, the
    # two things BREACH needs.
    response = Client().get("/accounts/login/?next=/surveys/guess-csrf-0123/", **GZIP)
    assert response.status_code == 200
    assert "csrfmiddlewaretoken" in response.text
    assert "guess-csrf-0123" in response.text
    assert not compressed(response)


def test_the_home_page_is_not_compressed_its_language_form_carries_a_csrf_token():
    response = Client().get("/", **GZIP)
    assert response.status_code == 200
    assert "csrfmiddlewaretoken" in response.text
    assert not compressed(response)


def test_a_signed_in_researchers_pages_are_never_compressed(owner_client, open_survey):
    for path in ("/surveys/", f"/surveys/{open_survey.pk}/results/", f"/s/{open_survey.slug}/"):
        response = owner_client.get(path, **GZIP)
        assert response.status_code == 200, path
        assert not compressed(response), path


def test_json_and_pages_without_gzip_in_accept_encoding_are_sent_as_is(respondent, open_survey):
    api = respondent.get(f"/api/v1/public/surveys/{open_survey.slug}/", **GZIP)
    assert api.status_code == 200 and not compressed(api)
    page = respondent.get(f"/s/{open_survey.slug}/", HTTP_ACCEPT_ENCODING="identity")
    assert page.status_code == 200 and not compressed(page)
