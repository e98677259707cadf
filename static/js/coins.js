// The two coins of the forced-response design, drawn in the respondent's browser, and the
// memo every question type shares (a small random secret per question from which the report
// of each possible answer is derived, see "Memoisation" below; designs.js builds the
// randomizers of the other designs and types).
//
// Pure functions: no DOM, no globals, no Math.random. Every function that needs randomness
// takes a `randomSource`, an object with `getRandomValues(typedArray)` (the page passes
// `crypto`; the tests pass a fake), and storage is injected the same way.
//
// A design is `{p_truth, p_forced_yes}`, spelled as the public API spells it, so the page can
// hand over the survey definition unchanged.

import { base64urlToBytes, bytesToBase64url, prfRandomSource } from "./prf.js";

const TWO_POW_32 = 4294967296;

function randomUint32(randomSource) {
  const chunk = new Uint32Array(1);
  randomSource.getRandomValues(chunk);
  return chunk[0];
}

function checkProbability(name, value) {
  if (typeof value !== "number" || !(value > 0 && value < 1)) {
    throw new RangeError(`${name} must be a number in (0, 1), got ${value}`);
  }
}

function checkRandomSource(randomSource) {
  if (!randomSource || typeof randomSource.getRandomValues !== "function") {
    throw new TypeError("randomSource must have getRandomValues(typedArray), like crypto");
  }
}

/**
 * True with probability exactly `probability`, for every double in (0, 1).
 *
 * Compares a uniform random number U in [0, 1), drawn lazily 32 bits at a time, with the
 * binary expansion of `probability`, and returns U < probability. Each step exposes the next
 * 32 binary digits of the probability: `digit = floor(p * 2^32)` and `p = p * 2^32 - digit`
 * are exact in floating point (scaling by a power of two and removing the integer part lose
 * no bits), so no rounding ever enters. The first chunk that differs decides; a tie (chance
 * 2^-32) moves on to the next chunk, so ~1 chunk is used on average. A double has finitely
 * many binary digits: when they run out with U equal so far, U >= probability and the answer
 * is false, which also bounds the loop at 34 chunks (the smallest double, 2^-1074).
 */
export function bernoulli(probability, randomSource) {
  checkRandomSource(randomSource);
  for (const digit of chunksOf(probability)) {
    const chunk = randomUint32(randomSource);
    if (chunk !== digit) {
      return chunk < digit;
    }
  }
  return false;
}

function* chunksOf(probability) {
  checkProbability("probability", probability);
  let remainder = probability;
  while (remainder > 0) {
    const scaled = remainder * TWO_POW_32;
    const digit = Math.floor(scaled);
    remainder = scaled - digit;
    yield digit;
  }
}

/**
 * The base-2^32 digits of `probability`: probability = sum of digit_k / 2^(32k), exactly.
 * These are the thresholds `bernoulli` compares random chunks against (exported for tests).
 */
export function probabilityChunks(probability) {
  return [...chunksOf(probability)];
}

function checkDesign(design) {
  if (!design || typeof design !== "object") {
    throw new TypeError("design must be an object {p_truth, p_forced_yes}");
  }
  checkProbability("p_truth", design.p_truth);
  checkProbability("p_forced_yes", design.p_forced_yes);
}

/**
 * The forced-response report for one true answer (Warner 1965; Boruch 1971).
 *
 * Coin 1 (heads with `p_truth`): send the truth. Otherwise coin 2 (heads with `p_forced_yes`)
 * forces "yes", else "no". Classic design 1/2, 1/2: P(yes | truth yes) = 3/4,
 * P(yes | truth no) = 1/4.
 */
export function randomizeAnswer(truth, design, randomSource) {
  if (typeof truth !== "boolean") {
    throw new TypeError(`truth must be a boolean, got ${truth}`);
  }
  checkDesign(design);
  if (bernoulli(design.p_truth, randomSource)) {
    return truth;
  }
  return bernoulli(design.p_forced_yes, randomSource);
}

// --- Memoisation (RAPPOR-style permanent randomized response) -----------------------------
//
// Why: if every retake drew fresh coins, a respondent (or someone pushing them) could answer
// the same question many times and the majority of the reports would reveal the truth. So a
// retake in the same browser must send the report drawn earlier for the same question and
// the same true answer (Erlingsson, Pihur & Korolova 2014, "RAPPOR", permanent RR), under the
// same submission id, so the server stores it once.
//
// Why this scheme: storing "the report for my true answer" would itself be a clue (a report
// of "yes" is more likely under a true "yes"), and storing coin outcomes would be worse (a
// heads on coin 1 means the stored report IS the truth). Instead, the first time the page
// draws for a question, it draws a SECRET for it: SECRET_BYTES random bytes, before and
// regardless of the actual answer, and keeps only that. The report for any possible answer
// is derived from the secret: the question's exact sampler runs on `prf.js`
// `prfRandomSource(secret, "<question id>|<answer index>")`, whose words are
// HMAC-SHA-256(secret, "<question id>|<answer index>|<counter>"). So the secret fixes one
// report per possible answer, as a table drawn in advance would (a pair for yes/no, one per
// option, one per whole number of a numeric range), while the memo stays the same few bytes
// per question whatever the range. The secret's distribution does not depend on the truth, so
// whoever reads the memo learns nothing about the answer; the report sent is the one derived
// for the true answer, with the design's distribution (exactly, as far as HMAC-SHA-256 cannot
// be told from random: tests/js/memo.test.mjs holds the derived reports against the exact
// distributions). Changing one's answer on a retake derives the report of the new answer,
// itself a correct randomized report of it, independent of the other answers' reports.
//
// A memo belongs to one person and one design: memory.js keys it by the survey's design
// fingerprint and keeps none at all on a survey marked for shared devices.
//
// Honest limit (docs/respondent-page.md, "Threat model"): someone holding both the device's
// storage and the server's copy of a report can derive the report of every possible answer
// from the secret and compare; when they differ, that narrows down or reveals the truth. Each
// alone reveals nothing beyond the design's epsilon.

/** Random bytes per question: 256 bits, so no two secrets ever meet and none can be guessed. */
export const SECRET_BYTES = 32;

// The same scheme for every question type. A *randomizer* says how one question's report is
// drawn (designs.js builds them from the survey definition): `{size, draw(index,
// randomSource), indexOf(truth)}`. `size` is the number of possible answers (2 for yes/no, k
// options, max - min + 1 whole numbers); `draw` gives the report for the answer of that
// index and never sees the truth, only the index; `indexOf` maps a true answer to its index
// (a numeric answer is first kept within the range), and throws a TypeError for an answer the
// question cannot have.

/** The randomizer of a yes/no question: `randomize(truth, randomSource)` gives the report. */
export function pairRandomizer(randomize) {
  return {
    size: 2,
    draw: (index, randomSource) => randomize(index === 0, randomSource),
    indexOf: (truth) => {
      if (typeof truth !== "boolean") {
        throw new TypeError(`truth must be a boolean, got ${truth}`);
      }
      return truth ? 0 : 1;
    },
  };
}

/** The randomizer of a yes/no question under the forced-response `design` (the two coins). */
export function forcedResponseRandomizer(design) {
  checkDesign(design);
  return pairRandomizer((truth, randomSource) => randomizeAnswer(truth, design, randomSource));
}

/**
 * A new secret for one question: SECRET_BYTES from `randomSource`, as base64url text. Drawn
 * as 32-bit words (the samplers' unit), written big-endian.
 */
export function newSecret(randomSource) {
  checkRandomSource(randomSource);
  const words = new Uint32Array(SECRET_BYTES / 4);
  randomSource.getRandomValues(words);
  const bytes = new Uint8Array(SECRET_BYTES);
  const view = new DataView(bytes.buffer);
  words.forEach((word, i) => view.setUint32(4 * i, word));
  return bytesToBase64url(bytes);
}

/** The bytes of a secret as stored (base64url text of exactly SECRET_BYTES), or null. */
export function secretBytes(value) {
  const bytes = base64urlToBytes(value);
  if (bytes === null || bytes.length !== SECRET_BYTES || bytesToBase64url(bytes) !== value) {
    return null;
  }
  return bytes;
}

/**
 * The report that question `questionId`'s `secret` fixes for the answer of index `index`:
 * the randomizer's sampler run on the HMAC stream of (secret, "<questionId>|<index>"). The
 * same arguments give the same report, on every visit and in every browser.
 */
export function derivedReport({ randomizer, questionId, secret, index }) {
  const key = secretBytes(secret);
  if (key === null) {
    throw new TypeError(`a secret is ${SECRET_BYTES} bytes of base64url, got ${secret}`);
  }
  if (!Number.isSafeInteger(index) || index < 0 || index >= randomizer.size) {
    throw new RangeError(`index must be from 0 to ${randomizer.size - 1}, got ${index}`);
  }
  return randomizer.draw(index, prfRandomSource(key, `${questionId}|${index}`));
}

/**
 * The outcome a respondent-procedure question's `secret` fixes (procedure.js): the
 * randomizer's `outcome` run on the HMAC stream of (secret, "<questionId>|outcome"), apart
 * from every answer's stream. Drawn before any answer, so it says nothing about one; the same
 * on every visit, so a retake shows the same instruction.
 */
export function memoOutcome({ randomizer, questionId, secret }) {
  const key = secretBytes(secret);
  if (key === null) {
    throw new TypeError(`a secret is ${SECRET_BYTES} bytes of base64url, got ${secret}`);
  }
  return randomizer.outcome(prfRandomSource(key, `${questionId}|outcome`));
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function plainObject(value) {
  return Boolean(value) && typeof value === "object" && !Array.isArray(value);
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** Whether `token` is an invitation token's shape: `{message, signature}`, base64url text. */
export function validToken(token) {
  return (
    plainObject(token) &&
    Object.keys(token).length === 2 &&
    typeof token.message === "string" &&
    typeof token.signature === "string" &&
    BASE64URL.test(token.message) &&
    BASE64URL.test(token.signature)
  );
}

// What every memo, this version's and the previous one's, starts with: the submission id,
// whether it was sent, and an invitation's token. Null when `value` is not that.
function memoBase(value) {
  if (
    !plainObject(value) ||
    typeof value.submissionId !== "string" ||
    !UUID_PATTERN.test(value.submissionId) ||
    typeof value.sent !== "boolean" ||
    (value.token !== undefined && !validToken(value.token))
  ) {
    return null;
  }
  const base = { submissionId: value.submissionId, sent: value.sent };
  if (value.token !== undefined) {
    base.token = { message: value.token.message, signature: value.token.signature };
  }
  return base;
}

function parsedJson(raw) {
  if (typeof raw !== "string") {
    return undefined;
  }
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

/**
 * A memo as memory.js reads it back: `{submissionId, sent, secrets}`, plus `token` on an
 * invitation survey, or null when it is missing, unreadable or not exactly that shape (then
 * the page starts afresh).
 */
export function parseMemo(raw) {
  const value = parsedJson(raw);
  const base = memoBase(value);
  if (base === null || !plainObject(value.secrets)) {
    return null;
  }
  for (const secret of Object.values(value.secrets)) {
    if (secretBytes(secret) === null) {
      return null;
    }
  }
  return memoRecord({ ...base, secrets: { ...value.secrets } });
}

/**
 * What a memo of the previous version (v2: tables of pre-drawn reports under `pairs` and
 * `tables`) still gives: its submission id, sent flag and token, with no secrets, or null.
 * The tables are dropped: a retake keeps the submission id, so the server, which stores an
 * id once, keeps the reports it already has (memory.js says why this keeps the protection).
 */
export function parseLegacyMemo(raw) {
  const value = parsedJson(raw);
  const base = memoBase(value);
  if (base === null || !plainObject(value.pairs)) {
    return null;
  }
  return memoRecord({ ...base, secrets: {} });
}

/**
 * The memo's entries, in one place: what memory.js writes and `memoReports` hands on, and
 * what `parseMemo` reads back. `{submissionId, sent, secrets}`, plus `token` when there is
 * one. An entry added to the memo is added here and to `parseMemo`; anything else on `memo`
 * is dropped.
 */
export function memoRecord({ submissionId, sent, secrets, token }) {
  return {
    submissionId,
    sent,
    secrets,
    // An invitation survey's token (invitation.js), kept with the submission id it goes with.
    ...(token ? { token } : {}),
  };
}

/**
 * The randomized reports to send for one attempt at a survey whose every question is yes/no
 * under the forced-response `design`, and the memo to keep: `memoReports` with that design's
 * randomizer for every question answered.
 */
export function reportsFor({ design, truths, memo, randomSource }) {
  const randomizer = forcedResponseRandomizer(design);
  const entries = truths instanceof Map ? [...truths] : Object.entries(truths ?? {});
  const randomizers = Object.fromEntries(entries.map(([questionId]) => [questionId, randomizer]));
  return memoReports({ randomizers, truths, memo, randomSource });
}

/**
 * The randomized reports to send for one attempt at a survey, and the memo to keep.
 *
 * `randomizers` maps question id to its randomizer (see above); `truths` maps question id to
 * the true answer (a plain object or a Map: a boolean for yes/no, an option index for
 * multiple choice, an integer for numeric); `memo` is what this person's earlier attempts
 * left (`{submissionId, sent, secrets}`) or null. Returns `{answers, memo, reused, drawn}`:
 * `answers` maps each question id answered to the report to send; `memo` is a new object with
 * the same submission id (a new one when there was none) and a secret for every question of
 * `randomizers`, answered or not, so that what is kept says nothing about which questions
 * were skipped; `reused` and `drawn` list the question ids whose secret came from the memo or
 * was drawn now. Nothing derived from `truths` enters the memo.
 */
export function memoReports({ randomizers, truths, memo, randomSource }) {
  checkRandomSource(randomSource);
  const entries = truths instanceof Map ? [...truths] : Object.entries(truths ?? {});
  const secrets = { ...(memo?.secrets ?? {}) };
  const answers = {};
  const reused = [];
  const drawn = [];
  // Every question's secret first, answered or not, before any truth is read.
  for (const id of Object.keys(randomizers)) {
    if (secretBytes(secrets[id]) !== null) {
      reused.push(id);
    } else {
      secrets[id] = newSecret(randomSource);
      drawn.push(id);
    }
  }
  for (const [questionId, truth] of entries) {
    const id = String(questionId);
    const randomizer = randomizers[id];
    if (!randomizer) {
      throw new RangeError(`no randomizer for question ${id}`);
    }
    if (randomizer.outcome) {
      // The respondent procedure: `truth` is the answer pressed, following the instruction
      // the secret fixed; it is the report (with the group drawn, for CDM and SLD).
      randomizer.indexOf(truth);
      const outcome = memoOutcome({ randomizer, questionId: id, secret: secrets[id] });
      answers[id] = randomizer.report(truth, outcome);
      continue;
    }
    // The truth is read only now, and only to pick which of the secret's reports to derive.
    const index = randomizer.indexOf(truth);
    answers[id] = derivedReport({ randomizer, questionId: id, secret: secrets[id], index });
  }
  const submissionId = memo?.submissionId ?? newSubmissionId(randomSource);
  const next = memoRecord({ ...memo, submissionId, sent: memo?.sent ?? false, secrets });
  return { answers, memo: next, reused, drawn };
}

/**
 * Only the questions that have an answer: `entries` is `[[questionId, value], ...]` with
 * value null for a question left blank; returns `{questionId: convert(value)}` without those.
 *
 * A skipped (optional) question must leave no trace in what is sent: no key, no placeholder.
 * Nor in what is kept: `memoReports` draws a secret for every question, answered or not, and
 * body.js pads the body to the survey's one length.
 */
export function answeredOnly(entries, convert = (value) => value) {
  const answered = {};
  for (const [questionId, value] of entries) {
    if (value !== null && value !== undefined) {
      answered[String(questionId)] = convert(value);
    }
  }
  return answered;
}

/**
 * A random (version 4) UUID built from `randomSource`.
 *
 * `crypto.randomUUID` exists only in secure contexts and recent browsers; a survey served
 * over plain http on a LAN, or an older phone, must still work.
 */
export function newSubmissionId(randomSource) {
  checkRandomSource(randomSource);
  const bytes = new Uint8Array(16);
  randomSource.getRandomValues(bytes);
  bytes[6] = (bytes[6] & 0x0f) | 0x40; // version 4
  bytes[8] = (bytes[8] & 0x3f) | 0x80; // RFC 4122 variant
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
