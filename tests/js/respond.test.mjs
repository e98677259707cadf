// The respondent page's steps as static/js/respond.js calls them (the page only reads its
// inputs into these calls and writes their results back): a person's attempts with a
// fake random source, a fake storage and a scripted network. Each module has its own tests
// (questions, payload, submit, memory); these follow one person, or several, from page load
// to the server's answer. tests/e2e/ drives the real page in Chromium.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";

import { byteLength } from "../../static/js/body.js";
import { memoKey, surveyMemory } from "../../static/js/memory.js";
import {
  answerProblems,
  groupingQuestions,
  surveyQuestions,
  trueAnswer,
} from "../../static/js/questions.js";
import { reloads, sendAnswers } from "../../static/js/submit.js";
import { FINGERPRINT, definition } from "./definition.mjs";
import { mapStorage, scriptedFetch, seededSource } from "./fakes.mjs";

/**
 * One page load: the page's memory of the survey, and `press(inputs, replies, seed)`, the
 * send button with `inputs` ({question id: what its inputs hold}) and the server's `replies`.
 */
function loadPage(page, storage) {
  const { survey } = page;
  const memory = surveyMemory({
    storage,
    slug: survey.slug,
    fingerprint: survey.design_fingerprint,
    sharedDevice: survey.shared_devices === true,
  });
  const questions = surveyQuestions(survey);
  const all = [...questions, ...groupingQuestions(survey)];
  async function press(inputs, replies, seed) {
    const read = all.map((question) => ({
      question,
      answer: trueAnswer(question, inputs[question.id] ?? {}),
    }));
    const problems = answerProblems(read);
    if (problems.length > 0) {
      return { problems };
    }
    const network = scriptedFetch(replies);
    const { attempt, outcome } = await sendAnswers({
      page,
      questions,
      entries: read,
      memory,
      randomSource: seededSource(seed),
      fetch: network.fetch,
      language: "en",
    });
    const posted = network.calls.filter(({ init }) => init.method === "POST");
    return { attempt, outcome, posted: posted.map(({ init }) => init.body) };
  }
  return { memory, press };
}

const INPUTS = {
  11: { checked: "yes" },
  12: { checked: "no" },
  13: { checked: "2" },
  14: { text: "4" },
  7: { checked: "70" },
};
const CREATED = { status: 201, json: {} };

describe("a person answering on a personal device", () => {
  it("retries a lost send with the same body; a retake replays it under the same id", async () => {
    const storage = mapStorage();
    const page = loadPage(definition(), storage);
    const lost = await page.press(INPUTS, [new TypeError("Failed to fetch")], 1);
    assert.equal(lost.outcome.kind, "network_error");
    assert.equal(page.memory.alreadySent, false);
    const retry = await page.press(INPUTS, [CREATED], 2);
    assert.equal(retry.outcome.kind, "stored");
    assert.equal(retry.attempt.body, lost.attempt.body, "the same draws, the same id");
    assert.deepEqual(retry.posted, [lost.attempt.body]);

    const later = loadPage(definition(), storage);
    assert.equal(later.memory.alreadySent, true);
    const retake = await later.press(INPUTS, [CREATED], 3);
    assert.equal(retake.attempt.replayed, true);
    assert.equal(retake.attempt.body, lost.attempt.body);
    assert.deepEqual([...storage.map.keys()], [memoKey("k3J9aQ", FINGERPRINT)]);
  });

  it("keeps the memo before the answers leave, so a reload meanwhile reuses it", async () => {
    const storage = mapStorage();
    const page = definition();
    const memory = surveyMemory({
      storage,
      slug: page.survey.slug,
      fingerprint: FINGERPRINT,
      sharedDevice: false,
    });
    const questions = surveyQuestions(page.survey);
    const network = scriptedFetch([CREATED]);
    const keptWhenPosted = [];
    const fetch = (url, init) => {
      keptWhenPosted.push(storage.getItem(memoKey(page.survey.slug, FINGERPRINT)));
      return network.fetch(url, init);
    };
    const entries = questions.map((question) => ({
      question,
      answer: trueAnswer(question, INPUTS[question.id]),
    }));
    const { attempt } = await sendAnswers({
      page,
      questions,
      entries,
      memory,
      randomSource: seededSource(12),
      fetch,
      language: "en",
    });
    assert.deepEqual(JSON.parse(keptWhenPosted[0]), attempt.memo);
    assert.equal(attempt.memo.sent, false);
    assert.equal(memory.memo.sent, true);
  });

  it("sends nothing while a required answer is missing or a number is outside", async () => {
    const page = loadPage(definition(), mapStorage());
    const { 11: _yesNo, ...without } = INPUTS;
    const missing = await page.press(without, [], 1);
    assert.deepEqual(
      missing.problems.map(({ question, problem }) => [question.id, problem]),
      [["11", "unanswered"]],
    );
    const outside = await page.press({ ...INPUTS, 14: { text: "45" } }, [], 1);
    assert.deepEqual(
      outside.problems.map(({ question, problem }) => [question.id, problem]),
      [["14", "out_of_range"]],
    );
    assert.equal(page.memory.memo, null, "nothing drawn");
  });

  it("skips optional questions without a trace in the body's keys or length", async () => {
    const page = loadPage(definition(), mapStorage());
    const { 12: _warner, 14: _number, 7: _age, ...required } = INPUTS;
    const sent = await page.press(required, [CREATED], 4);
    const body = JSON.parse(sent.posted[0]);
    assert.deepEqual(Object.keys(body.answers), ["11", "13"]);
    assert.deepEqual(body.groups, {});
    assert.equal(byteLength(sent.posted[0]), definition().survey.submission_length);
  });
});

describe("several people on a shared device", () => {
  it("draw their own submission ids and coins, and leave nothing behind", async () => {
    const storage = mapStorage();
    const shared = definition({ shared_devices: true });
    const bodies = [];
    for (const seed of [5, 6]) {
      const page = loadPage(shared, storage);
      assert.equal(page.memory.alreadySent, false);
      const sent = await page.press(INPUTS, [CREATED], seed);
      assert.equal(sent.attempt.replayed, false);
      assert.equal(page.memory.memo, null);
      bodies.push(JSON.parse(sent.posted[0]));
    }
    assert.notEqual(bodies[0].submission_id, bodies[1].submission_id);
    assert.equal(storage.map.size, 0);
  });
});

describe("a design that changed under the page", () => {
  it("reloads on a 409, and the reloaded page starts afresh under the new design", async () => {
    const storage = mapStorage();
    const stale = loadPage(definition(), storage);
    const stalePrint = { status: 409, json: { errors: { design_fingerprint: ["stale"] } } };
    const refused = await stale.press(INPUTS, [stalePrint], 7);
    assert.equal(refused.outcome.kind, "design_changed");
    assert.equal(reloads(refused.outcome), true);
    const fresh = loadPage(definition({ design_fingerprint: "e".repeat(32) }), storage);
    assert.equal(fresh.memory.memo, null);
    assert.deepEqual([...storage.map.keys()], []);
    const sent = await fresh.press(INPUTS, [CREATED], 8);
    assert.notEqual(JSON.parse(sent.posted[0]).submission_id, refused.attempt.memo.submissionId);
  });

  it("sends nothing from a pilot's page once the study opened, then starts afresh", async () => {
    const storage = mapStorage();
    const pilot = definition({ pilot: true, design_fingerprint: "a".repeat(32) });
    const pilotPage = loadPage(pilot, storage);
    const ended = await pilotPage.press(INPUTS, [{ status: 200, json: { pilot: false } }], 9);
    assert.equal(ended.outcome.kind, "pilot_ended");
    assert.deepEqual(ended.posted, []);
    const study = loadPage(definition(), storage);
    assert.equal(study.memory.memo, null);
    const sent = await study.press(INPUTS, [CREATED], 10);
    assert.notEqual(JSON.parse(sent.posted[0]).submission_id, ended.attempt.memo.submissionId);
  });
});

describe("the page's own script", () => {
  it("builds no body, keeps nothing and sets no request option itself", () => {
    // One place each: payload.js builds the body, memory.js keeps the memo, submit.js makes
    // the requests, messages.js holds the strings. respond.js only wires the page to them.
    const source = readFileSync(new URL("../../static/js/respond.js", import.meta.url), "utf8");
    const code = source.replace(/\/\/.*|\/\*[\s\S]*?\*\//g, "");
    for (const owned of [
      "JSON.stringify",
      "submission_id",
      "padding",
      "setItem",
      "credentials",
      "gettext",
      "memoReports",
    ]) {
      assert.ok(!code.includes(owned), owned);
    }
  });
});
