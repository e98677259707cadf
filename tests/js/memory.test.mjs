import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { reportsFor } from "../../static/js/coins.js";
import { forgetSurvey, loadMemo, memoKey, storeMemo } from "../../static/js/memory.js";
import { mapStorage, seededSource } from "./fakes.mjs";

const CLASSIC = { p_truth: 0.5, p_forced_yes: 0.5 };
const SLUG = "k3J9aQ";
const DESIGN_A = "a".repeat(32);
const DESIGN_B = "b".repeat(32);

function memoFor(truths, seed) {
  return reportsFor({ design: CLASSIC, truths, memo: null, randomSource: seededSource(seed) })
    .memo;
}

describe("memory", () => {
  it("keeps one memo per survey and design, and reads it back", () => {
    const storage = mapStorage();
    const memo = memoFor({ 1: true, 2: false }, 7);
    assert.equal(storeMemo(storage, SLUG, DESIGN_A, memo), true);
    assert.deepEqual([...storage.map.keys()], [memoKey(SLUG, DESIGN_A)]);
    assert.deepEqual(loadMemo(storage, SLUG, DESIGN_A), memo);
    assert.equal(loadMemo(storage, SLUG, DESIGN_B), null, "another design starts afresh");
    assert.equal(loadMemo(storage, "other", DESIGN_A), null, "another survey starts afresh");
  });

  it("drops a pilot's memo when the real study opens (the design's name changed)", () => {
    const storage = mapStorage();
    storeMemo(storage, SLUG, DESIGN_A, { ...memoFor({ 1: true }, 3), sent: true });
    forgetSurvey(storage, SLUG, DESIGN_B);
    assert.equal(loadMemo(storage, SLUG, DESIGN_A), null);
    assert.deepEqual([...storage.map.keys()], []);
  });

  it("writes nothing that depends on the true answers", () => {
    const written = [true, false].map((truth) => {
      const storage = mapStorage();
      storeMemo(storage, SLUG, DESIGN_A, memoFor({ 1: truth, 2: truth, 3: truth }, 99));
      return JSON.stringify([...storage.map]);
    });
    assert.equal(written[0], written[1]);
    const [[key, value]] = JSON.parse(written[0]);
    assert.equal(key, `rrsurvey:v2:${SLUG}:${DESIGN_A}`);
    assert.deepEqual(Object.keys(JSON.parse(value)).sort(), ["pairs", "sent", "submissionId"]);
  });

  it("drops memos of other designs and v1's per-question pairs, keeps other surveys'", () => {
    const memo = JSON.stringify(memoFor({ 1: true }, 3));
    const storage = mapStorage([
      [memoKey(SLUG, DESIGN_A), memo],
      [memoKey(SLUG, DESIGN_B), memo],
      [`rrsurvey:rr-pair:v1:${SLUG}:1`, "[1,0]"],
      [`rrsurvey:rr-pair:v1:${SLUG}:2`, "[0,0]"],
      [memoKey("other", DESIGN_A), memo],
      [`rrsurvey:rr-pair:v1:other:1`, "[1,1]"],
      ["unrelated", "x"],
    ]);
    forgetSurvey(storage, SLUG, DESIGN_B);
    assert.deepEqual(
      [...storage.map.keys()].sort(),
      [
        memoKey("other", DESIGN_A),
        memoKey(SLUG, DESIGN_B),
        "rrsurvey:rr-pair:v1:other:1",
        "unrelated",
      ].sort(),
    );
  });

  it("on a shared device forgets everything of the survey", () => {
    const memo = JSON.stringify(memoFor({ 1: true }, 3));
    const storage = mapStorage([
      [memoKey(SLUG, DESIGN_A), memo],
      [`rrsurvey:rr-pair:v1:${SLUG}:1`, "[1,0]"],
      [memoKey("other", DESIGN_A), memo],
    ]);
    forgetSurvey(storage, SLUG, null);
    assert.deepEqual([...storage.map.keys()], [memoKey("other", DESIGN_A)]);
  });

  it("does not take a survey whose slug merely starts like this one's", () => {
    const memo = JSON.stringify(memoFor({ 1: true }, 3));
    const storage = mapStorage([[memoKey(`${SLUG}x`, DESIGN_A), memo]]);
    forgetSurvey(storage, SLUG, null);
    assert.equal(storage.map.size, 1);
  });

  it("carries on when storage is missing or throws", () => {
    const broken = {
      getItem() {
        throw new Error("SecurityError");
      },
      setItem() {
        throw new Error("QuotaExceededError");
      },
      removeItem() {
        throw new Error("SecurityError");
      },
      key() {
        throw new Error("SecurityError");
      },
      get length() {
        throw new Error("SecurityError");
      },
    };
    for (const storage of [broken, null, undefined]) {
      assert.equal(loadMemo(storage, SLUG, DESIGN_A), null);
      assert.equal(storeMemo(storage, SLUG, DESIGN_A, memoFor({ 1: true }, 1)), false);
      forgetSurvey(storage, SLUG, null);
    }
  });

  it("ignores a corrupt memo instead of failing", () => {
    const storage = mapStorage([[memoKey(SLUG, DESIGN_A), '{"submissionId": 1}']]);
    assert.equal(loadMemo(storage, SLUG, DESIGN_A), null);
  });

  it("refuses keys that could collide", () => {
    for (const [slug, fingerprint] of [
      ["", DESIGN_A],
      [SLUG, ""],
      ["a:b", DESIGN_A],
      [SLUG, null],
    ]) {
      assert.throws(() => memoKey(slug, fingerprint), TypeError);
    }
  });
});
