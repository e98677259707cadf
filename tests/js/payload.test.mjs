// payload.js: what one attempt sends. One body per survey length whatever was answered, only
// the questions answered, the memo's secrets for every question, the design's fingerprint.

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { byteLength } from "../../static/js/body.js";
import { memoReports } from "../../static/js/coins.js";
import { PREFER_NOT_TO_SAY } from "../../static/js/constants.js";
import { givenAnswers, prepareSubmission, submissionPayload } from "../../static/js/payload.js";
import { groupingQuestions, surveyQuestions } from "../../static/js/questions.js";
import { FINGERPRINT, definition } from "./definition.mjs";
import { seededSource } from "./fakes.mjs";

const { survey } = definition();
const questions = surveyQuestions(survey);
const grouping = groupingQuestions(survey);

function attempt({ truths, groups = {}, memo = null, seed = 7, on = survey } = {}) {
  return prepareSubmission({
    survey: on,
    questions: surveyQuestions(on),
    truths,
    groups,
    memo,
    randomSource: seededSource(seed),
  });
}

describe("the payload", () => {
  it("names exactly the submission id, the answers and the design's fingerprint", () => {
    const payload = submissionPayload({
      submissionId: "id",
      answers: { 1: true },
      fingerprint: FINGERPRINT,
    });
    assert.deepEqual(payload, {
      submission_id: "id",
      answers: { 1: true },
      design_fingerprint: FINGERPRINT,
    });
    const grouped = submissionPayload({
      submissionId: "id",
      answers: {},
      fingerprint: FINGERPRINT,
      groups: {},
    });
    assert.deepEqual(Object.keys(grouped), [
      "submission_id",
      "answers",
      "design_fingerprint",
      "groups",
    ]);
  });

  it("takes only the questions answered, false and option 0 included", () => {
    const entries = [
      { question: questions[0], answer: false },
      { question: questions[1], answer: null },
      { question: questions[2], answer: 0 },
      { question: questions[3], answer: null },
      { question: grouping[0], answer: PREFER_NOT_TO_SAY },
    ];
    assert.deepEqual(givenAnswers(entries), {
      truths: { 11: false, 13: 0 },
      groups: { 7: PREFER_NOT_TO_SAY },
    });
    assert.deepEqual(givenAnswers(entries.slice(0, 4)), {
      truths: { 11: false, 13: 0 },
      groups: {},
    });
  });
});

describe("one attempt", () => {
  it("sends the memo's reports for the answers, under the memo's id and the fingerprint", () => {
    const truths = { 11: true, 12: false, 13: 1, 14: 3 };
    const sent = attempt({ truths, groups: { 7: "71" } });
    const randomizers = Object.fromEntries(questions.map((q) => [q.id, q.randomizer]));
    const randomSource = seededSource(7);
    const expected = memoReports({ randomizers, truths, memo: null, randomSource });
    assert.deepEqual(sent.answers, expected.answers);
    assert.deepEqual(sent.memo, expected.memo);
    const { padding, ...body } = JSON.parse(sent.body);
    assert.deepEqual(body, {
      submission_id: expected.memo.submissionId,
      answers: expected.answers,
      design_fingerprint: FINGERPRINT,
      groups: { 7: "71" },
      order: [11, 12, 13, 14],
    });
    assert.match(padding, /^ *$/);
    assert.equal(sent.replayed, false);
  });

  it("sends the order the page showed the questions in, and keeps the body's length", () => {
    const shown = { ...survey, questions: [...survey.questions].reverse() };
    const sent = attempt({ truths: { 11: true, 13: 1 }, on: shown });
    const body = JSON.parse(sent.body);
    assert.deepEqual(body.order, [14, 13, 12, 11]);
    // The answers stay in id order: only `order` says where each question was.
    assert.deepEqual(Object.keys(body.answers), Object.keys(body.answers).sort());
    assert.equal(byteLength(sent.body), survey.submission_length);
  });

  it("has one length for every body of the survey, whatever was answered or skipped", () => {
    const cases = [
      { truths: { 11: true, 12: true, 13: 0, 14: 0 }, groups: { 7: "70" } },
      { truths: { 11: false, 12: false, 13: 2, 14: 5 }, groups: { 7: PREFER_NOT_TO_SAY } },
      { truths: { 11: false, 13: 1 } },
      { truths: { 11: true, 13: 2, 14: 5 }, groups: {} },
    ];
    const lengths = new Set();
    for (const [index, sent] of cases.entries()) {
      for (const seed of [1, 2, 3, 4, 5]) {
        lengths.add(byteLength(attempt({ ...sent, seed: seed * 10 + index }).body));
      }
    }
    assert.deepEqual([...lengths], [survey.submission_length]);
  });

  it("leaves a skipped question out of the body but draws its secret all the same", () => {
    const skipped = attempt({ truths: { 11: true, 13: 1 } });
    const answered = attempt({ truths: { 11: true, 12: true, 13: 1, 14: 2 } });
    assert.deepEqual(Object.keys(JSON.parse(skipped.body).answers), ["11", "13"]);
    assert.deepEqual(skipped.memo, answered.memo);
  });

  it("sends no groups on a survey without grouping questions", () => {
    const plain = { ...survey, grouping_questions: [] };
    const sent = attempt({ truths: { 11: true, 13: 0 }, groups: {}, on: plain });
    assert.equal(Object.hasOwn(JSON.parse(sent.body), "groups"), false);
    assert.equal(byteLength(sent.body), survey.submission_length);
    const older = { ...survey, grouping_questions: undefined };
    const olderBody = JSON.parse(attempt({ truths: {}, on: older }).body);
    assert.equal(Object.hasOwn(olderBody, "groups"), false);
  });

  it("replays a sent memo: the same id and the same report for the same answer", () => {
    const first = attempt({ truths: { 11: true, 13: 2 }, seed: 3 });
    const memo = { ...first.memo, sent: true };
    const retake = attempt({ truths: { 11: true, 13: 2 }, memo, seed: 99 });
    assert.equal(retake.replayed, true);
    assert.equal(retake.body, first.body);
  });
});
