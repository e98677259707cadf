// The cheating-detection designs (CDM: Clark & Desharnais 1998; SLD: Moshagen, Musch &
// Erdfelder 2012), drawn in the respondent's browser. Mirrors dpengine/cheating/sampling.py:
// the browser puts itself in group 1 with probability `group_share` (else group 2), then
// randomizes the answer with that group's probability, and sends ONE code,
// 2 × (group − 1) + bit, so the server counts both groups' answers (a four-way report).
//
// `design = {kind: "cdm" | "sld", p: [p1, p2], group_share}` as the public definition spells
// it (RRreg's parametrisation). A true "yes" is always reported "yes". A true "no" is reported
// "yes" with probability r_g: CDM r_g = p_g (the device asks for "yes"); SLD r_g = 1 − p_g
// (the device asks for the truthful "no" with p_g), drawn as NOT bernoulli(p_g), exactly
// 1 − p_g for the double p_g. Every probability is coins.js `bernoulli`: exact for each double.

import { bernoulli } from "./coins.js";
import { CHEATING_CODES, CHEATING_KINDS } from "./constants.js";

function checkOpen(name, value) {
  if (typeof value !== "number" || !(value > 0 && value < 1)) {
    throw new RangeError(`${name} must be a number in (0, 1), got ${value}`);
  }
}

/** Whether `design` names a cheating-detection design (its reports are codes 0–3). */
export function isCheatingDesign(design) {
  return CHEATING_KINDS.includes(design?.kind);
}

/** The design's parameters checked as dpengine checks them; throws a RangeError otherwise. */
export function checkCheatingDesign(design) {
  if (!isCheatingDesign(design)) {
    throw new RangeError(`unknown cheating-detection design ${design?.kind}`);
  }
  const { p, group_share: share } = design;
  if (!Array.isArray(p) || p.length !== 2) {
    throw new RangeError(`p must be a pair [p1, p2], got ${p}`);
  }
  checkOpen("p[0]", p[0]);
  checkOpen("p[1]", p[1]);
  if (p[0] === p[1]) {
    throw new RangeError(`p must hold two different probabilities, got ${p}`);
  }
  checkOpen("group_share", share);
  return design;
}

/** The respondent's group: 1 with probability `group_share`, else 2. */
export function assignGroup(design, randomSource) {
  checkCheatingDesign(design);
  return bernoulli(design.group_share, randomSource) ? 1 : 2;
}

/** The bit a compliant respondent reports in `group` (1 or 2) when the true answer is `truth`. */
export function randomizeInGroup(truth, group, design, randomSource) {
  checkCheatingDesign(design);
  if (typeof truth !== "boolean") {
    throw new TypeError(`truth must be a boolean, got ${truth}`);
  }
  if (group !== 1 && group !== 2) {
    throw new RangeError(`group must be 1 or 2, got ${group}`);
  }
  if (truth) {
    return true;
  }
  const p = design.p[group - 1];
  return design.kind === "cdm" ? bernoulli(p, randomSource) : !bernoulli(p, randomSource);
}

/** The code a respondent sends: the group drawn, then the report in it, 2 × (group − 1) + bit. */
export function cheatingReport(truth, design, randomSource) {
  const group = assignGroup(design, randomSource);
  const bit = randomizeInGroup(truth, group, design, randomSource);
  return 2 * (group - 1) + (bit ? 1 : 0);
}

/** The code's group (1 or 2) and reported bit. */
export function decodeCheatingReport(code) {
  if (!Number.isSafeInteger(code) || code < 0 || code >= CHEATING_CODES) {
    throw new RangeError(`a code is an integer from 0 to ${CHEATING_CODES - 1}, got ${code}`);
  }
  return { group: Math.floor(code / 2) + 1, yes: code % 2 === 1 };
}

/**
 * A cheating-detection question's randomizer for coins.js `memoReports` ("Memoisation"): the
 * report for each possible true answer (index 0 a true "yes", 1 a true "no", as a yes/no
 * pair) is derived from the question's secret, its own group draw included, so the code sent
 * for an answer is fixed before the answer is read. A true "yes" always reports "yes" (an
 * odd code). `cheating: true` tells the page to show what was sent as a group and an answer.
 */
export function cheatingRandomizer(design) {
  checkCheatingDesign(design);
  return {
    size: 2,
    cheating: true,
    draw: (index, randomSource) => cheatingReport(index === 0, design, randomSource),
    indexOf: (truth) => {
      if (typeof truth !== "boolean") {
        throw new TypeError(`truth must be a boolean, got ${truth}`);
      }
      return truth ? 0 : 1;
    },
  };
}
