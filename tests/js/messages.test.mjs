// messages.js: every string the respondent page's scripts show, in one table of gettext calls
// (the catalog's djangojs.po holds their translations).

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";

import { STRINGS, messageText } from "../../static/js/messages.js";

describe("messages", () => {
  it("fills a message's values, messages among them", () => {
    assert.equal(
      messageText({ key: "outOfRange", values: { min: -3, max: 30 } }),
      "Enter a whole number from -3 to 30.",
    );
    assert.equal(
      messageText({ key: "asGiven", values: { label: { key: "preferNotToSay" } } }),
      "Prefer not to say (sent as given, not randomized)",
    );
    assert.equal(messageText({ key: "yes" }), "Yes");
  });

  it("shows the survey's own words as they are, never as a format", () => {
    assert.equal(messageText({ text: "%(number)s apples" }), "%(number)s apples");
    assert.equal(
      messageText({ key: "asGiven", values: { label: { text: "%(label)s" } } }),
      "%(label)s (sent as given, not randomized)",
    );
  });

  it("refuses a message nobody wrote", () => {
    assert.throws(() => messageText({ key: "nonsense" }), RangeError);
    assert.throws(() => messageText({ key: "toString" }), RangeError);
    assert.throws(() => messageText(null), RangeError);
  });

  it("are the only strings the respondent page's modules translate", () => {
    // Every gettext call of the page lives in messages.js, so a new string is added (and
    // translated) in one place and the pure modules stay free of the catalog.
    const folder = new URL("../../static/js/", import.meta.url);
    for (const name of ["respond.js", "questions.js", "payload.js", "submit.js", "memory.js"]) {
      const source = readFileSync(new URL(name, folder), "utf8");
      const code = source.replace(/\/\/.*|\/\*[\s\S]*?\*\//g, "");
      assert.ok(!/\bgettext\s*\(/.test(code), `${name} calls gettext`);
    }
    assert.ok(Object.values(STRINGS).every((value) => typeof value === "string" && value));
  });
});
