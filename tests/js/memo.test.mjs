// The memo for every question type (coins.js "Memoisation"): one random secret per question,
// drawn before any answer is read and kept without anything derived from one, the same few
// bytes whatever the question's range; each possible answer's report derived from it with the
// question's exact sampler fed by HMAC-SHA-256, so that the reports follow the mechanism's
// exact distribution; and the previous version's memo read for its submission id.

import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { describe, it } from "node:test";

import {
  SECRET_BYTES,
  derivedReport,
  memoReports,
  newSecret,
  parseLegacyMemo,
  parseMemo,
  secretBytes,
} from "../../static/js/coins.js";
import {
  choiceRandomizer,
  numericRandomizer,
  questionRandomizer,
  randomizeChoice,
  randomizeYesNo,
  yesNoRandomizer,
} from "../../static/js/designs.js";
import { randomizeNumber } from "../../static/js/exact.js";
import { loadMemo, memoKey, storeMemo, surveyMemory } from "../../static/js/memory.js";
import { mapStorage, scriptedSource, seededSource } from "./fakes.mjs";
import { CHI2_CRITICAL_0_001, LN3 } from "./vectors.mjs";

const ID = "01020304-0506-4708-890a-0b0c0d0e0f10";
const WARNER = { kind: "warner", p: 0.75 };
const CHOICE = { type: "choice", options: ["None", "Pens", "Paper"], epsilon: LN3 };
const NUMERIC = { type: "numeric", min: 0, max: 30, epsilon: 2 };
const COINS = { p_truth: 0.5, p_forced_yes: 0.5 };
// 32 bytes, base64url: a fixed secret for tests that need one.
const SECRET = Buffer.alloc(SECRET_BYTES, 7).toString("base64url");

function mixedRandomizers() {
  return {
    1: questionRandomizer({ type: "yes_no", design: WARNER }, COINS),
    2: questionRandomizer(CHOICE, COINS),
    3: questionRandomizer(NUMERIC, COINS),
  };
}

// A random source over node:crypto's HMAC, written apart from prf.js: the derivation as the
// comment in coins.js states it, to hold the implementation against.
function hmacStream(secret, label) {
  const key = Buffer.from(secret, "base64url");
  let bytes = Buffer.alloc(0);
  let counter = 0;
  return {
    getRandomValues(array) {
      for (let i = 0; i < array.length; i += 1) {
        while (bytes.length < 4) {
          const block = createHmac("sha256", key).update(`${label}|${counter}`).digest();
          bytes = Buffer.concat([bytes, block]);
          counter += 1;
        }
        array[i] = bytes.readUInt32BE(0);
        bytes = bytes.subarray(4);
      }
      return array;
    },
  };
}

describe("the memo's secrets", () => {
  it("are drawn for every question before any truth is read, and never from a truth", () => {
    const log = [];
    const watched = Object.fromEntries(
      Object.entries(mixedRandomizers()).map(([id, randomizer]) => [
        id,
        { ...randomizer, indexOf: (truth) => log.push(["truth", id]) && randomizer.indexOf(truth) },
      ]),
    );
    const source = seededSource(7);
    const counting = {
      getRandomValues(array) {
        log.push(["random", array.length]);
        return source.getRandomValues(array);
      },
    };
    memoReports({ randomizers: watched, truths: { 1: false, 3: 17 }, memo: null, randomSource: counting });
    // Three secrets of 8 words each, then the truths; the page's random source is not asked
    // for anything once a truth has been read (only for the submission id, 16 bytes, last).
    assert.deepEqual(log, [
      ["random", 8],
      ["random", 8],
      ["random", 8],
      ["truth", "1"],
      ["truth", "3"],
      ["random", 16],
    ]);
  });

  it("make a memo identical whatever the true answers of every type were, or which were skipped", () => {
    const kept = [
      { 1: true, 2: 0, 3: 0 },
      { 1: false, 2: 2, 3: 30 },
      { 1: true, 2: 1, 3: 999 },
      {},
      { 3: 5 },
    ].map(
      (truths) =>
        memoReports({
          randomizers: mixedRandomizers(),
          truths,
          memo: null,
          randomSource: seededSource(2026),
        }).memo,
    );
    for (const memo of kept.slice(1)) {
      assert.deepEqual(memo, kept[0]);
    }
    assert.deepEqual(Object.keys(kept[0]).sort(), ["secrets", "sent", "submissionId"]);
    assert.deepEqual(Object.keys(kept[0].secrets), ["1", "2", "3"]);
    for (const secret of Object.values(kept[0].secrets)) {
      assert.equal(secretBytes(secret).length, SECRET_BYTES);
    }
  });

  it("take the same room for a numeric question of 0-1000 as for one of 0-1, or a yes/no one", () => {
    const memoOf = (randomizer) => {
      const storage = mapStorage();
      const { memo } = memoReports({
        randomizers: { 41: randomizer },
        truths: {},
        memo: null,
        randomSource: seededSource(5),
      });
      storeMemo(storage, "slug", "f".repeat(32), memo);
      return storage.getItem(memoKey("slug", "f".repeat(32)));
    };
    const widest = memoOf(numericRandomizer({ min: 0, max: 1000, epsilon: 1 }));
    const narrowest = memoOf(numericRandomizer({ min: 0, max: 1, epsilon: 1 }));
    assert.equal(widest.length, narrowest.length);
    assert.equal(memoOf(yesNoRandomizer(WARNER)).length, widest.length);
    assert.equal(memoOf(choiceRandomizer({ k: 20, epsilon: 1 })).length, widest.length);
    // Issue 28: 100 numeric questions of 0-1000 took 677k characters as tables; now the
    // submission id, the flag and 100 secrets of 43 characters with their keys.
    const randomizers = Object.fromEntries(
      Array.from({ length: 100 }, (_, i) => [100 + i, numericRandomizer({ min: 0, max: 1000, epsilon: 1 })]),
    );
    const { memo } = memoReports({ randomizers, truths: {}, memo: null, randomSource: seededSource(6) });
    assert.ok(JSON.stringify(memo).length < 100 * 60 + 100, JSON.stringify(memo).length);
  });

  it("are reused on a retake, so the same answer sends the same report without a new draw", () => {
    const first = memoReports({
      randomizers: mixedRandomizers(),
      truths: { 1: true, 2: 1, 3: 12 },
      memo: null,
      randomSource: seededSource(9),
    });
    const memo = { ...first.memo, sent: true };
    const again = memoReports({
      randomizers: mixedRandomizers(),
      truths: { 1: true, 2: 1, 3: 12 },
      memo: parseMemo(JSON.stringify(memo)),
      randomSource: scriptedSource([]), // throws if anything were drawn
    });
    assert.deepEqual(again.answers, first.answers);
    assert.deepEqual(again.reused, ["1", "2", "3"]);
    assert.deepEqual(again.memo, memo);
  });

  it("replace a kept secret that is not one, and only that one", () => {
    const memo = { submissionId: ID, sent: false, secrets: { 1: SECRET, 2: "short", 3: 5 } };
    const result = memoReports({
      randomizers: mixedRandomizers(),
      truths: { 2: 1 },
      memo,
      randomSource: seededSource(3),
    });
    assert.deepEqual(result.reused, ["1"]);
    assert.deepEqual(result.drawn, ["2", "3"]);
    assert.equal(result.memo.secrets[1], SECRET);
    assert.notEqual(secretBytes(result.memo.secrets[2]), null);
    assert.equal(memo.secrets[2], "short", "the memo passed in is not changed");
  });

  it("refuse a true answer the question cannot have", () => {
    const run = (truths) =>
      memoReports({ randomizers: mixedRandomizers(), truths, memo: null, randomSource: seededSource(1) });
    const wrong = [{ 1: "yes" }, { 1: 1 }, { 2: 3 }, { 2: -1 }, { 2: 1.5 }, { 2: true }];
    wrong.push({ 3: 2.5 }, { 3: "17" }, { 3: Number.NaN });
    for (const truths of wrong) {
      assert.throws(() => run(truths), TypeError, JSON.stringify(truths));
    }
    assert.throws(() => run({ 9: true }), RangeError); // no such question
  });

  it("are 32 random words' bytes, big-endian, in base64url", () => {
    const words = Array.from({ length: 8 }, (_, i) => 0x01020304 * (i + 1));
    const expected = Buffer.concat(
      words.map((word) => {
        const bytes = Buffer.alloc(4);
        bytes.writeUInt32BE(word >>> 0);
        return bytes;
      }),
    ).toString("base64url");
    assert.equal(newSecret(scriptedSource(words)), expected);
    for (const bad of [undefined, 5, "", "A".repeat(42), "A".repeat(44), `${"A".repeat(42)}B`, "+".repeat(43)]) {
      assert.equal(secretBytes(bad), null, String(bad));
    }
  });
});

describe("reports derived from a secret", () => {
  it("are the question's sampler run on HMAC-SHA-256(secret, '<question>|<answer index>|<counter>')", () => {
    const cases = [
      [1, yesNoRandomizer(WARNER), [0, 1], (i, source) => randomizeYesNo(i === 0, WARNER, source)],
      [2, questionRandomizer(CHOICE, COINS), [0, 1, 2], (i, source) => randomizeChoice(i, { k: 3, epsilon: LN3 }, source)],
      [3, questionRandomizer(NUMERIC, COINS), [0, 17, 30], (i, source) => randomizeNumber(i, NUMERIC, source)],
    ];
    for (let seed = 1; seed <= 20; seed += 1) {
      const secret = newSecret(seededSource(seed));
      for (const [questionId, randomizer, indexes, sampler] of cases) {
        for (const index of indexes) {
          assert.deepEqual(
            derivedReport({ randomizer, questionId, secret, index }),
            sampler(index, hmacStream(secret, `${questionId}|${index}`)),
            `question ${questionId}, answer ${index}, seed ${seed}`,
          );
        }
      }
    }
  });

  it("send the true answer's report; a number outside the range that of its end", () => {
    const memo = { submissionId: ID, sent: true, secrets: { 1: SECRET, 2: SECRET, 3: SECRET } };
    const randomizers = mixedRandomizers();
    const take = (truths) =>
      memoReports({ randomizers, truths, memo, randomSource: scriptedSource([]) }).answers;
    const report = (id, index) =>
      derivedReport({ randomizer: randomizers[id], questionId: String(id), secret: SECRET, index });
    assert.deepEqual(take({ 1: true, 2: 0, 3: 17 }), { 1: report(1, 0), 2: report(2, 0), 3: report(3, 17) });
    assert.deepEqual(take({ 1: false, 2: 2 }), { 1: report(1, 1), 2: report(2, 2) });
    assert.deepEqual(take({ 3: -8 }), { 3: report(3, 0) });
    assert.deepEqual(take({ 3: 45 }), { 3: report(3, 30) });
  });

  it("refuse a secret that is not one and an index outside the answers", () => {
    const randomizer = yesNoRandomizer(WARNER);
    assert.throws(() => derivedReport({ randomizer, questionId: "1", secret: "x", index: 0 }), TypeError);
    for (const index of [-1, 2, 0.5]) {
      assert.throws(() => derivedReport({ randomizer, questionId: "1", secret: SECRET, index }), RangeError);
    }
  });
});

// Seeded statistical tests of what the derived reports are over many secrets (seededSource:
// the same secrets on every run, so each test passes or fails the same way every time). Each
// compares a chi-square statistic with scipy's critical value at p = 0.001
// (tests/vectors/constants.json): with genuinely random bits a correct derivation would fail
// one of them about once in a thousand seeds; a derivation that biased the sampler or tied
// one answer's report to another's (a reused counter, a label missing the answer) fails them
// by far.
const SECRETS = 10000;

function chiSquare(counts, probabilities, total) {
  let statistic = 0;
  for (const [cell, probability] of probabilities) {
    const expected = probability * total;
    statistic += ((counts.get(cell) ?? 0) - expected) ** 2 / expected;
  }
  const unexpected = [...counts.keys()].filter((cell) => !probabilities.has(cell));
  assert.deepEqual(unexpected, [], "reports the mechanism never gives");
  return statistic;
}

function jointCounts({ randomizer, questionId, indexes, seed, cell = (reports) => JSON.stringify(reports) }) {
  const source = seededSource(seed);
  const counts = new Map();
  for (let n = 0; n < SECRETS; n += 1) {
    const secret = newSecret(source);
    const reports = indexes.map((index) => derivedReport({ randomizer, questionId, secret, index }));
    const key = cell(reports);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

describe("the distribution of derived reports over many secrets", () => {
  it("is the Warner design's, the reports for yes and for no independent (a pair, 4 cells)", () => {
    // P(yes | yes) = 3/4, P(yes | no) = 1/4, and the pair as two independent draws.
    const probabilities = new Map([
      ["[true,false]", (3 / 4) * (3 / 4)],
      ["[true,true]", (3 / 4) * (1 / 4)],
      ["[false,false]", (1 / 4) * (3 / 4)],
      ["[false,true]", (1 / 4) * (1 / 4)],
    ]);
    const counts = jointCounts({ randomizer: yesNoRandomizer(WARNER), questionId: "4", indexes: [0, 1], seed: 101 });
    assert.ok(chiSquare(counts, probabilities, SECRETS) < CHI2_CRITICAL_0_001["3"]);
  });

  it("is the forced-response coins' for the classic design (a pair, 4 cells)", () => {
    const coins = yesNoRandomizer({ kind: "forced_response", ...COINS });
    const probabilities = new Map([
      ["[true,false]", (3 / 4) * (3 / 4)],
      ["[true,true]", (3 / 4) * (1 / 4)],
      ["[false,false]", (1 / 4) * (3 / 4)],
      ["[false,true]", (1 / 4) * (1 / 4)],
    ]);
    const counts = jointCounts({ randomizer: coins, questionId: "5", indexes: [0, 1], seed: 202 });
    assert.ok(chiSquare(counts, probabilities, SECRETS) < CHI2_CRITICAL_0_001["3"]);
  });

  it("is k-ary randomized response's for two options' reports jointly (3 x 3 cells)", () => {
    // odds e^ε = 3, k = 3: the true option with 3/5, each other with 1/5; independent.
    const pmf = (truth) => (option) => (option === truth ? 3 / 5 : 1 / 5);
    const probabilities = new Map();
    for (const first of [0, 1, 2]) {
      for (const last of [0, 1, 2]) {
        probabilities.set(JSON.stringify([first, last]), pmf(0)(first) * pmf(2)(last));
      }
    }
    const counts = jointCounts({
      randomizer: questionRandomizer(CHOICE, COINS),
      questionId: "6",
      indexes: [0, 2],
      seed: 303,
    });
    assert.ok(chiSquare(counts, probabilities, SECRETS) < CHI2_CRITICAL_0_001["8"]);
  });

  it("is the discrete Laplace mechanism's for a numeric answer (13 bins of the noise)", () => {
    // Noise Z = report - truth, P(Z = z) = tanh(1 / (2s)) exp(-|z| / s), s = (30 - 0) / 2.
    const scale = 15;
    const pmf = (z) => Math.tanh(1 / (2 * scale)) * Math.exp(-Math.abs(z) / scale);
    const edges = [-40, -25, -15, -9, -5, -2, 0, 1, 3, 6, 10, 16, 26]; // bin i: [edges[i], edges[i+1])
    const bin = (z) => String(edges.findLastIndex((edge) => z >= edge));
    const probabilities = new Map();
    // Beyond |z| = 1000 the mass is below e^-66: nothing a test of 10,000 draws can see.
    for (let z = -1000; z <= 1000; z += 1) {
      const key = bin(z);
      probabilities.set(key, (probabilities.get(key) ?? 0) + pmf(z));
    }
    for (const [index, truth] of [
      [0, 0],
      [17, 17],
    ]) {
      const counts = jointCounts({
        randomizer: questionRandomizer(NUMERIC, COINS),
        questionId: "7",
        indexes: [index],
        seed: 404 + index,
        cell: ([report]) => bin(report - truth),
      });
      assert.ok(chiSquare(counts, probabilities, SECRETS) < CHI2_CRITICAL_0_001["12"], `truth ${truth}`);
    }
  });
});

describe("memos as stored", () => {
  const memo = { submissionId: ID, sent: true, secrets: { 1: SECRET, 2: SECRET } };

  it("read back exactly, an invitation's token included, and refuse anything else", () => {
    assert.deepEqual(parseMemo(JSON.stringify(memo)), memo);
    const token = { message: "bWVzc2FnZQ", signature: "c2lnbmF0dXJl" };
    assert.deepEqual(parseMemo(JSON.stringify({ ...memo, token })), { ...memo, token });
    for (const junk of [
      null,
      "",
      "garbage",
      JSON.stringify({ ...memo, submissionId: "not-a-uuid" }),
      JSON.stringify({ ...memo, sent: "yes" }),
      JSON.stringify({ ...memo, secrets: [SECRET] }),
      JSON.stringify({ ...memo, secrets: { 1: "short" } }),
      JSON.stringify({ ...memo, secrets: { 1: [1, 0] } }),
      JSON.stringify({ submissionId: ID, sent: true, pairs: { 1: [1, 0] } }), // v2's shape
    ]) {
      assert.equal(parseMemo(junk), null, String(junk).slice(0, 80));
    }
  });

  it("are stored with nothing but their entries", () => {
    const storage = mapStorage();
    assert.equal(storeMemo(storage, "slug1", "f".repeat(32), { ...memo, truth: true, pairs: {} }), true);
    assert.deepEqual(loadMemo(storage, "slug1", "f".repeat(32)), memo);
    assert.deepEqual([...storage.map.keys()], [`rrsurvey:v3:slug1:${"f".repeat(32)}`]);
  });
});

describe("a memo of the previous version (v2, tables of reports)", () => {
  const FINGERPRINT = "f".repeat(32);
  const token = { message: "bWVzc2FnZQ", signature: "c2lnbmF0dXJl" };
  const v2 = {
    submissionId: ID,
    sent: true,
    pairs: { 1: [1, 0] },
    tables: { 2: [2, 0, 1], 3: Array(1001).fill(5) },
    token,
  };

  it("gives its submission id, sent flag and token, and none of its tables", () => {
    assert.deepEqual(parseLegacyMemo(JSON.stringify(v2)), { submissionId: ID, sent: true, secrets: {}, token });
    assert.equal(parseLegacyMemo(JSON.stringify({ ...v2, submissionId: "x" })), null);
    assert.equal(parseLegacyMemo(JSON.stringify(memo3())), null, "a v3 memo is not a v2 one");
  });

  it("is replaced on the page's first visit: same submission id, fresh secrets, v2 key gone", () => {
    const storage = mapStorage([
      [memoKey("slug", FINGERPRINT, "v2"), JSON.stringify(v2)],
      [memoKey("slug", "e".repeat(32), "v2"), JSON.stringify(v2)], // another design's: dropped
    ]);
    const memory = surveyMemory({ storage, slug: "slug", fingerprint: FINGERPRINT, sharedDevice: false });
    assert.equal(memory.alreadySent, true);
    assert.equal(memory.token.message, token.message);
    assert.deepEqual([...storage.map.keys()], [memoKey("slug", FINGERPRINT)]);
    const { answers, memo } = memoReports({
      randomizers: mixedRandomizers(),
      truths: { 1: true, 3: 4 },
      memo: memory.memo,
      randomSource: seededSource(8),
    });
    assert.equal(memo.submissionId, ID);
    assert.deepEqual(Object.keys(memo.secrets), ["1", "2", "3"]);
    assert.deepEqual(Object.keys(answers), ["1", "3"]);
    memory.update(memo);
    assert.ok(storage.getItem(memoKey("slug", FINGERPRINT)).length < 400);
  });

  it("is removed, not read, on a shared device", () => {
    const storage = mapStorage([[memoKey("slug", FINGERPRINT, "v2"), JSON.stringify(v2)]]);
    const memory = surveyMemory({ storage, slug: "slug", fingerprint: FINGERPRINT, sharedDevice: true });
    assert.equal(memory.memo, null);
    assert.equal(storage.length, 0);
  });

  function memo3() {
    return { submissionId: ID, sent: false, secrets: { 1: SECRET } };
  }
});
