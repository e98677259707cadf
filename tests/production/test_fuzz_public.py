"""Property-based fuzz of every input a member of the public can send (hypothesis).

The survey slug in every public URL, the submission body in any shape, type, encoding and
content type, the respondent page's language headers and cookie, the language switcher. For
each generated request: never a server error (Django's test client re-raises the exception
of a 500, so a crash fails the test with its traceback), and a submission that is not
accepted (201) stores nothing at all: no submission, report or group answer, no tally moved.
"""

import json
import uuid
from urllib.parse import quote

import pytest
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from surveys.models import GroupAnswer, Submission, Survey, TallyShard

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

FUZZ = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

# Text with everything: any code point including lone surrogates, NUL, RTL marks, emoji.
ANY_TEXT = st.text(st.characters(exclude_categories=()), max_size=40)
# What a form or query string can carry (it is sent UTF-8 encoded: no lone surrogates).
FORM_TEXT = st.text(max_size=40)
HUGE_NUMBERS = st.sampled_from(
    [10**30, -(10**30), 2**63, -(2**63) - 1, 1e308, -1e308, 5e-324, 0, -1, 2**31]
)
JSON_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | HUGE_NUMBERS
    | st.floats(allow_nan=False, allow_infinity=False)
    | ANY_TEXT
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(ANY_TEXT, inner, max_size=4),
    max_leaves=12,
)
CONTENT_TYPES = st.sampled_from(
    [
        "application/json",
        "application/json; charset=utf-8",
        "application/json; charset=utf-16",
        "application/json; charset=no-such-charset",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=fuzz",
        "multipart/form-data",
        "text/plain",
        "text/html",
        "application/xml",
        "application/octet-stream",
        "",
    ]
)


@pytest.fixture
def surveys(make_survey, frozen_survey, settings):
    settings.RESPONSE_RATE_LIMIT = None  # the fuzzer sends far more than a respondent may
    return {
        # With a response already, so on PostgreSQL submissions take the one-statement path.
        "responded": frozen_survey,
        "open": make_survey(title="Open, no response yet"),
        "draft": make_survey(title="Draft", status=Survey.Status.DRAFT),
        "closed": make_survey(title="Closed", status=Survey.Status.CLOSED),
    }


def slugs(surveys):
    real = [survey.slug for survey in surveys.values()]
    return (
        st.sampled_from(real)
        | ANY_TEXT.filter(bool)
        | st.sampled_from(
            ["..", ".", "%00", "a" * 5000, real[0] + "/", real[0].upper(), " " + real[0]]
        )
    )


def answer_sets(survey):
    """Answers near the valid shape (so the accepting path runs too) and far from it."""
    ids = list(survey.questions.values_list("id", flat=True))
    keys = (
        st.sampled_from([str(i) for i in ids])
        | st.sampled_from(
            [str(ids[0]) + " ", f"0{ids[0]}", "-1", "0", "1e3", str(10**30), "NaN", "", "None"]
        )
        # Just past the ids' signed 64-bit range: PostgreSQL's fast path once answered 500.
        | st.sampled_from([str(2**63), str(-(2**63) - 1), str(2**64), str(2**63 - 1)])
        | ANY_TEXT
    )
    valid = st.fixed_dictionaries({str(i): st.booleans() for i in ids})
    # Valid but for one extra key: reaches the checks past the shape (PostgreSQL's fast path).
    one_extra = st.builds(
        lambda answers, key, bit: {**answers, key: bit}, valid, keys, st.booleans()
    )
    return valid | one_extra | st.dictionaries(keys, JSON_VALUES, max_size=5) | JSON_VALUES


def submission_bodies(survey):
    ids = (
        st.builds(lambda: str(uuid.uuid4()))
        | JSON_VALUES
        | st.sampled_from(
            [str(uuid.uuid4()).upper(), uuid.uuid4().hex, "{" + str(uuid.uuid4()) + "}", "0" * 36]
        )
    )
    extra = st.dictionaries(
        st.sampled_from(["groups", "truth", "ip", "user_agent", "coins", "submission_id "]),
        JSON_VALUES,
        max_size=2,
    )
    shaped = st.builds(
        lambda sid, answers, more: {"submission_id": sid, "answers": answers, **more},
        ids,
        answer_sets(survey),
        st.just({}) | extra,
    )
    return shaped | JSON_VALUES


def in_path(slug):
    """The slug percent-encoded into a path segment (lone surrogates as their raw bytes)."""
    return quote(slug, safe="", errors="surrogatepass")


def as_header(text):
    """A header value as WSGI carries it (bytes seen as latin-1)."""
    return text.encode("utf-8", "surrogatepass").decode("latin-1")


def encoded(body, how):
    text = json.dumps(body, ensure_ascii=how == "ascii")
    if how == "utf-16":
        return text.encode("utf-16", "surrogatepass")
    return text.encode("utf-8", "surrogatepass")


def snapshot():
    return (
        Submission.objects.count(),
        GroupAnswer.objects.count(),
        sorted(TallyShard.objects.values_list("survey_id", "shard", "responses", "reports")),
    )


def test_public_submissions_never_crash_and_rejected_ones_store_nothing(surveys):
    client = Client()
    seen = set()

    # A body shaped for one of the two open surveys, sent to it half the time.
    targets = st.sampled_from(["open", "responded"]).flatmap(
        lambda name: st.tuples(
            st.just(surveys[name].slug) | slugs(surveys),
            submission_bodies(surveys[name]) | st.binary(max_size=300),
        )
    )

    @FUZZ
    @given(
        target=targets,
        how=st.sampled_from(["ascii", "utf-8", "utf-16"]),
        content_type=CONTENT_TYPES,
    )
    def check(target, how, content_type):
        slug, body = target
        raw = body if isinstance(body, bytes) else encoded(body, how)
        before = snapshot()
        response = client.generic(
            "POST",
            f"/api/v1/public/surveys/{in_path(slug)}/responses/",
            raw,
            content_type=content_type,
        )
        seen.add(response.status_code)
        assert response.status_code < 500
        after = snapshot()
        if response.status_code == 201:
            assert after[0] == before[0] + 1 or after == before  # new, or a replay
        else:
            assert after == before, (response.status_code, response.content[:300])

    check()
    # The fuzzer reached the accepting path and the refusals alike.
    assert {201, 400, 404} <= seen


def test_an_unpaired_surrogate_escape_is_a_clear_400_not_a_crash(surveys):
    # Found by the fuzzer: the error message echoed the bad key, which no UTF-8 body can carry.
    submission_id = json.dumps(str(uuid.uuid4()))
    body = '{"submission_id": ' + submission_id + ', "answers": {"\\ud800": true}}'
    response = Client().post(
        f"/api/v1/public/surveys/{surveys['open'].slug}/responses/",
        body,
        content_type="application/json",
    )
    assert response.status_code == 400
    assert "surrogate" in response.json()["detail"]
    assert not Submission.objects.filter(survey=surveys["open"]).exists()


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/public/surveys/%00/",
        "/api/v1/public/surveys/a%00b/responses/",
        "/s/%00/",
        "/r/%00/",
    ],
)
def test_a_nul_byte_in_a_slug_is_a_404(surveys, path):
    # Found by the fuzzer on PostgreSQL, whose text parameters cannot hold NUL: it was a 500.
    client = Client()
    if "responses" not in path:
        assert client.get(path).status_code == 404
        return
    whole = {"submission_id": str(uuid.uuid4()), "answers": {"1": True}}
    for body in ({}, whole):
        assert client.post(path, body, content_type="application/json").status_code == 404


def test_public_survey_definition_never_crashes(surveys):
    client = Client()

    @FUZZ
    @given(slug=slugs(surveys), query=st.dictionaries(FORM_TEXT, FORM_TEXT, max_size=3))
    def check(slug, query):
        response = client.get(f"/api/v1/public/surveys/{in_path(slug)}/", query)
        assert response.status_code in (200, 404)

    check()


def test_respondent_and_public_results_pages_never_crash(surveys):
    client = Client()
    languages = ANY_TEXT | st.sampled_from(
        ["ko", "zh-Hans", "en;q=0", "*", "ko;q=abc, en;q=0.5", "x" * 1000, ",,;;==", "zh-hant"]
    )

    @FUZZ
    @given(
        slug=slugs(surveys),
        page=st.sampled_from(["s", "r"]),
        accept_language=languages,
        cookie=st.none() | languages,
    )
    def check(slug, page, accept_language, cookie):
        client.cookies.clear()
        if cookie is not None:
            client.cookies["django_language"] = as_header(cookie)
        response = client.get(
            f"/{page}/{in_path(slug)}/",
            headers={"Accept-Language": as_header(accept_language)},
        )
        assert response.status_code in (200, 404)

    check()


def test_language_switcher_never_crashes(surveys):
    client = Client()

    @FUZZ
    @given(language=FORM_TEXT, next_url=FORM_TEXT)
    def check(language, next_url):
        response = client.post("/i18n/setlang/", {"language": language, "next": next_url})
        assert response.status_code in (200, 204, 302, 400)

    check()


def test_any_integer_answer_key_is_a_400_or_stored_never_a_crash(surveys):
    # Found on PostgreSQL's fast path (a survey with responses): a key beyond the 64-bit
    # range was a 500. Every integer, from tiny to far past that range, as an extra key.
    client = Client()
    survey = surveys["responded"]
    ids = list(survey.questions.values_list("id", flat=True))

    @FUZZ
    @given(
        key=st.integers()
        | st.integers(min_value=2**62, max_value=2**66)
        | st.integers(min_value=-(2**66), max_value=-(2**62)),
        bits=st.lists(st.booleans(), min_size=3, max_size=3),
    )
    def check(key, bits):
        answers = {str(ids[0]): bits[0], str(ids[1]): bits[1], str(key): bits[2]}
        before = snapshot()
        response = client.post(
            f"/api/v1/public/surveys/{survey.slug}/responses/",
            {"submission_id": str(uuid.uuid4()), "answers": answers},
            content_type="application/json",
        )
        if key in ids:
            assert response.status_code == 201
        else:
            assert response.status_code == 400, response.content[:300]
            assert list(response.json()["errors"]) == ["answers"]
            assert snapshot() == before

    check()
