// The builder's helpers: which preset a pair of coins is, and the preview request it makes.
import assert from "node:assert/strict";
import { test } from "node:test";

import { matchingPreset, previewUrl } from "../../static/js/builder.js";

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
