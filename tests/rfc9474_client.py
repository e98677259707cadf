"""An independent RFC 9474 (RSABSSA-SHA384-PSS-Randomized) implementation, for the tests only.

Written from the RFC's pseudo-code (§4.1-4.4) and RFC 8017's EMSA-PSS (§9.1), with nothing
but ``hashlib``, ``secrets``, ``base64`` and Python integers (the public key's DER read by
hand): it imports none of the project's code, nor `cryptography`, so a shared misreading of
the RFC would have to be made twice to pass the vectors and the cross-checks against
blindrsa/. It is also what a researcher's own script could do to obtain and spend a token.
A key is a plain ``(n, e)`` pair of integers.

Names follow the RFC: Prepare, Blind, BlindSign, Finalize; ``random_bytes(k)`` returns k
random bytes (``secrets.token_bytes`` unless a test scripts it).
"""

import base64
import hashlib
import secrets

H_LEN = 48  # SHA-384
S_LEN = 48  # RSABSSA-SHA384-PSS-*: sLen = hLen


def i2osp(x, length):
    return x.to_bytes(length, "big")


def os2ip(data):
    return int.from_bytes(data, "big")


def mgf1(seed, mask_len):
    t = b""
    counter = 0
    while len(t) < mask_len:
        t += hashlib.sha384(seed + i2osp(counter, 4)).digest()
        counter += 1
    return t[:mask_len]


def emsa_pss_encode(m, em_bits, salt):
    m_hash = hashlib.sha384(m).digest()
    em_len = -(-em_bits // 8)
    if em_len < H_LEN + len(salt) + 2:
        raise ValueError("encoding error")
    m_prime = b"\x00" * 8 + m_hash + salt
    h = hashlib.sha384(m_prime).digest()
    ps = b"\x00" * (em_len - len(salt) - H_LEN - 2)
    db = ps + b"\x01" + salt
    db_mask = mgf1(h, em_len - H_LEN - 1)
    masked_db = bytes(x ^ y for x, y in zip(db, db_mask, strict=True))
    masked_db = bytes([masked_db[0] & (0xFF >> (8 * em_len - em_bits))]) + masked_db[1:]
    return masked_db + h + b"\xbc"


def emsa_pss_verify(m, em, em_bits, s_len):
    """RFC 8017 §9.1.2; True for "consistent"."""
    m_hash = hashlib.sha384(m).digest()
    em_len = -(-em_bits // 8)
    if len(em) != em_len or em_len < H_LEN + s_len + 2 or em[-1] != 0xBC:
        return False
    masked_db, h = em[: em_len - H_LEN - 1], em[em_len - H_LEN - 1 : -1]
    top_bits = 8 * em_len - em_bits
    if top_bits and masked_db[0] >> (8 - top_bits):
        return False
    db = bytearray(x ^ y for x, y in zip(masked_db, mgf1(h, em_len - H_LEN - 1), strict=True))
    db[0] &= 0xFF >> top_bits
    zeros = em_len - H_LEN - s_len - 2
    if any(db[:zeros]) or db[zeros] != 0x01:
        return False
    salt = bytes(db[len(db) - s_len :]) if s_len else b""
    return hashlib.sha384(b"\x00" * 8 + m_hash + salt).digest() == h


def rsassa_pss_verify(n, e, m, signature, s_len=S_LEN):
    """RFC 8017 §8.1.2."""
    k = -(-n.bit_length() // 8)
    if len(signature) != k:
        return False
    s = os2ip(signature)
    if s >= n:
        return False
    mod_bits = n.bit_length()
    em_len = -(-(mod_bits - 1) // 8)
    representative = pow(s, e, n)
    if representative >= 256**em_len:
        return False
    return emsa_pss_verify(m, i2osp(representative, em_len), mod_bits - 1, s_len)


def public_key_from_spki(text):
    """(n, e) from a survey's ``token_key``: base64url of a DER SubjectPublicKeyInfo
    (RFC 5280 §4.1; RSA: RFC 8017 Appendix A.1.1), read by hand."""
    der = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    spki = _der_children(_der_read(der, 0x30))
    algorithm = _der_children(_der_read(spki[0], 0x30))
    if _der_read(algorithm[0], 0x06) != RSA_ENCRYPTION:
        raise ValueError("not an RSA key")
    bit_string = _der_read(spki[1], 0x03)
    if bit_string[0] != 0:
        raise ValueError("unused bits in the key's BIT STRING")
    n, e = _der_children(_der_read(bit_string[1:], 0x30))
    return os2ip(_der_read(n, 0x02)), os2ip(_der_read(e, 0x02))


RSA_ENCRYPTION = bytes.fromhex("2a864886f70d010101")  # 1.2.840.113549.1.1.1


def _der_element(data):
    """(tag, contents, rest) of the first DER element of ``data``."""
    tag, length, offset = data[0], data[1], 2
    if length & 0x80:
        size = length & 0x7F
        length, offset = os2ip(data[2 : 2 + size]), 2 + size
    return tag, data[offset : offset + length], data[offset + length :]


def _der_read(data, tag):
    found, contents, rest = _der_element(data)
    if found != tag or rest:
        raise ValueError(f"expected one DER element of tag {tag:#x}, got {found:#x}")
    return contents


def _der_children(contents):
    """The encoded elements inside a SEQUENCE's contents."""
    children = []
    while contents:
        _, _, rest = _der_element(contents)
        children.append(contents[: len(contents) - len(rest)])
        contents = rest
    return children


def prepare(msg, random_bytes=secrets.token_bytes):
    """§4.1, randomized: msg_prefix = random(32); input_msg = msg_prefix || msg."""
    return random_bytes(32) + msg


def blind(n, e, msg, random_bytes=secrets.token_bytes, s_len=S_LEN):
    """§4.2; returns (blinded_msg, inv)."""
    mod_bits = n.bit_length()
    k = -(-mod_bits // 8)
    encoded_msg = emsa_pss_encode(msg, mod_bits - 1, random_bytes(s_len))
    m = os2ip(encoded_msg)
    if _gcd(m, n) != 1:
        raise ValueError("invalid input")
    r = 0
    while not 1 <= r < n:
        r = os2ip(random_bytes(k)) >> (8 * k - mod_bits)
    inv = pow(r, -1, n)
    x = pow(r, e, n)
    z = (m * x) % n
    return i2osp(z, k), inv


def blind_sign(n, e, d, blind_msg):
    """§4.3."""
    k = -(-n.bit_length() // 8)
    m = os2ip(blind_msg)
    if m >= n:
        raise ValueError("message representative out of range")
    s = pow(m, d, n)
    if pow(s, e, n) != m:
        raise ValueError("signing failure")
    return i2osp(s, k)


def finalize(n, e, msg, blind_sig, inv, s_len=S_LEN):
    """§4.4."""
    k = -(-n.bit_length() // 8)
    if len(blind_sig) != k:
        raise ValueError("unexpected input size")
    z = os2ip(blind_sig)
    s = (z * inv) % n
    sig = i2osp(s, k)
    if not rsassa_pss_verify(n, e, msg, sig, s_len):
        raise ValueError("invalid signature")
    return sig


def _gcd(a, b):
    while b:
        a, b = b, a % b
    return a
