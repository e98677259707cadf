// Questions asked directly: no coins, no memo; the answer itself is sent (the page says so at
// the question). A text answer is sent as its UTF-8 bytes padded with NUL bytes to the
// survey's byte limit and base64url-encoded, so that every text answer has one length on the
// wire whatever its script or length (surveys/services/answers.py reads it back;
// surveys/selectors/submission_length.py counts it).

import { DIRECT, directCode } from "./control.js";

/** The length of `text` in bytes of UTF-8. */
export function utf8Length(text) {
  return new TextEncoder().encode(text).length;
}

/**
 * `text` as the server takes a text answer: UTF-8, padded with NUL bytes to `maxBytes`
 * (a multiple of 3, so there is no "=" padding), base64url. Throws a RangeError beyond it.
 */
export function encodeTextAnswer(text, maxBytes) {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length > maxBytes) {
    throw new RangeError(`a text answer has at most ${maxBytes} bytes, got ${bytes.length}`);
  }
  const padded = new Uint8Array(maxBytes);
  padded.set(bytes);
  let binary = "";
  for (const byte of padded) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_");
}

/**
 * The value a direct question's answer is sent as: the answer itself; text encoded; a
 * compared question asked in the control group, its code (control.js `directCode`).
 */
export function directReport(question, answer) {
  if (question.comparedArm === DIRECT) return directCode(answer);
  return question.type === "text" ? encodeTextAnswer(answer, question.maxBytes) : answer;
}
