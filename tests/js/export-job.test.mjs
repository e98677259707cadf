// The export job page's script: the progress bar and status line follow the job's state, and
// polling stops once the job has ended (issue 28).

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { finished, follow, percentOf, render, statusText } from "../../static/js/export-job.js";

const running = { status: "running", rows_written: 250000, rows_total: 1000000, progress: 0.25 };

class FakeBar {
  constructor() {
    this.attributes = new Map();
    this.value = undefined;
  }
  setAttribute(name, value) {
    this.attributes.set(name, value);
  }
  removeAttribute(name) {
    this.attributes.delete(name);
    if (name === "value") this.value = undefined;
  }
}

describe("percentOf", () => {
  it("rounds the share to whole percent, within 0-100", () => {
    assert.equal(percentOf(running), 25);
    assert.equal(percentOf({ progress: 0.996 }), 100);
    assert.equal(percentOf({ progress: 1.5 }), 100);
  });
  it("is null while nothing is known", () => {
    assert.equal(percentOf({ progress: null }), null);
  });
});

describe("statusText", () => {
  it("says how many rows are written, with the language's digit grouping", () => {
    assert.equal(statusText(running, "en"), "Writing: 250,000 of 1,000,000 rows.");
  });
  it("names each state", () => {
    assert.match(statusText({ status: "queued" }, "en"), /Waiting/);
    assert.equal(statusText({ status: "done" }, "en"), "Ready.");
    assert.match(statusText({ status: "failed" }, "en"), /failed/);
  });
});

describe("render", () => {
  it("moves the bar and its aria-valuenow together", () => {
    const status = { textContent: "" };
    const bar = new FakeBar();
    render(running, { status, bar, language: "en" });
    assert.equal(bar.value, 25);
    assert.equal(bar.attributes.get("aria-valuenow"), "25");
    assert.equal(status.textContent, "Writing: 250,000 of 1,000,000 rows.");
    render({ status: "queued", progress: null }, { status, bar, language: "en" });
    assert.equal(bar.attributes.has("aria-valuenow"), false);
  });
});

describe("follow", () => {
  it("polls until the job ends, retrying a failed poll, then stops", async () => {
    const answers = [running, new Error("offline"), { ...running, progress: 0.5 }, { status: "done", progress: 1 }];
    const shown = [];
    let ended = null;
    let waits = 0;
    const last = await follow({
      url: "/status",
      fetchJson: async () => {
        const next = answers.shift();
        if (next instanceof Error) throw next;
        return next;
      },
      show: (state) => shown.push(state.progress),
      onFinished: (state) => {
        ended = state;
      },
      wait: async () => {
        waits += 1;
      },
    });
    assert.deepEqual(shown, [0.25, 0.5, 1]);
    assert.equal(ended.status, "done");
    assert.equal(last, ended);
    assert.equal(waits, 3);
    assert.equal(finished({ status: "failed" }), true);
    assert.equal(finished({ status: "running" }), false);
  });
});
