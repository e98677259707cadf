import assert from "node:assert/strict";
import { describe, it } from "node:test";

import {
  bernoulliExp,
  bernoulliRational,
  parseRational,
  randomizeNumber,
  sampleDiscreteLaplace,
  uniformBelow,
} from "../../static/js/exact.js";
import { TWO_POW_32, scriptedSource, seededSource } from "./fakes.mjs";
import { CHI2_CRITICAL_0_001, LN3, VECTORS } from "./vectors.mjs";

function chiSquare(observed, expected) {
  return observed.reduce((sum, count, i) => sum + (count - expected[i]) ** 2 / expected[i], 0);
}

describe("parseRational", () => {
  it("reads a number through its shortest decimal, as dpengine reads a Python float", () => {
    assert.deepEqual(parseRational(0.1), { num: 1n, den: 10n });
    assert.deepEqual(parseRational(0.75), { num: 3n, den: 4n });
    // Python's math.log(3) is the double printed 1.0986122886681098; the server sends that.
    assert.equal(LN3, 1.0986122886681098);
    assert.deepEqual(parseRational(LN3), {
      num: 5493061443340549n,
      den: 5000000000000000n,
    });
    assert.deepEqual(parseRational(1e-7), { num: 1n, den: 10000000n });
  });

  it("reads p/q strings, decimal strings and exponents exactly", () => {
    assert.deepEqual(parseRational("6/4"), { num: 3n, den: 2n });
    assert.deepEqual(parseRational("-2.5e1"), { num: -25n, den: 1n });
    assert.deepEqual(parseRational(".5"), { num: 1n, den: 2n });
    assert.deepEqual(parseRational(3n), { num: 3n, den: 1n });
  });

  it("refuses what is not a finite rational", () => {
    for (const bad of [Number.NaN, Infinity, "abc", "1/0", "1/-2", "", {}]) {
      assert.throws(() => parseRational(bad), /expected|denominator|rational/, String(bad));
    }
  });
});

describe("uniformBelow", () => {
  it("rejects words at or above the largest multiple of n and reduces the rest", () => {
    // 2^32 - 1 is the one word >= 3 * floor(2^32 / 3) = 2^32 - 1: rejected.
    const source = scriptedSource([TWO_POW_32 - 1, 5]);
    assert.equal(uniformBelow(3, source), 2n);
    assert.equal(source.draws, 2);
  });

  it("is exactly uniform: every residue has the same number of accepted words", () => {
    // For n = 6 the accepted words are [0, 6 * floor(2^32 / 6)); each residue class there has
    // floor(2^32 / 6) members, so each value has probability exactly 1/6 given acceptance.
    const n = 6;
    const limit = Math.floor(TWO_POW_32 / n) * n;
    const lastAccepted = scriptedSource([limit - 1]);
    assert.equal(uniformBelow(n, lastAccepted), BigInt((limit - 1) % n));
    const firstRejected = scriptedSource([limit, 0]);
    assert.equal(uniformBelow(n, firstRejected), 0n);
    assert.equal(firstRejected.draws, 2);
  });

  it("builds bounds above 2^32 from several words", () => {
    const n = 2n ** 40n + 1n;
    const source = scriptedSource([255, 7]);
    assert.equal(uniformBelow(n, source), 255n * 2n ** 32n + 7n);
    assert.equal(source.draws, 2);
  });
});

describe("bernoulliRational", () => {
  it("is true for exactly num of every den equally likely words", () => {
    let hits = 0;
    for (let word = 0; word < 7; word += 1) {
      hits += bernoulliRational("3/7", scriptedSource([word])) ? 1 : 0;
    }
    assert.equal(hits, 3);
  });
});

describe("bernoulliExp", () => {
  it("matches exp(-gamma) within 4 standard errors over 20 000 seeded draws", () => {
    for (const gamma of ["1/2", "5/2", "0"]) {
      const source = seededSource(2026);
      let hits = 0;
      for (let i = 0; i < 20000; i += 1) {
        hits += bernoulliExp(gamma, source) ? 1 : 0;
      }
      const { num, den } = parseRational(gamma);
      const p = Math.exp(-Number(num) / Number(den));
      const se = Math.sqrt((p * (1 - p)) / 20000) || 1e-12;
      assert.ok(Math.abs(hits / 20000 - p) <= 4 * se, `${gamma}: ${hits / 20000} vs ${p}`);
    }
  });
});

describe("sampleDiscreteLaplace", () => {
  it("gives the server's output for the server's draws", () => {
    // dpengine.sample_discrete_laplace with a random.Random(seed) source that recorded each
    // randbelow(n) value, split into 32-bit words as uniformBelow reads them
    // (tools/constants.py). Same draws, same output: browser and server run the same
    // algorithm on the same exact rationals; one scale is a 0-10 question at the epsilon
    // "ln 3" as the server sends it, whose rational needs two-word draws.
    const { draws } = VECTORS.discrete_laplace;
    assert.ok(draws.length >= 8);
    assert.ok(draws.some(({ scale }) => BigInt(scale.split("/")[1]) > 2n ** 32n));
    for (const { scale, words, z: expected } of draws) {
      const source = scriptedSource(words);
      assert.equal(sampleDiscreteLaplace(scale, source), expected, `${scale} ${words}`);
      assert.equal(source.remaining, 0, "uses exactly the server's draws");
    }
  });

  it("has the discrete Laplace pmf: chi-square over 20 000 seeded draws", () => {
    // Scale 2: P(z) = tanh(1/4) e^(-|z|/2) (dpengine.discrete_laplace_pmf); bins -5..5 and the
    // two tails (12 degrees of freedom).
    const { pmf } = VECTORS.discrete_laplace;
    assert.equal(pmf.scale, 2);
    assert.deepEqual(pmf.z, [-5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5]);
    const source = seededSource(7);
    const draws = 20000;
    const counts = new Array(13).fill(0);
    for (let i = 0; i < draws; i += 1) {
      const z = sampleDiscreteLaplace("2", source);
      counts[z < -5 ? 0 : z > 5 ? 12 : z + 6] += 1;
    }
    let inside = 0;
    const expected = new Array(13).fill(0);
    pmf.z.forEach((z, i) => {
      expected[z + 6] = pmf.p[i] * draws;
      inside += pmf.p[i];
    });
    expected[0] = expected[12] = ((1 - inside) / 2) * draws;
    assert.ok(chiSquare(counts, expected) < CHI2_CRITICAL_0_001[12], String(counts));
  });
});

// The server's draws for a discrete Laplace scale ("2/1", "30/1"), the first one recorded with
// noise `z`: the words that make the browser draw exactly that noise.
function wordsFor(scale, z) {
  const draw = VECTORS.discrete_laplace.draws.find((entry) => entry.scale === scale && entry.z === z);
  assert.ok(draw, `no recorded draw of ${z} at scale ${scale}`);
  return draw.words;
}

describe("randomizeNumber", () => {
  it("gives dpengine.randomize_number's report for the server's draws, within its bounds", () => {
    // Each question as the server sends it, report_min/report_max from dpengine.report_bounds;
    // the draws recorded as above, for an answer in the range and one beyond each end.
    const { draws } = VECTORS.numeric;
    assert.ok(draws.length >= 12);
    for (const { question, value, words, report } of draws) {
      const source = scriptedSource(words);
      assert.equal(randomizeNumber(value, question, source), report, JSON.stringify(question));
      assert.equal(source.remaining, 0, "uses exactly the server's draws");
    }
  });

  it("clamps to the range before adding noise", () => {
    // Range 0-2 at epsilon 1 is scale 2: words the server drew noise 0 and -2 with.
    const zero = wordsFor("2/1", 0);
    assert.equal(randomizeNumber(100, { min: 0, max: 2, epsilon: 1 }, scriptedSource(zero)), 2);
    assert.equal(randomizeNumber(-5, { min: 0, max: 2, epsilon: 1 }, scriptedSource(zero)), 0);
    assert.equal(randomizeNumber(1, { min: 0, max: 2, epsilon: "1" }, scriptedSource(wordsFor("2/1", -2))), -1);
  });

  it("uses scale (max - min) / epsilon", () => {
    // Range 0-30 at epsilon 1 is scale 30: the server's draws for scale 30 give noise 4.
    assert.equal(randomizeNumber(10, { min: 0, max: 30, epsilon: 1 }, scriptedSource(wordsFor("30/1", 4))), 14);
  });

  it("keeps the report within report_min and report_max, the reports the server accepts", () => {
    const words = wordsFor("30/1", 4);
    const bounded = { min: 0, max: 30, epsilon: 1, report_min: -2, report_max: 32 };
    assert.equal(randomizeNumber(30, bounded, scriptedSource(words)), 32);
    assert.equal(randomizeNumber(20, bounded, scriptedSource(words)), 24);
    const low = { min: 0, max: 2, epsilon: "1", report_min: 0, report_max: 2 };
    assert.equal(randomizeNumber(1, low, scriptedSource(wordsFor("2/1", -2))), 0);
    const source = seededSource(2);
    for (let i = 0; i < 200; i += 1) {
      const report = randomizeNumber(1, { ...bounded, report_min: -1, report_max: 31 }, source);
      assert.ok(report >= -1 && report <= 31, `${report}`);
    }
  });

  it("refuses bad questions and answers", () => {
    const source = seededSource(1);
    assert.throws(() => randomizeNumber(1, { min: 0, max: 3, epsilon: 1, report_max: 2 }, source), /must enclose/);
    assert.throws(() => randomizeNumber(1, { min: 0, max: 3, epsilon: 1, report_min: 0.5 }, source), /report_min must be an integer/);
    assert.throws(() => randomizeNumber(1.5, { min: 0, max: 3, epsilon: 1 }, source), /value must be an integer/);
    assert.throws(() => randomizeNumber(1, { min: 3, max: 3, epsilon: 1 }, source), /max must be greater/);
    assert.throws(() => randomizeNumber(1, { min: 0, max: 3, epsilon: 0 }, source), /epsilon must be positive/);
  });
});

export { CHI2_CRITICAL_0_001, chiSquare };
