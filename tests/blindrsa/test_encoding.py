"""Bytes as the API and the browser spell them (blindrsa/encoding.py): base64url without
padding, read back with or without it, and nothing else read at all (the standard library
would skip a foreign character silently, so two texts would carry one token)."""

import base64
import os

import pytest

from blindrsa import BlindSignatureError, ErrorCode
from blindrsa.encoding import b64url_decode, b64url_encode


@pytest.mark.parametrize("size", [0, 1, 2, 3, 4, 31, 32, 256, 257])
def test_bytes_round_trip_without_padding_in_the_url_alphabet(size):
    data = os.urandom(size)
    text = b64url_encode(data)
    assert "=" not in text and "+" not in text and "/" not in text
    assert text == base64.urlsafe_b64encode(data).decode().rstrip("=")
    assert b64url_decode(text) == data
    padded = text + "=" * (-len(text) % 4)
    assert b64url_decode(padded) == data  # with its padding, as some clients send it


def test_the_url_alphabet_is_the_one_read():
    assert b64url_decode("_-8") == b"\xff\xef"
    assert b64url_encode(b"\xfb\xff") == "-_8"


@pytest.mark.parametrize(
    "text",
    [
        "ab+c",  # the standard alphabet's + and /
        "ab/c",
        "ab c",  # a space, a line break: skipped by the standard library
        "ab\nc",
        "abc!",
        "a",  # one character: no whole byte
        "abcde",
        "ab===",  # more padding than base64 has
        "a=bc",  # padding inside
        "ab\u00e9c",
        b"abcd",
        None,
        1234,
    ],
)
def test_anything_else_is_malformed(text):
    with pytest.raises(BlindSignatureError) as raised:
        b64url_decode(text)
    assert raised.value.code == ErrorCode.MALFORMED
