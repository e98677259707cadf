"""No input gets a 5xx: every malformed request is a 4xx in the one error shape."""

import io
import json
import uuid

import pytest
from django.core.exceptions import DisallowedHost, RequestDataTooBig
from rest_framework.exceptions import ParseError

from surveys.api.errors import error_response
from surveys.api.limits import BoundedJSONParser
from surveys.models import Submission, Survey

pytestmark = pytest.mark.django_db

JSON = "application/json"
TWELVE_MIB = 12 * 1024 * 1024

BODIES = {
    "not json": (b"{'title': 'single quotes'}", JSON),
    "truncated": (b'{"title": "T", "questions": [', JSON),
    "empty": (b"", JSON),
    "nan literal": (b'{"title": "T", "p_truth": NaN, "p_forced_yes": 0.5, "questions": []}', JSON),
    "infinity literal": (b'{"p_truth": Infinity}', JSON),
    "overflowing float": (b'{"title": "T", "p_truth": 1e999, "p_forced_yes": 0.5}', JSON),
    "huge integer": (b'{"min_n": ' + b"9" * 5000 + b"}", JSON),
    "deep nesting": (b"[" * 100_000 + b"]" * 100_000, JSON),
    "moderately deep nesting": (b'{"answers": ' + b"[" * 500 + b"]" * 500 + b"}", JSON),
    "a bare string": (b'"hello"', JSON),
    "null": (b"null", JSON),
    "a number": (b"3", JSON),
    "nested junk": (
        json.dumps(
            {"title": {"a": [1, {"b": None}]}, "questions": [[{}], None, 3], "answers": [[]]}
        ).encode(),
        JSON,
    ),
    "unicode": (
        json.dumps(
            {"title": "\u202e\u0000\ud7ff🙂" * 10, "submission_id": "🙂", "answers": {"🙂": "🙂"}}
        ).encode(),
        JSON,
    ),
    "lone surrogate escape": (b'{"title": "\\ud800", "p_truth": 0.5}', JSON),
    "invalid utf-8": (b'{"title": "\xff\xfe"}', JSON),
    "unknown charset": (b'{"title": "T"}', "application/json; charset=klingon"),
    "utf-16 body declared utf-8": ('{"title": "T"}'.encode("utf-16"), JSON),
    "form encoded": (b"title=T&p_truth=0.5", "application/x-www-form-urlencoded"),
    "multipart": (
        b"--x\r\nContent-Disposition: form-data; name=title\r\n\r\nT\r\n--x--",
        "multipart/form-data; boundary=x",
    ),
    "xml": (b"<survey><title>T</title></survey>", "application/xml"),
    "no content type": (b'{"title": "T"}', ""),
}

# An empty body is an empty change; an unknown charset parameter is ignored (UTF-8 is used).
PATCH_ACCEPTS = {"empty", "unknown charset"}


def _targets(survey):
    return [
        ("post", "/api/v1/surveys/"),
        ("patch", f"/api/v1/surveys/{survey.id}/"),
        ("post", "/api/v1/auth/token/"),
        ("post", f"/api/v1/public/surveys/{survey.slug}/responses/"),
    ]


def _assert_error_shape(response):
    assert 400 <= response.status_code < 500, response.content[:300]
    body = response.json()
    assert set(body) == {"detail", "errors"}
    assert isinstance(body["detail"], str) and body["detail"]
    assert all(isinstance(v, list) for v in body["errors"].values())


@pytest.mark.parametrize("case", BODIES)
def test_malformed_bodies_are_4xx_in_the_error_shape(owner_api, open_survey, case):
    body, content_type = BODIES[case]
    for method, url in _targets(open_survey):
        response = getattr(owner_api, method)(url, data=body, content_type=content_type)
        if method == "patch" and case in PATCH_ACCEPTS:
            assert response.status_code == 200
        else:
            _assert_error_shape(response)
    assert Survey.objects.count() == 1
    assert not Submission.objects.exists()


def test_unsupported_media_type_is_415(owner_api):
    response = owner_api.post("/api/v1/surveys/", data=b"title=T", content_type="text/plain")
    assert response.status_code == 415
    _assert_error_shape(response)


@pytest.mark.slow
def test_a_12_mib_body_is_413_in_the_error_shape(owner_api, open_survey):
    padding = "x" * TWELVE_MIB
    body = json.dumps({"submission_id": str(uuid.uuid4()), "answers": {"1": True}, "pad": padding})
    for method, url in _targets(open_survey):
        response = getattr(owner_api, method)(url, data=body, content_type=JSON)
        assert response.status_code == 413
        _assert_error_shape(response)
    assert not Submission.objects.exists()


def test_a_body_just_under_the_cap_is_parsed(owner_api, settings):
    text = "q" * 1000
    body = {"title": "T", "p_truth": 0.5, "p_forced_yes": 0.5, "questions": [{"text": text}] * 100}
    encoded = json.dumps(body)
    assert len(encoded) < settings.API_MAX_BODY_BYTES
    response = owner_api.post("/api/v1/surveys/", data=encoded, content_type=JSON)
    assert response.status_code == 201


def test_a_body_over_djangos_form_cap_but_under_the_apis_is_parsed(owner_api, settings):
    """Issue 24: a researcher's body over 256 KiB (Django's DATA_UPLOAD_MAX_MEMORY_SIZE, for
    forms) was an HTML 400 (RequestDataTooBig), although the documented cap is 1 MiB."""
    body = {"title": "T", "p_truth": 0.5, "p_forced_yes": 0.5, "questions": [{"text": "Q?"}]}
    encoded = json.dumps(body) + " " * (300 * 1024)  # whitespace: still the same JSON
    assert settings.DATA_UPLOAD_MAX_MEMORY_SIZE < len(encoded) < settings.API_MAX_BODY_BYTES
    response = owner_api.post("/api/v1/surveys/", data=encoded, content_type=JSON)
    assert response.status_code == 201, response.content[:300]
    patched = owner_api.patch(
        f"/api/v1/surveys/{response.json()['id']}/",
        data=json.dumps({"title": "U"}) + " " * (300 * 1024),
        content_type=JSON,
    )
    assert patched.status_code == 200


@pytest.mark.parametrize(
    ("exc", "status"), [(RequestDataTooBig("too big"), 413), (DisallowedHost("h"), 400)]
)
def test_djangos_own_refusals_inside_an_api_view_keep_the_error_shape(exc, status):
    """Should anything in an API view read ``request.body`` (Django's form cap) or trip another
    SuspiciousOperation, the answer is the API's, not Django's HTML 400."""
    response = error_response(exc)
    assert response.status_code == status
    assert set(response.data) == {"detail", "errors"} and response.data["detail"]


def test_an_oversized_body_without_content_length_is_cut_at_the_cap(owner_api, settings):
    # Only the parser sees this case (the middleware trusts Content-Length); it still refuses.
    from surveys.api.limits import BoundedJSONParser, RequestTooLarge

    class Endless:
        def read(self, size):
            return b" " * size

    with pytest.raises(RequestTooLarge):
        BoundedJSONParser().parse(Endless(), JSON, {})


@pytest.mark.parametrize(
    "url",
    [
        "/api/v1/surveys/999999999999999999999999999999/",
        "/api/v1/surveys/99999999999999999999/estimates/",
        "/api/v1/surveys/-1/",
        "/api/v1/surveys/abc/",
        "/api/v1/nothing-here/",
        "/api/v1/surveys/1/estimates/extra",
        "/api/v1/surveys/%0Aabc/open/",  # a newline in the path (found by the fuzz run)
        "/api/v1/%0A",
    ],
)
def test_unknown_or_impossible_addresses_are_json_404(owner_api, url):
    response = owner_api.get(url)
    assert response.status_code == 404
    _assert_error_shape(response)


def test_a_missing_trailing_slash_is_explained_not_redirected(owner_api):
    response = owner_api.post("/api/v1/surveys", {"title": "T"})
    assert response.status_code == 404
    assert response.json()["detail"] == (
        "Not found. Did you mean /api/v1/surveys/ (with a trailing slash)?"
    )


@pytest.mark.parametrize(
    "header",
    ["Token", "Token a b", "Token \u00e9", "Bearer xyz", "Token " + "x" * 5000, "Basic Og=="],
)
def test_malformed_authorization_headers_are_401(anonymous_api, header):
    response = anonymous_api.get("/api/v1/surveys/", HTTP_AUTHORIZATION=header)
    assert response.status_code in (401, 403)
    _assert_error_shape(response)


@pytest.mark.parametrize("question", [{}, {"id": 3}, {"position": 0}])
def test_patch_with_a_question_lacking_text_is_400_naming_text(owner_api, make_survey, question):
    survey = make_survey(status=Survey.Status.DRAFT)
    before = list(survey.questions.values_list("text", flat=True))
    response = owner_api.patch(
        f"/api/v1/surveys/{survey.id}/", {"questions": [{"text": "Kept?"}, question]}
    )
    assert response.status_code == 400
    assert "text" in json.dumps(response.json()["errors"])
    assert list(survey.questions.values_list("text", flat=True)) == before


@pytest.mark.parametrize("key", [str(2**63), str(-(2**63) - 1), str(10**30), str(2**64)])
def test_an_answer_key_beyond_the_64_bit_range_is_400_on_every_path(respondent, frozen_survey, key):
    # frozen_survey has a response, so on PostgreSQL the one-statement fast path runs first.
    ids = list(frozen_survey.questions.values_list("id", flat=True))
    body = {"submission_id": str(uuid.uuid4()), "answers": {str(ids[0]): True, key: False}}
    stored = Submission.objects.count()
    response = respondent.post(
        f"/api/v1/public/surveys/{frozen_survey.slug}/responses/", body, format="json"
    )
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["answers"]
    assert Submission.objects.count() == stored


def test_the_largest_64_bit_key_is_an_unknown_question_not_an_error(respondent, frozen_survey):
    ids = list(frozen_survey.questions.values_list("id", flat=True))
    answers = {str(ids[0]): True, str(ids[1]): True, str(2**63 - 1): True}
    response = respondent.post(
        f"/api/v1/public/surveys/{frozen_survey.slug}/responses/",
        {"submission_id": str(uuid.uuid4()), "answers": answers},
        format="json",
    )
    assert response.status_code == 400
    assert "is not a question id of this survey" in response.json()["errors"]["answers"][0]


@pytest.mark.parametrize(
    ("text", "refused"),
    [
        ("[" * 32 + "]" * 32, False),  # MAX_JSON_DEPTH levels
        ("[" * 33 + "]" * 33, True),
        ('{"a": ' * 32 + "1" + "}" * 32, False),
        ('{"a": ' * 20 + "[" * 13 + "]" * 13 + "}" * 20, True),
        ('{"pad": "' + "[{" * 100 + '", "b": [1]}', False),  # brackets in a string: shallow
        ('{"\\ud800": 1}', True),  # a lone surrogate escaped in a key
        ('["x", "\\udc00"]', True),
        ('["\\ud83d\\ude00"]', False),  # a pair: one character
        ('["\\\\ud800"]', False),  # an escaped backslash, then text
        ('{"answers": {"1": true}, "pad": "\\u00e9"}', False),
    ],
)
def test_the_parser_refuses_a_body_too_deep_or_with_a_lone_surrogate_and_nothing_else(
    text, refused
):
    parse = BoundedJSONParser().parse
    if refused:
        with pytest.raises(ParseError):
            parse(io.BytesIO(text.encode()), JSON, {"encoding": "utf-8"})
    else:
        assert parse(io.BytesIO(text.encode()), JSON, {"encoding": "utf-8"}) == json.loads(text)
