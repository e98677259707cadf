// The memo's tables for every question type (coins.js "Memoisation"): one pre-drawn report per
// possible true answer, drawn before the answer is read, kept without anything derived from
// it, and read back from storage in the new shape and the old (pairs only).

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { MAX_TABLE_SIZE, drawTable, memoReports, parseMemo } from "../../static/js/coins.js";
import {
  choiceRandomizer,
  numericRandomizer,
  outsideRange,
  questionRandomizer,
  randomizeChoice,
  randomizeYesNo,
  wholeNumber,
  yesNoRandomizer,
} from "../../static/js/designs.js";
import { randomizeNumber } from "../../static/js/exact.js";
import { loadMemo, storeMemo } from "../../static/js/memory.js";
import { exactDistribution, mapStorage, scriptedSource, seededSource } from "./fakes.mjs";
import { LN3, VECTORS } from "./vectors.mjs";

const ID = "01020304-0506-4708-890a-0b0c0d0e0f10";
const WARNER = { kind: "warner", p: 0.75 };
const CHOICE = { type: "choice", options: ["None", "Pens", "Paper"], epsilon: LN3 };
const NUMERIC = { type: "numeric", min: 0, max: 30, epsilon: 2 };
const COINS = { p_truth: 0.5, p_forced_yes: 0.5 };

function mixedRandomizers() {
  return {
    1: questionRandomizer({ type: "yes_no", design: WARNER }, COINS),
    2: questionRandomizer(CHOICE, COINS),
    3: questionRandomizer(NUMERIC, COINS),
  };
}

// Wraps each randomizer so that every draw and every reading of a truth is logged in order.
function logged(randomizers, log) {
  return Object.fromEntries(
    Object.entries(randomizers).map(([id, randomizer]) => [
      id,
      {
        ...randomizer,
        draw: (index, source) => {
          log.push(["draw", id, index]);
          return randomizer.draw(index, source);
        },
        indexOf: (truth) => {
          log.push(["truth", id]);
          return randomizer.indexOf(truth);
        },
      },
    ]),
  );
}

describe("tables of pre-drawn reports", () => {
  it("draw every possible answer's report before the question's truth is read", () => {
    const log = [];
    memoReports({
      randomizers: logged(mixedRandomizers(), log),
      truths: { 1: false, 2: 2, 3: 17 },
      memo: null,
      randomSource: seededSource(7),
    });
    for (const [id, size] of [["1", 2], ["2", 3], ["3", 31]]) {
      const events = log.filter((event) => event[1] === id);
      // every index once, in order, then the truth once, last
      assert.deepEqual(
        events.slice(0, -1),
        Array.from({ length: size }, (_, index) => ["draw", id, index]),
      );
      assert.deepEqual(events.at(-1), ["truth", id]);
    }
    // drawTable itself has no way to be told the truth: it takes the randomizer and the source.
    assert.equal(drawTable.length, 2);
  });

  it("keep a memo identical whatever the true answers of every type were", () => {
    const kept = [
      { 1: true, 2: 0, 3: 0 },
      { 1: false, 2: 2, 3: 30 },
      { 1: true, 2: 1, 3: 999 },
    ].map(
      (truths) =>
        memoReports({
          randomizers: mixedRandomizers(),
          truths,
          memo: null,
          randomSource: seededSource(2026),
        }).memo,
    );
    assert.deepEqual(kept[0], kept[1]);
    assert.deepEqual(kept[0], kept[2]);
    assert.deepEqual(Object.keys(kept[0].pairs), ["1"]);
    assert.deepEqual(Object.keys(kept[0].tables).sort(), ["2", "3"]);
    assert.equal(kept[0].tables[2].length, 3);
    assert.equal(kept[0].tables[3].length, 31);
  });

  it("keep a Warner pair whose exact distribution does not depend on the truth", () => {
    const keptPair = (truth) => (source) =>
      memoReports({
        randomizers: { 1: yesNoRandomizer(WARNER) },
        truths: { 1: truth },
        memo: { submissionId: ID, sent: false, pairs: {} },
        randomSource: source,
      }).memo.pairs[1];
    const ifYes = exactDistribution(keptPair(true));
    const ifNo = exactDistribution(keptPair(false));
    assert.deepEqual(ifYes, ifNo);
    // independent members, P(yes | yes) = 3/4 and P(yes | no) = 1/4: [1, 0] has 9/16
    assert.equal(ifYes.get("[1,0]"), 9 / 16);
    assert.equal(ifYes.get("[0,1]"), 1 / 16);
    assert.equal(ifYes.get("[1,1]"), 3 / 16);
  });

  it("hold entry i = the mechanism's report for true answer i, from the same random words", () => {
    // The same stream drawn through the table and through the samplers one answer at a time.
    const choice = drawTable(questionRandomizer(CHOICE, COINS), seededSource(11));
    const one = seededSource(11);
    const mechanism = { k: 3, epsilon: LN3 };
    assert.deepEqual(
      choice,
      [0, 1, 2].map((truth) => randomizeChoice(truth, mechanism, one)),
    );
    const numeric = drawTable(questionRandomizer(NUMERIC, COINS), seededSource(12));
    const other = seededSource(12);
    assert.deepEqual(
      numeric,
      Array.from({ length: 31 }, (_, value) => randomizeNumber(value, NUMERIC, other)),
    );
    const pair = drawTable(yesNoRandomizer(WARNER), seededSource(13));
    const third = seededSource(13);
    const oneByOne = [true, false].map((truth) => randomizeYesNo(truth, WARNER, third));
    assert.deepEqual(pair, oneByOne.map((report) => (report ? 1 : 0)));
  });

  it("send the entry of the true answer, a number outside the range the entry of its end", () => {
    const numeric = Array.from({ length: 31 }, (_, value) => 100 + value);
    const memo = {
      submissionId: ID,
      sent: true,
      pairs: { 1: [0, 1] },
      tables: { 2: [2, 0, 1], 3: numeric },
    };
    const take = (truths) =>
      memoReports({
        randomizers: mixedRandomizers(),
        truths,
        memo,
        randomSource: scriptedSource([]), // throws if anything were drawn
      });
    assert.deepEqual(take({ 1: true, 2: 0, 3: 17 }).answers, { 1: false, 2: 2, 3: 117 });
    assert.deepEqual(take({ 1: false, 2: 2, 3: 45 }).answers, { 1: true, 2: 1, 3: 130 });
    assert.deepEqual(take({ 3: -8 }).answers, { 3: 100 });
    const again = take({ 1: true, 2: 1, 3: 0 });
    assert.deepEqual(again.reused, ["1", "2", "3"]);
    assert.deepEqual(again.memo, memo);
  });

  it("redraw a kept table that does not fit the question", () => {
    const memo = {
      submissionId: ID,
      sent: false,
      pairs: {},
      tables: { 2: [0, 1], 3: [5, 6, 7] }, // 2 options instead of 3; 3 numbers instead of 31
    };
    const result = memoReports({
      randomizers: mixedRandomizers(),
      truths: { 2: 1, 3: 3 },
      memo,
      randomSource: seededSource(3),
    });
    // Question 1 (not answered) had nothing kept: drawn too, as every question is.
    assert.deepEqual(result.drawn, ["1", "2", "3"]);
    assert.equal(result.memo.tables[2].length, 3);
    assert.equal(result.memo.tables[3].length, 31);
    assert.ok(result.memo.tables[2].every((option) => [0, 1, 2].includes(option)));
  });

  it("refuse a true answer the question cannot have", () => {
    const run = (truths) =>
      memoReports({
        randomizers: mixedRandomizers(),
        truths,
        memo: null,
        randomSource: seededSource(1),
      });
    const wrong = [{ 1: "yes" }, { 1: 1 }, { 2: 3 }, { 2: -1 }, { 2: 1.5 }, { 2: true }];
    wrong.push({ 3: 2.5 }, { 3: "17" }, { 3: Number.NaN });
    for (const truths of wrong) {
      assert.throws(() => run(truths), TypeError, JSON.stringify(truths));
    }
    assert.throws(() => run({ 9: true }), RangeError); // no such question
  });

  it("are built from the public definition, a yes/no question without a design on the coins", () => {
    const coins = questionRandomizer({ id: 5, text: "Old definition?" }, COINS);
    assert.equal(coins.store, "pairs");
    // if yes: heads, the truth; if no: tails, then tails: forced "no"
    assert.deepEqual(drawTable(coins, scriptedSource([0, 2 ** 32 - 1, 2 ** 32 - 1])), [1, 0]);
    assert.equal(questionRandomizer(NUMERIC, COINS).size, 31);
    assert.equal(choiceRandomizer({ k: 20, epsilon: 1 }).size, 20);
    // The widest range the server allows (surveys/limits.py NUMERIC_RANGE_MAX) fits, one more does not.
    const widest = VECTORS.limits.numeric_range_max;
    assert.equal(numericRandomizer({ min: -500, max: widest - 500, epsilon: 1 }).size, MAX_TABLE_SIZE);
    assert.throws(() => numericRandomizer({ min: 0, max: widest + 1, epsilon: 1 }), RangeError);
    const most = VECTORS.limits.max_choice_options;
    assert.equal(choiceRandomizer({ k: most, epsilon: 1 }).size, most);
    assert.throws(() => numericRandomizer({ min: 0, max: 10, epsilon: 0 }), RangeError);
    assert.throws(() => questionRandomizer({ type: "rating" }, COINS), RangeError);
    for (const bad of [
      { type: "yes_no", design: { kind: "coin" } },
      { type: "choice", options: ["a"], epsilon: 1 },
    ]) {
      assert.throws(() => questionRandomizer(bad, COINS), RangeError);
    }
  });
});

describe("memos with tables", () => {
  const typed = {
    submissionId: ID,
    sent: true,
    pairs: { 1: [1, 0] },
    tables: { 2: [2, 0, 1], 3: [4, -7, 31] },
  };

  it("read back the new shape, and the old shape (pairs only) exactly as before", () => {
    assert.deepEqual(parseMemo(JSON.stringify(typed)), typed);
    const old = { submissionId: ID, sent: false, pairs: { 11: [0, 1], 12: [1, 1] } };
    assert.deepEqual(parseMemo(JSON.stringify(old)), old);
    // an old yes/no memo still drives a retake without a single new draw
    const retake = memoReports({
      randomizers: { 11: yesNoRandomizer({ kind: "forced_response", ...COINS }) },
      truths: { 11: false },
      memo: parseMemo(JSON.stringify(old)),
      randomSource: scriptedSource([]),
    });
    assert.deepEqual(retake.answers, { 11: true });
    assert.equal(retake.memo.submissionId, ID);
  });

  it("refuse malformed tables", () => {
    for (const tables of [
      [[0, 1]],
      { 2: [0] },
      { 2: [0, 1.5] },
      { 2: ["0", "1"] },
      { 2: [true, false] },
      { 2: [0, null] },
      { 2: "0,1" },
      { 2: Array(MAX_TABLE_SIZE + 1).fill(0) },
      { 1: [0, 1] }, // also a pair: one question cannot have both
    ]) {
      const raw = JSON.stringify({ ...typed, tables });
      assert.equal(parseMemo(raw), null, raw.slice(0, 80));
    }
    const largest = { ...typed, tables: { 2: Array(MAX_TABLE_SIZE).fill(0) } };
    assert.notEqual(parseMemo(JSON.stringify(largest)), null);
  });

  it("are stored with their tables, and a yes/no memo without the member", () => {
    const storage = mapStorage();
    assert.equal(storeMemo(storage, "slug1", "f".repeat(32), typed), true);
    assert.deepEqual(loadMemo(storage, "slug1", "f".repeat(32)), typed);
    const plain = { submissionId: ID, sent: false, pairs: { 1: [0, 0] }, tables: {} };
    storeMemo(storage, "slug2", "f".repeat(32), plain);
    const [, written] = [...storage.map.entries()].find(([key]) => key.includes("slug2"));
    assert.deepEqual(Object.keys(JSON.parse(written)).sort(), ["pairs", "sent", "submissionId"]);
  });
});

describe("wholeNumber", () => {
  it("reads a typed answer: none, a whole number, or not a whole number", () => {
    assert.equal(wholeNumber(""), null);
    assert.equal(wholeNumber("  "), null);
    assert.ok(Number.isNaN(wholeNumber("", { badInput: true }))); // "abc" in a number input
    assert.equal(wholeNumber("17"), 17);
    assert.equal(wholeNumber(" -3 "), -3);
    assert.equal(wholeNumber("+40"), 40);
    assert.equal(wholeNumber("007"), 7);
    for (const junk of ["17.5", "17.0", "1e3", "17a", "--1", "0x10", "½"]) {
      assert.ok(Number.isNaN(wholeNumber(junk)), junk);
    }
    // beyond a double: still a whole number, far above or below any range
    const huge = wholeNumber("9".repeat(400));
    assert.equal(huge, Number.MAX_SAFE_INTEGER);
    assert.equal(wholeNumber(`-${"9".repeat(400)}`), -Number.MAX_SAFE_INTEGER);
    assert.equal(numericRandomizer(NUMERIC).indexOf(huge), 30);
  });

  it("sends a numeric entry within the reports the server accepts", () => {
    const bounded = questionRandomizer(
      { type: "numeric", min: 0, max: 30, epsilon: 1, report_min: -5, report_max: 35 },
      COINS,
    );
    // An entry drawn before the bounds were sent, beyond them: sent as the nearest bound.
    assert.deepEqual([1000, -1000, 7].map(bounded.report), [35, -5, 7]);
    assert.equal(questionRandomizer({ type: "numeric", ...NUMERIC }, COINS).report(1000), 1000);
  });
});

describe("outsideRange", () => {
  it("is a whole number below min or above max, nothing else", () => {
    const range = { min: 0, max: 30 };
    assert.equal(outsideRange(45, range), true); // issue 24: clamped to 30 without a word
    assert.equal(outsideRange(-1, range), true);
    assert.equal(outsideRange(wholeNumber("9".repeat(400)), range), true);
    for (const inside of [0, 17, 30]) {
      assert.equal(outsideRange(inside, range), false, String(inside));
    }
    // No answer, or not a whole number: other messages say so.
    assert.equal(outsideRange(null, range), false);
    assert.equal(outsideRange(Number.NaN, range), false);
  });
});
