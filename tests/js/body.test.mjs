// The submission body (body.js): every body of a survey has the survey's one length, whatever
// was answered or skipped, and the padding is spaces only.

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { byteLength, paddedBody } from "../../static/js/body.js";
import { PREFER_NOT_TO_SAY } from "../../static/js/constants.js";

const ID = "01020304-0506-4708-890a-0b0c0d0e0f10";
const FINGERPRINT = "f".repeat(32);

function payload(answers, groups) {
  const body = { submission_id: ID, answers, design_fingerprint: FINGERPRINT };
  if (groups !== undefined) body.groups = groups;
  return body;
}

// The widest body of a survey with a yes/no question 11, a numeric question 12 whose reports
// lie in [-180, 210] and a grouping question 13, as the server computes `submission_length`.
const WIDEST = payload({ 11: false, 12: -180 }, { 13: PREFER_NOT_TO_SAY });
const LENGTH = byteLength(JSON.stringify({ ...WIDEST, padding: "" }));

describe("the submission body", () => {
  it("has the survey's one length for every pattern of answers", () => {
    const bodies = [
      payload({ 11: true, 12: 7 }, { 13: "4" }),
      payload({ 11: false, 12: -180 }, { 13: PREFER_NOT_TO_SAY }),
      payload({ 11: true }, {}),
      payload({}, {}),
      payload({ 12: 210 }, { 13: "5" }),
    ].map((body) => paddedBody(body, LENGTH));
    for (const body of bodies) {
      assert.equal(byteLength(body), LENGTH, body);
      const { padding, ...rest } = JSON.parse(body);
      assert.match(padding, /^ *$/);
      assert.deepEqual(Object.keys(rest).sort(), ["answers", "design_fingerprint", "groups", "submission_id"]);
    }
    assert.equal(JSON.parse(paddedBody(WIDEST, LENGTH)).padding, "");
    assert.equal(JSON.parse(paddedBody(payload({}, {}), LENGTH)).padding.length > 20, true);
  });

  it("keeps what is sent exactly as given", () => {
    const body = payload({ 11: true, 12: -3 }, { 13: "4" });
    const { padding, ...rest } = JSON.parse(paddedBody(body, LENGTH));
    assert.deepEqual(rest, body);
    assert.equal(typeof padding, "string");
  });

  it("sends a body longer than the survey's length unpadded, for the server to refuse", () => {
    const body = payload({ 11: false, 12: -123456789 }, { 13: PREFER_NOT_TO_SAY });
    assert.equal(JSON.parse(paddedBody(body, LENGTH)).padding, "");
  });

  it("refuses a length that is not a whole number of bytes", () => {
    for (const length of [undefined, null, -1, 1.5, "300"]) {
      assert.throws(() => paddedBody(payload({}, {}), length), RangeError);
    }
  });
});
