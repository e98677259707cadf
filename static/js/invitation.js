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
 * address bar (and so from the history entry) whether or not it held a code.
 */
export function takeCode(location, history) {
  const hash = location.hash ?? "";
  if (!hash.startsWith("#")) {
    return null;
  }
  const code = new URLSearchParams(hash.slice(1)).get(FRAGMENT_NAME);
  if (code !== null) {
    history.replaceState(history.state ?? null, "", location.pathname + location.search);
  }
  return code ? code.trim() : null;
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
