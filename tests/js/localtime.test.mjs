// The respondent page adds the respondent's own time when their browser is in another zone
// than the survey's (issue 24).

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { localTimeText } from "../../static/js/localtime.js";

const CLOSES = "2026-12-01T18:00:00+09:00"; // 18:00 in Seoul, 10:00 in Berlin

describe("localTimeText", () => {
  it("gives the same moment in the browser's zone, named", () => {
    const text = localTimeText({
      iso: CLOSES,
      surveyZone: "Asia/Seoul",
      browserZone: "Europe/Berlin",
      language: "en",
    });
    assert.match(text, /^Your time: Dec 1, 2026, 10:00\sAM \(Europe\/Berlin\)\.$/);
  });
  it("is written in the page's language", () => {
    const text = localTimeText({
      iso: CLOSES,
      surveyZone: "Asia/Seoul",
      browserZone: "America/New_York",
      language: "zh-Hans",
    });
    assert.match(text, /2026年12月1日 04:00/); // 04:00 in New York (EST, UTC-5)
  });
  it("adds nothing in the survey's own zone, or for a moment it cannot read", () => {
    const same = { surveyZone: "Asia/Seoul", browserZone: "Asia/Seoul", language: "en" };
    assert.equal(localTimeText({ iso: CLOSES, ...same }), null);
    const other = { surveyZone: "UTC", browserZone: "Asia/Seoul", language: "en" };
    assert.equal(localTimeText({ iso: "", ...other }), null);
    assert.equal(localTimeText({ iso: "soon", ...other }), null);
  });
});
