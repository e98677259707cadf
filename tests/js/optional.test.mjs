// Optional questions (docs/researchers.md, "Optional questions"): a skipped question produces no key in
// what is sent, but the memo holds a secret for every question, answered or not, so what the
// browser keeps says nothing about which questions were skipped; a retake that answers a
// skipped question derives its report from the secret drawn the first time.

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import {
  answeredOnly,
  derivedReport,
  forcedResponseRandomizer,
  memoReports,
} from "../../static/js/coins.js";
import { PREFER_NOT_TO_SAY } from "../../static/js/constants.js";
import { loadMemo, storeMemo } from "../../static/js/memory.js";
import { mapStorage, seededSource } from "./fakes.mjs";

const CLASSIC = { p_truth: 0.5, p_forced_yes: 0.5 };
const SLUG = "k3J9aQ";
const DESIGN = "a".repeat(32);
const QUESTIONS = ["1", "2", "3"];

// As respond.js passes them: a randomizer for every question of the survey.
function everyQuestion() {
  const randomizer = forcedResponseRandomizer(CLASSIC);
  return Object.fromEntries(QUESTIONS.map((id) => [id, randomizer]));
}

function take(truths, { memo = null, seed = 7 } = {}) {
  return memoReports({
    randomizers: everyQuestion(),
    truths,
    memo,
    randomSource: seededSource(seed),
  });
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
    assert.deepEqual(answeredOnly([["5", PREFER_NOT_TO_SAY], ["6", null]]), {
      5: PREFER_NOT_TO_SAY,
    });
  });

  it("send no key for a skipped question, yet keep the same memo as answering it", () => {
    const truths = answeredOnly(
      [
        ["1", "yes"],
        ["2", null],
        ["3", "no"],
      ],
      (value) => value === "yes",
    );
    const skipped = take(truths);
    assert.deepEqual(Object.keys(skipped.answers).sort(), ["1", "3"]);
    const body = JSON.parse(JSON.stringify({ answers: skipped.answers }));
    assert.equal(Object.hasOwn(body.answers, "2"), false);
    // The same random source, every question answered: the very same memo.
    const answered = take({ ...truths, 2: false });
    assert.deepEqual(skipped.memo, answered.memo);
    assert.deepEqual(Object.keys(skipped.memo.secrets).sort(), QUESTIONS);
    assert.deepEqual(skipped.drawn.sort(), QUESTIONS);

    const stored = [skipped, answered].map(({ memo }) => {
      const storage = mapStorage();
      storeMemo(storage, SLUG, DESIGN, memo);
      return JSON.stringify([...storage.map]);
    });
    assert.equal(stored[0], stored[1], "storage is identical whether question 2 was skipped");
    // Skipping everything keeps the same too.
    assert.deepEqual(take({}).memo, answered.memo);
  });

  it("on a retake, answer a question skipped the first time from the secret drawn then", () => {
    const storage = mapStorage();
    const first = take({ 1: true }, { seed: 3 });
    storeMemo(storage, SLUG, DESIGN, { ...first.memo, sent: true });
    const memo = loadMemo(storage, SLUG, DESIGN);
    const retake = take({ 1: true, 2: false }, { memo, seed: 99 });
    assert.equal(retake.memo.submissionId, first.memo.submissionId); // stored once by the server
    assert.deepEqual(retake.reused, QUESTIONS);
    assert.deepEqual(retake.drawn, []);
    assert.equal(retake.answers["1"], first.answers["1"]); // the same report as the first time
    // its report for "no" (index 1), from the secret drawn when it was skipped
    const secret = first.memo.secrets["2"];
    const randomizer = forcedResponseRandomizer(CLASSIC);
    assert.equal(retake.answers["2"], derivedReport({ randomizer, questionId: "2", secret, index: 1 }));
    assert.deepEqual(retake.memo.secrets, first.memo.secrets);
    assert.equal(retake.memo.sent, true);
  });

  it("leaves a question skipped on a retake out again, keeping its secret", () => {
    const first = take({ 1: true, 2: true }, { seed: 5 });
    const retake = take({ 1: true }, { memo: first.memo, seed: 6 });
    assert.deepEqual(Object.keys(retake.answers), ["1"]);
    assert.deepEqual(retake.drawn, []);
    assert.deepEqual(retake.memo.secrets, first.memo.secrets);
  });
});
