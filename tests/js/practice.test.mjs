// The "try it" control (static/js/practice.js): its coins are the real ones, exactly.
import assert from "node:assert/strict";
import { test } from "node:test";

import { randomizeAnswer } from "../../static/js/coins.js";
import { messageText } from "../../static/js/messages.js";
import { practiceMessage, practiceRound } from "../../static/js/practice.js";
import { exactDistribution, scriptedSource } from "./fakes.mjs";

test("a practice round has the design's exact distribution (enumerated, 1/4 and 3/4)", () => {
  const design = { p_truth: 0.25, p_forced_yes: 0.75 };
  const rounds = exactDistribution((source) =>
    practiceRound({ truth: true, design, randomSource: source }),
  );
  // heads 1/4 (truth "yes" sent); tails 3/4, then "yes" 3/4 and "no" 1/4.
  assert.deepEqual(
    Object.fromEntries(rounds),
    {
      [JSON.stringify({ heads: true, sent: true })]: 0.25,
      [JSON.stringify({ heads: false, sent: true })]: 0.75 * 0.75,
      [JSON.stringify({ heads: false, sent: false })]: 0.75 * 0.25,
    },
  );
});

test("for the same draws the practice sends what the real randomization sends", () => {
  const design = { p_truth: 0.5, p_forced_yes: 0.5 };
  const chunks = [0, 2 ** 31, 2 ** 32 - 1, 7, 2 ** 31 - 1];
  for (const first of chunks) {
    for (const second of chunks) {
      for (const truth of [true, false]) {
        const practice = practiceRound({
          truth,
          design,
          randomSource: scriptedSource([first, second]),
        });
        const real = randomizeAnswer(truth, design, scriptedSource([first, second]));
        assert.equal(practice.sent, real, [first, second, truth].join());
      }
    }
  }
});

test("the announcement says which coin decided and what would be sent", () => {
  assert.equal(
    messageText(practiceMessage({ round: { heads: true, sent: true }, count: 1 })),
    "Practice 1: coin 1 landed heads, so your true answer, “Yes”, would be sent. Nothing was sent.",
  );
  assert.equal(
    messageText(practiceMessage({ round: { heads: false, sent: false }, count: 2 })),
    "Practice 2: coin 1 landed tails, so coin 2 chose “No”, which would be sent whatever your answer. Nothing was sent.",
  );
});

test("a practice answer must be a boolean", () => {
  assert.throws(
    () => practiceRound({ truth: "yes", design: { p_truth: 0.5, p_forced_yes: 0.5 } }),
    TypeError,
  );
});
