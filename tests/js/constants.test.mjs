// The values the browser modules use at run time are the server's: static/js/constants.js is
// generated with tests/vectors/constants.json (`make constants`), and the modules that use
// them read that module rather than a copy.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";

import { INSTRUCTIONS, PREFER_NOT_TO_SAY } from "../../static/js/constants.js";
import { questionRandomizer } from "../../static/js/designs.js";
import { VECTORS } from "./vectors.mjs";

describe("run-time constants", () => {
  it("are the generated file's", () => {
    assert.equal(PREFER_NOT_TO_SAY, VECTORS.codes.prefer_not_to_say);
    // Without the page's catalog, gettext leaves the design table's English as it is.
    assert.deepEqual(INSTRUCTIONS, VECTORS.design_table.instructions);
  });

  it("cover every question type the server randomizes", () => {
    const coins = { p_truth: 0.5, p_forced_yes: 0.5 };
    const examples = {
      yes_no: { type: "yes_no" },
      choice: { type: "choice", options: ["a", "b"], epsilon: 1 },
      numeric: { type: "numeric", min: 0, max: 3, epsilon: 1 },
    };
    assert.deepEqual(Object.keys(examples), VECTORS.codes.randomized_question_types);
    for (const type of VECTORS.codes.randomized_question_types) {
      assert.ok(questionRandomizer(examples[type], coins), type);
    }
  });

  it("are not copied by hand into the modules that use them", () => {
    // The one place each value is written in static/js is the generated module.
    for (const name of ["coins.js", "designs.js", "respond.js", "questions.js", "builder.js"]) {
      const source = readFileSync(new URL(`../../static/js/${name}`, import.meta.url), "utf8");
      const code = source.replace(/\/\/.*|\/\*[\s\S]*?\*\//g, ""); // comments may name them
      assert.ok(!code.includes(`"${PREFER_NOT_TO_SAY}"`), name);
    }
    // A design's instruction is written in its row only (surveys/designs.py).
    for (const name of ["messages.js", "procedure.js", "yes-no-designs.js", "comprehension.js"]) {
      const source = readFileSync(new URL(`../../static/js/${name}`, import.meta.url), "utf8");
      for (const text of Object.values(INSTRUCTIONS).flatMap(Object.values)) {
        assert.ok(!source.includes(`"${text}"`), `${name}: ${text}`);
      }
    }
  });
});
