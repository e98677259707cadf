// The comprehension check (static/js/comprehension.js): each round's made-up case, the
// feedback, the first try kept, and what is sent: one boolean per round tried, nothing else.

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import {
  PRACTICE_KINDS,
  comprehensionAnswers,
  comprehensionQuestions,
  practiceFeedback,
  practiceRounds,
  practiceScenario,
  recordTry,
  scenarioMessage,
} from "../../static/js/comprehension.js";
import { messageText } from "../../static/js/messages.js";
import { givenAnswers, prepareSubmission } from "../../static/js/payload.js";
import { surveyQuestions } from "../../static/js/questions.js";
import { definition } from "./definition.mjs";
import { exactDistribution, seededSource } from "./fakes.mjs";
import { VECTORS } from "./vectors.mjs";

// Each round's texts as the definition carries them: the design table's, written in
// tests/vectors/constants.json by `make constants` (the definition's are translated).
const PRACTICE = VECTORS.design_table.practice;

// Every design of the design table at its defaults (the vectors), so a new row is held here.
const DESIGNS = Object.fromEntries(
  VECTORS.designs.defaults.map(({ design }) => [design.kind, design]),
);

describe("a practice round", () => {
  it("draws its made-up answer at even odds and sends the other one (enumerated)", () => {
    for (const design of Object.values(DESIGNS)) {
      const practice = PRACTICE[design.kind];
      const outcomes = exactDistribution((source) =>
        practiceScenario({ design, practice, randomSource: source }),
      );
      assert.deepEqual(Object.fromEntries(outcomes), {
        [JSON.stringify({ kind: design.kind, practice, truth: true, sent: false })]: 0.5,
        [JSON.stringify({ kind: design.kind, practice, truth: false, sent: true })]: 0.5,
      });
    }
  });

  it("exists for every design the server practises, and for no other", () => {
    assert.deepEqual([...PRACTICE_KINDS], VECTORS.design_table.practice_kinds);
    assert.deepEqual([...PRACTICE_KINDS].sort(), Object.keys(PRACTICE).sort());
    assert.deepEqual([...PRACTICE_KINDS].sort(), Object.keys(DESIGNS).sort());
    assert.throws(
      () =>
        practiceScenario({
          design: { kind: "cdm" },
          practice: PRACTICE.warner,
          randomSource: seededSource(1),
        }),
      RangeError,
    );
  });

  it("needs the texts its definition carries", () => {
    assert.throws(
      () => practiceScenario({ design: DESIGNS.warner, randomSource: seededSource(1) }),
      TypeError,
    );
  });

  it("asks in words that name the made-up answer and what chance did", () => {
    const scenario = {
      kind: "forced_response",
      practice: PRACTICE.forced_response,
      truth: false,
      sent: true,
    };
    assert.equal(
      messageText(scenarioMessage(scenario)),
      "Suppose your true answer is “No”. Coin 1 lands tails, and coin 2 says “Yes”. What does your device send?",
    );
    assert.match(
      messageText(
        scenarioMessage({ kind: "kuk", practice: PRACTICE.kuk, truth: true, sent: false }),
      ),
      /deck for “Yes” is black/,
    );
    for (const kind of PRACTICE_KINDS) {
      for (const truth of [true, false]) {
        const shown = { kind, practice: PRACTICE[kind], truth, sent: !truth };
        assert.ok(messageText(scenarioMessage(shown)).length > 20);
        for (const choice of [true, false]) {
          const { verdict, why } = practiceFeedback(shown, choice);
          assert.ok(messageText(verdict) && messageText(why));
        }
      }
    }
  });

  it("says right or wrong, and why", () => {
    const scenario = { kind: "warner", practice: PRACTICE.warner, truth: true, sent: false };
    const right = practiceFeedback(scenario, false);
    assert.equal(right.right, true);
    assert.equal(messageText(right.verdict), "Right: your device sends “No”.");
    const wrong = practiceFeedback(scenario, true);
    assert.equal(wrong.right, false);
    assert.equal(messageText(wrong.verdict), "Not quite: your device sends “No”.");
    assert.match(messageText(wrong.why), /“Yes” becomes “No”/);
    assert.throws(() => practiceFeedback(scenario, "no"), TypeError);
  });

  it("keeps the first try: trying again after the feedback does not change it", () => {
    const scenario = {
      kind: "forced_response",
      practice: PRACTICE.forced_response,
      truth: true,
      sent: false,
    };
    let record = recordTry(undefined, scenario, true); // wrong first
    record = recordTry(record, scenario, false); // then right
    assert.deepEqual(record, { firstRight: false, tries: 2 });
    assert.deepEqual(recordTry(undefined, scenario, false), { firstRight: true, tries: 1 });
  });
});

describe("what the practice sends", () => {
  const rounds = practiceRounds({
    comprehension: [
      { id: 91, design: DESIGNS.forced_response },
      { id: 92, design: DESIGNS.warner },
      { id: 93, design: { kind: "sld", p: [0.3, 0.7] } }, // no practice round: left out
    ],
  });

  it("is one boolean per round tried, and nothing for a round not tried", () => {
    assert.deepEqual(
      rounds.map((round) => round.id),
      ["91", "92"],
    );
    const records = new Map([["91", { firstRight: false, tries: 3 }]]);
    assert.deepEqual(comprehensionAnswers(rounds, records), { 91: false });
    assert.deepEqual(comprehensionAnswers(rounds, new Map()), {});
  });

  it("enters the body as direct answers of the hidden questions, with nothing else", () => {
    const { survey } = definition();
    const real = surveyQuestions(survey);
    const hidden = comprehensionQuestions(rounds);
    const records = new Map([
      ["91", { firstRight: true, tries: 2 }],
      ["92", { firstRight: false, tries: 1 }],
    ]);
    const understood = comprehensionAnswers(rounds, records);
    const entries = [
      { question: real[0], answer: true },
      ...hidden.map((question) => ({ question, answer: understood[question.id] ?? null })),
    ];
    const attempt = prepareSubmission({
      survey,
      questions: [...real, ...hidden],
      truths: givenAnswers(entries).truths,
      groups: {},
      memo: null,
      randomSource: seededSource(3),
    });
    const body = JSON.parse(attempt.body);
    assert.deepEqual(Object.keys(body.answers), [String(real[0].id), "91", "92"]);
    assert.equal(body.answers[91], true);
    assert.equal(body.answers[92], false);
    // The hidden questions are not randomized: nothing about them enters the memo.
    assert.deepEqual(Object.keys(attempt.memo.secrets).sort(), real.map((q) => q.id).sort());
    assert.equal(Buffer.byteLength(attempt.body), survey.submission_length);
  });
});
