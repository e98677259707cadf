// The builder's schedule proposes the browser's time zone while the survey has none (issue 24).

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { proposedZone } from "../../static/js/schedule.js";

const OFFERED = ["", "America/New_York", "Asia/Seoul", "UTC"];

describe("proposedZone", () => {
  it("proposes the browser's zone while none is chosen", () => {
    assert.equal(proposedZone("", OFFERED, "Asia/Seoul"), "Asia/Seoul");
  });
  it("never overrides the researcher's choice", () => {
    assert.equal(proposedZone("America/New_York", OFFERED, "Asia/Seoul"), null);
    assert.equal(proposedZone("UTC", OFFERED, "Asia/Seoul"), null);
  });
  it("proposes nothing the list does not offer, or when the browser says nothing", () => {
    assert.equal(proposedZone("", OFFERED, "Mars/Olympus_Mons"), null);
    assert.equal(proposedZone("", OFFERED, undefined), null);
  });
});
