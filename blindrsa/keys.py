"""The keys of blind signing: a 2048-bit (or larger) RSA pair per survey, its public half as
SubjectPublicKeyInfo DER in base64url (what WebCrypto imports), and its private half sealed
for storage under a key derived from a secret the caller passes (the settings' SECRET_KEY).

Sealing: HKDF-SHA256 (a fresh 16-byte salt per key, a fixed label) turns the secret into an
AES-256-GCM key that encrypts the PKCS#8 DER of the private key; the caller's ``context``
(the survey's id) is authenticated with it, so a sealed key moved to another row does not
open. HKDF does not stretch a password: the secret must already be random key material, as
Django's SECRET_KEY is (PBKDF2 or scrypt, as in PKCS#8's own encryption, would cost every
signing request tens of milliseconds for no gain with such a secret).
"""

import secrets

from cryptography.exceptions import InvalidTag, UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from .encoding import b64url_decode, b64url_encode
from .errors import BlindSignatureError, ErrorCode

#: Smallest modulus accepted, for new keys and for public keys read back (RFC 9474 §7.1 asks
#: for at least 2048 bits).
MIN_MODULUS_BITS = 2048
#: The modulus of new keys.
DEFAULT_MODULUS_BITS = 2048
PUBLIC_EXPONENT = 65537

# Private keys at rest: version byte, HKDF salt, AES-GCM nonce, then the sealed PKCS#8 DER.
SEAL_VERSION = b"\x01"
SEAL_SALT_LENGTH = 16
SEAL_NONCE_LENGTH = 12
SEAL_INFO = b"rrsurvey blind-signature private key v1"
# HKDF does not stretch a password: the secret must already be a random key (Django's
# SECRET_KEY is 50 random characters), and this refuses an obviously short one.
MIN_SECRET_LENGTH = 32


def modulus_length(public_key: rsa.RSAPublicKey) -> int:
    """The length in bytes of the modulus: of every blinded message, blind signature and
    signature under this key."""
    return (public_key.key_size + 7) // 8


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
    random_bytes=secrets.token_bytes,
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
        # The bytes are those private_key_encrypt sealed (GCM authenticated them), from a key
        # OpenSSL made or checked; checking it again costs ~70 ms a load at 2048 bits, paid
        # on every token issued, and blind_sign checks each signature with e anyway.
        key = serialization.load_der_private_key(
            der, password=None, unsafe_skip_rsa_key_validation=True
        )
        if not isinstance(key, rsa.RSAPrivateKey):
            raise BlindSignatureError("not an RSA private key", code=ErrorCode.KEY_UNREADABLE)
        return key
    raise BlindSignatureError(
        "no secret opens this private key (another SECRET_KEY, or another survey's key)",
        code=ErrorCode.KEY_UNREADABLE,
    )
