// What leaves the respondent page: the submission body, padded to the survey's one length.
//
// A body's size would otherwise say what it carries ("false" is longer than "true", a
// negative number longer than a positive one, a skipped question leaves its key out), and an
// observer of the encrypted request sees its size. The survey's definition names the length
// of the widest body it can receive (`submission_length`, surveys/selectors/
// submission_length.py); every body is padded to it with spaces in `padding`, which the
// server checks and ignores.

const encoder = new TextEncoder();

/** The length of `text` in UTF-8 bytes, as it goes on the wire. */
export function byteLength(text) {
  return encoder.encode(text).length;
}

/**
 * The JSON body to send: `payload` (`{submission_id, answers, design_fingerprint, groups?}`)
 * with a `padding` member of spaces that makes it exactly `length` bytes. A payload already
 * longer (a report the survey does not accept, which the server refuses with its reason) goes
 * with empty padding.
 */
export function paddedBody(payload, length) {
  if (!Number.isSafeInteger(length) || length < 0) {
    throw new RangeError(`the body length must be a whole number of bytes, got ${length}`);
  }
  const missing = length - byteLength(JSON.stringify({ ...payload, padding: "" }));
  return JSON.stringify({ ...payload, padding: " ".repeat(Math.max(missing, 0)) });
}
