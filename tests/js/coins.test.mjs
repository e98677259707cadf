import assert from "node:assert/strict";
import { describe, it } from "node:test";

import {
  bernoulli,
  derivedReport,
  forcedResponseRandomizer,
  newSecret,
  newSubmissionId,
  probabilityChunks,
  randomizeAnswer,
  reportsFor,
} from "../../static/js/coins.js";
import { TWO_POW_32, exactDistribution, scriptedSource, seededSource } from "./fakes.mjs";

const CLASSIC = { p_truth: 0.5, p_forced_yes: 0.5 };
// Coin outcomes spelled as first chunks: far below / far above every threshold used here.
const HEADS = 0;
const TAILS = TWO_POW_32 - 1;

function probabilityOfTrue(distribution) {
  return distribution.get("true") ?? 0;
}

describe("bernoulli", () => {
  it("is true for exactly the first chunks below the threshold of a dyadic probability", () => {
    // A grid of 256 first chunks i * 2^24 stands for 256 equal slices of [0, 2^32).
    for (const [probability, expectedTrue] of [
      [1 / 2, 128],
      [1 / 4, 64],
      [3 / 4, 192],
      [1 / 8, 32],
      [1 / 256, 1],
    ]) {
      let trueCount = 0;
      for (let i = 0; i < 256; i += 1) {
        const source = scriptedSource([i * 2 ** 24]);
        if (bernoulli(probability, source)) {
          trueCount += 1;
        }
        assert.equal(source.draws, 1, "a dyadic probability never needs a second chunk");
      }
      assert.equal(trueCount, expectedTrue, `probability ${probability}`);
    }
  });

  it("splits exactly at the threshold: below is true, equal and above are false", () => {
    const threshold = 2 ** 30; // 1/4 of 2^32
    assert.equal(bernoulli(1 / 4, scriptedSource([threshold - 1])), true);
    assert.equal(bernoulli(1 / 4, scriptedSource([threshold])), false);
    assert.equal(bernoulli(1 / 4, scriptedSource([threshold + 1])), false);
    assert.equal(bernoulli(1 / 4, scriptedSource([0])), true);
    assert.equal(bernoulli(1 / 4, scriptedSource([TWO_POW_32 - 1])), false);
  });

  it("has exactly the probability of a dyadic design's coins, by enumeration", () => {
    for (const probability of [1 / 2, 1 / 4, 3 / 4, 1 / 16, 15 / 16]) {
      const distribution = exactDistribution((source) => bernoulli(probability, source));
      assert.equal(probabilityOfTrue(distribution), probability);
    }
  });

  it("breaks a tie on the first chunk with the next chunk of the probability", () => {
    const [first, second] = probabilityChunks(1 / 3);
    assert.equal(bernoulli(1 / 3, scriptedSource([first, second - 1])), true);
    assert.equal(bernoulli(1 / 3, scriptedSource([first, second + 1])), false);
    assert.equal(bernoulli(1 / 3, scriptedSource([first - 1])), true);
    assert.equal(bernoulli(1 / 3, scriptedSource([first + 1])), false);
    // 1/3 as a double has 53 significant bits ending at bit 54: exactly two chunks.
    assert.equal(probabilityChunks(1 / 3).length, 2);
  });

  it("returns false when the random chunks equal every digit of the probability", () => {
    // U equal to p on all of p's digits means U >= p: false, after exactly that many chunks.
    for (const probability of [0.1, 1 / 3, Number.MIN_VALUE, 1 - Number.EPSILON / 2]) {
      const digits = probabilityChunks(probability);
      const source = scriptedSource(digits);
      assert.equal(bernoulli(probability, source), false);
      assert.equal(source.remaining, 0);
    }
    assert.equal(probabilityChunks(Number.MIN_VALUE).length, 34);
  });

  it("uses digits that add up to the probability exactly, for any double", () => {
    // sum(digit_k * 2^(32 (K - k))) / 2^(32 K) must equal p as an exact rational; a double is
    // m * 2^e, so compare the integers p * 2^(32 K) computed two ways with BigInt.
    const samples = [0.1, 0.3, 1 / 3, 2 / 3, 0.123456789, 1e-300, Number.MIN_VALUE];
    const source = seededSource(7);
    const buffer = new Uint32Array(2);
    for (let i = 0; i < 200; i += 1) {
      source.getRandomValues(buffer);
      samples.push((buffer[0] * 2 ** 21 + (buffer[1] >>> 11) + 1) / 2 ** 53);
    }
    for (const probability of samples) {
      const digits = probabilityChunks(probability);
      let fromDigits = 0n;
      for (const digit of digits) {
        assert.ok(Number.isInteger(digit) && digit >= 0 && digit < TWO_POW_32);
        fromDigits = (fromDigits << 32n) + BigInt(digit);
      }
      assert.equal(fromDigits, exactScaled(probability, 32 * digits.length), `p = ${probability}`);
    }
  });

  it("rejects probabilities outside (0, 1) and sources without getRandomValues", () => {
    for (const bad of [0, 1, -0.5, 1.5, Number.NaN, "0.5", null]) {
      assert.throws(() => bernoulli(bad, seededSource(1)), RangeError);
    }
    assert.throws(() => bernoulli(0.5, {}), TypeError);
  });

  it("never calls Math.random", () => {
    const original = Math.random;
    Math.random = () => {
      throw new Error("Math.random was called");
    };
    try {
      bernoulli(1 / 3, seededSource(3));
      reportsFor({ design: CLASSIC, truths: { 1: true }, memo: null, randomSource: seededSource(3) });
      newSubmissionId(seededSource(3));
    } finally {
      Math.random = original;
    }
  });
});

/** p * 2^bits as an exact BigInt (p is a double with at most `bits` fractional binary digits). */
function exactScaled(probability, bits) {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, probability);
  const raw = view.getBigUint64(0);
  const exponentBits = Number((raw >> 52n) & 0x7ffn);
  const fraction = raw & ((1n << 52n) - 1n);
  // value = mantissa * 2^exponent
  const mantissa = exponentBits === 0 ? fraction : fraction | (1n << 52n);
  const exponent = (exponentBits === 0 ? 1 : exponentBits) - 1075;
  const shift = bits + exponent;
  assert.ok(shift >= 0, "probability has more fractional digits than its chunks cover");
  return mantissa << BigInt(shift);
}

describe("randomizeAnswer", () => {
  it("reports yes with probability exactly 3/4 for a true yes and 1/4 for a true no (classic)", () => {
    const ifYes = exactDistribution((source) => randomizeAnswer(true, CLASSIC, source));
    const ifNo = exactDistribution((source) => randomizeAnswer(false, CLASSIC, source));
    assert.equal(probabilityOfTrue(ifYes), 3 / 4);
    assert.equal(probabilityOfTrue(ifNo), 1 / 4);
  });

  it("matches a = p + (1 - p) q and b = (1 - p) q for other dyadic designs", () => {
    for (const design of [
      { p_truth: 1 / 4, p_forced_yes: 3 / 4 },
      { p_truth: 3 / 4, p_forced_yes: 1 / 2 },
      { p_truth: 1 / 16, p_forced_yes: 1 / 8 },
    ]) {
      const a = design.p_truth + (1 - design.p_truth) * design.p_forced_yes;
      const b = (1 - design.p_truth) * design.p_forced_yes;
      const ifYes = exactDistribution((source) => randomizeAnswer(true, design, source));
      const ifNo = exactDistribution((source) => randomizeAnswer(false, design, source));
      assert.equal(probabilityOfTrue(ifYes), a, JSON.stringify(design));
      assert.equal(probabilityOfTrue(ifNo), b, JSON.stringify(design));
    }
  });

  it("sends the truth on heads of coin 1 and lets coin 2 decide on tails", () => {
    assert.equal(randomizeAnswer(true, CLASSIC, scriptedSource([HEADS])), true);
    assert.equal(randomizeAnswer(false, CLASSIC, scriptedSource([HEADS])), false);
    assert.equal(randomizeAnswer(false, CLASSIC, scriptedSource([TAILS, HEADS])), true);
    assert.equal(randomizeAnswer(true, CLASSIC, scriptedSource([TAILS, TAILS])), false);
  });

  it("rejects a truth that is not a boolean and designs outside (0, 1)", () => {
    assert.throws(() => randomizeAnswer("yes", CLASSIC, seededSource(1)), TypeError);
    assert.throws(
      () => randomizeAnswer(true, { p_truth: 1, p_forced_yes: 0.5 }, seededSource(1)),
      RangeError,
    );
    assert.throws(
      () => randomizeAnswer(true, { p_truth: 0.5, p_forced_yes: 0 }, seededSource(1)),
      RangeError,
    );
  });
});

describe("memoisation", () => {
  // Eight words of a secret, then the 16 bytes of a submission id.
  const SECRET_WORDS = [1, 2, 3, 4, 5, 6, 7, 8];
  const ID_CHUNKS = Array.from({ length: 16 }, (_, index) => index + 1);
  const ID = "01020304-0506-4708-890a-0b0c0d0e0f10";
  const report = (secret, questionId, truth) =>
    derivedReport({
      randomizer: forcedResponseRandomizer(CLASSIC),
      questionId,
      secret,
      index: truth ? 0 : 1,
    });

  it("draws a secret before knowing the truth and keeps only it and an id", () => {
    const result = reportsFor({
      design: CLASSIC,
      truths: { 11: true },
      memo: null,
      randomSource: scriptedSource([...SECRET_WORDS, ...ID_CHUNKS]),
    });
    const secret = newSecret(scriptedSource(SECRET_WORDS));
    assert.deepEqual(result.answers, { 11: report(secret, "11", true) });
    assert.deepEqual(result.drawn, ["11"]);
    assert.deepEqual(result.memo, { submissionId: ID, sent: false, secrets: { 11: secret } });
  });

  it("reuses the memo's secrets and id when the same truth is given again, without new coins", () => {
    const first = reportsFor({
      design: CLASSIC,
      truths: { 11: true, 12: false },
      memo: null,
      randomSource: seededSource(42),
    });
    let memo = { ...first.memo, sent: true };
    for (let retake = 0; retake < 5; retake += 1) {
      const again = reportsFor({
        design: CLASSIC,
        truths: { 11: true, 12: false },
        memo,
        randomSource: scriptedSource([]), // throws if any coin were drawn
      });
      assert.deepEqual(again.answers, first.answers);
      assert.deepEqual(again.reused, ["11", "12"]);
      assert.deepEqual(again.memo, memo);
      memo = again.memo;
    }
  });

  it("sends the other answer's derived report when the truth changes", () => {
    const secret = newSecret(seededSource(4));
    const memo = { submissionId: ID, sent: true, secrets: { 11: secret } };
    const take = (truth) =>
      reportsFor({ design: CLASSIC, truths: { 11: truth }, memo, randomSource: scriptedSource([]) })
        .answers[11];
    assert.equal(take(true), report(secret, "11", true));
    assert.equal(take(false), report(secret, "11", false));
  });

  it("draws only for questions the memo lacks", () => {
    const kept = newSecret(seededSource(5));
    const memo = { submissionId: ID, sent: false, secrets: { 11: kept } };
    const result = reportsFor({
      design: CLASSIC,
      truths: { 11: false, 12: true },
      memo,
      randomSource: scriptedSource(SECRET_WORDS),
    });
    assert.deepEqual(result.reused, ["11"]);
    assert.deepEqual(result.drawn, ["12"]);
    assert.deepEqual(result.memo.secrets, { 11: kept, 12: newSecret(scriptedSource(SECRET_WORDS)) });
    assert.deepEqual(memo.secrets, { 11: kept }, "the memo passed in is not changed");
  });

  it("keeps a memo identical whatever the true answers were", () => {
    const questions = [11, 12, 13, 14];
    const kept = [true, false].map(
      (truth) =>
        reportsFor({
          design: CLASSIC,
          truths: Object.fromEntries(questions.map((id) => [id, truth])),
          memo: null,
          randomSource: seededSource(2024),
        }).memo,
    );
    assert.deepEqual(kept[0], kept[1]);
  });

  it("rejects a truth that is not a boolean", () => {
    assert.throws(
      () =>
        reportsFor({
          design: CLASSIC,
          truths: { 5: "yes" },
          memo: null,
          randomSource: seededSource(1),
        }),
      TypeError,
    );
  });
});

describe("newSubmissionId", () => {
  const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

  it("formats 16 random bytes as a version 4 UUID", () => {
    const zeros = { getRandomValues: (array) => array.fill(0) };
    const ones = { getRandomValues: (array) => array.fill(255) };
    assert.equal(newSubmissionId(zeros), "00000000-0000-4000-8000-000000000000");
    assert.equal(newSubmissionId(ones), "ffffffff-ffff-4fff-bfff-ffffffffffff");
    const source = seededSource(5);
    for (let i = 0; i < 100; i += 1) {
      assert.match(newSubmissionId(source), UUID_V4);
    }
  });

  it("differs between calls with a real random source", () => {
    const ids = new Set(Array.from({ length: 50 }, () => newSubmissionId(globalThis.crypto)));
    assert.equal(ids.size, 50);
  });
});
