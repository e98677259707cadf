// The cheating-detection designs in the browser (static/js/cheating.js) against dpengine's
// (tests/vectors/constants.json, "cheating": tools/constants.py): the same kinds, the exact
// distribution of the code 2 × (group − 1) + bit for each true answer, the same refusals,
// and the group assignment's frequency over many seeded draws of a non-dyadic design.

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import {
  assignGroup,
  cheatingRandomizer,
  cheatingReport,
  decodeCheatingReport,
  randomizeInGroup,
} from "../../static/js/cheating.js";
import { memoReports } from "../../static/js/coins.js";
import { CHEATING_CODES, CHEATING_KINDS } from "../../static/js/constants.js";
import { questionRandomizer } from "../../static/js/designs.js";
import { messageText } from "../../static/js/messages.js";
import { sentItems, surveyQuestions } from "../../static/js/questions.js";
import { exactDistribution, seededSource } from "./fakes.mjs";
import { CHI2_CRITICAL_0_001, VECTORS } from "./vectors.mjs";

const CASES = VECTORS.cheating.cases;

function onTheGrid({ p, group_share: share }) {
  return [...p, share].every((value) => Number.isInteger(value * 16));
}

function codeDistribution(truth, design) {
  const outcomes = exactDistribution((source) => cheatingReport(truth, design, source), {
    gridSize: 16,
  });
  return Array.from({ length: CHEATING_CODES }, (_, code) => outcomes.get(String(code)) ?? 0);
}

describe("cheating-detection designs agree with dpengine", () => {
  it("have the same kinds and codes", () => {
    assert.deepEqual([...CHEATING_KINDS], VECTORS.cheating.kinds);
    assert.equal(CHEATING_CODES, VECTORS.cheating.codes);
  });

  it("send each code with exactly dpengine's probability, all draws enumerated", () => {
    const exact = CASES.filter((entry) => !entry.refused && onTheGrid(entry.design));
    assert.ok(exact.length >= 4);
    for (const { design, codes } of exact) {
      const label = JSON.stringify(design);
      assert.deepEqual(codeDistribution(true, design), codes.yes, label);
      assert.deepEqual(codeDistribution(false, design), codes.no, label);
    }
  });

  it("refuse the designs dpengine refuses", () => {
    const refused = CASES.filter((entry) => entry.refused);
    assert.ok(refused.length >= 3);
    for (const { design } of refused) {
      assert.throws(() => cheatingReport(false, design, seededSource(1)), RangeError);
      assert.throws(() => cheatingRandomizer(design), RangeError);
    }
  });

  it("assign the groups with the published share (binomial test, 200000 seeded draws)", () => {
    // p = (0.3, 0.7), share 0.4: not dyadic, so no grid enumerates it; a two-sided z-test at
    // |z| < 4.42 (p = 1e-5) fails a share off by 0.005 with near certainty.
    const { design } = CASES.find(
      (entry) => !entry.refused && entry.design.group_share === 0.4,
    );
    const source = seededSource(2027);
    const draws = 200000;
    let groupOne = 0;
    for (let i = 0; i < draws; i += 1) {
      groupOne += assignGroup(design, source) === 1 ? 1 : 0;
    }
    const z = (groupOne - draws * 0.4) / Math.sqrt(draws * 0.4 * 0.6);
    assert.ok(Math.abs(z) < 4.42, `group 1: ${groupOne} of ${draws}, z = ${z}`);
  });

  it("send the four codes of a true no with dpengine's probabilities (chi-square, 3 df)", () => {
    const { design, codes } = CASES.find(
      (entry) => !entry.refused && entry.design.group_share === 0.4,
    );
    const source = seededSource(27);
    const draws = 100000;
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < draws; i += 1) {
      counts[cheatingReport(false, design, source)] += 1;
    }
    const chi2 = counts.reduce(
      (sum, count, code) => sum + (count - draws * codes.no[code]) ** 2 / (draws * codes.no[code]),
      0,
    );
    assert.ok(chi2 < CHI2_CRITICAL_0_001["3"], `chi2 = ${chi2}, counts ${counts}`);
  });
});

describe("a cheating-detection question on the page", () => {
  const cdm = { kind: "cdm", p: [0.25, 0.75], group_share: 0.5 };

  it("always reports a true yes as yes, in either group", () => {
    for (const group of [1, 2]) {
      for (let seed = 1; seed < 50; seed += 1) {
        assert.equal(randomizeInGroup(true, group, cdm, seededSource(seed)), true);
      }
    }
  });

  it("decodes a code into its group and answer, and refuses anything else", () => {
    assert.deepEqual(decodeCheatingReport(0), { group: 1, yes: false });
    assert.deepEqual(decodeCheatingReport(3), { group: 2, yes: true });
    for (const bad of [-1, 4, 1.5, true, "1"]) {
      assert.throws(() => decodeCheatingReport(bad), RangeError);
    }
  });

  it("derives both codes from the question's secret: a true yes always reports yes", () => {
    const randomizer = questionRandomizer({ id: 7, type: "yes_no", design: cdm }, {});
    assert.equal(randomizer.size, 2);
    assert.throws(() => randomizer.indexOf(1), TypeError);
    for (let seed = 1; seed <= 40; seed += 1) {
      const source = seededSource(seed);
      const first = memoReports({
        randomizers: { 7: randomizer },
        truths: { 7: true },
        memo: null,
        randomSource: source,
      });
      const code = first.answers[7];
      assert.ok(Number.isSafeInteger(code) && code >= 0 && code < 4 && code % 2 === 1, code);
      // The memo's secret fixes the code of either answer: asked again, the same code.
      const again = memoReports({
        randomizers: { 7: randomizer },
        truths: { 7: true },
        memo: first.memo,
        randomSource: source,
      });
      assert.equal(again.answers[7], code);
      const no = memoReports({
        randomizers: { 7: randomizer },
        truths: { 7: false },
        memo: first.memo,
        randomSource: source,
      });
      assert.ok(no.answers[7] >= 0 && no.answers[7] < 4);
    }
  });

  it("shows what was sent as the group and its answer", () => {
    const questions = surveyQuestions({
      p_truth: 0.5,
      p_forced_yes: 0.5,
      questions: [{ id: 3, text: "Cheated?", type: "yes_no", design: cdm }],
    });
    const [item] = sentItems({ questions, groupingQuestions: [], answers: { 3: 2 }, groups: {} });
    assert.equal(messageText(item.message), "Group 2: No");
  });
});
