// What the browser keeps about one survey between visits: the memo of coins.js (a
// submission id, whether it was sent, and one small random secret per question, from which
// the report of every possible answer is derived), in localStorage, for one person and one
// design. Its size is the same for a yes/no question and for a numeric range of 1,000.
//
// Keyed by the survey's slug AND its design fingerprint: a memo drawn under other coins or
// other questions is never used (and is removed), so a page can never send a report drawn
// with coins the server decodes differently.
//
// On a survey marked for shared devices (a lab tablet, a kiosk, a family computer) nothing is
// kept: the page holds its memo in memory only until the answers are sent, and removes
// anything an earlier visit left for the survey, so the next person's coins are fresh and
// independent of the previous person's.
//
// Storage is injected (`getItem`, `setItem`, `removeItem`, `key`, `length`, like
// localStorage) and every call is guarded: storage that is switched off or throws (private
// browsing, quota) only costs the retake protection, never the answer.

import { memoRecord, memoReports, parseLegacyMemo, parseMemo } from "./coins.js";

const PREFIX = "rrsurvey:";
const VERSION = "v3";
// v2 kept a table of pre-drawn reports per question (one per whole number of a numeric
// range: 677k characters for 100 questions of 0-1000, beyond the origin's quota after a few
// surveys). Read once for its submission id, then replaced (`loadMemo`).
const LEGACY_VERSION = "v2";

/** The storage key of one survey's memo under one design (`version`: this one unless told). */
export function memoKey(slug, fingerprint, version = VERSION) {
  for (const [name, value] of [
    ["slug", slug],
    ["fingerprint", fingerprint],
  ]) {
    if (typeof value !== "string" || value === "" || value.includes(":")) {
      throw new TypeError(`${name} must be a non-empty string without ':', got ${value}`);
    }
  }
  return `${PREFIX}${version}:${slug}:${fingerprint}`;
}

// Keys this project ever wrote for a survey: the current memo, v2's memo of tables, and v1's
// per-question pairs ("rrsurvey:rr-pair:v1:<slug>:<question id>"), which knew nothing of
// designs or persons.
function belongsToSurvey(key, slug) {
  return (
    typeof key === "string" &&
    [VERSION, LEGACY_VERSION, "rr-pair:v1"].some((version) =>
      key.startsWith(`${PREFIX}${version}:${slug}:`),
    )
  );
}

function storedKeys(storage) {
  const keys = [];
  try {
    for (let index = 0; index < storage.length; index += 1) {
      keys.push(storage.key(index));
    }
  } catch {
    return [];
  }
  return keys;
}

function remove(storage, key) {
  try {
    storage.removeItem(key);
  } catch {
    // Nothing more to do: storage that cannot be written cannot be read back either.
  }
}

/**
 * Remove what earlier visits kept for the survey at `slug`, except the memo of design
 * `keepFingerprint` (pass null to remove everything, as a shared device does).
 */
export function forgetSurvey(storage, slug, keepFingerprint = null) {
  if (!storage) {
    return;
  }
  const keep = keepFingerprint === null ? null : memoKey(slug, keepFingerprint);
  for (const key of storedKeys(storage)) {
    if (key !== keep && belongsToSurvey(key, slug)) {
      remove(storage, key);
    }
  }
}

/**
 * This person's memo for the survey under this design, or null. Without one, a v2 memo of
 * the same design gives its submission id, sent flag and token, with no secrets yet
 * (coins.js `parseLegacyMemo`); `surveyMemory` then removes the v2 memo and keeps this one.
 *
 * Why read v2 rather than drop it: dropping it would also drop its submission id, and a
 * retake would then be a new submission with fresh coins, the averaging the memo exists to
 * stop. Keeping the id keeps that protection: the server stores an id once, so whatever a
 * retake sends under it adds nothing to what was stored. The secrets drawn instead of the
 * old tables are independent of the answers like everything else in the memo.
 */
export function loadMemo(storage, slug, fingerprint) {
  try {
    if (!storage) {
      return null;
    }
    return (
      parseMemo(storage.getItem(memoKey(slug, fingerprint))) ??
      parseLegacyMemo(storage.getItem(memoKey(slug, fingerprint, LEGACY_VERSION)))
    );
  } catch {
    return null;
  }
}

/** Keep the memo; false when storage refused it. */
export function storeMemo(storage, slug, fingerprint, memo) {
  try {
    if (!storage) {
      return false;
    }
    storage.setItem(memoKey(slug, fingerprint), JSON.stringify(memoRecord(memo)));
    return true;
  } catch {
    return false;
  }
}

/**
 * The respondent page's memo for one survey under one design, and the one place that decides
 * what is kept, replayed and cleared:
 *
 * - Opening the page removes what earlier visits kept for the survey under any other design
 *   (a pilot's design has a fingerprint of its own, surveys/models/surveys.py design_fingerprint_of:
 *   at the real opening the pilot's memo is dropped here, so the study gets a fresh submission
 *   id and fresh coins that nothing joins to the pilot's row), and on a shared device
 *   everything, this design's memo included.
 * - A personal device reads this design's memo back (a retake replays its submission id and
 *   secrets) and keeps every new one; a shared device keeps it in the page only.
 * - Once the answers are stored, a personal device keeps the memo marked sent; a shared device
 *   drops it, so the next person starts from nothing.
 *
 * `storage` is null in the researcher's preview, which touches no storage at all.
 */
export function surveyMemory({ storage, slug, fingerprint, sharedDevice }) {
  let memo = sharedDevice ? null : loadMemo(storage, slug, fingerprint);
  // Read first, so that a v2 memo of this design gives its submission id before it goes.
  forgetSurvey(storage, slug, sharedDevice ? null : fingerprint);
  const keep = () => {
    if (!sharedDevice) {
      storeMemo(storage, slug, fingerprint, memo);
    }
  };
  if (memo !== null) {
    // Rewritten in this version's shape (a v2 memo's tables are gone from storage).
    keep();
  }
  return {
    /** This person's memo so far, or null. */
    get memo() {
      return memo;
    },
    /** Whether this device already sent this survey's answers (the page says so). */
    get alreadySent() {
      return memo?.sent === true;
    },
    /** Take the memo of a new attempt, kept before sending: a reload meanwhile reuses it. */
    update(next) {
      memo = next;
      keep();
    },
    /**
     * Draw (and keep) a secret for every question of `randomizers` that has none yet, before
     * any answer: a respondent-procedure question shows the instruction its secret fixes
     * (coins.js `memoOutcome`) while the respondent answers, and the same on a retake.
     */
    drawSecrets(randomizers, randomSource) {
      memo = memoReports({ randomizers, truths: {}, memo, randomSource }).memo;
      keep();
      return memo.secrets;
    },
    /** An invitation survey's token (invitation.js), or null. */
    get token() {
      return memo?.token ?? null;
    },
    /**
     * Keep an invitation's token with this person's memo (a memo with no draws yet, and so
     * a submission id, when there is none): obtained when the link was opened, sent with the
     * answers later. On a shared device it stays in the page only, and goes once sent.
     */
    keepToken(token, randomSource) {
      const base =
        memo ?? memoReports({ randomizers: {}, truths: {}, memo: null, randomSource }).memo;
      memo = { ...base, token };
      keep();
    },
    /** The answers were stored. */
    markSent() {
      if (sharedDevice) {
        memo = null;
        return;
      }
      memo = { ...memo, sent: true };
      keep();
    },
  };
}
