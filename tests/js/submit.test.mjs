// submit.js: the pilot's check, the POST, and what each answer of the server leads to, with a
// scripted fetch (tests/js/fakes.mjs) standing for the network.

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { messageText } from "../../static/js/messages.js";
import {
  outcomeMessage,
  pilotHasEnded,
  reloads,
  responseOutcome,
  sendSubmission,
  submissionRequest,
} from "../../static/js/submit.js";
import { scriptedFetch } from "./fakes.mjs";

const DEFINITION_URL = "/api/v1/public/surveys/k3J9aQ/";
const SUBMIT_URL = "/api/v1/public/surveys/k3J9aQ/responses/";
const BODY = '{"submission_id":"x","answers":{},"design_fingerprint":"f","padding":"  "}';

function send(replies, { pilot = false } = {}) {
  const network = scriptedFetch(replies);
  const sending = [];
  const outcome = sendSubmission({
    fetch: network.fetch,
    pilot,
    definitionUrl: DEFINITION_URL,
    submitUrl: SUBMIT_URL,
    body: BODY,
    language: "ko",
    onSending: () => sending.push(network.calls.length),
  });
  return outcome.then((result) => ({ outcome: result, calls: network.calls, sending }));
}

describe("the pilot's check", () => {
  it("costs nothing on a page that is not a pilot's", async () => {
    const network = scriptedFetch([]);
    const asked = { fetch: network.fetch, definitionUrl: DEFINITION_URL };
    assert.equal(await pilotHasEnded({ ...asked, pilot: false }), false);
    assert.equal(await pilotHasEnded({ ...asked, pilot: true, definitionUrl: undefined }), false);
    assert.deepEqual(network.calls, []);
  });

  it("asks for the definition again, without cookies: is it still a pilot?", async () => {
    const cases = [
      [{ status: 200, json: { pilot: true } }, false],
      [{ status: 200, json: { pilot: false } }, true],
      [{ status: 200, json: {} }, true],
      [{ status: 404, json: { detail: "Not found." } }, true],
      [{ status: 500, text: "oops" }, false],
    ];
    for (const [reply, ended] of cases) {
      const network = scriptedFetch([reply]);
      assert.equal(
        await pilotHasEnded({ fetch: network.fetch, pilot: true, definitionUrl: DEFINITION_URL }),
        ended,
        JSON.stringify(reply),
      );
      assert.deepEqual(network.calls, [
        {
          url: DEFINITION_URL,
          init: {
            headers: { Accept: "application/json" },
            credentials: "omit",
            cache: "no-store",
            redirect: "error",
          },
        },
      ]);
    }
  });
});

describe("sending", () => {
  it("posts the body as it is, in the page's language, with no cookie, cache or redirect", () => {
    assert.deepEqual(submissionRequest({ body: BODY, language: "zh-hans" }), {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json",
        "Accept-Language": "zh-hans",
      },
      body: BODY,
      credentials: "omit",
      cache: "no-store",
      redirect: "error",
    });
  });

  it("is stored on 201, the page marked busy just before the POST", async () => {
    const { outcome, calls, sending } = await send([{ status: 201, json: {} }]);
    assert.deepEqual(outcome, { kind: "stored" });
    const init = submissionRequest({ body: BODY, language: "ko" });
    assert.deepEqual(calls, [{ url: SUBMIT_URL, init }]);
    assert.deepEqual(sending, [0]);
    assert.equal(reloads(outcome), false);
    assert.equal(outcomeMessage(outcome), null);
  });

  it("checks a pilot's page first, and sends nothing once the study opened", async () => {
    const still = await send(
      [
        { status: 200, json: { pilot: true } },
        { status: 201, json: {} },
      ],
      { pilot: true },
    );
    assert.deepEqual(still.outcome, { kind: "stored" });
    assert.deepEqual(
      still.calls.map(({ url }) => url),
      [DEFINITION_URL, SUBMIT_URL],
    );
    assert.deepEqual(still.sending, [1]);

    const ended = await send([{ status: 200, json: { pilot: false } }], { pilot: true });
    assert.deepEqual(ended.outcome, { kind: "pilot_ended" });
    assert.equal(ended.calls.length, 1);
    assert.deepEqual(ended.sending, []);
    assert.equal(reloads(ended.outcome), true);
    assert.match(messageText(outcomeMessage(ended.outcome)), /^The pilot has ended/);
  });

  it("reloads on a 409 naming the design's fingerprint, and on nothing else", async () => {
    const changed = await send([
      { status: 409, json: { detail: "changed", errors: { design_fingerprint: ["stale"] } } },
    ]);
    assert.deepEqual(changed.outcome, { kind: "design_changed" });
    assert.equal(reloads(changed.outcome), true);
    assert.match(messageText(outcomeMessage(changed.outcome)), /^This survey changed/);

    const frozen = await send([
      { status: 409, json: { detail: "Already sent differently.", errors: { answers: ["x"] } } },
    ]);
    assert.deepEqual(frozen.outcome, { kind: "refused", detail: "Already sent differently." });
    assert.equal(reloads(frozen.outcome), false);
  });

  it("shows a 4xx's reason, in the server's words", async () => {
    const { outcome } = await send([{ status: 400, json: { detail: "This survey is closed." } }]);
    assert.deepEqual(outcome, { kind: "refused", detail: "This survey is closed." });
    assert.equal(
      messageText(outcomeMessage(outcome)),
      "Your answers were not accepted: This survey is closed.",
    );
  });

  it("says a server error with its status, and asks to press again", async () => {
    const cases = [
      [{ status: 500, text: "<html>" }, 500],
      [{ status: 502, text: "Bad gateway" }, 502],
      [{ status: 400, json: {} }, 400], // a 4xx without a reason says its status
      [{ status: 429, json: { detail: "" } }, 429],
      [{ status: 503, json: { detail: "maintenance" } }, 503], // 5xx reasons are not shown
    ];
    for (const [reply, status] of cases) {
      const { outcome } = await send([reply]);
      assert.deepEqual(outcome, { kind: "server_error", status }, JSON.stringify(reply));
      assert.equal(reloads(outcome), false);
    }
    assert.match(
      messageText(outcomeMessage({ kind: "server_error", status: 502 })),
      /^The server could not take your answers just now \(error 502\)\./,
    );
  });

  it("says the connection failed when the POST or the pilot's check gets no answer", async () => {
    const lost = await send([new TypeError("Failed to fetch")]);
    assert.deepEqual(lost.outcome, { kind: "network_error" });
    assert.deepEqual(lost.sending, [0]);

    const check = await send([new TypeError("Failed to fetch")], { pilot: true });
    assert.deepEqual(check.outcome, { kind: "network_error" });
    assert.equal(check.calls.length, 1);
    assert.deepEqual(check.sending, [], "nothing was posted");
    assert.match(
      messageText(outcomeMessage(check.outcome)),
      /^Your answers could not be sent because the connection failed\./,
    );
  });

  it("reads an unreadable or empty answer as a server error", async () => {
    assert.deepEqual(await responseOutcome(new Response("not json", { status: 400 })), {
      kind: "server_error",
      status: 400,
    });
    assert.deepEqual(await responseOutcome(new Response("null", { status: 409 })), {
      kind: "server_error",
      status: 409,
    });
    assert.deepEqual(
      await responseOutcome(new Response('{"detail":"x","errors":null}', { status: 409 })),
      { kind: "refused", detail: "x" },
    );
  });

  it("has a message for every outcome, and refuses one it does not know", () => {
    for (const kind of ["pilot_ended", "design_changed", "network_error"]) {
      assert.ok(messageText(outcomeMessage({ kind })));
    }
    assert.throws(() => outcomeMessage({ kind: "teapot" }), RangeError);
  });
});
