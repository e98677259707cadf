// Direct questions on the respondent page (issue 27 item 1): the answer is sent as given,
// a text answer padded and encoded so that every body keeps the survey's one length, and
// nothing about a direct answer enters the memo.

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { directReport, encodeTextAnswer, utf8Length } from "../../static/js/direct.js";
import { prepareSubmission } from "../../static/js/payload.js";
import {
  answerProblem,
  fieldMessage,
  sentItems,
  surveyQuestions,
  trueAnswer,
} from "../../static/js/questions.js";
import { definition } from "./definition.mjs";
import { seededSource } from "./fakes.mjs";

const MAX_BYTES = 300;
// The server's limits.DIRECT_TEXT_WIRE_LENGTH: base64url of 300 bytes.
const WIRE_LENGTH = 400;

const { survey } = definition({
  submission_length: 1200,
  questions: [
    { id: 11, text: "Have you cheated?", type: "yes_no", required: true },
    { id: 21, text: "Do you manage people?", type: "yes_no", required: true, direct: true },
    {
      id: 22,
      text: "Department?",
      type: "choice",
      required: true,
      direct: true,
      options: ["A", "B", "C"],
    },
    { id: 23, text: "Years?", type: "numeric", required: false, direct: true, min: 0, max: 40 },
    { id: 24, text: "Anything else?", type: "text", required: false, direct: true, max_bytes: 300 },
  ],
});
const questions = surveyQuestions(survey);

function decode(wire) {
  const bytes = Buffer.from(wire, "base64url");
  const end = bytes.indexOf(0);
  return new TextDecoder().decode(end === -1 ? bytes : bytes.subarray(0, end));
}

describe("text answers on the wire", () => {
  it("have one length in every script and decode to what was written", () => {
    for (const text of ["", "No.", "직장 내 괴롭힘은 없었다", '说 "quoted" \\ back', "가".repeat(100)]) {
      const wire = encodeTextAnswer(text, MAX_BYTES);
      assert.equal(wire.length, WIRE_LENGTH);
      assert.match(wire, /^[A-Za-z0-9_-]+$/);
      assert.equal(decode(wire), text);
    }
  });

  it("count bytes of UTF-8, not characters, against the limit", () => {
    assert.equal(utf8Length("가"), 3);
    assert.throws(() => encodeTextAnswer("가".repeat(101), MAX_BYTES), RangeError);
    const text = questions[4];
    assert.equal(answerProblem(text, "가".repeat(101)), "too_long");
    assert.equal(answerProblem(text, "가".repeat(100)), null);
    assert.deepEqual(fieldMessage(text, "too_long"), { key: "tooLong", values: { max: 300 } });
  });

  it("an empty text is no answer", () => {
    assert.equal(trueAnswer(questions[4], { text: "" }), null);
    assert.equal(trueAnswer(questions[4], { text: " hi " }), " hi ");
  });
});

describe("a submission with direct questions", () => {
  const truths = { 11: true, 21: false, 22: 2, 23: 17, 24: "직장 내 괴롭힘은 없었다" };

  it("sends each direct answer as given and randomizes only the others", () => {
    const attempt = prepareSubmission({
      survey,
      questions,
      truths,
      groups: {},
      memo: null,
      randomSource: seededSource(3),
    });
    const body = JSON.parse(attempt.body);
    assert.equal(body.answers[21], false);
    assert.equal(body.answers[22], 2);
    assert.equal(body.answers[23], 17);
    assert.equal(decode(body.answers[24]), truths[24]);
    assert.equal(typeof body.answers[11], "boolean");
    // The memo holds a secret for the randomized question only.
    assert.deepEqual(Object.keys(attempt.memo.secrets), ["11"]);
    assert.equal(new TextEncoder().encode(attempt.body).length, survey.submission_length);
    // The thank-you says the direct answers went as given.
    const items = sentItems({ questions, groupingQuestions: [], answers: attempt.answers, groups: {} });
    assert.deepEqual(items[1].message, { key: "asGiven", values: { label: { key: "no" } } });
    assert.deepEqual(items[4].message, {
      key: "asGiven",
      values: { label: { text: truths[24] } },
    });
  });

  it("keeps the body's one length whatever is written or skipped", () => {
    const lengths = new Set();
    for (const text of [undefined, "", "a", "가".repeat(100)]) {
      const given = { ...truths };
      if (text === undefined) delete given[24];
      else given[24] = text;
      if (text === "") delete given[24];
      const attempt = prepareSubmission({
        survey,
        questions,
        truths: given,
        groups: {},
        memo: null,
        randomSource: seededSource(5),
      });
      lengths.add(new TextEncoder().encode(attempt.body).length);
    }
    assert.deepEqual([...lengths], [survey.submission_length]);
  });

  it("directReport leaves yes/no, choice and numeric answers as they are", () => {
    assert.equal(directReport(questions[1], true), true);
    assert.equal(directReport(questions[2], 0), 0);
    assert.equal(directReport(questions[3], -3), -3);
  });
});
