import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { YES_NO_KINDS } from "../../static/js/constants.js";
import {
  DESIGN_KINDS,
  designEpsilon,
  designProbabilities,
  numericRandomizer,
  outsideRange,
  randomizeChoice,
  randomizeKuk,
  randomizeMangat,
  randomizeUnrelated,
  randomizeWarner,
  randomizeYesNo,
  wholeNumber,
} from "../../static/js/designs.js";
import { exactDistribution, scriptedSource, seededSource } from "./fakes.mjs";
import { CHI2_CRITICAL_0_001, VECTORS, designCases } from "./vectors.mjs";

function probabilityOfYes(draw) {
  return exactDistribution(draw, { gridSize: 16 }).get("true") ?? 0;
}

// A design whose every parameter is a multiple of 1/16: the grid of 16 cells is exact for it.
function onTheGrid(design) {
  return Object.entries(design).every(
    ([name, value]) => name === "kind" || Number.isInteger(value * 16),
  );
}

// dpengine computes a, b and e^ε as exact fractions and rounds once; the browser computes
// them in doubles, so a and b agree within a few units in the last place, and ε within a
// relative 1e-9: 1 - a and 1 - b lose digits when both are near 1 (the coins 0.001, 0.999).
function close(actual, expected, message, tolerance = 4 * Number.EPSILON) {
  const bound = tolerance * Math.max(1, Math.abs(expected));
  assert.ok(Math.abs(actual - expected) <= bound, `${message}: ${actual} vs ${expected}`);
}

describe("yes/no designs agree with dpengine (tests/vectors/constants.json)", () => {
  it("have the same kinds, and a randomizer for every design a question may name", () => {
    assert.deepEqual([...DESIGN_KINDS].sort(), [...VECTORS.designs.kinds].sort());
    // The design table's kinds (surveys/designs.py), as the generated module gives them.
    assert.deepEqual([...YES_NO_KINDS], VECTORS.design_table.kinds);
    for (const kind of YES_NO_KINDS) {
      assert.ok(DESIGN_KINDS.includes(kind), kind);
    }
  });

  it("give dpengine's a, b and epsilon at the defaults, the presets and the edge cases", () => {
    const accepted = designCases().filter((entry) => !entry.refused);
    assert.ok(accepted.length >= 15);
    for (const { design, a, b, epsilon } of accepted) {
      const label = JSON.stringify(design);
      const probabilities = designProbabilities(design);
      assert.ok(probabilities, label);
      close(probabilities.a, a, label);
      close(probabilities.b, b, label);
      close(designEpsilon(design), epsilon, label, 1e-9);
      assert.equal(typeof randomizeYesNo(true, design, seededSource(1)), "boolean", label);
    }
  });

  it("refuse exactly the designs dpengine refuses, in the formulas and the samplers", () => {
    const refused = designCases().filter((entry) => entry.refused);
    assert.ok(refused.length >= 10);
    for (const { design, refused: reason } of refused) {
      const label = `${JSON.stringify(design)} (${reason})`;
      assert.equal(designProbabilities(design), null, label);
      assert.equal(designEpsilon(design), null, label);
      assert.throws(() => randomizeYesNo(true, design, seededSource(1)), RangeError, label);
    }
  });

  it("report yes with exactly dpengine's a and b, all coin outcomes enumerated", () => {
    const exact = designCases().filter((entry) => !entry.refused && onTheGrid(entry.design));
    assert.ok(exact.length >= 8);
    for (const { design, a, b } of exact) {
      const label = JSON.stringify(design);
      assert.equal(probabilityOfYes((source) => randomizeYesNo(true, design, source)), a, label);
      assert.equal(probabilityOfYes((source) => randomizeYesNo(false, design, source)), b, label);
    }
  });

  it("have no epsilon for a missing or non-numeric parameter or an unknown kind", () => {
    assert.equal(designEpsilon({ kind: "warner", p: Number.NaN }), null); // an empty box
    assert.equal(designEpsilon({ kind: "warner" }), null);
    assert.equal(designEpsilon({ kind: "kuk", theta1: "0.6", theta2: 0.25 }), null);
    assert.equal(designEpsilon({ kind: "coin", p: 0.75 }), null);
    assert.equal(designEpsilon(null), null);
  });
});

describe("yes/no designs", () => {
  it("Mangat with t = 1 is Warner's design", () => {
    const mangat = (truth) => (source) => randomizeMangat(truth, { p: 0.75, t: 1 }, source);
    const warner = (truth) => (source) => randomizeWarner(truth, { p: 0.75 }, source);
    assert.equal(probabilityOfYes(mangat(true)), probabilityOfYes(warner(true)));
    assert.equal(probabilityOfYes(mangat(false)), probabilityOfYes(warner(false)));
  });

  it("refuse parameters the server refuses", () => {
    const source = seededSource(1);
    assert.throws(() => randomizeWarner(true, { p: 0.5 }, source), /p must be in \(1\/2, 1\)/);
    assert.throws(() => randomizeUnrelated(true, { p: 0.5, pi: 1 }, source), /pi must be a number in \(0, 1\)/);
    assert.throws(() => randomizeKuk(true, { theta1: 0.2, theta2: 0.6 }, source), /theta1 must be greater/);
    assert.throws(() => randomizeMangat(true, { p: 0.75, t: 0 }, source), /not differentially private/);
    assert.throws(() => randomizeYesNo(true, { kind: "made_up" }, source), /unknown design kind/);
    assert.throws(() => randomizeWarner("yes", { p: 0.75 }, source), /truth must be a boolean/);
  });
});

class NeedMore extends Error {}

/**
 * Exact distribution of `experiment(source)` when every 32-bit word is uniform over the
 * `values` small integers 0..values-1 (with values = 12, `uniformBelow(4)` and
 * `uniformBelow(3)` are both exactly uniform: 12 is a multiple of 4 and 3, and small words
 * are never rejected). Sequences of more than `maxDepth` words are abandoned; their mass is
 * returned as `unresolved`. Masses are integers in units of values^-maxDepth, so exact.
 */
function enumerateWords(experiment, { values, maxDepth }) {
  const outcomes = new Map();
  let unresolved = 0;
  const explore = (prefix) => {
    let used = 0;
    const source = {
      getRandomValues(array) {
        for (let i = 0; i < array.length; i += 1) {
          if (used === prefix.length) {
            throw new NeedMore();
          }
          array[i] = prefix[used];
          used += 1;
        }
        return array;
      },
    };
    const weight = values ** (maxDepth - prefix.length);
    let outcome;
    try {
      outcome = experiment(source);
    } catch (error) {
      if (!(error instanceof NeedMore)) {
        throw error;
      }
      if (prefix.length >= maxDepth) {
        unresolved += weight;
        return;
      }
      for (let word = 0; word < values; word += 1) {
        explore([...prefix, word]);
      }
      return;
    }
    outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + weight);
  };
  explore([]);
  return { outcomes, unresolved, total: values ** maxDepth };
}

describe("k-ary randomized response", () => {
  it("keeps the truth with e^eps / (e^eps + k - 1) and picks each other option uniformly, exactly", () => {
    // odds = 3 (epsilon = ln 3), k = 4: P(truth) = 1/2, each other option 1/6. A round draws
    // an option and, for another option, an acceptance word; it ends with probability 1/2, so
    // after two rounds (4 words) exactly 1/4 is unresolved and the rest splits 3 : 1 : 1 : 1.
    for (let truth = 0; truth < 4; truth += 1) {
      const { outcomes, unresolved, total } = enumerateWords(
        (source) => randomizeChoice(truth, { k: 4, odds: 3 }, source),
        { values: 12, maxDepth: 4 },
      );
      assert.equal(unresolved * 4, total);
      const resolved = total - unresolved;
      for (let option = 0; option < 4; option += 1) {
        assert.equal(outcomes.get(option) * 6, (option === truth ? 3 : 1) * resolved, `${truth} -> ${option}`);
      }
    }
  });

  it("with a rational epsilon passes a chi-square test over 12 000 seeded draws", () => {
    // epsilon = 1, k = 3: P(truth) = e / (e + 2), others 1 / (e + 2) (dpengine's
    // keep_probability and other_probability); fails above p = 0.001.
    const { keep_probability: keep, other_probability: other } = VECTORS.choice.mechanisms.find(
      ({ mechanism }) => mechanism.k === 3 && mechanism.epsilon === 1,
    );
    const source = seededSource(99);
    const draws = 12000;
    const counts = [0, 0, 0];
    for (let i = 0; i < draws; i += 1) {
      counts[randomizeChoice(1, { k: 3, epsilon: 1 }, source)] += 1;
    }
    const expected = [other * draws, keep * draws, other * draws];
    const statistic = counts.reduce((sum, c, i) => sum + (c - expected[i]) ** 2 / expected[i], 0);
    assert.ok(statistic < CHI2_CRITICAL_0_001[2], String(counts));
  });

  it("gives the server's report for the server's draws", () => {
    // dpengine.randomize_choice with a random.Random(seed) source that recorded every
    // randbelow(n) value (tools/constants.py): values below n are words uniformBelow accepts
    // and returns unchanged.
    assert.ok(VECTORS.choice.draws.length >= 8);
    for (const { mechanism, truth, words, report } of VECTORS.choice.draws) {
      const source = scriptedSource(words);
      assert.equal(randomizeChoice(truth, mechanism, source), report, JSON.stringify(words));
      assert.equal(source.remaining, 0, "uses exactly the server's draws");
    }
  });

  it("refuses what the server refuses", () => {
    const source = seededSource(1);
    assert.throws(() => randomizeChoice(0, { k: 1, epsilon: 1 }, source), /k must be an integer/);
    assert.throws(() => randomizeChoice(0, { k: 3, epsilon: 1, odds: 3 }, source), /exactly one/);
    assert.throws(() => randomizeChoice(0, { k: 3, odds: 1 }, source), /odds must be above 1/);
    assert.throws(() => randomizeChoice(3, { k: 3, epsilon: 1 }, source), /truth must be an option/);
  });
});

describe("wholeNumber", () => {
  it("reads a typed answer: none, a whole number, or not a whole number", () => {
    assert.equal(wholeNumber(""), null);
    assert.equal(wholeNumber("  "), null);
    assert.ok(Number.isNaN(wholeNumber("", { badInput: true }))); // "abc" in a number input
    assert.equal(wholeNumber("17"), 17);
    assert.equal(wholeNumber(" -3 "), -3);
    assert.equal(wholeNumber("+40"), 40);
    assert.equal(wholeNumber("007"), 7);
    for (const junk of ["17.5", "17.0", "1e3", "17a", "--1", "0x10", "½"]) {
      assert.ok(Number.isNaN(wholeNumber(junk)), junk);
    }
    // beyond a double: still a whole number, far above or below any range
    const huge = wholeNumber("9".repeat(400));
    assert.equal(huge, Number.MAX_SAFE_INTEGER);
    assert.equal(wholeNumber(`-${"9".repeat(400)}`), -Number.MAX_SAFE_INTEGER);
    assert.equal(numericRandomizer({ min: 0, max: 30, epsilon: 2 }).indexOf(huge), 30);
  });
});

describe("outsideRange", () => {
  it("is a whole number below min or above max, nothing else", () => {
    const range = { min: 0, max: 30 };
    assert.equal(outsideRange(45, range), true); // issue 24: clamped to 30 without a word
    assert.equal(outsideRange(-1, range), true);
    assert.equal(outsideRange(wholeNumber("9".repeat(400)), range), true);
    for (const inside of [0, 17, 30]) {
      assert.equal(outsideRange(inside, range), false, String(inside));
    }
    // No answer, or not a whole number: other messages say so.
    assert.equal(outsideRange(null, range), false);
    assert.equal(outsideRange(Number.NaN, range), false);
  });
});
