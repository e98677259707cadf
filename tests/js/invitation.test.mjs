import assert from "node:assert/strict";
import { describe, it } from "node:test";

import {
  base64urlDecode,
  base64urlEncode,
  bigIntToBytes,
  bytesToBigInt,
  importPublicKey,
  modPow,
  verify,
} from "../../static/js/blindrsa.js";
import { parseMemo, validToken } from "../../static/js/coins.js";
import {
  CodeState,
  FRAGMENT_NAME,
  Outcome,
  checkCode,
  forgetCode,
  invitationView,
  keepCode,
  obtainToken,
  takeCode,
} from "../../static/js/invitation.js";
import { loadMemo, storeMemo } from "../../static/js/memory.js";
import { mapStorage } from "./fakes.mjs";

const subtle = globalThis.crypto.subtle;

async function freshKey() {
  const pair = await subtle.generateKey(
    {
      name: "RSA-PSS",
      modulusLength: 2048,
      publicExponent: Uint8Array.of(1, 0, 1),
      hash: "SHA-384",
    },
    true,
    ["sign", "verify"],
  );
  const spki = base64urlEncode(new Uint8Array(await subtle.exportKey("spki", pair.publicKey)));
  const jwk = await subtle.exportKey("jwk", pair.privateKey);
  return { spki, d: bytesToBigInt(base64urlDecode(jwk.d)) };
}

/** A server that signs blinded messages with `d` under `spki`'s modulus, once per code. */
async function fakeServer({ spki, d }, codes) {
  const key = await importPublicKey(spki);
  const used = new Set();
  const requests = [];
  const fetcher = async (url, init) => {
    const body = JSON.parse(init.body);
    requests.push({ url, body, init });
    const answer = (status, json) => ({ status, json: async () => json });
    if (!codes.includes(body.code)) return answer(404, { detail: "Not found." });
    if (used.has(body.code)) return answer(409, { detail: "This invitation has been used." });
    used.add(body.code);
    const z = bytesToBigInt(base64urlDecode(body.blinded_message));
    const signature = bigIntToBytes(modPow(z, d, key.n), key.length);
    return answer(201, { blind_signature: base64urlEncode(signature) });
  };
  return { fetcher, requests, key };
}

const SCHEME = "RSABSSA-SHA384-PSS-Randomized";

describe("invitation", async () => {
  const signer = await freshKey();

  it("takes the code from the fragment and removes it from the address bar", () => {
    const calls = [];
    const location = {
      hash: `#${FRAGMENT_NAME}=abcd2345`,
      pathname: "/s/slug/",
      search: "?lang=ko",
    };
    const history = { state: null, replaceState: (...args) => calls.push(args) };
    assert.equal(takeCode(location, history), "abcd2345");
    assert.deepEqual(calls, [[{ [FRAGMENT_NAME]: "abcd2345" }, "", "/s/slug/?lang=ko"]]);
    assert.equal(takeCode({ hash: "", pathname: "/s/slug/", search: "" }, history), null);
    assert.equal(calls.length, 1);
  });

  it("keeps the code in the tab's history state until the token is obtained", () => {
    // A history whose state survives a reload, as a browser tab's does.
    const history = {
      state: { other: 1 },
      replaceState(state, _title, url) {
        this.state = state;
        this.url = url;
      },
    };
    const linked = { hash: `#${FRAGMENT_NAME}=code-1`, pathname: "/s/slug/", search: "" };
    assert.equal(takeCode(linked, history), "code-1");
    assert.equal(history.url, "/s/slug/");
    assert.deepEqual(history.state, { other: 1, [FRAGMENT_NAME]: "code-1" });
    // The reload: no fragment any more, the code is still found.
    const reloaded = { hash: "", pathname: "/s/slug/", search: "" };
    assert.equal(takeCode(reloaded, history), "code-1");
    forgetCode(history);
    assert.deepEqual(history.state, { other: 1 });
    assert.equal(takeCode(reloaded, history), null);
    keepCode(history, "typed");
    assert.equal(takeCode(reloaded, history), "typed");
    history.state = { [FRAGMENT_NAME]: "typed" };
    forgetCode(history);
    assert.equal(history.state, null);
    // A new link wins over a kept code.
    keepCode(history, "old");
    assert.equal(takeCode({ ...linked, hash: `#${FRAGMENT_NAME}=new` }, history), "new");
  });

  it("asks what a code can do without using it, and reads any other answer as failed", async () => {
    const requests = [];
    const replying = (status, json) => async (url, init) => {
      requests.push({ url, init });
      if (json instanceof Error) throw json;
      return { status, json: async () => json };
    };
    const ask = (fetcher) => checkCode({ statusUrl: "/status/", code: "code-1", fetcher });
    for (const state of ["unused", "issued", "revoked", "invalid"]) {
      assert.equal(await ask(replying(200, { status: state })), state);
    }
    assert.equal(await ask(replying(200, { status: "answered" })), CodeState.FAILED);
    assert.equal(await ask(replying(429, { detail: "slow down" })), CodeState.FAILED);
    assert.equal(await ask(replying(404, {})), CodeState.FAILED);
    assert.equal(await ask(replying(0, new TypeError("offline"))), CodeState.FAILED);
    const [{ url, init }] = requests;
    assert.equal(url, "/status/"); // the code is never in an address
    assert.equal(init.method, "POST");
    assert.deepEqual(JSON.parse(init.body), { code: "code-1" });
    assert.equal(init.credentials, "omit");
    assert.equal(init.cache, "no-store");
  });

  it("says what the page shows before any question, for each state of code and browser", () => {
    const view = (fields) =>
      invitationView({ access: "invitation", token: null, sent: false, state: null, ...fields });
    const token = { message: "AAAA", signature: "BBBB" };
    // This browser holds the token: it goes on, or (once sent) is thanked and offered no Send.
    assert.deepEqual(view({ token }), {
      key: "invitationReady",
      tone: "info",
      questions: true,
      askCode: false,
    });
    assert.deepEqual(view({ token, sent: true, state: CodeState.ISSUED }), {
      key: "invitationAnswered",
      tone: "info",
      questions: false,
      askCode: false,
    });
    // Nothing shows while the code's state is asked.
    assert.equal(view({ checking: true }).questions, false);
    assert.equal(view({ checking: true }).key, "invitationBusy");
    const shown = (state, access = "invitation") => {
      const { key, questions, askCode } = view({ state, access });
      return [key, questions, askCode];
    };
    assert.deepEqual(shown(CodeState.UNUSED), ["invitationValid", true, false]);
    assert.deepEqual(shown(CodeState.ISSUED), ["invitationElsewhere", false, false]);
    assert.deepEqual(shown(CodeState.REVOKED), ["invitationRevoked", false, true]);
    assert.deepEqual(shown(CodeState.INVALID), ["invitationUnknown", false, true]);
    assert.deepEqual(shown(CodeState.FAILED), ["invitationFailed", false, false]);
    assert.deepEqual(shown(null), ["invitationNeeded", false, true]);
    // A survey open to both takes answers without a code: a bad code is said, nothing blocked,
    // but a code used on another device is still answered before any question.
    assert.deepEqual(shown(CodeState.REVOKED, "both"), ["invitationRevoked", true, false]);
    assert.deepEqual(shown(CodeState.INVALID, "both"), ["invitationUnknown", true, false]);
    assert.deepEqual(shown(CodeState.ISSUED, "both"), ["invitationElsewhere", false, false]);
    assert.equal(view({ access: "both" }), null);
  });

  it("names only messages the page has", async () => {
    const { STRINGS } = await import("../../static/js/messages.js");
    const states = [...Object.values(CodeState), null];
    for (const access of ["invitation", "both"]) {
      for (const state of states) {
        for (const [token, sent] of [[null, false], [{}, false], [{}, true]]) {
          const shown = invitationView({ access, token, sent, state });
          if (shown) assert.ok(Object.hasOwn(STRINGS, shown.key), shown.key);
        }
      }
    }
  });

  it("obtains a token that verifies under the published key, sending never the message", async () => {
    const server = await fakeServer(signer, ["code-1"]);
    const result = await obtainToken({
      tokenKey: signer.spki,
      scheme: SCHEME,
      tokensUrl: "/api/v1/public/surveys/slug/tokens/",
      code: "code-1",
      fetcher: server.fetcher,
      randomSource: globalThis.crypto,
    });
    assert.equal(result.outcome, Outcome.OK);
    assert.ok(validToken(result.token));
    const message = base64urlDecode(result.token.message);
    assert.equal(message.length, 64);
    const signature = base64urlDecode(result.token.signature);
    assert.equal(await verify(server.key, message, signature), true);
    const [{ body, init }] = server.requests;
    assert.deepEqual(Object.keys(body).sort(), ["blinded_message", "code"]);
    assert.equal(init.credentials, "omit");
    // What was sent is not the message, nor the signature.
    assert.ok(!init.body.includes(result.token.message));
    assert.ok(!init.body.includes(result.token.signature));
  });

  it("reports a used code, an unknown code, and a signature under another key", async () => {
    const server = await fakeServer(signer, ["code-1"]);
    const ask = (code, tokenKey = signer.spki) =>
      obtainToken({
        tokenKey,
        scheme: SCHEME,
        tokensUrl: "/t/",
        code,
        fetcher: server.fetcher,
        randomSource: globalThis.crypto,
      });
    assert.equal((await ask("code-1")).outcome, Outcome.OK);
    assert.equal((await ask("code-1")).outcome, Outcome.USED);
    assert.equal((await ask("nope")).outcome, Outcome.UNKNOWN);
    // The page blinds with the key it was given; a server signing with another key is caught.
    const other = await freshKey();
    const rogue = await fakeServer(other, ["code-2"]);
    const result = await obtainToken({
      tokenKey: signer.spki,
      scheme: SCHEME,
      tokensUrl: "/t/",
      code: "code-2",
      fetcher: rogue.fetcher,
      randomSource: globalThis.crypto,
    });
    assert.equal(result.outcome, Outcome.BAD_KEY);
  });

  it("keeps the token in the memo and refuses a memo with a malformed one", () => {
    const storage = mapStorage();
    const memo = {
      submissionId: "3f1c0e4e-2b7a-4c9e-9d3a-5b6f7a8c9d0e",
      sent: false,
      secrets: {},
      token: { message: "AAAA", signature: "BBBB" },
    };
    assert.equal(storeMemo(storage, "slug", "f".repeat(32), memo), true);
    assert.deepEqual(loadMemo(storage, "slug", "f".repeat(32)), memo);
    const bad = JSON.stringify({ ...memo, token: { message: "A A" } });
    assert.equal(parseMemo(bad), null);
  });
});
