// Random question order (static/js/order.js): uniform, exactly, by enumeration.
import assert from "node:assert/strict";
import { test } from "node:test";

import { fisherYates, shuffled, shuffledInPlace, uniformBelow } from "../../static/js/order.js";
import { scriptedSource, seededSource } from "./fakes.mjs";

// A fake word of 4 bits (range 16): small enough to enumerate every draw, and, like 2^32,
// not a multiple of 3, so a bound of 3 needs the rejection step to be uniform.
const RANGE = 16;

/**
 * The exact weight of each order of n items: every sequence of draws, each draw one of RANGE
 * equally likely values, depth first; a path is cut (and its weight left out) once it has
 * drawn more than `n` words, i.e. after more than one rejection. Cut paths are a rejection
 * away from a fresh, identical draw, so they cannot favour any order; what is left must
 * already be exactly uniform.
 */
function orderWeights(n, below) {
  const weights = new Map();
  const needMore = Symbol("need more");
  const explore = (prefix) => {
    let used = 0;
    const draw = () => {
      if (used === prefix.length) {
        throw needMore;
      }
      return prefix[used++];
    };
    let order;
    try {
      order = fisherYates([...Array(n).keys()], (bound) => below(bound, draw));
    } catch (error) {
      if (error !== needMore) {
        throw error;
      }
      if (prefix.length < n) {
        for (let value = 0; value < RANGE; value += 1) {
          explore([...prefix, value]);
        }
      }
      return;
    }
    const key = order.join("");
    weights.set(key, (weights.get(key) ?? 0) + RANGE ** -prefix.length);
  };
  explore([]);
  return weights;
}

for (const n of [3, 4]) {
  test(`every order of ${n} questions is exactly equally likely (enumerated)`, () => {
    const weights = orderWeights(n, (bound, draw) => uniformBelow(bound, draw, RANGE));
    const factorial = n === 3 ? 6 : 24;
    assert.equal(weights.size, factorial);
    assert.equal(new Set(weights.values()).size, 1, JSON.stringify([...weights]));
  });
}

test("the enumeration catches modulo bias (so the test above can fail)", () => {
  const weights = orderWeights(3, (bound, draw) => draw() % bound);
  assert.equal(weights.size, 6);
  assert.notEqual(new Set(weights.values()).size, 1);
});

test("a draw at or above the largest multiple of the bound is drawn again", () => {
  // 2^32 is a multiple of 2, so for a bound of 2 every word is accepted, the last included.
  const two = scriptedSource([2 ** 32 - 1]);
  assert.equal(uniformBelow(2, () => two.getRandomValues(new Uint32Array(1))[0]), 1);
  // For 3 the limit is 2^32 - 1: the word 2^32 - 1 (0 mod 3) is drawn again, then 4 gives 1.
  const three = scriptedSource([2 ** 32 - 1, 4]);
  assert.equal(uniformBelow(3, () => three.getRandomValues(new Uint32Array(1))[0]), 1);
  assert.equal(three.remaining, 0);
});

test("grouping questions keep their places; the others fill theirs in random order", () => {
  const items = ["q1", "g1", "q2", "q3", "g2"];
  for (let seed = 1; seed < 50; seed += 1) {
    const order = shuffledInPlace(items, (item) => item.startsWith("q"), seededSource(seed));
    assert.equal(order[1], "g1");
    assert.equal(order[4], "g2");
    assert.deepEqual([order[0], order[2], order[3]].sort(), ["q1", "q2", "q3"]);
  }
});

test("a bound outside [1, range] and a missing random source are refused", () => {
  assert.throws(() => uniformBelow(0, () => 0), RangeError);
  assert.throws(() => uniformBelow(1.5, () => 0), RangeError);
  assert.throws(() => shuffled([1, 2], null), TypeError);
});
