// RSA blind signatures (RFC 9474, RSABSSA-SHA384-PSS-Randomized), the client's half: the
// browser of an invitee prepares a random token, blinds it, sends only the blinded message to
// be signed, and unblinds the answer into an ordinary RSASSA-PSS signature the server has
// never seen. The server's half is blindrsa/ (Python).
//
// WebCrypto does the hashing (SHA-384), imports the survey's public key and verifies the
// finished signature; the rest (MGF1, the PSS encoding, the blinding arithmetic) is RFC 8017 and
// RFC 9474 written out on BigInt, because WebCrypto has no raw RSA operation.
//
// No DOM, no globals, no Math.random: the functions that draw take a `randomSource` with
// `getRandomValues(typedArray)` (the page passes `crypto`; the tests script the bytes), as in
// coins.js. Bytes are Uint8Arrays; the API spells them in base64url (`base64urlEncode`).
//
// Timing: the arithmetic on BigInt is not constant-time. What it handles on the client (the
// blinding factor r) stays in this browser, and the server learns nothing from the client's
// timing; the server's private operation is blinded there.

export const PREFIX_LENGTH = 32;
const HASH = "SHA-384";
const HASH_LENGTH = 48;
const MIN_MODULUS_BITS = 2048;

/** RFC 9474's variants; surveys use `SCHEME`. */
export const VARIANTS = Object.freeze({
  "RSABSSA-SHA384-PSS-Randomized": Object.freeze({ saltLength: 48, randomized: true }),
  "RSABSSA-SHA384-PSSZERO-Randomized": Object.freeze({ saltLength: 0, randomized: true }),
  "RSABSSA-SHA384-PSS-Deterministic": Object.freeze({ saltLength: 48, randomized: false }),
  "RSABSSA-SHA384-PSSZERO-Deterministic": Object.freeze({ saltLength: 0, randomized: false }),
});
export const SCHEME = "RSABSSA-SHA384-PSS-Randomized";

/** Why an operation refused; `code` is what callers branch on (the server's codes). */
export class BlindRsaError extends Error {
  constructor(code, message) {
    super(message);
    this.name = "BlindRsaError";
    this.code = code;
  }
}

function variantNamed(name) {
  const variant = VARIANTS[name];
  if (!variant) {
    throw new RangeError(`unknown variant ${name}`);
  }
  return variant;
}

function subtle() {
  return globalThis.crypto.subtle;
}

function checkRandomSource(randomSource) {
  if (!randomSource || typeof randomSource.getRandomValues !== "function") {
    throw new TypeError("randomSource must have getRandomValues(typedArray), like crypto");
  }
}

function randomBytes(randomSource, length) {
  const bytes = new Uint8Array(length);
  if (length > 0) {
    randomSource.getRandomValues(bytes);
  }
  return bytes;
}

// --- bytes and integers --------------------------------------------------------------------

export function base64urlEncode(bytes) {
  let binary = "";
  for (const byte of bytes) {
    binary += String.fromCharCode(byte);
  }
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

export function base64urlDecode(text) {
  if (typeof text !== "string" || !/^[A-Za-z0-9_-]*={0,2}$/.test(text)) {
    throw new BlindRsaError("malformed", "expected base64url text");
  }
  const stripped = text.replace(/=+$/, "");
  if (stripped.length % 4 === 1) {
    throw new BlindRsaError("malformed", "expected base64url text");
  }
  const binary = atob(stripped.replaceAll("-", "+").replaceAll("_", "/"));
  return Uint8Array.from(binary, (character) => character.charCodeAt(0));
}

export function bytesToBigInt(bytes) {
  let value = 0n;
  for (const byte of bytes) {
    value = (value << 8n) | BigInt(byte);
  }
  return value;
}

export function bigIntToBytes(value, length) {
  const bytes = new Uint8Array(length);
  let rest = value;
  for (let i = length - 1; i >= 0; i -= 1) {
    bytes[i] = Number(rest & 0xffn);
    rest >>= 8n;
  }
  if (rest !== 0n) {
    throw new RangeError(`integer too large for ${length} bytes`);
  }
  return bytes;
}

function bitLength(value) {
  return value === 0n ? 0 : value.toString(2).length;
}

export function modPow(base, exponent, modulus) {
  let result = 1n;
  let square = base % modulus;
  let rest = exponent;
  while (rest > 0n) {
    if (rest & 1n) {
      result = (result * square) % modulus;
    }
    square = (square * square) % modulus;
    rest >>= 1n;
  }
  return result % modulus;
}

/** The inverse of `value` modulo `modulus`, or null when they share a factor. */
export function modInverse(value, modulus) {
  let [oldR, r] = [((value % modulus) + modulus) % modulus, modulus];
  let [oldS, s] = [1n, 0n];
  while (r !== 0n) {
    const quotient = oldR / r;
    [oldR, r] = [r, oldR - quotient * r];
    [oldS, s] = [s, oldS - quotient * s];
  }
  if (oldR !== 1n) {
    return null;
  }
  return ((oldS % modulus) + modulus) % modulus;
}

function gcd(a, b) {
  let [x, y] = [a, b];
  while (y !== 0n) {
    [x, y] = [y, x % y];
  }
  return x;
}

function concat(...parts) {
  const out = new Uint8Array(parts.reduce((total, part) => total + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

async function sha384(bytes) {
  return new Uint8Array(await subtle().digest(HASH, bytes));
}

// --- keys ------------------------------------------------------------------------------------

async function publicKeyFromCryptoKey(cryptoKey) {
  const jwk = await subtle().exportKey("jwk", cryptoKey);
  const n = bytesToBigInt(base64urlDecode(jwk.n));
  const e = bytesToBigInt(base64urlDecode(jwk.e));
  const bits = bitLength(n);
  if (bits < MIN_MODULUS_BITS) {
    throw new BlindRsaError("key_too_small", `the key has ${bits} bits, fewer than 2048`);
  }
  return Object.freeze({ cryptoKey, n, e, bits, length: Math.ceil(bits / 8) });
}

/**
 * The survey's public key from its `token_key` (SubjectPublicKeyInfo DER, base64url), as
 * `{cryptoKey, n, e, bits, length}`: WebCrypto's key for verifying, and the numbers for
 * blinding.
 */
export async function importPublicKey(spkiBase64url) {
  let cryptoKey;
  try {
    cryptoKey = await subtle().importKey(
      "spki",
      base64urlDecode(spkiBase64url),
      { name: "RSA-PSS", hash: HASH },
      true,
      ["verify"],
    );
  } catch (error) {
    if (error instanceof BlindRsaError) {
      throw error;
    }
    throw new BlindRsaError("malformed", "not an RSA public key");
  }
  return publicKeyFromCryptoKey(cryptoKey);
}

/** The same from the modulus and exponent (BigInts), as RFC 9474's vectors give keys. */
export async function importPublicKeyNumbers({ n, e }) {
  const length = Math.ceil(bitLength(n) / 8);
  const jwk = {
    kty: "RSA",
    n: base64urlEncode(bigIntToBytes(n, length)),
    e: base64urlEncode(bigIntToBytes(e, Math.ceil(bitLength(e) / 8))),
    alg: "PS384",
    ext: true,
  };
  const cryptoKey = await subtle().importKey("jwk", jwk, { name: "RSA-PSS", hash: HASH }, true, [
    "verify",
  ]);
  return publicKeyFromCryptoKey(cryptoKey);
}

// --- RFC 8017 --------------------------------------------------------------------------------

async function mgf1(seed, length) {
  const blocks = [];
  for (let counter = 0; blocks.length * HASH_LENGTH < length; counter += 1) {
    const suffix = new Uint8Array(4);
    new DataView(suffix.buffer).setUint32(0, counter);
    blocks.push(await sha384(concat(seed, suffix)));
  }
  return concat(...blocks).slice(0, length);
}

/** RFC 8017 §9.1.1 EMSA-PSS-ENCODE with SHA-384 and MGF1-SHA-384. */
export async function emsaPssEncode(message, emBits, salt) {
  const emLength = Math.ceil(emBits / 8);
  if (emLength < HASH_LENGTH + salt.length + 2) {
    throw new BlindRsaError("encoding_failed", "the key is too small to encode");
  }
  const mHash = await sha384(message);
  const h = await sha384(concat(new Uint8Array(8), mHash, salt));
  const db = concat(
    new Uint8Array(emLength - salt.length - HASH_LENGTH - 2),
    Uint8Array.of(1),
    salt,
  );
  const mask = await mgf1(h, db.length);
  for (let i = 0; i < db.length; i += 1) {
    db[i] ^= mask[i];
  }
  db[0] &= 0xff >> (8 * emLength - emBits);
  return concat(db, h, Uint8Array.of(0xbc));
}

// --- RFC 9474 --------------------------------------------------------------------------------

/**
 * RFC 9474 §4.1 Prepare: 32 random bytes in front of the message (randomized variants), so
 * that what is signed is unpredictable to the signer whatever the message.
 */
export function prepare(message, randomSource, { variant = SCHEME } = {}) {
  if (!variantNamed(variant).randomized) {
    return Uint8Array.from(message);
  }
  checkRandomSource(randomSource);
  return concat(randomBytes(randomSource, PREFIX_LENGTH), message);
}

/** Uniform in [1, n): modulus-length bytes masked to n's bit length, drawn until in range. */
function randomBelow(n, randomSource) {
  const bits = bitLength(n);
  const length = Math.ceil(bits / 8);
  const excess = BigInt(8 * length - bits);
  for (;;) {
    const candidate = bytesToBigInt(randomBytes(randomSource, length)) >> excess;
    if (candidate > 0n && candidate < n) {
      return candidate;
    }
  }
}

/**
 * RFC 9474 §4.2 Blind: PSS-encode the prepared message (drawing the salt), draw r in [1, n),
 * and return `{blindedMessage: m·r^e mod n, inverse: r⁻¹ mod n}` (both modulus-length bytes).
 * Send `blindedMessage`; keep `inverse` and the prepared message for `finalize`. The random
 * source is asked for the salt first, then for r.
 */
export async function blind(publicKey, preparedMessage, randomSource, { variant = SCHEME } = {}) {
  checkRandomSource(randomSource);
  const { n, e, bits, length } = publicKey;
  const salt = randomBytes(randomSource, variantNamed(variant).saltLength);
  const m = bytesToBigInt(await emsaPssEncode(preparedMessage, bits - 1, salt));
  if (gcd(m, n) !== 1n) {
    throw new BlindRsaError("invalid_input", "the encoded message is not coprime to n");
  }
  const r = randomBelow(n, randomSource);
  const inverse = modInverse(r, n);
  if (inverse === null) {
    throw new BlindRsaError("blinding_failed", "the blinding factor is not invertible");
  }
  const z = (m * modPow(r, e, n)) % n;
  return { blindedMessage: bigIntToBytes(z, length), inverse: bigIntToBytes(inverse, length) };
}

/** RSASSA-PSS verification by WebCrypto: true when `signature` signs `preparedMessage`. */
export async function verify(publicKey, preparedMessage, signature, { variant = SCHEME } = {}) {
  return subtle().verify(
    { name: "RSA-PSS", saltLength: variantNamed(variant).saltLength },
    publicKey.cryptoKey,
    signature,
    preparedMessage,
  );
}

/**
 * RFC 9474 §4.4 Finalize: s = z·r⁻¹ mod n, returned only once WebCrypto has verified it (a
 * server that signed with another key, or a damaged answer, is caught here, before the token
 * is kept).
 */
export async function finalize(
  publicKey,
  preparedMessage,
  blindSignature,
  inverse,
  { variant = SCHEME } = {},
) {
  const { n, length } = publicKey;
  if (blindSignature.length !== length || inverse.length !== length) {
    throw new BlindRsaError("malformed", `the blind signature must be ${length} bytes`);
  }
  const s = (bytesToBigInt(blindSignature) * bytesToBigInt(inverse)) % n;
  const signature = bigIntToBytes(s, length);
  if (!(await verify(publicKey, preparedMessage, signature, { variant }))) {
    throw new BlindRsaError("invalid_signature", "the signature does not verify");
  }
  return signature;
}
