"""Invitation codes (surveys/services/invitation_codes.py, docs/invitations.md): made from 160
random bits, read however a person types them, found by a keyed digest and stored sealed, so
a copy of the database alone holds no usable code; the personal link keeps the code in its
fragment."""

from urllib.parse import urlsplit

import pytest

from surveys import limits
from surveys.services.invitation_codes import (
    code_digest,
    code_open,
    code_seal,
    invitation_link,
    new_code,
    normalize_code,
)

ALPHABET = set("abcdefghijklmnopqrstuvwxyz234567")


def test_a_new_code_is_32_base32_characters_that_read_back_as_themselves():
    codes = {new_code() for _ in range(200)}
    assert len(codes) == 200  # 160 random bits: no two alike
    for code in codes:
        assert len(code) == limits.INVITATION_CODE_LENGTH
        assert set(code) <= ALPHABET  # no 0/O or 1/l/I to confuse on a printed slip
        assert normalize_code(code) == code


def test_a_code_is_read_in_any_case_with_spaces_or_dashes_between_groups():
    code = new_code()
    grouped = "-".join(code[i : i + 4] for i in range(0, len(code), 4))
    for typed in (code.upper(), grouped, grouped.upper(), f"  {grouped.replace('-', ' ')}\n"):
        assert normalize_code(typed) == code


@pytest.mark.parametrize(
    "text",
    [
        "",
        "a" * 31,
        "a" * 33,
        "a" * 31 + "1",  # 1 is not a base32 digit
        "a" * 31 + "0",
        "a" * 31 + "é",
        "a" * 31 + "_",
        None,
        12345,
        ["a" * 32],
        b"a" * 32,
    ],
)
def test_what_cannot_be_a_code_normalizes_to_none(text):
    assert normalize_code(text) is None


def test_the_digest_is_keyed_by_the_secret_and_stable(settings):
    code = new_code()
    digest = code_digest(code)
    assert digest == code_digest(code)  # what a code is looked up by
    assert len(digest) == 64 and int(digest, 16) >= 0  # hex SHA-256
    assert digest != code_digest(new_code())
    # Keyed: the same code under another secret has another digest, so a copy of the
    # database alone cannot check a guessed code against it.
    assert code_digest(code, secret="another secret") != digest
    settings.SECRET_KEY = "a rotated secret that is long enough for the checks"
    assert code_digest(code) != digest
    assert code_digest(code, secret="another secret") == code_digest(code, secret="another secret")


def test_a_sealed_code_opens_for_its_survey_only(settings):
    code = new_code()
    sealed = code_seal(code, survey_id=7)
    assert code.encode() not in sealed  # encrypted, not encoded
    assert code_open(sealed, survey_id=7) == code
    assert code_open(memoryview(sealed), survey_id=7) == code  # as PostgreSQL returns bytea
    # The survey's id is authenticated with it: a sealed code copied to another survey's
    # row opens nowhere.
    assert code_open(sealed, survey_id=8) is None
    # A fresh nonce each time: two seals of one code differ.
    assert code_seal(code, survey_id=7) != sealed


def test_a_tampered_seal_opens_to_nothing():
    sealed = bytearray(code_seal(new_code(), survey_id=1))
    sealed[-1] ^= 1
    assert code_open(bytes(sealed), survey_id=1) is None


def test_a_rotated_secret_opens_old_seals_only_while_it_is_a_fallback(settings):
    old = settings.SECRET_KEY
    code = new_code()
    sealed = code_seal(code, survey_id=3)
    settings.SECRET_KEY = "a rotated secret that is long enough for the checks"
    settings.SECRET_KEY_FALLBACKS = [old]
    assert code_open(sealed, survey_id=3) == code
    settings.SECRET_KEY_FALLBACKS = []
    assert code_open(sealed, survey_id=3) is None


def test_the_personal_link_keeps_the_code_in_its_fragment():
    code = new_code()
    for base in ("https://rr.example.org", "https://rr.example.org/"):
        link = invitation_link(slug="k3y", code=code, base_url=base)
        assert link == f"https://rr.example.org/s/k3y/#invitation={code}"
        parts = urlsplit(link)
        # Neither the path nor the query (what a request line, a log or a Referer carries)
        # holds the code.
        assert code not in parts.path + parts.query + parts.netloc
        assert parts.fragment == f"invitation={code}"
