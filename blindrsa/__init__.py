"""RSA blind signatures (RFC 9474, RSABSSA-SHA384-PSS-Randomized) as a plain library: no
Django, no I/O. One-time tokens a server signs without seeing them, so that it can later tell
a genuine, unspent token from a forged one but not which signing request produced it.

The protocol (RFC 9474 §4):

- the client ``prepare``\\ s a message (a 32-byte random prefix in front of it), ``blind``\\ s
  it with a random factor r and sends only the blinded message;
- the server ``blind_sign``\\ s the blinded message with its private key;
- the client ``finalize``\\ s: removes r and checks that the result is an ordinary RSASSA-PSS
  signature (SHA-384, MGF1-SHA-384, 48-byte salt) of the prepared message;
- anyone holding the public key can ``verify`` the pair (prepared message, signature).

The blinded message is m·r^e mod n for a uniform r, itself uniform and independent of the
prepared message, so the signer holds nothing it could match to the token when it is spent.

Modules: ``protocol`` (the four operations and verification), ``keys`` (generation, the
public key as SPKI base64url, the private key sealed at rest), ``encoding`` (base64url),
``errors`` (``BlindSignatureError`` with an ``ErrorCode``). The client half is here for tests
and scripts; the browser's is ``static/js/blindrsa.js``. Reference: Denis, Jacobs, Wood,
"RSA Blind Signatures", RFC 9474 (2023); RSASSA-PSS: RFC 8017 §8.1, §9.1.
"""

from .encoding import b64url_decode, b64url_encode
from .errors import BlindSignatureError, ErrorCode
from .keys import (
    DEFAULT_MODULUS_BITS,
    MIN_MODULUS_BITS,
    check_key_size,
    generate_private_key,
    modulus_length,
    private_key_decrypt,
    private_key_encrypt,
    public_key_decode,
    public_key_encode,
)
from .protocol import (
    PREFIX_LENGTH,
    PSS_DETERMINISTIC,
    PSS_RANDOMIZED,
    PSSZERO_DETERMINISTIC,
    PSSZERO_RANDOMIZED,
    SCHEME,
    VARIANTS,
    Blinded,
    Variant,
    blind,
    blind_sign,
    emsa_pss_encode,
    finalize,
    prepare,
    verify,
)

__all__ = [
    "DEFAULT_MODULUS_BITS",
    "MIN_MODULUS_BITS",
    "PREFIX_LENGTH",
    "PSSZERO_DETERMINISTIC",
    "PSSZERO_RANDOMIZED",
    "PSS_DETERMINISTIC",
    "PSS_RANDOMIZED",
    "SCHEME",
    "VARIANTS",
    "BlindSignatureError",
    "Blinded",
    "ErrorCode",
    "Variant",
    "b64url_decode",
    "b64url_encode",
    "blind",
    "blind_sign",
    "check_key_size",
    "emsa_pss_encode",
    "finalize",
    "generate_private_key",
    "modulus_length",
    "prepare",
    "private_key_decrypt",
    "private_key_encrypt",
    "public_key_decode",
    "public_key_encode",
    "verify",
]
