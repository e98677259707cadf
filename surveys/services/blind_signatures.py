"""RSA blind signatures (RFC 9474, RSABSSA-SHA384-PSS-Randomized): one-time tokens the server
signs without seeing them, so that it can later tell a genuine token from a forged one but not
which signing request produced it.

The protocol, in RFC 9474's words (§4):

- the client ``prepare``\\ s a message (a 32-byte random prefix in front of it), ``blind``\\ s it
  with a random factor r and sends the blinded message;
- the server ``blind_sign``\\ s the blinded message with the survey's private key;
- the client ``finalize``\\ s: removes r and checks that the result is an ordinary RSASSA-PSS
  signature (SHA-384, MGF1-SHA-384, 48-byte salt) of the prepared message;
- anyone holding the public key can ``verify`` the pair (prepared message, signature).

The blinded message is uniformly distributed and independent of the prepared message, so the
signer learns nothing it could match to the token when it is spent.

No Django here: the caller passes the secret that protects private keys at rest (the settings'
``SECRET_KEY``) and stores what this module returns. The client half exists for the tests and
for scripts; the browser's client is ``static/js/blindrsa.js``.

`cryptography` (OpenSSL) makes the keys, parses and writes them, and verifies signatures; it
has no raw RSA private operation, which blind signing is (RSASP1 on a value the signer cannot
pad), so ``blind_sign`` computes it with Python integers, by the Chinese remainder theorem, on
an input multiplied by a fresh random u^e (base blinding: the timing of the exponentiation is
then unrelated to the request), and checks the result with the public exponent before
returning it (RFC 9474 §4.3: a faulty CRT signature would give the modulus away).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from math import gcd

from cryptography.exceptions import InvalidSignature, InvalidTag, UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

RandomBytes = Callable[[int], bytes]

#: Smallest modulus accepted, for new keys and for public keys read back (RFC 9474 §7.1 asks
#: for at least 2048 bits).
MIN_MODULUS_BITS = 2048
#: The modulus of new keys.
DEFAULT_MODULUS_BITS = 2048
PUBLIC_EXPONENT = 65537
#: Length of the random prefix ``prepare`` puts in front of a message (RFC 9474 §4.1).
PREFIX_LENGTH = 32
HASH_LENGTH = 48  # SHA-384

# Private keys at rest: version byte, HKDF salt, AES-GCM nonce, then the sealed PKCS#8 DER.
SEAL_VERSION = b"\x01"
SEAL_SALT_LENGTH = 16
SEAL_NONCE_LENGTH = 12
SEAL_INFO = b"rrsurvey blind-signature private key v1"
# HKDF does not stretch a password: the secret must already be a random key (Django's
# SECRET_KEY is 50 random characters), and this refuses an obviously short one.
MIN_SECRET_LENGTH = 32

BASE64URL = re.compile(r"[A-Za-z0-9_-]*={0,2}")


@dataclass(frozen=True)
class Variant:
    """One of RFC 9474's four variants (§5): salt length of the PSS encoding, and whether
    ``prepare`` adds a random prefix."""

    name: str
    salt_length: int
    randomized: bool


PSS_RANDOMIZED = Variant("RSABSSA-SHA384-PSS-Randomized", salt_length=48, randomized=True)
PSSZERO_RANDOMIZED = Variant("RSABSSA-SHA384-PSSZERO-Randomized", salt_length=0, randomized=True)
PSS_DETERMINISTIC = Variant("RSABSSA-SHA384-PSS-Deterministic", salt_length=48, randomized=False)
PSSZERO_DETERMINISTIC = Variant(
    "RSABSSA-SHA384-PSSZERO-Deterministic", salt_length=0, randomized=False
)
VARIANTS = {
    variant.name: variant
    for variant in (PSS_RANDOMIZED, PSSZERO_RANDOMIZED, PSS_DETERMINISTIC, PSSZERO_DETERMINISTIC)
}
#: The variant surveys use: the one RFC 9474 §5 recommends (randomized messages, salted PSS).
SCHEME = PSS_RANDOMIZED


class ErrorCode(StrEnum):
    """Why an operation refused its input; callers branch on these, never on the message."""

    #: Not base64url, not the length the key requires, or not an RSA public key.
    MALFORMED = "malformed"
    #: The key is smaller than MIN_MODULUS_BITS.
    KEY_TOO_SMALL = "key_too_small"
    #: A sealed private key that the secret does not open (wrong secret, other context,
    #: damaged bytes).
    KEY_UNREADABLE = "key_unreadable"
    #: The blinded message, as an integer, is not below the modulus (RSASP1's range check).
    MESSAGE_OUT_OF_RANGE = "message_out_of_range"
    #: The signature computed did not verify: a fault, never returned (RFC 9474 §4.3).
    SIGNING_FAILED = "signing_failed"
    #: The signature does not verify for this message and key.
    INVALID_SIGNATURE = "invalid_signature"
    #: The encoded message shares a factor with the modulus (RFC 9474 §4.2 step 4).
    INVALID_INPUT = "invalid_input"
    #: The blinding factor has no inverse modulo n (RFC 9474 §4.2 step 6).
    BLINDING_FAILED = "blinding_failed"
    #: The key is too small for the PSS encoding (RFC 8017 §9.1.1 step 3).
    ENCODING_FAILED = "encoding_failed"


class BlindSignatureError(Exception):
    """An input refused by this module; ``code`` says why."""

    def __init__(self, message, *, code):
        super().__init__(message)
        self.message = message
        self.code = ErrorCode(code)


@dataclass(frozen=True)
class Blinded:
    """What ``blind`` returns: the message to send, and the inverse of the blinding factor
    (``modulus_length`` bytes, big-endian), which the client keeps for ``finalize``."""

    blinded_message: bytes
    inverse: bytes


# --- encodings ----------------------------------------------------------------------------


def b64url_encode(data: bytes) -> str:
    """Base64url without padding (RFC 4648 §5), as the API and the browser spell bytes."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    """The bytes of a base64url text, with or without padding; anything else is MALFORMED
    (the standard library would skip foreign characters silently)."""
    if not isinstance(text, str) or not BASE64URL.fullmatch(text):
        raise BlindSignatureError("expected base64url text", code=ErrorCode.MALFORMED)
    stripped = text.rstrip("=")
    if len(stripped) % 4 == 1:
        raise BlindSignatureError("expected base64url text", code=ErrorCode.MALFORMED)
    try:
        return base64.urlsafe_b64decode(stripped + "=" * (-len(stripped) % 4))
    except (binascii.Error, ValueError) as error:
        raise BlindSignatureError("expected base64url text", code=ErrorCode.MALFORMED) from error


def modulus_length(public_key: rsa.RSAPublicKey) -> int:
    """The length in bytes of the modulus: of every blinded message, blind signature and
    signature under this key."""
    return (public_key.key_size + 7) // 8


# --- keys ---------------------------------------------------------------------------------


def generate_private_key(*, bits: int = DEFAULT_MODULUS_BITS) -> rsa.RSAPrivateKey:
    if bits < MIN_MODULUS_BITS:
        raise ValueError(f"bits must be at least {MIN_MODULUS_BITS}, got {bits}")
    return rsa.generate_private_key(public_exponent=PUBLIC_EXPONENT, key_size=bits)


def public_key_encode(public_key: rsa.RSAPublicKey) -> str:
    """SubjectPublicKeyInfo DER, base64url: the ``token_key`` of a public definition, which
    WebCrypto's ``importKey("spki", ...)`` reads."""
    der = public_key.public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return b64url_encode(der)


def public_key_decode(text: str) -> rsa.RSAPublicKey:
    der = b64url_decode(text)
    try:
        key = serialization.load_der_public_key(der)
    except (ValueError, UnsupportedAlgorithm) as error:
        raise BlindSignatureError("not a public key", code=ErrorCode.MALFORMED) from error
    if not isinstance(key, rsa.RSAPublicKey):
        raise BlindSignatureError("not an RSA public key", code=ErrorCode.MALFORMED)
    check_key_size(key)
    return key


def check_key_size(key: rsa.RSAPublicKey | rsa.RSAPrivateKey) -> None:
    if key.key_size < MIN_MODULUS_BITS:
        raise BlindSignatureError(
            f"the key has {key.key_size} bits, fewer than {MIN_MODULUS_BITS}",
            code=ErrorCode.KEY_TOO_SMALL,
        )


def sealing_key(*, secret: str | bytes, salt: bytes) -> AESGCM:
    secret_bytes = secret.encode("utf-8") if isinstance(secret, str) else bytes(secret)
    if len(secret_bytes) < MIN_SECRET_LENGTH:
        raise ValueError(
            f"the secret must be at least {MIN_SECRET_LENGTH} bytes of random key material, "
            f"got {len(secret_bytes)} bytes"
        )
    hkdf = HKDF(algorithm=hashes.SHA256(), length=32, salt=salt, info=SEAL_INFO)
    return AESGCM(hkdf.derive(secret_bytes))


def context_bytes(context: str | bytes) -> bytes:
    return context.encode("utf-8") if isinstance(context, str) else bytes(context)


def private_key_encrypt(
    private_key: rsa.RSAPrivateKey,
    *,
    secret: str | bytes,
    context: str | bytes,
    random_bytes: RandomBytes = secrets.token_bytes,
) -> bytes:
    """The private key sealed for storage: PKCS#8 DER under AES-256-GCM, with a key derived
    from ``secret`` by HKDF-SHA256 (a fresh 16-byte salt per key).

    ``context`` (e.g. the survey's id) is authenticated with the ciphertext, so a sealed key
    copied to another survey's row does not open there. Layout: ``0x01 || salt(16) ||
    nonce(12) || ciphertext || tag(16)``.
    """
    der = private_key.private_bytes(
        serialization.Encoding.DER,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    salt = random_bytes(SEAL_SALT_LENGTH)
    nonce = random_bytes(SEAL_NONCE_LENGTH)
    sealed = sealing_key(secret=secret, salt=salt).encrypt(nonce, der, context_bytes(context))
    return SEAL_VERSION + salt + nonce + sealed


def private_key_decrypt(
    sealed: bytes,
    *,
    secret: str | bytes,
    context: str | bytes,
    fallback_secrets: tuple[str | bytes, ...] = (),
) -> rsa.RSAPrivateKey:
    """The private key ``private_key_encrypt`` sealed. ``fallback_secrets`` (Django's
    ``SECRET_KEY_FALLBACKS``) are tried after ``secret``, so that rotating the secret does not
    lock keys sealed under the old one; re-seal them with ``private_key_encrypt``.

    Raises KEY_UNREADABLE when no secret opens it.
    """
    sealed = bytes(sealed)
    header = len(SEAL_VERSION) + SEAL_SALT_LENGTH + SEAL_NONCE_LENGTH
    if not sealed.startswith(SEAL_VERSION) or len(sealed) <= header:
        raise BlindSignatureError("not a sealed private key", code=ErrorCode.KEY_UNREADABLE)
    salt = sealed[len(SEAL_VERSION) : len(SEAL_VERSION) + SEAL_SALT_LENGTH]
    nonce = sealed[len(SEAL_VERSION) + SEAL_SALT_LENGTH : header]
    for candidate in (secret, *fallback_secrets):
        try:
            der = sealing_key(secret=candidate, salt=salt).decrypt(
                nonce, sealed[header:], context_bytes(context)
            )
        except InvalidTag:
            continue
        key = serialization.load_der_private_key(der, password=None)
        if not isinstance(key, rsa.RSAPrivateKey):
            raise BlindSignatureError("not an RSA private key", code=ErrorCode.KEY_UNREADABLE)
        return key
    raise BlindSignatureError(
        "no secret opens this private key (another SECRET_KEY, or another survey's key)",
        code=ErrorCode.KEY_UNREADABLE,
    )


# --- server -------------------------------------------------------------------------------


def blind_sign(
    *,
    private_key: rsa.RSAPrivateKey,
    blinded_message: bytes,
    random_bytes: RandomBytes = secrets.token_bytes,
) -> bytes:
    """RFC 9474 §4.3 BlindSign: RSASP1 of the blinded message, checked by RSAVP1.

    ``random_bytes`` draws the base-blinding factor (the result does not depend on it).
    Raises MALFORMED (not ``modulus_length`` bytes), MESSAGE_OUT_OF_RANGE (not below n),
    SIGNING_FAILED (the fault check).
    """
    check_key_size(private_key)
    numbers = private_key.private_numbers()
    public = numbers.public_numbers
    length = modulus_length(private_key.public_key())
    if not isinstance(blinded_message, bytes | bytearray) or len(blinded_message) != length:
        raise BlindSignatureError(
            f"the blinded message must be {length} bytes", code=ErrorCode.MALFORMED
        )
    m = int.from_bytes(blinded_message, "big")
    if m >= public.n:
        raise BlindSignatureError(
            "the blinded message is not below the modulus", code=ErrorCode.MESSAGE_OUT_OF_RANGE
        )
    s = rsasp1_blinded(numbers, m, random_bytes=random_bytes)
    if pow(s, public.e, public.n) != m:
        raise BlindSignatureError("signing failed its check", code=ErrorCode.SIGNING_FAILED)
    return s.to_bytes(length, "big")


def rsasp1_blinded(numbers: rsa.RSAPrivateNumbers, m: int, *, random_bytes: RandomBytes) -> int:
    """m^d mod n, computed as ((m·u^e)^d mod n)·u⁻¹ with a fresh random u, by CRT."""
    n, e = numbers.public_numbers.n, numbers.public_numbers.e
    u = random_unit(n, random_bytes=random_bytes)
    blinded = m * pow(u, e, n) % n
    s_p = pow(blinded % numbers.p, numbers.dmp1, numbers.p)
    s_q = pow(blinded % numbers.q, numbers.dmq1, numbers.q)
    s = s_q + numbers.q * (numbers.iqmp * (s_p - s_q) % numbers.p)
    return s * pow(u, -1, n) % n


def random_below(n: int, *, random_bytes: RandomBytes) -> int:
    """Uniform in [1, n), by rejection of ``modulus_length`` bytes masked to n's bit length
    (RFC 9474's random_integer_uniform(1, n))."""
    length = (n.bit_length() + 7) // 8
    excess = 8 * length - n.bit_length()
    while True:
        candidate = int.from_bytes(random_bytes(length), "big") >> excess
        if 0 < candidate < n:
            return candidate


def random_unit(n: int, *, random_bytes: RandomBytes) -> int:
    while True:
        u = random_below(n, random_bytes=random_bytes)
        if gcd(u, n) == 1:
            return u


def verify(
    *,
    public_key: rsa.RSAPublicKey,
    prepared_message: bytes,
    signature: bytes,
    variant: Variant = SCHEME,
) -> None:
    """RSASSA-PSS verification (SHA-384, MGF1-SHA-384, the variant's salt length) by
    `cryptography`: a finished token is an ordinary PSS signature. Raises INVALID_SIGNATURE."""
    try:
        public_key.verify(
            bytes(signature),
            bytes(prepared_message),
            padding.PSS(mgf=padding.MGF1(hashes.SHA384()), salt_length=variant.salt_length),
            hashes.SHA384(),
        )
    except InvalidSignature as error:
        raise BlindSignatureError(
            "the signature does not verify", code=ErrorCode.INVALID_SIGNATURE
        ) from error


# --- client -------------------------------------------------------------------------------


def prepare(
    *,
    message: bytes,
    variant: Variant = SCHEME,
    random_bytes: RandomBytes = secrets.token_bytes,
) -> bytes:
    """RFC 9474 §4.1 Prepare: a random 32-byte prefix, then the message (randomized variants),
    so that the signed message is unpredictable to the signer whatever the client chose."""
    if not variant.randomized:
        return bytes(message)
    return random_bytes(PREFIX_LENGTH) + bytes(message)


def blind(
    *,
    public_key: rsa.RSAPublicKey,
    prepared_message: bytes,
    variant: Variant = SCHEME,
    random_bytes: RandomBytes = secrets.token_bytes,
) -> Blinded:
    """RFC 9474 §4.2 Blind: EMSA-PSS-ENCODE the message (drawing the salt), draw r uniform in
    [1, n), send m·r^e mod n and keep r⁻¹ mod n. ``random_bytes`` is called for the salt
    first, then for r."""
    check_key_size(public_key)
    numbers = public_key.public_numbers()
    n, e = numbers.n, numbers.e
    length = modulus_length(public_key)
    encoded = emsa_pss_encode(
        bytes(prepared_message),
        em_bits=n.bit_length() - 1,
        salt=random_bytes(variant.salt_length),
    )
    m = int.from_bytes(encoded, "big")
    if gcd(m, n) != 1:
        raise BlindSignatureError(
            "the encoded message is not coprime to n", code=ErrorCode.INVALID_INPUT
        )
    r = random_below(n, random_bytes=random_bytes)
    try:
        inverse = pow(r, -1, n)
    except ValueError as error:
        raise BlindSignatureError(
            "the blinding factor is not invertible", code=ErrorCode.BLINDING_FAILED
        ) from error
    z = m * pow(r, e, n) % n
    return Blinded(
        blinded_message=z.to_bytes(length, "big"), inverse=inverse.to_bytes(length, "big")
    )


def finalize(
    *,
    public_key: rsa.RSAPublicKey,
    prepared_message: bytes,
    blind_signature: bytes,
    inverse: bytes,
    variant: Variant = SCHEME,
) -> bytes:
    """RFC 9474 §4.4 Finalize: s = z·r⁻¹ mod n, returned only if it verifies (a server that
    signed with another key, or a damaged answer, is caught here, not when spending)."""
    numbers = public_key.public_numbers()
    length = modulus_length(public_key)
    if len(blind_signature) != length or len(inverse) != length:
        raise BlindSignatureError(
            f"the blind signature must be {length} bytes", code=ErrorCode.MALFORMED
        )
    z = int.from_bytes(blind_signature, "big")
    s = z * int.from_bytes(inverse, "big") % numbers.n
    signature = s.to_bytes(length, "big")
    verify(
        public_key=public_key,
        prepared_message=prepared_message,
        signature=signature,
        variant=variant,
    )
    return signature


def emsa_pss_encode(message: bytes, *, em_bits: int, salt: bytes) -> bytes:
    """RFC 8017 §9.1.1 EMSA-PSS-ENCODE with SHA-384 and MGF1-SHA-384."""
    em_length = (em_bits + 7) // 8
    if em_length < HASH_LENGTH + len(salt) + 2:
        raise BlindSignatureError("the key is too small to encode", code=ErrorCode.ENCODING_FAILED)
    m_hash = hashlib.sha384(message).digest()
    h = hashlib.sha384(b"\x00" * 8 + m_hash + salt).digest()
    db = b"\x00" * (em_length - len(salt) - HASH_LENGTH - 2) + b"\x01" + salt
    masked = bytearray(a ^ b for a, b in zip(db, mgf1_sha384(h, len(db)), strict=True))
    masked[0] &= 0xFF >> (8 * em_length - em_bits)
    return bytes(masked) + h + b"\xbc"


def mgf1_sha384(seed: bytes, length: int) -> bytes:
    """RFC 8017 §B.2.1 MGF1 with SHA-384."""
    output = b"".join(
        hashlib.sha384(seed + counter.to_bytes(4, "big")).digest()
        for counter in range((length + HASH_LENGTH - 1) // HASH_LENGTH)
    )
    return output[:length]
