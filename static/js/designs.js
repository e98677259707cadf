// The yes/no designs beyond forced response, and k-ary randomized response for multiple
// choice, drawn in the respondent's browser. Mirrors dpengine/designs.py and
// dpengine/choice.py: the same parameters under the same names, the same validation.
//
// Pure functions, the random source passed in (`crypto` on the page, a fake in tests).
// Probabilities given as doubles use coins.js `bernoulli` (exact for every double, so exact
// for dyadic values such as 3/4 and 5/8); k-ary randomized response uses the exact integer
// and rational helpers of exact.js.

import { bernoulli, MAX_TABLE_SIZE, pairRandomizer, randomizeAnswer } from "./coins.js";
import {
  bernoulliExp,
  bernoulliRational,
  numericMechanism,
  parseRational,
  randomizeNumber,
  rational,
  uniformBelow,
} from "./exact.js";

function checkTruth(truth) {
  if (typeof truth !== "boolean") {
    throw new TypeError(`truth must be a boolean, got ${truth}`);
  }
}

function checkOpen(name, value) {
  if (typeof value !== "number" || !(value > 0 && value < 1)) {
    throw new RangeError(`${name} must be a number in (0, 1), got ${value}`);
  }
}

/**
 * Warner (1965): with probability p answer the statement, otherwise its negation.
 * P(yes | yes) = p, P(yes | no) = 1 - p; p in (1/2, 1).
 */
export function randomizeWarner(truth, { p }, randomSource) {
  checkTruth(truth);
  checkOpen("p", p);
  if (!(p > 0.5)) {
    throw new RangeError(`p must be in (1/2, 1), got ${p}`);
  }
  return bernoulli(p, randomSource) ? truth : !truth;
}

/**
 * Unrelated question with known prevalence (Greenberg et al. 1969): with probability p answer
 * the question, otherwise the device answers the innocuous one: "yes" with probability pi.
 * P(yes | yes) = p + (1 - p) pi, P(yes | no) = (1 - p) pi.
 */
export function randomizeUnrelated(truth, { p, pi }, randomSource) {
  checkTruth(truth);
  checkOpen("p", p);
  checkOpen("pi", pi);
  return bernoulli(p, randomSource) ? truth : bernoulli(pi, randomSource);
}

/**
 * Kuk (1990): deal one card from the deck matching the answer (red share theta1 for yes,
 * theta2 for no) and report its colour, red meaning "yes". P(yes | yes) = theta1,
 * P(yes | no) = theta2, theta1 > theta2.
 */
export function randomizeKuk(truth, { theta1, theta2 }, randomSource) {
  checkTruth(truth);
  checkOpen("theta1", theta1);
  checkOpen("theta2", theta2);
  if (!(theta1 > theta2)) {
    throw new RangeError(`theta1 must be greater than theta2 = ${theta2}, got ${theta1}`);
  }
  return bernoulli(truth ? theta1 : theta2, randomSource);
}

/**
 * Mangat (1994), differentially private variant (dpengine.designs.Mangat): a respondent whose
 * answer is yes says "yes" with probability 1 - t, otherwise uses the Warner device with p, as
 * everybody whose answer is no does. P(yes | yes) = 1 - t + t p, P(yes | no) = 1 - p.
 * t = 0 (the original) is refused: a "no" would prove the answer.
 */
export function randomizeMangat(truth, { p, t }, randomSource) {
  checkTruth(truth);
  checkOpen("p", p);
  if (typeof t !== "number" || !(t > 0 && t <= 1)) {
    throw new RangeError(
      "t must be in (0, 1]; t = 0 is Mangat's original design, which is not differentially " +
        `private, got ${t}`,
    );
  }
  if (truth && t < 1 && !bernoulli(t, randomSource)) {
    return true;
  }
  return bernoulli(p, randomSource) ? truth : !truth;
}

const YES_NO = {
  forced_response: (truth, design, randomSource) => randomizeAnswer(truth, design, randomSource),
  warner: randomizeWarner,
  unrelated_question: randomizeUnrelated,
  kuk: randomizeKuk,
  mangat: randomizeMangat,
};

/** The report for a yes/no question under `design = {kind, ...parameters}` (kind as dpengine). */
export function randomizeYesNo(truth, design, randomSource) {
  const draw = YES_NO[design?.kind ?? "forced_response"];
  if (!draw) {
    throw new RangeError(`unknown design kind ${design?.kind}`);
  }
  return draw(truth, design, randomSource);
}

function checkChoice(mechanism) {
  const k = mechanism?.k;
  if (!Number.isSafeInteger(k) || k < 2) {
    throw new RangeError(`k must be an integer of at least 2 options, got ${k}`);
  }
  const hasOdds = mechanism.odds !== undefined && mechanism.odds !== null;
  const hasEpsilon = mechanism.epsilon !== undefined && mechanism.epsilon !== null;
  if (hasOdds === hasEpsilon) {
    throw new TypeError("give exactly one of epsilon and odds");
  }
  if (hasOdds) {
    const odds = parseRational(mechanism.odds);
    if (odds.num <= odds.den) {
      throw new RangeError(`odds must be above 1, got ${mechanism.odds}`);
    }
    const acceptance = rational(odds.den, odds.num);
    return {
      k,
      accept: (isTruth, randomSource) => isTruth || bernoulliRational(acceptance, randomSource),
    };
  }
  const epsilon = parseRational(mechanism.epsilon);
  if (epsilon.num <= 0n) {
    throw new RangeError(`epsilon must be positive, got ${mechanism.epsilon}`);
  }
  // exp(-epsilon (1 - u)) for utility u = 1{option = truth}; for the truth that is exp(0),
  // drawn anyway (it is always true) so the draws match dpengine's exponential mechanism.
  const none = rational(0n);
  return {
    k,
    accept: (isTruth, randomSource) => bernoulliExp(isTruth ? none : epsilon, randomSource),
  };
}

/**
 * k-ary randomized response for a multiple-choice answer `truth` in {0, ..., k - 1}.
 *
 * `mechanism = {k, epsilon}` (epsilon a rational, read by exact.js `parseRational`) or
 * `{k, odds}` (odds = e^epsilon rational, so `odds: 3` is epsilon = ln 3 exactly). The true
 * option is reported with probability e^eps / (e^eps + k - 1), each other one with
 * 1 / (e^eps + k - 1). Exact rejection sampling, the exponential mechanism with utility
 * 1{output = truth} as dpengine.choice.randomize_choice: propose an option uniformly; the
 * true one is accepted, any other with probability exp(-eps); otherwise propose again.
 * So the "other" option is uniform among the k - 1 others, exactly. The same uniform draws
 * give the same report as dpengine.choice.randomize_choice.
 */
export function randomizeChoice(truth, mechanism, randomSource) {
  const { k, accept } = checkChoice(mechanism);
  if (!Number.isSafeInteger(truth) || truth < 0 || truth >= k) {
    throw new RangeError(`truth must be an option from 0 to ${k - 1}, got ${truth}`);
  }
  for (;;) {
    const option = Number(uniformBelow(k, randomSource));
    if (accept(option === truth, randomSource)) {
      return option;
    }
  }
}

// --- One question's randomizer, from the survey definition --------------------------------
//
// What coins.js `memoReports` needs to pre-draw a question's table of reports (one per
// possible true answer) and read it: see "Memoisation" in coins.js. `question` is one of
// the public definition's questions (surveys/api/serializers/public.py): `type` ("yes_no",
// "choice", "numeric"; absent in a definition from before question types: yes/no), and
// `design` (yes/no), `options` (choice) or `min` and `max` (numeric), with `epsilon`.

function checkTableSize(size) {
  if (size > MAX_TABLE_SIZE) {
    throw new RangeError(`at most ${MAX_TABLE_SIZE} answers can be pre-drawn, got ${size}`);
  }
}

/** A yes/no question's randomizer under `design = {kind, ...parameters}`. */
export function yesNoRandomizer(design) {
  if (!YES_NO[design?.kind ?? "forced_response"]) {
    throw new RangeError(`unknown design kind ${design?.kind}`);
  }
  return pairRandomizer((truth, randomSource) => randomizeYesNo(truth, design, randomSource));
}

/** A multiple-choice question's randomizer: `mechanism = {k, epsilon}` as `randomizeChoice`. */
export function choiceRandomizer(mechanism) {
  const { k } = checkChoice(mechanism);
  checkTableSize(k);
  return {
    store: "tables",
    size: k,
    draw: (index, randomSource) => randomizeChoice(index, mechanism, randomSource),
    indexOf: (truth) => {
      if (!Number.isSafeInteger(truth) || truth < 0 || truth >= k) {
        throw new TypeError(`truth must be an option from 0 to ${k - 1}, got ${truth}`);
      }
      return truth;
    },
    report: (entry) => entry,
    accepts: (table) =>
      Array.isArray(table) &&
      table.length === k &&
      table.every((entry) => Number.isSafeInteger(entry) && entry >= 0 && entry < k),
  };
}

/**
 * A numeric question's randomizer: `question = {min, max, epsilon}` as `randomizeNumber`.
 * Entry i is the report for the true answer min + i; an answer outside the range is first
 * kept within it (clamped), as `randomizeNumber` does, so it picks the entry of min or max.
 */
export function numericRandomizer(question) {
  const { lo: min, hi: max } = numericMechanism(question);
  const size = max - min + 1;
  checkTableSize(size);
  return {
    store: "tables",
    size,
    draw: (index, randomSource) => randomizeNumber(min + index, question, randomSource),
    indexOf: (truth) => {
      if (!Number.isFinite(truth) || !Number.isInteger(truth)) {
        throw new TypeError(`truth must be a whole number, got ${truth}`);
      }
      return Math.min(Math.max(truth, min), max) - min;
    },
    report: (entry) => entry,
    accepts: (table) =>
      Array.isArray(table) &&
      table.length === size &&
      table.every((entry) => Number.isSafeInteger(entry)),
  };
}

/**
 * A numeric answer as typed: null when there is none, NaN when it is not a whole number
 * (decimals, letters, or text the browser could not read: `badInput`), else the integer.
 * Digits beyond a double's range keep their sign: the randomizer keeps them within the range.
 */
export function wholeNumber(text, { badInput = false } = {}) {
  const trimmed = String(text ?? "").trim();
  if (trimmed === "") {
    return badInput ? Number.NaN : null;
  }
  if (!/^[+-]?\d+$/.test(trimmed)) {
    return Number.NaN;
  }
  const number = Number(trimmed);
  return Number.isFinite(number) ? number : Math.sign(number) * Number.MAX_SAFE_INTEGER;
}

/**
 * Whether a numeric answer (as `wholeNumber` reads it) is a whole number outside the
 * question's range `{min, max}`. The randomizer would keep it within the range (clamped), so
 * the page asks for another number instead of sending one the respondent did not type.
 */
export function outsideRange(answer, { min, max }) {
  return Number.isInteger(answer) && (answer < min || answer > max);
}

/**
 * The randomizer of one question of the public definition. `surveyCoins` (`{p_truth,
 * p_forced_yes}`) is the design of a yes/no question whose definition names none (a
 * definition from before designs).
 */
export function questionRandomizer(question, surveyCoins) {
  const type = question.type ?? "yes_no";
  if (type === "choice") {
    return choiceRandomizer({ k: question.options?.length, epsilon: question.epsilon });
  }
  if (type === "numeric") {
    return numericRandomizer({ min: question.min, max: question.max, epsilon: question.epsilon });
  }
  if (type !== "yes_no") {
    throw new RangeError(`unknown question type ${type}`);
  }
  return yesNoRandomizer(question.design ?? { kind: "forced_response", ...surveyCoins });
}
