// The builder's helpers: which preset a pair of coins is, and the preview request it makes.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  enteredEpsilon,
  epsilonText,
  focusSelector,
  matchingPreset,
  previewUrl,
  showsFor,
  swappable,
} from "../../static/js/builder.js";
import { designEpsilon } from "../../static/js/designs.js";
import { VECTORS, designCases } from "./vectors.mjs";

// dpengine.PRESETS, the coins the builder page offers (tests/vectors/constants.json).
const PRESETS = Object.fromEntries(
  Object.entries(VECTORS.designs.presets).map(([name, { design }]) => [
    name,
    { p_truth: design.p_truth, p_forced_yes: design.p_forced_yes },
  ]),
);

test("coins equal to a preset select that preset", () => {
  assert.equal(matchingPreset(PRESETS, 0.25, 0.5), "strong_privacy");
  assert.equal(matchingPreset(PRESETS, 0.5, 0.5), "classic");
});

test("any other coins are custom", () => {
  assert.equal(matchingPreset(PRESETS, 0.5, 0.4), "custom");
  assert.equal(matchingPreset(PRESETS, Number.NaN, 0.5), "custom");
});

test("the preview URL carries exactly the coins and the question count", () => {
  const url = new URL(
    previewUrl("/surveys/design-preview/", { pTruth: "0.6", pForcedYes: "0.3", questions: 4 }),
    "http://example.test",
  );
  assert.equal(url.pathname, "/surveys/design-preview/");
  assert.deepEqual(Object.fromEntries(url.searchParams), {
    p_truth: "0.6",
    p_forced_yes: "0.3",
    questions: "4",
  });
});

test("after an add or a delete, focus returns to the add box", () => {
  assert.equal(focusSelector("add"), "#id_text");
  assert.equal(focusSelector("delete", { question: "7" }), "#id_text");
});

test("after a move, focus goes to the same button of the moved question", () => {
  assert.equal(
    focusSelector("move", { question: "7", direction: "up" }),
    'form[data-async="move"][data-question="7"][data-direction="up"] button',
  );
});

test("only the builder's own replies are swapped in; anything else posts as a page", () => {
  assert.equal(swappable(200, { html: "<h2>Questions</h2>" }), true);
  assert.equal(swappable(400, { html: "", errors: {} }), true);
  assert.equal(swappable(409, { message: "frozen" }), false);
  assert.equal(swappable(200, null), false);
  assert.equal(swappable(500, { html: "x" }), false);
});

test("a choice or numeric epsilon is read as entered", () => {
  assert.equal(enteredEpsilon("1.1"), 1.1);
  assert.equal(enteredEpsilon(" 2 "), 2);
  assert.equal(enteredEpsilon(""), null);
  assert.equal(enteredEpsilon("0"), null);
  assert.equal(enteredEpsilon("abc"), null);
});

test("a block shows for each type it names", () => {
  assert.ok(showsFor("choice numeric", "numeric"));
  assert.ok(showsFor("yes_no", "yes_no"));
  assert.ok(!showsFor("choice numeric", "yes_no"));
});

test("an epsilon is shown rounded up, never below the design's exact loss", () => {
  const classic = VECTORS.designs.presets.classic;
  assert.equal(epsilonText(designEpsilon(classic.design)), "1.10");
  assert.equal(epsilonText(1.1), "1.10"); // read as the decimal 1.1
  assert.equal(epsilonText(0.5), "0.50");
  assert.equal(epsilonText(0.5049), "0.51");
  assert.equal(epsilonText(2.0001, 2), "2.01");
  assert.equal(epsilonText(1e-7, 2), "0.01");
  // The live ε is an upper bound of dpengine's, for every design the builder can be given.
  for (const { design, epsilon, refused } of designCases()) {
    if (!refused) assert.ok(designEpsilon(design) >= epsilon, JSON.stringify(design));
  }
});
