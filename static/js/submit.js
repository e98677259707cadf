// One press of the send button: the reports drawn, the memo kept, the submission sent and the
// server's answer read, with `fetch` passed in (a fake in tests/js/submit.test.mjs and
// tests/js/respond.test.mjs). Every request leaves without cookies (`credentials: "omit"`),
// is not cached and follows no redirect. What the page then does is named by an outcome's
// `kind`, and `outcomeMessage` says it:
//
// - "stored": 201, the answers are counted (or were already, for a replayed submission id);
// - "pilot_ended": the page was loaded during the pilot and the real study has opened since;
//   nothing was sent (the pilot's answers are discarded at the opening, and this one would
//   arrive after it), the page reloads into the study;
// - "design_changed": 409 naming design_fingerprint, the answers were randomized with coins
//   the server no longer decodes; nothing was stored, the page reloads the current survey
//   (and drops the old design's memo as it loads);
// - "refused": another 4xx with the server's reason (`detail`, in the page's language);
// - "server_error": anything else, `status` kept; pressing again sends the same body;
// - "network_error": no answer at all; pressing again sends the same body.

import { givenAnswers, prepareSubmission } from "./payload.js";

/** The pilot's check: the definition asked for again (only pilot pages pay for it). */
export async function pilotHasEnded({ fetch, pilot, definitionUrl }) {
  if (!pilot || !definitionUrl) return false;
  const response = await fetch(definitionUrl, {
    headers: { Accept: "application/json" },
    credentials: "omit",
    cache: "no-store",
    redirect: "error",
  });
  // A survey gone back to draft, or deleted, is no longer the pilot this page was loaded for.
  if (!response.ok) return response.status === 404;
  const current = await response.json();
  return current.pilot !== true;
}

/**
 * The POST of one body. The page's language rides as Accept-Language: no cookie does
 * (credentials are omitted), so the header is the only way the API learns which language the
 * respondent reads its errors in.
 */
export function submissionRequest({ body, language }) {
  return {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json",
      "Accept-Language": language,
    },
    body,
    credentials: "omit", // no session cookie rides along with the answers
    cache: "no-store",
    redirect: "error",
  };
}

/** The outcome of the server's answer to a submission (see the kinds above). */
export async function responseOutcome(response) {
  if (response.status === 201) {
    return { kind: "stored" };
  }
  let detail = "";
  let fields = {};
  try {
    ({ detail = "", errors: fields = {} } = await response.json());
  } catch {
    detail = "";
  }
  if (response.status === 409 && fields?.design_fingerprint) {
    return { kind: "design_changed" };
  }
  // An invitation survey (docs/invitations.md): the token was spent on another submission,
  // or an invitation-only survey got none.
  if (response.status === 409 && fields?.token) {
    return { kind: "invitation_used" };
  }
  if (response.status === 403 && fields?.token) {
    return { kind: "invitation_needed" };
  }
  if (response.status >= 400 && response.status < 500 && detail) {
    return { kind: "refused", detail };
  }
  return { kind: "server_error", status: response.status };
}

/**
 * Send `body` (payload.js) to `submitUrl`, after the pilot's check when the page is a pilot's.
 * `onSending()` is called just before the POST leaves (the page marks itself busy). Resolves
 * to an outcome; never rejects.
 */
export async function sendSubmission({
  fetch,
  pilot,
  definitionUrl,
  submitUrl,
  body,
  language,
  onSending = () => {},
}) {
  try {
    if (await pilotHasEnded({ fetch, pilot, definitionUrl })) {
      return { kind: "pilot_ended" };
    }
  } catch {
    return { kind: "network_error" };
  }
  onSending();
  try {
    return await responseOutcome(await fetch(submitUrl, submissionRequest({ body, language })));
  } catch {
    return { kind: "network_error" };
  }
}

/**
 * One press of the send button once every answer can be sent. `page` is the definition
 * (`{survey, submit_url, definition_url}`), `questions` its randomized questions
 * (questions.js), `entries` `[{question, answer}, ...]` for every question, grouping ones
 * included, `memory` the survey's memory (memory.js `surveyMemory`). The reports are drawn
 * from the memory's memo, the new memo is kept *before* sending (a reload while the request
 * is on its way reuses the same draws and submission id, and the server stores a replayed id
 * once), and marked sent once stored. Resolves to `{attempt, outcome}` (payload.js
 * `prepareSubmission`, `sendSubmission`).
 */
export async function sendAnswers({
  page,
  questions,
  entries,
  memory,
  randomSource,
  fetch,
  language,
  onSending,
}) {
  const { truths, groups } = givenAnswers(entries);
  const attempt = prepareSubmission({
    survey: page.survey,
    questions,
    truths,
    groups,
    memo: memory.memo,
    randomSource,
  });
  memory.update(attempt.memo);
  const outcome = await sendSubmission({
    fetch,
    pilot: page.survey.pilot === true,
    definitionUrl: page.definition_url,
    submitUrl: page.submit_url,
    body: attempt.body,
    language,
    onSending,
  });
  if (outcome.kind === "stored") {
    memory.markSent();
  }
  return { attempt, outcome };
}

/** Whether the page reloads after this outcome (the survey it was loaded with is gone). */
export function reloads(outcome) {
  return outcome.kind === "pilot_ended" || outcome.kind === "design_changed";
}

/** What the status line says after an outcome (nothing once stored: the thank-you shows). */
export function outcomeMessage(outcome) {
  switch (outcome.kind) {
    case "stored":
      return null;
    case "pilot_ended":
      return { key: "pilotEnded" };
    case "design_changed":
      return { key: "designChanged" };
    case "refused":
      return { key: "refused", values: { detail: outcome.detail } };
    case "server_error":
      return { key: "serverError", values: { status: outcome.status } };
    case "network_error":
      return { key: "networkError" };
    case "invitation_used":
      return { key: "invitationUsed" };
    case "invitation_needed":
      return { key: "invitationNeeded" };
    default:
      throw new RangeError(`unknown outcome ${outcome.kind}`);
  }
}
