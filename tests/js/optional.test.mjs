// Optional questions (docs/researchers.md, "Optional questions"): a skipped question produces no key in
// what is sent, no entry in the memo and no coin draw; a retake that answers it draws for it
// alone and replays the rest.

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { answeredOnly, reportsFor } from "../../static/js/coins.js";
import { loadMemo, storeMemo } from "../../static/js/memory.js";
import { mapStorage, seededSource } from "./fakes.mjs";

const CLASSIC = { p_truth: 0.5, p_forced_yes: 0.5 };
const SLUG = "k3J9aQ";
const DESIGN = "a".repeat(32);

// Counts the 32-bit values a source hands out, so a test sees exactly how much was drawn.
function countingSource(seed) {
  const inner = seededSource(seed);
  const source = {
    values: 0,
    getRandomValues(array) {
      source.values += array.length;
      return inner.getRandomValues(array);
    },
  };
  return source;
}

describe("optional questions", () => {
  it("keep only the questions with an answer, false included", () => {
    const read = [
      ["11", "yes"],
      ["12", null],
      ["13", "no"],
      ["14", undefined],
    ];
    assert.deepEqual(answeredOnly(read, (value) => value === "yes"), { 11: true, 13: false });
    assert.deepEqual(answeredOnly([["5", "prefer_not_to_say"], ["6", null]]), {
      5: "prefer_not_to_say",
    });
  });

  it("send no key, keep no memo entry and draw no coin for a skipped question", () => {
    const truths = answeredOnly(
      [
        ["1", "yes"],
        ["2", null],
        ["3", "no"],
      ],
      (value) => value === "yes",
    );
    const source = countingSource(7);
    const drawn = reportsFor({ design: CLASSIC, truths, memo: null, randomSource: source });
    assert.deepEqual(Object.keys(drawn.answers).sort(), ["1", "3"]);
    assert.equal("2" in drawn.answers, false);
    assert.deepEqual(Object.keys(drawn.memo.pairs).sort(), ["1", "3"]);
    assert.deepEqual(drawn.drawn.sort(), ["1", "3"]);
    const body = JSON.parse(JSON.stringify({ answers: drawn.answers }));
    assert.equal(Object.hasOwn(body.answers, "2"), false);

    // Answering question 2 as well costs coin flips; skipping it cost none.
    const answeredToo = countingSource(7);
    reportsFor({
      design: CLASSIC,
      truths: { ...truths, 2: false },
      memo: null,
      randomSource: answeredToo,
    });
    assert.ok(answeredToo.values > source.values);

    const storage = mapStorage();
    storeMemo(storage, SLUG, DESIGN, drawn.memo);
    const [stored] = [...storage.map.values()];
    assert.deepEqual(Object.keys(JSON.parse(stored).pairs).sort(), ["1", "3"]);
  });

  it("on a retake, draw only for a question answered for the first time", () => {
    const storage = mapStorage();
    const first = reportsFor({
      design: CLASSIC,
      truths: { 1: true },
      memo: null,
      randomSource: seededSource(3),
    });
    storeMemo(storage, SLUG, DESIGN, { ...first.memo, sent: true });
    const memo = loadMemo(storage, SLUG, DESIGN);
    const retake = reportsFor({
      design: CLASSIC,
      truths: { 1: true, 2: false },
      memo,
      randomSource: seededSource(99),
    });
    assert.equal(retake.memo.submissionId, first.memo.submissionId); // stored once by the server
    assert.deepEqual(retake.reused, ["1"]);
    assert.deepEqual(retake.drawn, ["2"]);
    assert.equal(retake.answers["1"], first.answers["1"]); // the same report as the first time
    assert.deepEqual(retake.memo.pairs["1"], first.memo.pairs["1"]);
    assert.equal(retake.memo.sent, true);
  });

  it("leaves a question skipped on a retake out again, keeping its earlier pair unused", () => {
    const first = reportsFor({
      design: CLASSIC,
      truths: { 1: true, 2: true },
      memo: null,
      randomSource: seededSource(5),
    });
    const retake = reportsFor({
      design: CLASSIC,
      truths: { 1: true },
      memo: first.memo,
      randomSource: seededSource(6),
    });
    assert.deepEqual(Object.keys(retake.answers), ["1"]);
    assert.deepEqual(retake.drawn, []);
    assert.deepEqual(retake.memo.pairs, first.memo.pairs);
  });
});
