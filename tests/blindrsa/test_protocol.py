"""RSA blind signatures (blindrsa/protocol.py): RFC 9474's Appendix A vectors, round trips on
fresh 2048-bit keys with this module, with an independent implementation written from the RFC
(tests/rfc9474_client.py) and with the browser's module (static/js/blindrsa.js under node),
and refusals.

The vectors are tests/vectors/rfc9474.json, a copy of the shared folder's file (the RFC's
Appendix A, hex): a fresh clone has no shared folder beside it.
"""

import functools
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

import blindrsa as bs
from blindrsa import protocol
from tests import rfc9474_client as independent

ROOT = Path(__file__).resolve().parents[2]
VECTORS = json.loads((ROOT / "tests" / "vectors" / "rfc9474.json").read_text())
JS_CLIENT = ROOT / "tests" / "js" / "blindrsa-client.mjs"


def hex_bytes(text):
    return bytes.fromhex(text.removeprefix("0x"))


def hex_int(text):
    return int(text, 16)


class Script:
    """``random_bytes`` that returns the given chunks in order, each asked for at its length."""

    def __init__(self, *chunks):
        self.chunks = list(chunks)

    def __call__(self, length):
        assert self.chunks, f"asked for {length} more random bytes than scripted"
        chunk = self.chunks.pop(0)
        assert len(chunk) == length, f"asked for {length} bytes, scripted {len(chunk)}"
        return chunk


def vector_key(vector):
    return vector_key_named(vector["name"])


@functools.cache
def vector_key_named(name):
    """cryptography checks a private key when it is built (seconds at 4096 bits): once each."""
    (vector,) = (vector for vector in VECTORS if vector["name"] == name)
    p, q, d, e, n = (hex_int(vector[name]) for name in ("p", "q", "d", "e", "n"))
    public = rsa.RSAPublicNumbers(e, n)
    return rsa.RSAPrivateNumbers(
        p,
        q,
        d,
        rsa.rsa_crt_dmp1(d, p),
        rsa.rsa_crt_dmq1(d, q),
        rsa.rsa_crt_iqmp(p, q),
        public,
    ).private_key()


def r_bytes(vector):
    """The blinding factor r of a vector, from its inverse (the vectors give inv = r⁻¹ mod n),
    as the modulus-length bytes ``blind`` draws."""
    n = hex_int(vector["n"])
    return pow(hex_int(vector["inv"]), -1, n).to_bytes(len(hex_bytes(vector["n"])), "big")


VECTOR_IDS = [vector["name"] for vector in VECTORS]


@pytest.fixture(params=VECTORS, ids=VECTOR_IDS)
def vector(request):
    return request.param


def test_the_vectors_hold_all_four_variants_of_the_rfc():
    assert sorted(VECTOR_IDS) == sorted(bs.VARIANTS)
    assert bs.SCHEME.name == "RSABSSA-SHA384-PSS-Randomized"


# --- RFC 9474 Appendix A, this module ---------------------------------------------------------


def test_prepare_puts_the_random_prefix_in_front(vector):
    variant = bs.VARIANTS[vector["name"]]
    prefix = hex_bytes(vector["msg_prefix"])
    script = Script(prefix) if variant.randomized else Script()
    prepared = bs.prepare(message=hex_bytes(vector["msg"]), variant=variant, random_bytes=script)
    assert prepared == hex_bytes(vector["input_msg"])
    assert len(prefix) == (bs.PREFIX_LENGTH if variant.randomized else 0)


# RFC 9474 prints the encoded message for all but the first vector.
ENCODED = [vector for vector in VECTORS if "encoded_msg" in vector]


@pytest.mark.parametrize("vector", ENCODED, ids=[vector["name"] for vector in ENCODED])
def test_pss_encoding_reproduces_the_vector(vector):
    n = hex_int(vector["n"])
    encoded = bs.emsa_pss_encode(
        hex_bytes(vector["input_msg"]), em_bits=n.bit_length() - 1, salt=hex_bytes(vector["salt"])
    )
    assert encoded == hex_bytes(vector["encoded_msg"])


@pytest.mark.slow
def test_blind_reproduces_the_blinded_message(vector):
    key = vector_key(vector).public_key()
    variant = bs.VARIANTS[vector["name"]]
    script = Script(hex_bytes(vector["salt"]), r_bytes(vector))
    blinded = bs.blind(
        public_key=key,
        prepared_message=hex_bytes(vector["input_msg"]),
        variant=variant,
        random_bytes=script,
    )
    assert blinded.blinded_message == hex_bytes(vector["blinded_msg"])
    assert int.from_bytes(blinded.inverse, "big") == hex_int(vector["inv"])
    assert script.chunks == []


def test_a_blinding_factor_outside_1_to_n_is_drawn_again():
    """r is uniform in [1, n) by rejection: 2^4096 - 1 (above n) and 0 are refused, and the
    third draw, the vector's r, gives the vector's blinded message."""
    vector = VECTORS[0]
    length = len(hex_bytes(vector["n"]))
    script = Script(hex_bytes(vector["salt"]), b"\xff" * length, b"\x00" * length, r_bytes(vector))
    blinded = bs.blind(
        public_key=vector_key(vector).public_key(),
        prepared_message=hex_bytes(vector["input_msg"]),
        random_bytes=script,
    )
    assert blinded.blinded_message == hex_bytes(vector["blinded_msg"])
    assert script.chunks == []


def test_blind_sign_reproduces_the_blind_signature(vector):
    blind_signature = bs.blind_sign(
        private_key=vector_key(vector), blinded_message=hex_bytes(vector["blinded_msg"])
    )
    assert blind_signature == hex_bytes(vector["blind_sig"])


def test_finalize_reproduces_and_verifies_the_signature(vector):
    key = vector_key(vector).public_key()
    variant = bs.VARIANTS[vector["name"]]
    length = bs.modulus_length(key)
    signature = bs.finalize(
        public_key=key,
        prepared_message=hex_bytes(vector["input_msg"]),
        blind_signature=hex_bytes(vector["blind_sig"]),
        inverse=hex_int(vector["inv"]).to_bytes(length, "big"),
        variant=variant,
    )
    assert signature == hex_bytes(vector["sig"])
    bs.verify(
        public_key=key,
        prepared_message=hex_bytes(vector["input_msg"]),
        signature=signature,
        variant=variant,
    )


# --- RFC 9474 Appendix A, the independent implementation --------------------------------------


def test_independent_client_reproduces_the_vector(vector):
    n, e, d = hex_int(vector["n"]), hex_int(vector["e"]), hex_int(vector["d"])
    s_len = bs.VARIANTS[vector["name"]].salt_length
    message = hex_bytes(vector["input_msg"])
    blinded, inv = independent.blind(
        n, e, message, Script(hex_bytes(vector["salt"]), r_bytes(vector)), s_len
    )
    assert blinded == hex_bytes(vector["blinded_msg"])
    assert inv == hex_int(vector["inv"])
    blind_sig = independent.blind_sign(n, e, d, blinded)
    assert blind_sig == hex_bytes(vector["blind_sig"])
    assert independent.finalize(n, e, message, blind_sig, inv, s_len) == hex_bytes(vector["sig"])


def test_independent_verifier_refuses_a_changed_vector_signature(vector):
    n, e = hex_int(vector["n"]), hex_int(vector["e"])
    s_len = bs.VARIANTS[vector["name"]].salt_length
    signature = bytearray(hex_bytes(vector["sig"]))
    message = hex_bytes(vector["input_msg"])
    assert independent.rsassa_pss_verify(n, e, message, bytes(signature), s_len)
    signature[-1] ^= 1
    assert not independent.rsassa_pss_verify(n, e, message, bytes(signature), s_len)
    assert not independent.rsassa_pss_verify(n, e, message + b"!", hex_bytes(vector["sig"]), s_len)


# --- fresh 2048-bit keys ------------------------------------------------------------------


@pytest.fixture(scope="module")
def private_key():
    return bs.generate_private_key()


@pytest.fixture(scope="module")
def other_private_key():
    return bs.generate_private_key()


def raw_sign(private_key, blinded_message):
    """What a server signing with ``private_key`` would answer, whatever the message's range
    (blind_sign would refuse a message at or above this key's modulus)."""
    numbers = private_key.private_numbers()
    n = numbers.public_numbers.n
    return pow(int.from_bytes(blinded_message, "big"), numbers.d, n).to_bytes(256, "big")


def issue(private_key, message=b"one invitation"):
    """The whole protocol with this module on both sides: (prepared message, signature)."""
    public_key = private_key.public_key()
    prepared = bs.prepare(message=message)
    blinded = bs.blind(public_key=public_key, prepared_message=prepared)
    blind_signature = bs.blind_sign(
        private_key=private_key, blinded_message=blinded.blinded_message
    )
    signature = bs.finalize(
        public_key=public_key,
        prepared_message=prepared,
        blind_signature=blind_signature,
        inverse=blinded.inverse,
    )
    return prepared, signature


def test_round_trip_gives_an_ordinary_pss_signature(private_key):
    prepared, signature = issue(private_key)
    assert len(prepared) == bs.PREFIX_LENGTH + len(b"one invitation")
    assert prepared.endswith(b"one invitation")
    bs.verify(public_key=private_key.public_key(), prepared_message=prepared, signature=signature)
    # cryptography's own verifier, with the scheme's parameters spelled out, accepts it too.
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding

    private_key.public_key().verify(
        signature,
        prepared,
        padding.PSS(mgf=padding.MGF1(hashes.SHA384()), salt_length=48),
        hashes.SHA384(),
    )


def test_two_tokens_of_one_message_differ(private_key):
    first, second = issue(private_key), issue(private_key)
    assert first[0] != second[0]
    assert first[1] != second[1]


@pytest.mark.parametrize("part", ["signature", "message"])
def test_a_tampered_token_is_refused(private_key, part):
    prepared, signature = issue(private_key)
    if part == "signature":
        signature = bytes([signature[0] ^ 0x01]) + signature[1:]
    else:
        prepared = bytes([prepared[0] ^ 0x01]) + prepared[1:]
    with pytest.raises(bs.BlindSignatureError) as caught:
        bs.verify(
            public_key=private_key.public_key(), prepared_message=prepared, signature=signature
        )
    assert caught.value.code == bs.ErrorCode.INVALID_SIGNATURE


@pytest.mark.parametrize("length", [0, 255, 257])
def test_a_signature_of_the_wrong_length_is_refused(private_key, length):
    prepared, signature = issue(private_key)
    with pytest.raises(bs.BlindSignatureError) as caught:
        bs.verify(
            public_key=private_key.public_key(),
            prepared_message=prepared,
            signature=(signature + b"\x00")[:length],
        )
    assert caught.value.code == bs.ErrorCode.INVALID_SIGNATURE


def test_a_token_signed_by_another_key_is_refused(private_key, other_private_key):
    prepared, signature = issue(other_private_key)
    with pytest.raises(bs.BlindSignatureError) as caught:
        bs.verify(
            public_key=private_key.public_key(), prepared_message=prepared, signature=signature
        )
    assert caught.value.code == bs.ErrorCode.INVALID_SIGNATURE


def test_finalize_refuses_a_blind_signature_from_another_key(private_key, other_private_key):
    public_key = private_key.public_key()
    prepared = bs.prepare(message=b"m")
    blinded = bs.blind(public_key=public_key, prepared_message=prepared)
    wrong = raw_sign(other_private_key, blinded.blinded_message)
    with pytest.raises(bs.BlindSignatureError) as caught:
        bs.finalize(
            public_key=public_key,
            prepared_message=prepared,
            blind_signature=wrong,
            inverse=blinded.inverse,
        )
    assert caught.value.code == bs.ErrorCode.INVALID_SIGNATURE


def test_blind_sign_refuses_a_message_not_below_the_modulus(private_key):
    n = private_key.public_key().public_numbers().n
    for value in (n, 2**2048 - 1):
        with pytest.raises(bs.BlindSignatureError) as caught:
            bs.blind_sign(private_key=private_key, blinded_message=value.to_bytes(256, "big"))
        assert caught.value.code == bs.ErrorCode.MESSAGE_OUT_OF_RANGE
    # n - 1 is in range (RSASP1 takes 0 <= m < n).
    bs.blind_sign(private_key=private_key, blinded_message=(n - 1).to_bytes(256, "big"))


@pytest.mark.parametrize("length", [0, 255, 257, 512])
def test_blind_sign_refuses_a_message_of_the_wrong_length(private_key, length):
    with pytest.raises(bs.BlindSignatureError) as caught:
        bs.blind_sign(private_key=private_key, blinded_message=b"\x01" * length)
    assert caught.value.code == bs.ErrorCode.MALFORMED


def test_blind_sign_withholds_a_faulty_signature(private_key, monkeypatch):
    """RFC 9474 §4.3: a CRT fault (one half wrong) would let anyone factor n from the answer;
    the check with the public exponent keeps it from leaving."""
    correct = protocol.rsasp1_blinded
    monkeypatch.setattr(protocol, "rsasp1_blinded", lambda *args, **kw: correct(*args, **kw) + 1)
    with pytest.raises(bs.BlindSignatureError) as caught:
        bs.blind_sign(private_key=private_key, blinded_message=b"\x05" * 256)
    assert caught.value.code == bs.ErrorCode.SIGNING_FAILED


def test_blind_signing_does_not_depend_on_its_base_blinding(private_key):
    n = private_key.public_key().public_numbers().n
    message = (n // 3).to_bytes(256, "big")
    first = bs.blind_sign(private_key=private_key, blinded_message=message)
    second = bs.blind_sign(private_key=private_key, blinded_message=message)
    d = private_key.private_numbers().d
    assert first == second == pow(n // 3, d, n).to_bytes(256, "big")


def test_the_signer_can_explain_each_request_as_either_token(private_key):
    """Unlinkability (RFC 9474 §7.3): even holding d, the signer finds for every pairing of
    the two signing requests with the two spent tokens a blinding factor r that makes it
    exactly what the client would have sent and received, so what it saw favours neither."""
    public = private_key.public_key().public_numbers()
    n, e, d = public.n, public.e, private_key.private_numbers().d
    requests, tokens = [], []
    for message in (b"invitee A", b"invitee B"):
        prepared = bs.prepare(message=message)
        blinded = bs.blind(public_key=private_key.public_key(), prepared_message=prepared)
        blind_signature = bs.blind_sign(
            private_key=private_key, blinded_message=blinded.blinded_message
        )
        signature = bs.finalize(
            public_key=private_key.public_key(),
            prepared_message=prepared,
            blind_signature=blind_signature,
            inverse=blinded.inverse,
        )
        requests.append((blinded.blinded_message, blind_signature))
        tokens.append((prepared, signature))
    for blinded_message, blind_signature in requests:
        for _, signature in tokens:
            z = int.from_bytes(blinded_message, "big")
            s = int.from_bytes(signature, "big")
            encoded = pow(s, e, n)  # the token's EMSA-PSS encoding, public from the token
            r = pow(z * pow(encoded, -1, n) % n, d, n)
            assert encoded * pow(r, e, n) % n == z
            assert int.from_bytes(blind_signature, "big") * pow(r, -1, n) % n == s


# --- across implementations ---------------------------------------------------------------


def test_independent_client_reads_the_published_public_key(private_key, other_private_key):
    for key in (private_key, other_private_key):
        public = key.public_key().public_numbers()
        text = bs.public_key_encode(key.public_key())
        assert independent.public_key_from_spki(text) == (public.n, public.e)


def test_independent_client_obtains_a_token_this_server_signs(private_key):
    public = private_key.public_key().public_numbers()
    assert independent.public_key_from_spki(bs.public_key_encode(private_key.public_key())) == (
        public.n,
        public.e,
    )
    prepared = independent.prepare(b"independent")
    blinded, inv = independent.blind(public.n, public.e, prepared)
    blind_signature = bs.blind_sign(private_key=private_key, blinded_message=blinded)
    signature = independent.finalize(public.n, public.e, prepared, blind_signature, inv)
    bs.verify(public_key=private_key.public_key(), prepared_message=prepared, signature=signature)


def test_this_client_finalizes_under_the_independent_signer(private_key):
    numbers = private_key.private_numbers()
    prepared = bs.prepare(message=b"independent signer")
    blinded = bs.blind(public_key=private_key.public_key(), prepared_message=prepared)
    blind_signature = independent.blind_sign(
        numbers.public_numbers.n, numbers.public_numbers.e, numbers.d, blinded.blinded_message
    )
    signature = bs.finalize(
        public_key=private_key.public_key(),
        prepared_message=prepared,
        blind_signature=blind_signature,
        inverse=blinded.inverse,
    )
    assert independent.rsassa_pss_verify(
        numbers.public_numbers.n, numbers.public_numbers.e, prepared, signature
    )


def node_client(public_key_text, message):
    """Starts tests/js/blindrsa-client.mjs (the browser module under node) and returns the
    process and its first answer: the prepared and blinded messages."""
    node = shutil.which("node")
    assert node, "node (>= 20) is required for the JavaScript half of these tests"
    process = subprocess.Popen(
        [node, str(JS_CLIENT)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    request = {"public_key": public_key_text, "message": bs.b64url_encode(message)}
    process.stdin.write(json.dumps(request) + "\n")
    process.stdin.flush()
    return process, json.loads(process.stdout.readline() or "null")


def node_finish(process, blind_signature):
    output, errors = process.communicate(
        json.dumps({"blind_signature": bs.b64url_encode(blind_signature)}) + "\n", timeout=60
    )
    assert process.returncode == 0, errors
    return json.loads(output)


def test_browser_module_obtains_a_token_this_server_signs(private_key):
    public_key = private_key.public_key()
    process, first = node_client(bs.public_key_encode(public_key), b"from the browser")
    assert first is not None, process.stderr.read()
    prepared = bs.b64url_decode(first["prepared_message"])
    assert len(prepared) == 32 + len(b"from the browser")
    assert prepared.endswith(b"from the browser")
    blinded = bs.b64url_decode(first["blinded_message"])
    answer = node_finish(process, bs.blind_sign(private_key=private_key, blinded_message=blinded))
    assert bs.b64url_decode(answer["prepared_message"]) == prepared
    signature = bs.b64url_decode(answer["signature"])
    bs.verify(public_key=public_key, prepared_message=prepared, signature=signature)
    assert independent.rsassa_pss_verify(
        public_key.public_numbers().n, public_key.public_numbers().e, prepared, signature
    )


def test_browser_module_refuses_a_blind_signature_from_another_key(private_key, other_private_key):
    process, first = node_client(bs.public_key_encode(private_key.public_key()), b"x")
    assert first is not None, process.stderr.read()
    blinded = bs.b64url_decode(first["blinded_message"])
    wrong = raw_sign(other_private_key, blinded)
    assert node_finish(process, wrong) == {"error": "invalid_signature"}


def test_the_vectors_copy_matches_the_shared_folder_when_it_is_there():
    """tests/vectors/rfc9474.json is a copy (a fresh clone has no shared folder); where the
    shared folder sits beside the repository, as in CI, the copy must not have drifted."""
    shared = ROOT.parent / "shared" / "vectors" / "rfc9474.json"
    if not shared.exists():
        pytest.skip(f"no shared folder at {shared.parent}")
    assert json.loads(shared.read_text()) == VECTORS
