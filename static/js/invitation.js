// An invitee's side of an invitation survey (docs/invitations.md): read the code from the
// personal link, trade it for a blind signature on a random message, and keep the finished
// token for the submission.
//
// The code travels in the link's fragment (`#invitation=<code>`), which the browser never
// sends to the server, and it is removed from the address bar as soon as it is read. The
// token is finalized and verified with the survey's published key (`token_key` of the
// definition the page was built from), never with a key that came with the signature: a
// server that signed each invitee with a key of their own could recognise them later.
//
// The token is obtained when the invitee first acts (ticks consent, or gives a first answer),
// not when the page opens: an invitee who opens the link on a phone and answers on a desktop
// has not used the code on the phone. When the page opens with a code it only asks what the
// code can still do (`checkCode`, which changes nothing), so that a code whose token went to
// another device or browser, or a revoked or unknown one, is answered before any question
// (`invitationView` says what the page shows in each case).
//
// No DOM beyond the two arguments `location` and `history` that the page passes in; fetch and
// the random source are injected too, so node --test can run it.

import {
  base64urlDecode,
  base64urlEncode,
  blind,
  finalize,
  importPublicKey,
  prepare,
  SCHEME,
} from "./blindrsa.js";

export const FRAGMENT_NAME = "invitation";
// The message the page signs: 32 random bytes (prepare adds 32 more in front, RFC 9474 §4.1),
// so every token is 64 + 256 bytes and every body of a survey has one length.
const MESSAGE_LENGTH = 32;

/**
 * The invitation code in the address's fragment, or null; the fragment is removed from the
 * address bar (and so from the history entry) whether or not it held a code. Until the token
 * is obtained (`forgetCode`) the code is kept in this tab's history state, never in the
 * address: a reload before the invitee acts finds it there, and nothing sends it anywhere.
 */
export function takeCode(location, history) {
  const hash = location.hash ?? "";
  const kept = history.state?.[FRAGMENT_NAME];
  const code = hash.startsWith("#") ? new URLSearchParams(hash.slice(1)).get(FRAGMENT_NAME) : null;
  if (code !== null) {
    const state = { ...(history.state ?? {}), [FRAGMENT_NAME]: code.trim() };
    history.replaceState(state, "", location.pathname + location.search);
    return code.trim() || null;
  }
  return typeof kept === "string" && kept !== "" ? kept : null;
}

/** Keep a typed code like a linked one, until its token is obtained. */
export function keepCode(history, code) {
  history.replaceState({ ...(history.state ?? {}), [FRAGMENT_NAME]: code }, "");
}

/** Drop the code kept by `takeCode` or `keepCode` (its token is obtained, or it is no use). */
export function forgetCode(history) {
  if (history.state && Object.hasOwn(history.state, FRAGMENT_NAME)) {
    const { [FRAGMENT_NAME]: _dropped, ...rest } = history.state;
    history.replaceState(Object.keys(rest).length > 0 ? rest : null, "");
  }
}

/** What `checkCode` reports: the server's states of a code, or why there is none. */
export const CodeState = Object.freeze({
  UNUSED: "unused", // the code can obtain its token
  ISSUED: "issued", // it obtained its token, on another device or browser
  REVOKED: "revoked",
  INVALID: "invalid", // no such code (mistyped, or replaced by a reset)
  FAILED: "failed", // no answer, or one that is none of the above
});

/**
 * Ask `statusUrl` what `code` can still do, without using it. The code goes in the body (an
 * address would put it in logs); no cookie, no cache. Resolves to one of CodeState.
 */
export async function checkCode({ statusUrl, code, fetcher }) {
  try {
    const response = await fetcher(statusUrl, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify({ code }),
      credentials: "omit",
      cache: "no-store",
      redirect: "error",
    });
    if (response.status !== 200) {
      return CodeState.FAILED;
    }
    const { status } = await response.json();
    const known = [CodeState.UNUSED, CodeState.ISSUED, CodeState.REVOKED, CodeState.INVALID];
    return known.includes(status) ? status : CodeState.FAILED;
  } catch {
    return CodeState.FAILED;
  }
}

/**
 * What the page shows for an invitation, before any question: `{key, tone, questions,
 * askCode}`, where `key` names the message (messages.js), `questions` whether the consent,
 * practice and questions may show (and so a Send), `askCode` whether the code field shows.
 *
 * - `token`, `sent`: what this browser keeps (memory.js); a browser with a token goes on
 *   where it was, and one that has sent with it is told so and offered no Send.
 * - `state`: the code's CodeState, or null when there is no code to ask about (or not yet:
 *   `checking` while the answer is on its way, when nothing shows).
 * - `access`: "invitation" or "both" (a survey open to both takes answers without a code).
 */
export function invitationView({ access, token, sent, state, checking = false }) {
  const onlyInvited = access === "invitation";
  if (token) {
    return sent
      ? { key: "invitationAnswered", tone: "info", questions: false, askCode: false }
      : { key: "invitationReady", tone: "info", questions: true, askCode: false };
  }
  if (checking) {
    return { key: "invitationBusy", tone: "busy", questions: false, askCode: false };
  }
  switch (state) {
    case CodeState.UNUSED:
      return { key: "invitationValid", tone: "info", questions: true, askCode: false };
    case CodeState.ISSUED:
      return { key: "invitationElsewhere", tone: "error", questions: false, askCode: false };
    case CodeState.REVOKED:
      return {
        key: "invitationRevoked",
        tone: "error",
        questions: !onlyInvited,
        askCode: onlyInvited,
      };
    case CodeState.INVALID:
      return {
        key: "invitationUnknown",
        tone: "error",
        questions: !onlyInvited,
        askCode: onlyInvited,
      };
    case CodeState.FAILED:
      return { key: "invitationFailed", tone: "error", questions: !onlyInvited, askCode: false };
    default:
      // No code: an invitation-only survey asks for one; one open to both goes on.
      return onlyInvited
        ? { key: "invitationNeeded", tone: "error", questions: false, askCode: true }
        : null;
  }
}

/** What `obtainToken` reports besides a token. */
export const Outcome = Object.freeze({
  OK: "ok",
  USED: "used", // 409: this invitation's code has obtained its token already
  UNKNOWN: "unknown", // 404: no such code (mistyped, reset or revoked)
  REFUSED: "refused", // any other answer
  NETWORK: "network",
  BAD_KEY: "bad_key", // the signature does not verify under the published key
});

/**
 * Prepare a random message, blind it with the survey's published key, ask `tokensUrl` for a
 * blind signature with `code`, finalize and verify. Returns `{outcome, token?, detail?}`;
 * `token` is `{message, signature}` in base64url, as the submission body carries it.
 */
export async function obtainToken({ tokenKey, scheme, tokensUrl, code, fetcher, randomSource }) {
  if (scheme !== SCHEME) {
    return { outcome: Outcome.BAD_KEY };
  }
  const publicKey = await importPublicKey(tokenKey);
  const message = new Uint8Array(MESSAGE_LENGTH);
  randomSource.getRandomValues(message);
  const prepared = prepare(message, randomSource);
  const { blindedMessage, inverse } = await blind(publicKey, prepared, randomSource);
  let response;
  try {
    response = await fetcher(tokensUrl, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify({ code, blinded_message: base64urlEncode(blindedMessage) }),
      credentials: "omit",
      cache: "no-store",
      redirect: "error",
    });
  } catch {
    return { outcome: Outcome.NETWORK };
  }
  let body = {};
  try {
    body = await response.json();
  } catch {
    body = {};
  }
  if (response.status === 409) return { outcome: Outcome.USED, detail: body.detail };
  if (response.status === 404) return { outcome: Outcome.UNKNOWN, detail: body.detail };
  if (response.status !== 201 || typeof body.blind_signature !== "string") {
    return { outcome: Outcome.REFUSED, detail: body.detail, status: response.status };
  }
  let signature;
  try {
    signature = await finalize(
      publicKey,
      prepared,
      base64urlDecode(body.blind_signature),
      inverse,
    );
  } catch {
    return { outcome: Outcome.BAD_KEY };
  }
  return {
    outcome: Outcome.OK,
    token: { message: base64urlEncode(prepared), signature: base64urlEncode(signature) },
  };
}
