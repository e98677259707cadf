"""The keys of blind signing (blindrsa/keys.py) and the base64url spelling of bytes
(blindrsa/encoding.py): sizes, the public key as SPKI, the private key sealed at rest."""

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

import blindrsa as bs

SECRET = "a-secret-key-of-fifty-random-characters-0123456789"


@pytest.fixture(scope="module")
def private_key():
    return bs.generate_private_key()


def test_new_keys_have_2048_bits_and_the_usual_exponent(private_key):
    assert private_key.key_size == 2048
    assert private_key.public_key().public_numbers().e == 65537


def test_public_key_is_spki_der_in_base64url(private_key):
    text = bs.public_key_encode(private_key.public_key())
    assert set(text) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    assert bs.b64url_decode(text)[:2] == b"\x30\x82"  # a DER SEQUENCE, the SPKI
    assert bs.public_key_decode(text) == private_key.public_key()


def test_keys_under_2048_bits_are_refused():
    with pytest.raises(ValueError, match="at least 2048, got 1024"):
        bs.generate_private_key(bits=1024)
    small = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    with pytest.raises(bs.BlindSignatureError) as caught:
        bs.public_key_decode(bs.public_key_encode(small.public_key()))
    assert caught.value.code == bs.ErrorCode.KEY_TOO_SMALL
    with pytest.raises(bs.BlindSignatureError) as caught:
        bs.blind_sign(private_key=small, blinded_message=b"\x01" * 128)
    assert caught.value.code == bs.ErrorCode.KEY_TOO_SMALL


@pytest.mark.parametrize("text", ["", "not base64!", "AAAA+/8=", "A", "QUJD"])
def test_a_public_key_that_is_not_one_is_malformed(text):
    with pytest.raises(bs.BlindSignatureError) as caught:
        bs.public_key_decode(text)
    assert caught.value.code == bs.ErrorCode.MALFORMED


def test_an_elliptic_curve_public_key_is_malformed():
    der = (
        ec.generate_private_key(ec.SECP256R1())
        .public_key()
        .public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    )
    with pytest.raises(bs.BlindSignatureError) as caught:
        bs.public_key_decode(bs.b64url_encode(der))
    assert caught.value.code == bs.ErrorCode.MALFORMED


def test_base64url_accepts_padding_and_refuses_other_alphabets():
    assert bs.b64url_decode("_-8") == b"\xff\xef"
    assert bs.b64url_decode("_-8=") == b"\xff\xef"
    assert bs.b64url_encode(b"\xff\xef") == "_-8"
    for text in ("/+8=", "_-8 ", "_-\n8", 42):
        with pytest.raises(bs.BlindSignatureError):
            bs.b64url_decode(text)


def test_a_sealed_private_key_opens_with_its_secret_and_context(private_key):
    sealed = bs.private_key_encrypt(private_key, secret=SECRET, context="survey 7")
    opened = bs.private_key_decrypt(sealed, secret=SECRET, context="survey 7")
    assert opened.private_numbers() == private_key.private_numbers()


def test_a_sealed_private_key_holds_no_key_material_in_clear(private_key):
    sealed = bs.private_key_encrypt(private_key, secret=SECRET, context="survey 7")
    numbers = private_key.private_numbers()
    for secret_part in (numbers.p, numbers.q, numbers.d):
        raw = secret_part.to_bytes((secret_part.bit_length() + 7) // 8, "big")
        assert raw[:16] not in sealed
    assert bs.private_key_encrypt(private_key, secret=SECRET, context="survey 7") != sealed


@pytest.mark.parametrize(
    "change",
    ["secret", "context", "byte", "truncated", "version"],
)
def test_a_sealed_private_key_refuses_anything_else(private_key, change):
    sealed = bs.private_key_encrypt(private_key, secret=SECRET, context="survey 7")
    secret, context = SECRET, "survey 7"
    if change == "secret":
        secret = SECRET.replace("a", "b")
    elif change == "context":
        context = "survey 8"
    elif change == "byte":
        sealed = sealed[:100] + bytes([sealed[100] ^ 1]) + sealed[101:]
    elif change == "truncated":
        sealed = sealed[:29]
    else:
        sealed = b"\x02" + sealed[1:]
    with pytest.raises(bs.BlindSignatureError) as caught:
        bs.private_key_decrypt(sealed, secret=secret, context=context)
    assert caught.value.code == bs.ErrorCode.KEY_UNREADABLE


def test_a_key_sealed_under_a_previous_secret_opens_through_the_fallbacks(private_key):
    old = "an-older-secret-key-which-was-rotated-away-0123456"
    sealed = bs.private_key_encrypt(private_key, secret=old, context="survey 7")
    opened = bs.private_key_decrypt(
        sealed, secret=SECRET, context="survey 7", fallback_secrets=(old,)
    )
    assert opened.private_numbers() == private_key.private_numbers()


def test_a_short_secret_is_refused(private_key):
    with pytest.raises(ValueError, match="at least 32 bytes"):
        bs.private_key_encrypt(private_key, secret="short", context="survey 7")
