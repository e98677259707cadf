"""RFC 9474's operations for RSABSSA-SHA384 (§4): the client's Prepare, Blind and Finalize,
the server's BlindSign, and RSASSA-PSS verification of a finished token.

`cryptography` verifies; it has no raw RSA private operation, which blind signing is (RSASP1
on a value the signer cannot pad), so ``blind_sign`` computes it with Python integers, by the
Chinese remainder theorem, blinded twice because Python's ``pow`` is not constant-time (the
input multiplied by a fresh random u^e, each exponent raised by a random multiple of p-1 or
q-1), and checks the result with the public exponent before returning it (RFC 9474 §4.3: a
faulty CRT signature gives n's factors away).
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from math import gcd

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from .errors import BlindSignatureError, ErrorCode
from .keys import check_key_size, modulus_length

RandomBytes = Callable[[int], bytes]

#: Length of the random prefix ``prepare`` puts in front of a message (RFC 9474 §4.1).
PREFIX_LENGTH = 32
HASH_LENGTH = 48  # SHA-384
# Bytes of the random multiplier of p-1 added to each CRT exponent (rsasp1_blinded).
EXPONENT_BLINDING_BYTES = 8


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


@dataclass(frozen=True)
class Blinded:
    """What ``blind`` returns: the message to send, and the inverse of the blinding factor
    (``modulus_length`` bytes, big-endian), which the client keeps for ``finalize``."""

    blinded_message: bytes
    inverse: bytes


# --- server -------------------------------------------------------------------------------


def blind_sign(
    *,
    private_key: rsa.RSAPrivateKey,
    blinded_message: bytes,
    random_bytes: RandomBytes = secrets.token_bytes,
) -> bytes:
    """RFC 9474 §4.3 BlindSign: RSASP1 of the blinded message, checked by RSAVP1.

    ``random_bytes`` draws the blinding of the computation (the result does not depend on it).
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
    """m^d mod n, computed as ((m·u^e)^d mod n)·u⁻¹ with a fresh random u, by CRT, each half's
    exponent d mod (p-1) raised by a random multiple of p-1 (exponent blinding).

    Python's ``pow`` is not constant-time. Base blinding makes what it works on unrelated to
    the request, and exponent blinding makes the exponent's bits differ from one request to
    the next, so that timings or cache traces of many requests do not add up to d.
    """
    n, e = numbers.public_numbers.n, numbers.public_numbers.e
    u = random_unit(n, random_bytes=random_bytes)
    blinded = m * pow(u, e, n) % n
    k_p = int.from_bytes(random_bytes(EXPONENT_BLINDING_BYTES), "big")
    k_q = int.from_bytes(random_bytes(EXPONENT_BLINDING_BYTES), "big")
    d_p = numbers.dmp1 + k_p * (numbers.p - 1)
    d_q = numbers.dmq1 + k_q * (numbers.q - 1)
    s_p = pow(blinded % numbers.p, d_p, numbers.p)
    s_q = pow(blinded % numbers.q, d_q, numbers.q)
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
