import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { memoRecord, reportsFor } from "../../static/js/coins.js";
import {
  forgetSurvey,
  loadMemo,
  memoKey,
  storeMemo,
  surveyMemory,
} from "../../static/js/memory.js";
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
    assert.equal(key, `rrsurvey:v3:${SLUG}:${DESIGN_A}`);
    assert.deepEqual(Object.keys(JSON.parse(value)).sort(), ["secrets", "sent", "submissionId"]);
  });

  it("drops memos of other designs, v2's memos and v1's per-question pairs, keeps other surveys'", () => {
    const memo = JSON.stringify(memoFor({ 1: true }, 3));
    const storage = mapStorage([
      [memoKey(SLUG, DESIGN_A), memo],
      [memoKey(SLUG, DESIGN_B), memo],
      [memoKey(SLUG, DESIGN_A, "v2"), "{}"],
      [memoKey(SLUG, DESIGN_B, "v2"), "{}"],
      [memoKey("other", DESIGN_A, "v2"), "{}"],
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
        memoKey("other", DESIGN_A, "v2"),
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

describe("the memo's entries", () => {
  it("are written in one shape: a secret per question and the id, nothing unknown", () => {
    const memo = memoFor({ 1: true }, 5);
    assert.deepEqual(Object.keys(memoRecord({ ...memo, tables: { 2: [0, 1] }, truth: true })), [
      "submissionId",
      "sent",
      "secrets",
    ]);
    const storage = mapStorage();
    storeMemo(storage, SLUG, DESIGN_A, { ...memo, pairs: { 1: [1, 0] }, truth: true });
    assert.deepEqual(JSON.parse(storage.getItem(memoKey(SLUG, DESIGN_A))), memo);
  });
});

describe("a survey's memory on the respondent page", () => {
  const open = (storage, { fingerprint = DESIGN_A, sharedDevice = false } = {}) =>
    surveyMemory({ storage, slug: SLUG, fingerprint, sharedDevice });

  it("on a personal device keeps each attempt's memo and replays it on the next visit", () => {
    const storage = mapStorage();
    const first = open(storage);
    assert.equal(first.memo, null);
    assert.equal(first.alreadySent, false);
    const memo = memoFor({ 1: true, 2: false }, 11);
    first.update(memo);
    // Kept before sending: a reload meanwhile reuses the same draws and submission id.
    assert.deepEqual(loadMemo(storage, SLUG, DESIGN_A), memo);
    assert.equal(open(storage).alreadySent, false);
    first.markSent();
    assert.deepEqual(first.memo, { ...memo, sent: true });

    const retake = open(storage);
    assert.equal(retake.alreadySent, true);
    assert.deepEqual(retake.memo, { ...memo, sent: true });
  });

  it("on a shared device keeps nothing, and forgets the memo once the answers are stored", () => {
    const earlier = JSON.stringify(memoFor({ 1: true }, 2));
    const storage = mapStorage([[memoKey(SLUG, DESIGN_A), earlier]]);
    const person = open(storage, { sharedDevice: true });
    assert.equal(storage.map.size, 0, "an earlier visit's memo is removed, this design's too");
    assert.equal(person.memo, null);
    const memo = memoFor({ 1: true }, 3);
    person.update(memo);
    assert.deepEqual(person.memo, memo, "kept in the page until the answers are sent");
    assert.equal(storage.map.size, 0);
    person.markSent();
    assert.equal(person.memo, null, "the next person starts from nothing");
    assert.equal(person.alreadySent, false);
    assert.equal(storage.map.size, 0);
  });

  it("drops the pilot's memo when the study opens under its own fingerprint", () => {
    const storage = mapStorage();
    const pilot = open(storage, { fingerprint: DESIGN_A });
    pilot.update(memoFor({ 1: true }, 4));
    pilot.markSent();
    const study = open(storage, { fingerprint: DESIGN_B });
    assert.equal(study.memo, null);
    assert.equal(study.alreadySent, false);
    assert.deepEqual([...storage.map.keys()], []);
  });

  it("touches no storage in the researcher's preview", () => {
    const preview = open(null);
    preview.update(memoFor({ 1: true }, 6));
    preview.markSent();
    assert.equal(preview.memo.sent, true);
  });
});
