import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";

import {
  BlindRsaError,
  PREFIX_LENGTH,
  SCHEME,
  VARIANTS,
  base64urlDecode,
  base64urlEncode,
  bigIntToBytes,
  blind,
  bytesToBigInt,
  emsaPssEncode,
  finalize,
  importPublicKey,
  importPublicKeyNumbers,
  modInverse,
  modPow,
  prepare,
  verify,
} from "../../static/js/blindrsa.js";

// RFC 9474 Appendix A, hex (a copy of the shared vectors: a fresh clone has no shared folder).
const VECTORS = JSON.parse(
  readFileSync(new URL("../vectors/rfc9474.json", import.meta.url), "utf8"),
);
const subtle = globalThis.crypto.subtle;

function hexBytes(text) {
  const hex = text.replace(/^0x/, "");
  return Uint8Array.from({ length: hex.length / 2 }, (_, i) =>
    Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16),
  );
}

function hexInt(text) {
  return BigInt(text.startsWith("0x") ? text : `0x${text}`);
}

/** Fills each getRandomValues call with the next chunk, which must have the asked length. */
function scriptedBytes(...chunks) {
  const queue = [...chunks];
  return {
    getRandomValues(array) {
      assert.ok(queue.length > 0, `asked for ${array.length} more random bytes than scripted`);
      const chunk = queue.shift();
      assert.equal(array.length, chunk.length, "asked for another length than scripted");
      array.set(chunk);
      return array;
    },
    get remaining() {
      return queue.length;
    },
  };
}

/** The blinding factor r of a vector, from its inverse, as the bytes `blind` draws. */
function rBytes(vector) {
  const n = hexInt(vector.n);
  return bigIntToBytes(modInverse(hexInt(vector.inv), n), hexBytes(vector.n).length);
}

async function vectorKey(vector) {
  return importPublicKeyNumbers({ n: hexInt(vector.n), e: hexInt(vector.e) });
}

describe("RFC 9474 Appendix A vectors", () => {
  it("holds the four variants, and surveys use the randomized PSS one", () => {
    assert.deepEqual(VECTORS.map((v) => v.name).sort(), Object.keys(VARIANTS).sort());
    assert.equal(SCHEME, "RSABSSA-SHA384-PSS-Randomized");
  });

  for (const vector of VECTORS) {
    const variant = vector.name;
    const options = { variant };
    describe(variant, () => {
      it("prepare puts the prefix in front of the message", () => {
        const randomized = VARIANTS[variant].randomized;
        const source = scriptedBytes(...(randomized ? [hexBytes(vector.msg_prefix)] : []));
        const prepared = prepare(hexBytes(vector.msg), source, options);
        assert.deepEqual(prepared, hexBytes(vector.input_msg));
        assert.equal(source.remaining, 0);
      });

      if (vector.encoded_msg) {
        it("the PSS encoding matches", async () => {
          const bits = hexInt(vector.n).toString(2).length;
          const encoded = await emsaPssEncode(
            hexBytes(vector.input_msg),
            bits - 1,
            hexBytes(vector.salt),
          );
          assert.deepEqual(encoded, hexBytes(vector.encoded_msg));
        });
      }

      it("blind reproduces blinded_msg and inv", async () => {
        const key = await vectorKey(vector);
        // An empty salt (PSSZERO) is not drawn at all.
        const salt = hexBytes(vector.salt);
        const source = scriptedBytes(...(salt.length ? [salt] : []), rBytes(vector));
        const { blindedMessage, inverse } = await blind(
          key,
          hexBytes(vector.input_msg),
          source,
          options,
        );
        assert.deepEqual(blindedMessage, hexBytes(vector.blinded_msg));
        assert.equal(bytesToBigInt(inverse), hexInt(vector.inv));
        assert.equal(source.remaining, 0);
      });

      it("the RSA private operation on blinded_msg gives blind_sig (arithmetic check)", () => {
        // The signer is the server's; this checks modPow, which blind uses, at full size.
        const n = hexInt(vector.n);
        const s = modPow(bytesToBigInt(hexBytes(vector.blinded_msg)), hexInt(vector.d), n);
        assert.deepEqual(bigIntToBytes(s, hexBytes(vector.n).length), hexBytes(vector.blind_sig));
      });

      it("finalize reproduces sig, which WebCrypto verifies as RSASSA-PSS", async () => {
        const key = await vectorKey(vector);
        const inverse = bigIntToBytes(hexInt(vector.inv), key.length);
        const signature = await finalize(
          key,
          hexBytes(vector.input_msg),
          hexBytes(vector.blind_sig),
          inverse,
          options,
        );
        assert.deepEqual(signature, hexBytes(vector.sig));
        assert.equal(await verify(key, hexBytes(vector.input_msg), signature, options), true);
      });

      it("a changed signature or message does not verify", async () => {
        const key = await vectorKey(vector);
        const signature = hexBytes(vector.sig);
        signature[signature.length - 1] ^= 1;
        assert.equal(await verify(key, hexBytes(vector.input_msg), signature, options), false);
        const message = hexBytes(vector.input_msg);
        message[0] ^= 1;
        assert.equal(await verify(key, message, hexBytes(vector.sig), options), false);
      });
    });
  }
});

it("a blinding factor outside [1, n) is drawn again", async () => {
  // 2^4096 - 1 (above n) and 0 are refused; the third draw, the vector's r, is used.
  const vector = VECTORS[0];
  const length = hexBytes(vector.n).length;
  const source = scriptedBytes(
    hexBytes(vector.salt),
    new Uint8Array(length).fill(0xff),
    new Uint8Array(length),
    rBytes(vector),
  );
  const key = await vectorKey(vector);
  const { blindedMessage } = await blind(key, hexBytes(vector.input_msg), source);
  assert.deepEqual(blindedMessage, hexBytes(vector.blinded_msg));
  assert.equal(source.remaining, 0);
});

async function freshKeyPair(bits = 2048) {
  const algorithm = {
    name: "RSA-PSS",
    modulusLength: bits,
    publicExponent: Uint8Array.of(1, 0, 1),
    hash: "SHA-384",
  };
  const pair = await subtle.generateKey(algorithm, true, ["sign", "verify"]);
  const spki = new Uint8Array(await subtle.exportKey("spki", pair.publicKey));
  const jwk = await subtle.exportKey("jwk", pair.privateKey);
  return { pair, spki: base64urlEncode(spki), d: bytesToBigInt(base64urlDecode(jwk.d)) };
}

/** The RSA private operation, as the server does it (RFC 9474 §4.3), in the test. */
function testSigner(key, d) {
  return (blindedMessage) =>
    bigIntToBytes(modPow(bytesToBigInt(blindedMessage), d, key.n), key.length);
}

describe("a fresh 2048-bit key", async () => {
  const { pair, spki, d } = await freshKeyPair();
  const key = await importPublicKey(spki);
  const sign = testSigner(key, d);

  it("imports from SPKI base64url with its numbers", () => {
    assert.equal(key.bits, 2048);
    assert.equal(key.length, 256);
    assert.equal(key.e, 65537n);
  });

  it("a whole round gives a signature WebCrypto verifies with the original key", async () => {
    const message = new TextEncoder().encode("one invitation");
    const prepared = prepare(message, globalThis.crypto);
    assert.equal(prepared.length, PREFIX_LENGTH + message.length);
    assert.deepEqual(prepared.slice(PREFIX_LENGTH), message);
    const { blindedMessage, inverse } = await blind(key, prepared, globalThis.crypto);
    const signature = await finalize(key, prepared, sign(blindedMessage), inverse);
    const params = { name: "RSA-PSS", saltLength: 48 };
    assert.equal(await subtle.verify(params, pair.publicKey, signature, prepared), true);
    prepared[0] ^= 1;
    assert.equal(await subtle.verify(params, pair.publicKey, signature, prepared), false);
  });

  it("the blinded message is not the encoded message, and two blindings differ", async () => {
    const prepared = prepare(Uint8Array.of(1, 2, 3), globalThis.crypto);
    const first = await blind(key, prepared, globalThis.crypto);
    const second = await blind(key, prepared, globalThis.crypto);
    assert.notDeepEqual(first.blindedMessage, second.blindedMessage);
    assert.notDeepEqual(first.inverse, second.inverse);
  });

  it("finalize refuses a blind signature made with another key", async () => {
    const other = await freshKeyPair();
    const otherKey = await importPublicKey(other.spki);
    const prepared = prepare(Uint8Array.of(7), globalThis.crypto);
    const { blindedMessage, inverse } = await blind(key, prepared, globalThis.crypto);
    const wrong = testSigner(otherKey, other.d)(blindedMessage);
    await assert.rejects(finalize(key, prepared, wrong, inverse), (error) => {
      assert.ok(error instanceof BlindRsaError);
      assert.equal(error.code, "invalid_signature");
      return true;
    });
  });

  it("finalize refuses an answer of the wrong length", async () => {
    const prepared = prepare(Uint8Array.of(7), globalThis.crypto);
    const { inverse } = await blind(key, prepared, globalThis.crypto);
    await assert.rejects(finalize(key, prepared, new Uint8Array(255), inverse), {
      code: "malformed",
    });
  });
});

describe("keys and encodings", () => {
  it("a key under 2048 bits is refused", async () => {
    const small = await freshKeyPair(1024);
    await assert.rejects(importPublicKey(small.spki), { code: "key_too_small" });
  });

  it("text that is not a public key is malformed", async () => {
    for (const text of ["", "not base64!", "QUJD", "A"]) {
      await assert.rejects(importPublicKey(text), { code: "malformed" }, text);
    }
  });

  it("an elliptic-curve key is malformed", async () => {
    const pair = await subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
      "sign",
      "verify",
    ]);
    const spki = base64urlEncode(new Uint8Array(await subtle.exportKey("spki", pair.publicKey)));
    await assert.rejects(importPublicKey(spki), { code: "malformed" });
  });

  it("base64url round-trips, accepts padding and refuses the other alphabet", () => {
    assert.equal(base64urlEncode(Uint8Array.of(0xff, 0xef)), "_-8");
    assert.deepEqual(base64urlDecode("_-8"), Uint8Array.of(0xff, 0xef));
    assert.deepEqual(base64urlDecode("_-8="), Uint8Array.of(0xff, 0xef));
    for (const text of ["/+8=", "_-8 ", "A"]) {
      assert.throws(() => base64urlDecode(text), { code: "malformed" }, text);
    }
  });

  it("prepare needs a random source for the randomized variant only", () => {
    assert.throws(() => prepare(Uint8Array.of(1), undefined), TypeError);
    const message = Uint8Array.of(1, 2);
    const prepared = prepare(message, undefined, { variant: "RSABSSA-SHA384-PSS-Deterministic" });
    assert.deepEqual(prepared, message);
  });
});
