import assert from "node:assert/strict";
import { describe, it } from "node:test";

import {
  randomizeChoice,
  randomizeKuk,
  randomizeMangat,
  randomizeUnrelated,
  randomizeWarner,
  randomizeYesNo,
} from "../../static/js/designs.js";
import { exactDistribution, scriptedSource, seededSource } from "./fakes.mjs";

// Chi-square critical value at p = 0.001 with 2 degrees of freedom (scipy.stats.chi2.isf).
const CHI2_CRITICAL_DF2 = 13.816;

function probabilityOfYes(draw) {
  return exactDistribution(draw, { gridSize: 16 }).get("true") ?? 0;
}

// The designs' defaults in dpengine (all dyadic, so the grid of 16 cells is exact):
// [design, P(yes | yes), P(yes | no)], worked by hand in tests/dpengine/test_yes_no_designs.py.
const DEFAULTS = [
  [{ kind: "forced_response", p_truth: 0.5, p_forced_yes: 0.5 }, 3 / 4, 1 / 4],
  [{ kind: "warner", p: 0.75 }, 3 / 4, 1 / 4],
  [{ kind: "unrelated_question", p: 0.5, pi: 0.25 }, 5 / 8, 1 / 8],
  [{ kind: "kuk", theta1: 0.625, theta2: 0.25 }, 5 / 8, 1 / 4],
  [{ kind: "mangat", p: 0.75, t: 0.75 }, 13 / 16, 1 / 4],
];

describe("yes/no designs", () => {
  it("report yes with exactly a and b under every design, all coin outcomes enumerated", () => {
    for (const [design, a, b] of DEFAULTS) {
      assert.equal(probabilityOfYes((source) => randomizeYesNo(true, design, source)), a, design.kind);
      assert.equal(probabilityOfYes((source) => randomizeYesNo(false, design, source)), b, design.kind);
    }
  });

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
    assert.throws(() => randomizeYesNo(true, { kind: "crosswise" }, source), /unknown design kind/);
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
    // epsilon = 1, k = 3: P(truth) = e / (e + 2), others 1 / (e + 2); fails above p = 0.001.
    const source = seededSource(99);
    const draws = 12000;
    const counts = [0, 0, 0];
    for (let i = 0; i < draws; i += 1) {
      counts[randomizeChoice(1, { k: 3, epsilon: 1 }, source)] += 1;
    }
    const keep = Math.E / (Math.E + 2);
    const other = 1 / (Math.E + 2);
    const expected = [other * draws, keep * draws, other * draws];
    const statistic = counts.reduce((sum, c, i) => sum + (c - expected[i]) ** 2 / expected[i], 0);
    assert.ok(statistic < CHI2_CRITICAL_DF2, String(counts));
  });

  it("gives the server's report for the server's draws", () => {
    // [mechanism, truth, uniform draws, report]: dpengine.randomize_choice with a
    // random.Random(seed) source (seeds 1-4) that recorded every randbelow(n) value. Values
    // below n are words uniformBelow accepts and returns unchanged.
    const REFERENCE = [
      [{ k: 3, epsilon: 1 }, 0, [0, 0], 0],
      [{ k: 3, epsilon: 1 }, 1, [0, 0, 0, 1], 0],
      [{ k: 3, epsilon: 1 }, 2, [0, 0, 1, 2, 0], 2],
      [{ k: 3, epsilon: 1 }, 1, [0, 0, 0, 2], 0],
      [{ k: 4, odds: 3 }, 0, [1, 2, 0], 0],
      [{ k: 4, odds: 3 }, 1, [0, 0], 0],
      [{ k: 4, odds: 3 }, 2, [1, 2, 1, 1, 3, 2, 0, 2, 0, 1, 2], 2],
      [{ k: 4, odds: 3 }, 1, [1], 1],
    ];
    for (const [mechanism, truth, words, report] of REFERENCE) {
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
