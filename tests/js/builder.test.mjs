// The builder's helpers: which preset a pair of coins is, and the preview request it makes.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  designEpsilon,
  designProbabilities,
  enteredEpsilon,
  epsilonText,
  focusSelector,
  matchingPreset,
  previewUrl,
  showsFor,
  swappable,
} from "../../static/js/builder.js";

const PRESETS = {
  strong_privacy: { p_truth: 0.25, p_forced_yes: 0.5 },
  classic: { p_truth: 0.5, p_forced_yes: 0.5 },
};

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

// ε of each yes/no design at dpengine's defaults: the values its docstrings state
// (dpengine/designs.py: Warner p = 3/4 -> ln 3; unrelated question p = 1/2, pi = 1/4 -> ln 5;
// Kuk 5/8, 1/4 -> ln(5/2); Mangat p = t = 3/4 -> ln 4; the classic coins 1/2, 1/2 -> ln 3).
test("each design's epsilon at its defaults is the one dpengine documents", () => {
  const close = (actual, expected) => assert.ok(Math.abs(actual - expected) < 1e-12, `${actual}`);
  close(designEpsilon("warner", { p: 0.75 }), Math.log(3));
  close(designEpsilon("unrelated_question", { p: 0.5, pi: 0.25 }), Math.log(5));
  close(designEpsilon("kuk", { theta1: 0.625, theta2: 0.25 }), Math.log(5 / 2));
  close(designEpsilon("mangat", { p: 0.75, t: 0.75 }), Math.log(4));
  close(designEpsilon("forced_response", { p_truth: 0.5, p_forced_yes: 0.5 }), Math.log(3));
  // The strong-privacy preset (a quarter truthful): ln(5/3), as its label says.
  close(designEpsilon("forced_response", { p_truth: 0.25, p_forced_yes: 0.5 }), Math.log(5 / 3));
});

test("the probabilities follow each design's formulas", () => {
  assert.deepEqual(designProbabilities("mangat", { p: 0.75, t: 0.75 }), {
    a: 1 - 0.75 + 0.75 * 0.75,
    b: 0.25,
  });
  assert.deepEqual(designProbabilities("unrelated_question", { p: 0.5, pi: 0.25 }), {
    a: 0.625,
    b: 0.125,
  });
  // Mangat at t = 1 is Warner's design.
  assert.equal(designEpsilon("mangat", { p: 0.75, t: 1 }), designEpsilon("warner", { p: 0.75 }));
});

test("designs that are not private or carry no information have no epsilon", () => {
  assert.equal(designEpsilon("warner", { p: 0.5 }), null); // no information
  assert.equal(designEpsilon("warner", { p: 0.25 }), null); // the negated statement
  assert.equal(designEpsilon("warner", { p: 1 }), null); // direct questioning
  assert.equal(designEpsilon("kuk", { theta1: 0.25, theta2: 0.625 }), null); // decks swapped
  assert.equal(designEpsilon("mangat", { p: 0.75, t: 0 }), null); // Mangat's original
  assert.equal(designEpsilon("unrelated_question", { p: 0.5, pi: 0 }), null);
  assert.equal(designEpsilon("warner", { p: Number.NaN }), null); // an empty box
  assert.equal(designEpsilon("coin", { p: 0.75 }), null);
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
  const classic = designEpsilon("forced_response", { p_truth: 0.5, p_forced_yes: 0.5 });
  assert.equal(epsilonText(classic), "1.10");
  assert.equal(epsilonText(1.1), "1.10"); // read as the decimal 1.1
  assert.equal(epsilonText(0.5), "0.50");
  assert.equal(epsilonText(0.5049), "0.51");
  assert.equal(epsilonText(2.0001, 2), "2.01");
  assert.equal(epsilonText(1e-7, 2), "0.01");
  // The live ε is an upper bound: ln 3 itself is below it.
  assert.ok(designEpsilon("warner", { p: 0.75 }) >= Math.log(3));
});
