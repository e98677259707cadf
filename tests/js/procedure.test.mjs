// The respondent procedure (static/js/procedure.js): the instruction drawn without the truth,
// with the design's exact probabilities for a respondent who follows it; the answer pressed as
// the report; the instruction fixed by the memo secret, the same whatever is pressed.

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { cheatingReport } from "../../static/js/cheating.js";
import { memoOutcome, memoReports, newSecret } from "../../static/js/coins.js";
import {
  comprehensionQuestions,
  practiceFeedback,
  practiceRounds,
  practiceScenario,
  scenarioMessage,
} from "../../static/js/comprehension.js";
import { designProbabilities, questionRandomizer } from "../../static/js/designs.js";
import { messageText } from "../../static/js/messages.js";
import {
  RESPONDENT_KINDS,
  compliantAnswer,
  drawOutcome,
  instructionMessage,
  pressedReport,
  respondentRandomizer,
} from "../../static/js/procedure.js";
import { INSTRUCTIONS, YES_NO_KINDS } from "../../static/js/constants.js";
import { exactDistribution, scriptedSource, seededSource, TWO_POW_32 } from "./fakes.mjs";
import { VECTORS } from "./vectors.mjs";

// Dyadic parameters, so exactDistribution enumerates every draw exactly (grid of 16).
const YES_NO = {
  forced_response: { kind: "forced_response", p_truth: 0.5, p_forced_yes: 0.25 },
  warner: { kind: "warner", p: 0.75 },
  unrelated_question: { kind: "unrelated_question", p: 0.625, pi: 0.25 },
  kuk: { kind: "kuk", theta1: 0.75, theta2: 0.25 },
  mangat: { kind: "mangat", p: 0.75, t: 0.5 },
};
const CHEATING = {
  cdm: { kind: "cdm", p: [0.25, 0.75], group_share: 0.5 },
  sld: { kind: "sld", p: [0.25, 0.75], group_share: 0.625 },
};
const HALF = TWO_POW_32 / 2; // a chunk at 2^31 is "tails" for a probability of one half

describe("the instruction", () => {
  it("is drawn before any answer: forced response's coins, chunk by chunk", () => {
    const design = YES_NO.forced_response;
    assert.deepEqual(drawOutcome(design, scriptedSource([0])), {
      kind: "forced_response",
      coin: "truth",
    });
    assert.deepEqual(drawOutcome(design, scriptedSource([HALF, 0])).coin, "yes");
    assert.deepEqual(drawOutcome(design, scriptedSource([HALF, HALF])).coin, "no");
  });

  it("gives a respondent who follows it the design's P(yes | yes) and P(yes | no) exactly", () => {
    for (const design of Object.values(YES_NO)) {
      const { a, b } = designProbabilities(design);
      for (const [truth, expected] of [
        [true, a],
        [false, b],
      ]) {
        const outcomes = exactDistribution((source) =>
          compliantAnswer(drawOutcome(design, source), truth),
        );
        assert.equal(outcomes.get("true") ?? 0, expected, `${design.kind}, truth ${truth}`);
      }
    }
  });

  it("gives CDM and SLD the codes of the device's own sampler, group by group (exact)", () => {
    for (const design of Object.values(CHEATING)) {
      for (const truth of [true, false]) {
        const followed = exactDistribution((source) => {
          const outcome = drawOutcome(design, source);
          return pressedReport(outcome, compliantAnswer(outcome, truth));
        });
        const device = exactDistribution((source) => cheatingReport(truth, design, source));
        assert.deepEqual(
          Object.fromEntries([...followed].sort()),
          Object.fromEntries([...device].sort()),
          `${design.kind}, truth ${truth}`,
        );
      }
    }
  });

  it("has a message for every outcome of every design, naming the group for CDM and SLD", () => {
    // Every row of the design table at its defaults (the vectors), and CDM and SLD.
    const defaults = VECTORS.designs.defaults.map(({ design }) => design);
    const designs = [...defaults, ...Object.values(CHEATING)];
    assert.deepEqual(designs.map((design) => design.kind).sort(), [...RESPONDENT_KINDS].sort());
    for (const design of designs) {
      const outcomes = exactDistribution((source) => drawOutcome(design, source));
      for (const key of outcomes.keys()) {
        const outcome = JSON.parse(key);
        const text = messageText(instructionMessage(outcome));
        assert.ok(text.length > 10, text);
        if (outcome.group !== undefined) {
          assert.match(text, new RegExp(`group ${outcome.group}\\b`));
        }
      }
    }
    assert.equal(
      messageText(instructionMessage({ kind: "forced_response", coin: "yes" })),
      "The coin says: choose “Yes”, whatever the truth.",
    );
    assert.equal(
      messageText(instructionMessage({ kind: "sld", group: 2, truthful: false })),
      "You are in group 2. If your true answer is yes, choose “Yes”. If not, the coin says: choose “Yes”.",
    );
  });

  it("carries out every design of the table at its defaults, each outcome worded by its row", () => {
    // The design table's kinds (constants.js), so a new row is held here with no line added.
    const defaults = VECTORS.designs.defaults.map(({ design }) => design);
    assert.deepEqual(defaults.map(({ kind }) => kind).sort(), [...YES_NO_KINDS].sort());
    for (const design of defaults) {
      assert.ok(RESPONDENT_KINDS.includes(design.kind), design.kind);
      const { a, b } = designProbabilities(design);
      const worded = new Set();
      for (const [truth, expected] of [
        [true, a],
        [false, b],
      ]) {
        const pressed = exactDistribution((source) => {
          const outcome = drawOutcome(design, source);
          worded.add(instructionMessage(outcome).format);
          return compliantAnswer(outcome, truth);
        });
        // Exact on the grid of 16 for the defaults that are multiples of 1/16.
        const dyadic = Object.values(design).every((v) => typeof v !== "number" || (v * 16) % 1 === 0);
        if (dyadic) assert.equal(pressed.get("true") ?? 0, expected, `${design.kind}, ${truth}`);
      }
      // Every outcome drawn has its row's text, and every text of the row is drawn.
      const row = new Set(Object.values(INSTRUCTIONS[design.kind]));
      assert.deepEqual([...worded].sort(), [...row].sort(), design.kind);
    }
  });

  it("refuses an unknown design and a pressed answer that is not a boolean", () => {
    assert.throws(() => drawOutcome({ kind: "choice" }, seededSource(1)), RangeError);
    assert.throws(() => pressedReport({ kind: "warner", asWritten: true }, "yes"), TypeError);
    assert.throws(() => compliantAnswer({ kind: "warner", asWritten: true }, 1), TypeError);
  });
});

describe("the report", () => {
  it("is the answer pressed; for CDM and SLD with the group the instruction drew", () => {
    assert.equal(pressedReport({ kind: "warner", asWritten: false }, true), true);
    assert.equal(pressedReport({ kind: "kuk", redIfYes: true, redIfNo: true }, false), false);
    assert.equal(pressedReport({ kind: "cdm", group: 1, pressYes: true }, false), 0);
    assert.equal(pressedReport({ kind: "cdm", group: 2, pressYes: true }, true), 3);
    assert.equal(pressedReport({ kind: "sld", group: 2, truthful: true }, false), 2);
  });

  it("is sent whatever the instruction said: a cheater pressing No sends No", () => {
    const randomizer = respondentRandomizer(CHEATING.cdm);
    const source = seededSource(7);
    const memo = memoReports({ randomizers: { 5: randomizer }, truths: {}, memo: null, randomSource: source }).memo;
    const outcome = memoOutcome({ randomizer, questionId: "5", secret: memo.secrets["5"] });
    const sent = memoReports({ randomizers: { 5: randomizer }, truths: { 5: false }, memo, randomSource: source });
    assert.equal(sent.answers["5"], 2 * (outcome.group - 1));
  });

  it("is the design's randomizer for a question under the respondent procedure only", () => {
    const question = { id: 3, type: "yes_no", design: YES_NO.warner, procedure: "respondent" };
    assert.equal(questionRandomizer(question, {}).procedure, "respondent");
    assert.equal(questionRandomizer({ ...question, procedure: undefined }, {}).procedure, undefined);
    // The survey's coins when the question names no design.
    const coins = { p_truth: 0.5, p_forced_yes: 0.5 };
    const own = questionRandomizer({ id: 4, type: "yes_no", procedure: "respondent" }, coins);
    assert.equal(own.outcome(scriptedSource([0])).coin, "truth");
  });
});

describe("the memo", () => {
  const randomizer = respondentRandomizer(YES_NO.forced_response);
  const randomizers = { 1: randomizer, 2: respondentRandomizer(CHEATING.sld) };

  it("fixes one instruction per question from its secret, the same on every visit", () => {
    const secret = newSecret(seededSource(3));
    const first = memoOutcome({ randomizer, questionId: "1", secret });
    for (let visit = 0; visit < 3; visit += 1) {
      assert.deepEqual(memoOutcome({ randomizer, questionId: "1", secret }), first);
    }
  });

  it("is the same whatever is pressed, and holds nothing about the instruction but the secret", () => {
    const start = memoReports({ randomizers, truths: {}, memo: null, randomSource: seededSource(9) }).memo;
    const pressedYes = memoReports({
      randomizers,
      truths: { 1: true, 2: true },
      memo: start,
      randomSource: seededSource(10),
    });
    const pressedNo = memoReports({
      randomizers,
      truths: { 1: false, 2: false },
      memo: start,
      randomSource: seededSource(11),
    });
    assert.deepEqual(pressedYes.memo, start);
    assert.deepEqual(pressedNo.memo, start);
    assert.deepEqual(Object.keys(start).sort(), ["secrets", "sent", "submissionId"]);
    assert.equal(pressedYes.answers["1"], true);
    assert.equal(pressedNo.answers["1"], false);
  });
});

describe("the practice round under the respondent procedure", () => {
  const survey = {
    comprehension: [
      { id: 31, design: CHEATING.cdm, procedure: "respondent" },
      { id: 32, design: YES_NO.kuk },
      { id: 33, design: CHEATING.sld },
    ],
  };

  it("exists for CDM and SLD only under the respondent procedure", () => {
    const rounds = practiceRounds(survey);
    assert.deepEqual(
      rounds.map(({ id, procedure }) => [id, procedure]),
      [
        ["31", "respondent"],
        ["32", "device"],
      ],
    );
    assert.deepEqual(
      comprehensionQuestions(rounds).map(({ id }) => id),
      ["31", "32"],
    );
  });

  it("shows the instruction as the question shows it, and the right choice follows it", () => {
    for (const design of [...Object.values(YES_NO), ...Object.values(CHEATING)]) {
      const scenarios = exactDistribution((source) =>
        practiceScenario({ design, procedure: "respondent", randomSource: source }),
      );
      for (const key of scenarios.keys()) {
        const scenario = JSON.parse(key);
        assert.equal(scenario.sent, compliantAnswer(scenario.outcome, scenario.truth));
        const text = messageText(scenarioMessage(scenario));
        assert.ok(text.includes(messageText(instructionMessage(scenario.outcome))), text);
        assert.equal(practiceFeedback(scenario, scenario.sent).right, true);
        assert.equal(practiceFeedback(scenario, !scenario.sent).right, false);
      }
    }
  });
});
