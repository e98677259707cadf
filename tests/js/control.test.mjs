// A direct-questioning control group (issue 27 item 2): the browser assigns itself once, with
// exactly the published probability, keeps the assignment, and sends a compared question's
// report as a code: 2/3 the answer as given in the control group, 0/1 the randomized report
// (which follows its design) otherwise.

import assert from "node:assert/strict";
import { webcrypto } from "node:crypto";
import { describe, it } from "node:test";

import { parseMemo } from "../../static/js/coins.js";
import {
  ARM_KEY,
  DIRECT,
  RANDOMIZED,
  armedQuestions,
  assignArm,
  controlShare,
  drawArm,
  memoArm,
  withArmSecret,
} from "../../static/js/control.js";
import { surveyMemory } from "../../static/js/memory.js";
import { prepareSubmission } from "../../static/js/payload.js";
import { sentItems, surveyQuestions } from "../../static/js/questions.js";
import { definition } from "./definition.mjs";
import { mapStorage, scriptedSource, seededSource } from "./fakes.mjs";

const { survey } = definition({
  control_share: "0.25",
  submission_length: 600,
  questions: [
    { id: 11, text: "Have you cheated?", type: "yes_no", required: true, compare_direct: true },
    {
      id: 12,
      text: "Have you lied?",
      type: "yes_no",
      required: true,
      design: { kind: "warner", p: 0.75 },
      compare_direct: true,
    },
    { id: 13, text: "Other?", type: "yes_no", required: true },
  ],
});

// |count - n p| <= 4.5 sd: a binomial test that a right sampler fails with chance below 1e-5.
function assertBinomial(count, n, p) {
  const sd = Math.sqrt(n * p * (1 - p));
  assert.ok(Math.abs(count - n * p) <= 4.5 * sd, `${count} of ${n}, expected ${n * p} ± ${4.5 * sd}`);
}

describe("the assignment", () => {
  it("follows its published probability with the browser's crypto source", () => {
    const n = 40000;
    let direct = 0;
    for (let i = 0; i < n; i += 1) direct += drawArm("0.25", webcrypto) === DIRECT;
    assertBinomial(direct, n, 0.25);
  });

  it("is exact: a uniform draw below the share's denominator, rejection above the last multiple", () => {
    // "0.3" is 3/10: a 32-bit word v below floor(2^32 / 10) * 10 decides by v % 10 < 3.
    assert.equal(drawArm("0.3", scriptedSource([2])), DIRECT);
    assert.equal(drawArm("0.3", scriptedSource([3])), RANDOMIZED);
    assert.equal(drawArm("0.3", scriptedSource([4294967282])), DIRECT); // % 10 = 2
    assert.equal(drawArm("0.3", scriptedSource([4294967289])), RANDOMIZED); // % 10 = 9
    // 4294967290 and above are past the last multiple of 10: rejected, the next word decides.
    assert.equal(drawArm("0.3", scriptedSource([4294967290, 1])), DIRECT);
    assert.equal(drawArm("0.3", scriptedSource([4294967295, 9])), RANDOMIZED);
  });

  it("derived from the memo's own secret, follows its published probability too", () => {
    // The version is the secret's HMAC stream read by the same exact sampler: over many
    // fresh secrets (crypto), the control group's share is the published one.
    const n = 20000;
    let direct = 0;
    for (let i = 0; i < n; i += 1) {
      direct += memoArm(withArmSecret(null, webcrypto), "0.25") === DIRECT;
    }
    assertBinomial(direct, n, 0.25);
  });

  it("is drawn once and kept: a reload reads it back from the memo", () => {
    const storage = mapStorage();
    const open = () =>
      surveyMemory({ storage, slug: survey.slug, fingerprint: survey.design_fingerprint, sharedDevice: false });
    const first = assignArm({ survey, memory: open(), randomSource: seededSource(7) });
    const again = open();
    // An empty source: drawing again would throw.
    assert.equal(assignArm({ survey, memory: again, randomSource: scriptedSource([]) }), first);
    assert.equal(memoArm(again.memo, "0.25"), first);
    assert.ok(ARM_KEY in again.memo.secrets);
  });

  it("is kept through a submission's memo and parses back", () => {
    for (const seed of [3, 4, 5, 6, 7, 8]) {
      const memo = withArmSecret(null, seededSource(seed));
      const arm = memoArm(memo, "0.25");
      const questions = armedQuestions(surveyQuestions(survey), survey, arm);
      const attempt = prepareSubmission({
        survey,
        questions,
        truths: { 11: true, 12: false, 13: true },
        groups: {},
        memo,
        randomSource: seededSource(4),
      });
      assert.equal(memoArm(parseMemo(JSON.stringify(attempt.memo)), "0.25"), arm);
      assert.equal(attempt.memo.secrets[ARM_KEY], memo.secrets[ARM_KEY]);
    }
  });

  it("draws nothing without a control group", () => {
    const none = [
      { ...survey, control_share: "0.0" },
      { ...survey, control_share: undefined },
      { ...survey, questions: survey.questions.map(({ compare_direct, ...q }) => q) },
    ];
    for (const other of none) {
      assert.equal(controlShare(other), null);
      const memory = { memo: null, update: () => assert.fail("nothing to keep") };
      assert.equal(assignArm({ survey: other, memory, randomSource: scriptedSource([]) }), RANDOMIZED);
    }
  });
});

function send(arm, truths, seed) {
  const questions = armedQuestions(surveyQuestions(survey), survey, arm);
  const attempt = prepareSubmission({
    survey,
    questions,
    truths,
    groups: {},
    memo: null,
    randomSource: typeof seed === "number" ? seededSource(seed) : seed,
  });
  return { questions, attempt, body: JSON.parse(attempt.body) };
}

describe("what a compared question sends", () => {
  it("in the control group: its answer as given, as code 2 or 3, and the page says so", () => {
    const { questions, attempt, body } = send(DIRECT, { 11: true, 12: false, 13: true }, 5);
    assert.equal(body.answers[11], 3);
    assert.equal(body.answers[12], 2);
    assert.equal(typeof body.answers[13], "boolean"); // not compared: as ever
    // Nothing about a direct answer enters the memo; the uncompared question's secret does.
    assert.deepEqual(Object.keys(attempt.memo.secrets), ["13"]);
    const items = sentItems({ questions, groupingQuestions: [], answers: attempt.answers, groups: {} });
    assert.equal(items[0].message.key, "asGiven");
    assert.equal(items[1].message.key, "asGiven");
    assert.notEqual(items[2].message.key, "asGiven");
  });

  it("with coins: a randomized code 0 or 1 that follows its design", () => {
    // Classic coins: P(1 | yes) = 3/4; Warner p = 0.75: P(1 | no) = 1/4. Fresh memo each time.
    // One seeded stream for every attempt (nearby xorshift seeds start alike).
    const n = 4000;
    const stream = seededSource(2027);
    let yes11 = 0;
    let yes12 = 0;
    for (let i = 0; i < n; i += 1) {
      const { body } = send(RANDOMIZED, { 11: true, 12: false, 13: false }, stream);
      assert.ok([0, 1].includes(body.answers[11]) && [0, 1].includes(body.answers[12]));
      yes11 += body.answers[11];
      yes12 += body.answers[12];
    }
    assertBinomial(yes11, n, 0.75);
    assertBinomial(yes12, n, 0.25);
  });

  it("keeps the body's one length in both versions", () => {
    for (const arm of [DIRECT, RANDOMIZED]) {
      const { attempt } = send(arm, { 11: false, 12: true, 13: false }, 9);
      assert.equal(new TextEncoder().encode(attempt.body).length, survey.submission_length);
    }
  });
});
