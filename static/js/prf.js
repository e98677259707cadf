// A keyed pseudorandom function for the memo (coins.js "Memoisation"): HMAC-SHA-256 (FIPS
// 180-4, RFC 2104), written out so that it runs synchronously and on any page.
//
// Why not WebCrypto: `crypto.subtle` exists only in secure contexts (a survey served over
// plain http on a LAN has none) and is asynchronous, while the reports are drawn in one
// synchronous step with the exact samplers of coins.js, designs.js and exact.js. Those
// samplers read their randomness through `randomSource.getRandomValues(typedArray)`;
// `prfRandomSource` is such a source whose words are HMAC output instead of fresh entropy, so
// the same key and label give the same words, hence the same report, on every visit.
//
// No DOM, no globals, no Math.random. Not constant-time: the key never leaves this browser,
// and nothing is sent that depends on the timing.

const ROUND_CONSTANTS = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);
const INITIAL_STATE = [
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];
const BLOCK_BYTES = 64;

function rotateRight(word, bits) {
  return (word >>> bits) | (word << (32 - bits));
}

function compress(state, words, block, offset) {
  for (let i = 0; i < 16; i += 1) {
    const at = offset + 4 * i;
    words[i] = (block[at] << 24) | (block[at + 1] << 16) | (block[at + 2] << 8) | block[at + 3];
  }
  for (let i = 16; i < 64; i += 1) {
    const w15 = words[i - 15];
    const w2 = words[i - 2];
    const s0 = rotateRight(w15, 7) ^ rotateRight(w15, 18) ^ (w15 >>> 3);
    const s1 = rotateRight(w2, 17) ^ rotateRight(w2, 19) ^ (w2 >>> 10);
    words[i] = (words[i - 16] + s0 + words[i - 7] + s1) | 0;
  }
  let [a, b, c, d, e, f, g, h] = state;
  for (let i = 0; i < 64; i += 1) {
    const s1 = rotateRight(e, 6) ^ rotateRight(e, 11) ^ rotateRight(e, 25);
    const choice = (e & f) ^ (~e & g);
    const t1 = (h + s1 + choice + ROUND_CONSTANTS[i] + words[i]) | 0;
    const s0 = rotateRight(a, 2) ^ rotateRight(a, 13) ^ rotateRight(a, 22);
    const majority = (a & b) ^ (a & c) ^ (b & c);
    const t2 = (s0 + majority) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  const next = [a, b, c, d, e, f, g, h];
  for (let i = 0; i < 8; i += 1) {
    state[i] = (state[i] + next[i]) | 0;
  }
}

/** SHA-256 of `bytes` (a Uint8Array), as a 32-byte Uint8Array (FIPS 180-4). */
export function sha256(bytes) {
  if (!(bytes instanceof Uint8Array)) {
    throw new TypeError("sha256 takes a Uint8Array");
  }
  // The message, a 1 bit, zeros, and the length in bits as 64 bits big-endian.
  const padded = new Uint8Array(Math.ceil((bytes.length + 9) / BLOCK_BYTES) * BLOCK_BYTES);
  padded.set(bytes);
  padded[bytes.length] = 0x80;
  const bits = bytes.length * 8;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(bits / 0x100000000));
  view.setUint32(padded.length - 4, bits >>> 0);
  const state = [...INITIAL_STATE];
  const words = new Int32Array(64);
  for (let offset = 0; offset < padded.length; offset += BLOCK_BYTES) {
    compress(state, words, padded, offset);
  }
  const digest = new Uint8Array(32);
  const out = new DataView(digest.buffer);
  state.forEach((word, i) => out.setUint32(4 * i, word >>> 0));
  return digest;
}

function concat(first, second) {
  const joined = new Uint8Array(first.length + second.length);
  joined.set(first);
  joined.set(second, first.length);
  return joined;
}

/** HMAC-SHA-256 of `message` under `key` (both Uint8Arrays), 32 bytes (RFC 2104). */
export function hmacSha256(key, message) {
  if (!(key instanceof Uint8Array) || !(message instanceof Uint8Array)) {
    throw new TypeError("hmacSha256 takes a Uint8Array key and message");
  }
  const block = new Uint8Array(BLOCK_BYTES);
  block.set(key.length > BLOCK_BYTES ? sha256(key) : key);
  const inner = block.map((byte) => byte ^ 0x36);
  const outer = block.map((byte) => byte ^ 0x5c);
  return sha256(concat(outer, sha256(concat(inner, message))));
}

const encoder = new TextEncoder();

/**
 * A random source (`getRandomValues(typedArray)`, like `crypto`) whose bytes are the blocks
 * HMAC-SHA-256(key, "<label>|0"), HMAC-SHA-256(key, "<label>|1"), ... in order: a sampler
 * given it draws deterministically from `key` and `label`. Each element of the array takes
 * the next BYTES_PER_ELEMENT bytes, big-endian, so the words do not depend on the platform's
 * byte order. Under the PRF assumption on HMAC-SHA-256 these words cannot be told from
 * uniform ones, so an exact sampler fed with them draws from its exact distribution.
 */
export function prfRandomSource(key, label) {
  if (!(key instanceof Uint8Array) || key.length === 0) {
    throw new TypeError("the key must be a non-empty Uint8Array");
  }
  let block = new Uint8Array(0);
  let used = 0;
  let counter = 0;
  const nextByte = () => {
    if (used === block.length) {
      block = hmacSha256(key, encoder.encode(`${label}|${counter}`));
      counter += 1;
      used = 0;
    }
    const byte = block[used];
    used += 1;
    return byte;
  };
  return {
    getRandomValues(array) {
      if (!(array instanceof Uint8Array || array instanceof Uint16Array || array instanceof Uint32Array)) {
        throw new TypeError("getRandomValues takes a Uint8Array, Uint16Array or Uint32Array");
      }
      for (let i = 0; i < array.length; i += 1) {
        let value = 0;
        for (let b = 0; b < array.BYTES_PER_ELEMENT; b += 1) {
          value = value * 256 + nextByte();
        }
        array[i] = value;
      }
      return array;
    },
  };
}

/** `bytes` as base64url text without padding (RFC 4648, section 5). */
export function bytesToBase64url(bytes) {
  return btoa(String.fromCharCode(...bytes))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");
}

/** The bytes of unpadded base64url `text`, or null when it is not that. */
export function base64urlToBytes(text) {
  if (typeof text !== "string" || !/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) {
    return null;
  }
  // Padded back: older browsers' atob wants whole groups of four.
  const padded = text + "=".repeat((4 - (text.length % 4)) % 4);
  const binary = atob(padded.replaceAll("-", "+").replaceAll("_", "/"));
  return Uint8Array.from(binary, (character) => character.charCodeAt(0));
}
