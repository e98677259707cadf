// The memo's keyed pseudorandom function (static/js/prf.js): SHA-256 and HMAC-SHA-256 against
// the standards' test vectors and Node's own implementation, and the random source built on
// them.

import assert from "node:assert/strict";
import { createHash, createHmac } from "node:crypto";
import { describe, it } from "node:test";

import {
  base64urlToBytes,
  bytesToBase64url,
  hmacSha256,
  prfRandomSource,
  sha256,
} from "../../static/js/prf.js";
import { seededSource } from "./fakes.mjs";

const hex = (bytes) => Buffer.from(bytes).toString("hex");
const text = (string) => new TextEncoder().encode(string);

function seededBytes(length, seed) {
  return seededSource(seed).getRandomValues(new Uint8Array(length));
}

describe("sha256", () => {
  it("gives FIPS 180-4's digests", () => {
    // FIPS 180-4 examples (NIST CSRC "SHA256.pdf"), and the empty message.
    assert.equal(hex(sha256(text("abc"))), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assert.equal(
      hex(sha256(text("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"))),
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
    );
    assert.equal(hex(sha256(new Uint8Array(0))), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  });

  it("agrees with node:crypto at every length around the block and padding edges", () => {
    for (let length = 0; length <= 200; length += 1) {
      const message = seededBytes(length, length + 1);
      assert.equal(hex(sha256(message)), createHash("sha256").update(message).digest("hex"), `${length}`);
    }
  });
});

describe("hmacSha256", () => {
  it("gives RFC 4231's test vectors", () => {
    // RFC 4231, test cases 1, 2 and 6 (a key longer than the block is hashed first).
    assert.equal(
      hex(hmacSha256(new Uint8Array(20).fill(0x0b), text("Hi There"))),
      "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
    );
    assert.equal(
      hex(hmacSha256(text("Jefe"), text("what do ya want for nothing?"))),
      "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
    );
    assert.equal(
      hex(hmacSha256(new Uint8Array(131).fill(0xaa), text("Test Using Larger Than Block-Size Key - Hash Key First"))),
      "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
    );
  });

  it("agrees with node:crypto for keys shorter than, as long as and longer than a block", () => {
    for (const keyLength of [1, 32, 63, 64, 65, 200]) {
      for (const messageLength of [0, 7, 64, 100]) {
        const key = seededBytes(keyLength, keyLength);
        const message = seededBytes(messageLength, 1000 + messageLength);
        assert.equal(
          hex(hmacSha256(key, message)),
          createHmac("sha256", key).update(message).digest("hex"),
          `key ${keyLength}, message ${messageLength}`,
        );
      }
    }
  });
});

describe("prfRandomSource", () => {
  const key = seededBytes(32, 99);

  it("hands out the HMAC blocks of '<label>|0', '<label>|1', ... in order, big-endian", () => {
    const blocks = Buffer.concat(
      [0, 1, 2].map((counter) => createHmac("sha256", key).update(`7|12|${counter}`).digest()),
    );
    const source = prfRandomSource(key, "7|12");
    const first = source.getRandomValues(new Uint32Array(5)); // 20 bytes
    const next = source.getRandomValues(new Uint8Array(3)); // 3 more
    const rest = source.getRandomValues(new Uint32Array(15)); // across two block boundaries
    assert.deepEqual([...first], [0, 4, 8, 12, 16].map((at) => blocks.readUInt32BE(at)));
    assert.deepEqual([...next], [...blocks.subarray(20, 23)]);
    assert.deepEqual([...rest], Array.from({ length: 15 }, (_, i) => blocks.readUInt32BE(23 + 4 * i)));
  });

  it("gives the same words for the same key and label, other words for another of either", () => {
    const words = (k, label) => [...prfRandomSource(k, label).getRandomValues(new Uint32Array(4))];
    assert.deepEqual(words(key, "1|0"), words(key, "1|0"));
    assert.notDeepEqual(words(key, "1|0"), words(key, "1|1"));
    assert.notDeepEqual(words(key, "1|0"), words(key, "2|0"));
    assert.notDeepEqual(words(key, "1|0"), words(seededBytes(32, 100), "1|0"));
  });

  it("refuses an empty key and typed arrays it does not fill", () => {
    assert.throws(() => prfRandomSource(new Uint8Array(0), "1|0"), TypeError);
    assert.throws(() => prfRandomSource("secret", "1|0"), TypeError);
    assert.throws(() => prfRandomSource(key, "1|0").getRandomValues(new Float64Array(1)), TypeError);
  });
});

describe("base64url", () => {
  it("round-trips bytes without padding and refuses other text", () => {
    for (let length = 0; length <= 40; length += 1) {
      const bytes = seededBytes(length, 7 + length);
      const encoded = bytesToBase64url(bytes);
      assert.equal(encoded, Buffer.from(bytes).toString("base64url"));
      assert.deepEqual(base64urlToBytes(encoded), bytes);
    }
    for (const bad of [null, 5, "a", "ab+c", "ab/c", "abc=", "ab c"]) {
      assert.equal(base64urlToBytes(bad), null, String(bad));
    }
  });
});
