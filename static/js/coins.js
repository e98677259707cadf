// The two coins of the forced-response design, drawn in the respondent's browser, and the
// memo of pre-drawn reports every question type shares (a table per question, see
// "Memoisation" below; designs.js builds the tables' randomizers for the other designs and
// types).
//
// Pure functions: no DOM, no globals, no Math.random. Every function that needs randomness
// takes a `randomSource`, an object with `getRandomValues(typedArray)` (the page passes
// `crypto`; the tests pass a fake), and storage is injected the same way.
//
// A design is `{p_truth, p_forced_yes}`, spelled as the public API spells it, so the page can
// hand over the survey definition unchanged.

import { MAX_TABLE_SIZE } from "./constants.js";

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
// heads on coin 1 means the stored report IS the truth). Instead, the first time a question
// is answered, the browser draws TWO independent reports, one as if the truth were "yes" and
// one as if it were "no", before and regardless of the actual answer, and keeps only that
// pair. The pair's distribution does not depend on the truth, so whoever reads the memo
// learns nothing about the answer; the report sent is the member of the pair that matches
// the truth, so it has exactly the design's distribution. Changing one's answer on a retake
// picks the other member, which is itself a correct randomized report for the new answer.
//
// A memo belongs to one person and one design: memory.js keys it by the survey's design
// fingerprint and keeps none at all on a survey marked for shared devices.
//
// Honest limit (docs/respondent-page.md, "Threat model"): someone holding both the device's
// storage and the server's copy of a report can compare the report with the pair; when the
// two members differ, that reveals the truth. Each alone reveals nothing beyond the design's
// epsilon.

/** Two independent reports, `[ifYes, ifNo]` as 0/1, drawn without knowing the truth. */
export function drawPair(design, randomSource) {
  return drawTable(forcedResponseRandomizer(design), randomSource);
}

/** A pair as stored (exactly two 0/1 values), or null. */
export function validPair(value) {
  if (!Array.isArray(value) || value.length !== 2 || !value.every((bit) => bit === 0 || bit === 1)) {
    return null;
  }
  return value;
}

// The same scheme for every question type: a *table* holds one report per possible true
// answer, drawn in order before and regardless of the actual answer, and the report sent is
// the table's entry for the true answer. A yes/no question's table is the pair above
// (`[ifYes, ifNo]`, kept under `pairs` as before, so a memo written before typed questions
// still reads); a multiple-choice question's has one option index per option (k entries); a
// numeric question's one noisy integer per whole number in its range (at most
// MAX_TABLE_SIZE entries, surveys/limits.py NUMERIC_RANGE_MAX + 1), kept under `tables`.
//
// A *randomizer* says how one question's table is drawn and read (designs.js builds them from
// the survey definition): `{store: "pairs" | "tables", size, draw(index, randomSource),
// indexOf(truth), report(entry), accepts(table)}`. `draw` never sees the truth, only the
// index of the answer it draws for; `indexOf` maps a true answer to its entry (a numeric
// answer is first kept within the range), and throws a TypeError for an answer the question
// cannot have.

// The largest table kept for one question (a numeric range of 1000 has 1001 answers), from
// surveys/limits.py through the generated constants.js; re-exported for designs.js.
export { MAX_TABLE_SIZE };

/** The randomizer of a yes/no question: `randomize(truth, randomSource)` gives the report. */
export function pairRandomizer(randomize) {
  return {
    store: "pairs",
    size: 2,
    draw: (index, randomSource) => (randomize(index === 0, randomSource) ? 1 : 0),
    indexOf: (truth) => {
      if (typeof truth !== "boolean") {
        throw new TypeError(`truth must be a boolean, got ${truth}`);
      }
      return truth ? 0 : 1;
    },
    report: (entry) => entry === 1,
    accepts: (table) => validPair(table) !== null,
  };
}

/** The randomizer of a yes/no question under the forced-response `design` (the two coins). */
export function forcedResponseRandomizer(design) {
  checkDesign(design);
  return pairRandomizer((truth, randomSource) => randomizeAnswer(truth, design, randomSource));
}

/**
 * One report per possible true answer, index 0 first: the whole table is drawn before any
 * answer is looked at, so its distribution cannot depend on the answer.
 */
export function drawTable(randomizer, randomSource) {
  checkRandomSource(randomSource);
  if (!Number.isSafeInteger(randomizer.size) || randomizer.size < 2) {
    throw new RangeError(`a table has at least 2 entries, got ${randomizer.size}`);
  }
  if (randomizer.size > MAX_TABLE_SIZE) {
    throw new RangeError(`a table has at most ${MAX_TABLE_SIZE} entries, got ${randomizer.size}`);
  }
  const table = [];
  for (let index = 0; index < randomizer.size; index += 1) {
    table.push(randomizer.draw(index, randomSource));
  }
  return table;
}

/** A multiple-choice or numeric question's table as stored (2..MAX_TABLE_SIZE integers), or null. */
export function validTable(value) {
  if (
    !Array.isArray(value) ||
    value.length < 2 ||
    value.length > MAX_TABLE_SIZE ||
    !value.every((entry) => Number.isSafeInteger(entry))
  ) {
    return null;
  }
  return value;
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function plainObject(value) {
  return Boolean(value) && typeof value === "object" && !Array.isArray(value);
}

/**
 * A memo as memory.js reads it back: `{submissionId, sent, pairs}`, plus `tables` when it has
 * multiple-choice or numeric questions, or null when it is missing, unreadable or not exactly
 * that shape (then the page starts afresh). A memo written before typed questions existed
 * (pairs only) reads as it always did.
 */
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

export function parseMemo(raw) {
  if (typeof raw !== "string") {
    return null;
  }
  let value;
  try {
    value = JSON.parse(raw);
  } catch {
    return null;
  }
  if (
    !plainObject(value) ||
    typeof value.submissionId !== "string" ||
    !UUID_PATTERN.test(value.submissionId) ||
    typeof value.sent !== "boolean" ||
    !plainObject(value.pairs) ||
    (value.tables !== undefined && !plainObject(value.tables))
  ) {
    return null;
  }
  const pairs = {};
  for (const [questionId, pair] of Object.entries(value.pairs)) {
    if (validPair(pair) === null) {
      return null;
    }
    pairs[questionId] = pair;
  }
  const tables = {};
  for (const [questionId, table] of Object.entries(value.tables ?? {})) {
    if (validTable(table) === null || questionId in pairs) {
      return null;
    }
    tables[questionId] = table;
  }
  const memo = { submissionId: value.submissionId, sent: value.sent, pairs };
  if (Object.keys(tables).length > 0) {
    memo.tables = tables;
  }
  if (value.token !== undefined) {
    if (!validToken(value.token)) {
      return null;
    }
    memo.token = { message: value.token.message, signature: value.token.signature };
  }
  return memo;
}

/**
 * The memo's entries, in one place: what memory.js writes and `memoReports` hands on, and
 * what `parseMemo` reads back. `{submissionId, sent, pairs}`, plus `tables` only when there
 * are any, so a yes/no survey's memo keeps the shape it always had. An entry added to the
 * memo is added here and to `parseMemo`; anything else on `memo` is dropped.
 */
export function memoRecord({ submissionId, sent, pairs, tables, token }) {
  return {
    submissionId,
    sent,
    pairs,
    ...(tables && Object.keys(tables).length > 0 ? { tables } : {}),
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
 * left (`{submissionId, sent, pairs, tables?}`) or null. Returns `{answers, memo, reused,
 * drawn}`: `answers` maps each question id answered to the report to send; `memo` is a new
 * object with the same submission id (a new one when there was none) and a table for every
 * question of `randomizers`, answered or not, so that what is kept says nothing about which
 * questions were skipped; `reused` and `drawn` list the question ids whose table came from
 * the memo or was drawn now. Nothing derived from `truths` enters the memo.
 */
export function memoReports({ randomizers, truths, memo, randomSource }) {
  checkRandomSource(randomSource);
  const entries = truths instanceof Map ? [...truths] : Object.entries(truths ?? {});
  const kept = { pairs: { ...(memo?.pairs ?? {}) }, tables: { ...(memo?.tables ?? {}) } };
  const answers = {};
  const reused = [];
  const drawn = [];
  // Every question's table first, answered or not, before any truth is read.
  for (const [id, randomizer] of Object.entries(randomizers)) {
    const table = kept[randomizer.store][id];
    if (table !== undefined && randomizer.accepts(table)) {
      reused.push(id);
    } else {
      kept[randomizer.store][id] = drawTable(randomizer, randomSource);
      drawn.push(id);
    }
  }
  for (const [questionId, truth] of entries) {
    const id = String(questionId);
    const randomizer = randomizers[id];
    if (!randomizer) {
      throw new RangeError(`no randomizer for question ${id}`);
    }
    // The truth is read only now, and only to pick an entry of its question's table.
    const index = randomizer.indexOf(truth);
    answers[id] = randomizer.report(kept[randomizer.store][id][index]);
  }
  const submissionId = memo?.submissionId ?? newSubmissionId(randomSource);
  const next = memoRecord({
    ...memo,
    submissionId,
    sent: memo?.sent ?? false,
    pairs: kept.pairs,
    tables: kept.tables,
  });
  return { answers, memo: next, reused, drawn };
}

/**
 * Only the questions that have an answer: `entries` is `[[questionId, value], ...]` with
 * value null for a question left blank; returns `{questionId: convert(value)}` without those.
 *
 * A skipped (optional) question must leave no trace in what is sent: no key, no placeholder.
 * Nor in what is kept: `memoReports` draws a table for every question, answered or not, and
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
