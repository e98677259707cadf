"""The cost of blind signing and token verification on a 2048-bit key, against OpenSSL.

    .venv/bin/python bench/bench_blind_signatures.py          # or: make bench

``blindrsa.blind_sign`` computes the RSA private operation with Python integers (CRT, base
blinding, the RFC's check by the public exponent), because `cryptography` has no raw RSA; the
baseline is `cryptography`'s own RSASSA-PSS-SHA384 signing (OpenSSL) on the same key, which
does the same exponentiation plus the padding. Verification goes through `cryptography` in
both columns, so its ratio only shows the wrapper's cost. Issuing a token also opens the
sealed private key (HKDF, AES-GCM, PKCS#8 parsing), timed with the signing in a row. No
database: these are per-operation costs to add to a request's. Ratio = baseline time /
measured time (1.0 = as fast as OpenSSL; higher is faster).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding

import blindrsa

ROUNDS = 7
SECRET = "bench-secret-of-fifty-characters-0123456789abcdefgh"
PSS = padding.PSS(mgf=padding.MGF1(hashes.SHA384()), salt_length=48)


def per_call_ms(function, calls):
    """The median over ROUNDS of the mean time of ``calls`` calls, in milliseconds."""
    function()
    rounds = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        for _ in range(calls):
            function()
        rounds.append((time.perf_counter() - start) * 1000 / calls)
    return statistics.median(rounds)


def main():
    key = blindrsa.generate_private_key()
    public_key = key.public_key()
    prepared = blindrsa.prepare(message=b"bench")
    blinded = blindrsa.blind(public_key=public_key, prepared_message=prepared)
    blind_signature = blindrsa.blind_sign(private_key=key, blinded_message=blinded.blinded_message)
    signature = blindrsa.finalize(
        public_key=public_key,
        prepared_message=prepared,
        blind_signature=blind_signature,
        inverse=blinded.inverse,
    )
    sealed = blindrsa.private_key_encrypt(key, secret=SECRET, context="bench")

    openssl_sign = per_call_ms(lambda: key.sign(prepared, PSS, hashes.SHA384()), 50)
    openssl_verify = per_call_ms(
        lambda: public_key.verify(signature, prepared, PSS, hashes.SHA384()), 500
    )
    sign = per_call_ms(
        lambda: blindrsa.blind_sign(private_key=key, blinded_message=blinded.blinded_message), 50
    )

    def issue():
        opened = blindrsa.private_key_decrypt(sealed, secret=SECRET, context="bench")
        blindrsa.blind_sign(private_key=opened, blinded_message=blinded.blinded_message)

    verify = per_call_ms(
        lambda: blindrsa.verify(
            public_key=public_key, prepared_message=prepared, signature=signature
        ),
        500,
    )
    rows = [
        ("blind_sign", sign, "cryptography PSS sign", openssl_sign),
        (
            "open sealed key + blind_sign",
            per_call_ms(issue, 50),
            "cryptography PSS sign",
            openssl_sign,
        ),
        ("verify", verify, "cryptography PSS verify", openssl_verify),
    ]
    print(f"RSA-{key.key_size}, Python {sys.version.split()[0]}, median of {ROUNDS} rounds")
    print(f"{'operation':<30}{'ms':>9}  {'baseline':<26}{'ms':>9}{'ratio':>8}")
    for name, measured, baseline_name, baseline in rows:
        ratio = baseline / measured
        print(f"{name:<30}{measured:9.3f}  {baseline_name:<26}{baseline:9.3f}{ratio:8.2f}")


if __name__ == "__main__":
    main()
