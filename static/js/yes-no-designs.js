// Every yes/no design in the respondent's browser, one entry per design: the one JavaScript
// file a design adds to (docs/architecture.md, "Adding a yes/no design"). Mirrors
// dpengine/designs/: the same parameters under the same names, the same validation, the same
// a = P(yes | yes) and b = P(yes | no). Which designs a question may name is the design table's
// (surveys/designs.py, read from the generated constants.js `YES_NO_KINDS`); the words of each
// respondent-procedure instruction are the table's too (constants.js `INSTRUCTIONS`).
//
// An entry holds
// - `check(design)`: throws a RangeError for what dpengine refuses,
// - `probabilities(design)`: `[a, b]` by dpengine's formulas (designs.js `designProbabilities`
//   and the builder's live ε read it),
// - `randomize(truth, design, rs)`: the device procedure's report,
// - `draw(design, rs)` and `answer(outcome, truth)`: the respondent procedure's chance step,
//   drawn without the truth, and what a respondent who follows it presses (procedure.js), and
// - `instruction(outcome)`: `[name, values]`, the outcome's instruction in the design's row.
//
// Pure functions, the random source passed in (`crypto` on the page, a fake in tests).
// Probabilities given as doubles use coins.js `bernoulli` (exact for every double, so exact
// for dyadic values such as 3/4 and 5/8). tests/js/designs.test.mjs and procedure.test.mjs
// hold every entry to dpengine's values in tests/vectors/constants.json.

import { bernoulli, randomizeAnswer } from "./coins.js";

export function checkTruth(truth) {
  if (typeof truth !== "boolean") {
    throw new TypeError(`truth must be a boolean, got ${truth}`);
  }
}

function checkOpen(name, value) {
  if (typeof value !== "number" || !(value > 0 && value < 1)) {
    throw new RangeError(`${name} must be a number in (0, 1), got ${value}`);
  }
}

const yesNo = (answer) => ({ key: answer ? "yes" : "no" });
const colour = (red) => ({ key: red ? "practiceRed" : "practiceBlack" });

// --- Forced response: coin 1 (p_truth) keeps the answer, else coin 2 says "yes" (p_forced_yes)

function checkForcedResponse({ p_truth: pTruth, p_forced_yes: pForcedYes }) {
  checkOpen("p_truth", pTruth);
  checkOpen("p_forced_yes", pForcedYes);
}

const forcedResponse = {
  check: checkForcedResponse,
  probabilities: ({ p_truth: pTruth, p_forced_yes: pForcedYes }) => [
    pTruth + (1 - pTruth) * pForcedYes,
    (1 - pTruth) * pForcedYes,
  ],
  randomize: (truth, design, randomSource) => randomizeAnswer(truth, design, randomSource),
  draw: (design, rs) => {
    checkForcedResponse(design);
    if (bernoulli(design.p_truth, rs)) return { coin: "truth" };
    return { coin: bernoulli(design.p_forced_yes, rs) ? "yes" : "no" };
  },
  answer: ({ coin }, truth) => (coin === "truth" ? truth : coin === "yes"),
  instruction: ({ coin }) => [coin],
};

// --- Warner (1965): with probability p answer the statement, otherwise its negation --------

function checkWarner({ p }) {
  checkOpen("p", p);
  if (!(p > 0.5)) {
    throw new RangeError(`p must be in (1/2, 1), got ${p}`);
  }
}

/** Warner: P(yes | yes) = p, P(yes | no) = 1 - p; p in (1/2, 1). */
export function randomizeWarner(truth, { p }, randomSource) {
  checkTruth(truth);
  checkWarner({ p });
  return bernoulli(p, randomSource) ? truth : !truth;
}

const warner = {
  check: checkWarner,
  probabilities: ({ p }) => [p, 1 - p],
  randomize: randomizeWarner,
  draw: ({ p }, rs) => {
    checkWarner({ p });
    return { asWritten: bernoulli(p, rs) };
  },
  answer: ({ asWritten }, truth) => (asWritten ? truth : !truth),
  instruction: ({ asWritten }) => [asWritten ? "as_written" : "opposite"],
};

// --- Unrelated question with known prevalence (Greenberg et al. 1969) -----------------------

function checkUnrelated({ p, pi }) {
  checkOpen("p", p);
  checkOpen("pi", pi);
}

/**
 * Unrelated question: with probability p answer the question, otherwise the device answers
 * the innocuous one: "yes" with probability pi. P(yes | yes) = p + (1 - p) pi,
 * P(yes | no) = (1 - p) pi.
 */
export function randomizeUnrelated(truth, { p, pi }, randomSource) {
  checkTruth(truth);
  checkUnrelated({ p, pi });
  return bernoulli(p, randomSource) ? truth : bernoulli(pi, randomSource);
}

const unrelatedQuestion = {
  check: checkUnrelated,
  probabilities: ({ p, pi }) => [p + (1 - p) * pi, (1 - p) * pi],
  randomize: randomizeUnrelated,
  draw: ({ p, pi }, rs) => {
    checkUnrelated({ p, pi });
    // Both drawn, so the stream's use does not depend on the first draw.
    const asked = bernoulli(p, rs);
    return { asked, innocuous: bernoulli(pi, rs) };
  },
  answer: ({ asked, innocuous }, truth) => (asked ? truth : innocuous),
  instruction: ({ asked, innocuous }) =>
    asked ? ["this_question"] : ["other_question", { answer: yesNo(innocuous) }],
};

// --- Kuk (1990): a card from the deck matching the answer, its colour reported -------------

function checkKuk({ theta1, theta2 }) {
  checkOpen("theta1", theta1);
  checkOpen("theta2", theta2);
  if (!(theta1 > theta2)) {
    throw new RangeError(`theta1 must be greater than theta2 = ${theta2}, got ${theta1}`);
  }
}

/**
 * Kuk: deal one card from the deck matching the answer (red share theta1 for yes, theta2 for
 * no) and report its colour, red meaning "yes". P(yes | yes) = theta1, P(yes | no) = theta2.
 */
export function randomizeKuk(truth, { theta1, theta2 }, randomSource) {
  checkTruth(truth);
  checkKuk({ theta1, theta2 });
  return bernoulli(truth ? theta1 : theta2, randomSource);
}

const kuk = {
  check: checkKuk,
  probabilities: ({ theta1, theta2 }) => [theta1, theta2],
  randomize: randomizeKuk,
  draw: ({ theta1, theta2 }, rs) => {
    checkKuk({ theta1, theta2 });
    return { redIfYes: bernoulli(theta1, rs), redIfNo: bernoulli(theta2, rs) };
  },
  answer: ({ redIfYes, redIfNo }, truth) => (truth ? redIfYes : redIfNo),
  instruction: ({ redIfYes, redIfNo }) => ["cards", { yes: colour(redIfYes), no: colour(redIfNo) }],
};

// --- Mangat (1994), differentially private variant (dpengine.designs.Mangat) ---------------

const mangatProbabilities = ({ p, t }) => [1 - t + t * p, 1 - p];

function checkMangat({ p, t }) {
  checkOpen("p", p);
  if (typeof t !== "number" || !(t > 0 && t <= 1)) {
    throw new RangeError(
      "t must be in (0, 1]; t = 0 is Mangat's original design, which is not differentially " +
        `private, got ${t}`,
    );
  }
  const [a, b] = mangatProbabilities({ p, t });
  if (!(a > b)) {
    throw new RangeError(
      `Mangat with p = ${p}, t = ${t} has P(yes | yes) = ${a} <= P(yes | no) = ${b}: the ` +
        "report carries no information about the truth",
    );
  }
}

/**
 * Mangat: a respondent whose answer is yes says "yes" with probability 1 - t, otherwise uses
 * the Warner device with p, as everybody whose answer is no does. P(yes | yes) = 1 - t + t p,
 * P(yes | no) = 1 - p. t = 0 (the original) is refused: a "no" would prove the answer; so is a
 * p so small that P(yes | yes) <= P(yes | no) (no information).
 */
export function randomizeMangat(truth, { p, t }, randomSource) {
  checkTruth(truth);
  checkMangat({ p, t });
  if (truth && t < 1 && !bernoulli(t, randomSource)) {
    return true;
  }
  return bernoulli(p, randomSource) ? truth : !truth;
}

const mangat = {
  check: checkMangat,
  probabilities: mangatProbabilities,
  randomize: randomizeMangat,
  draw: ({ p, t }, rs) => {
    checkMangat({ p, t });
    const yesStraight = t < 1 && !bernoulli(t, rs);
    return { yesStraight, asWritten: bernoulli(p, rs) };
  },
  answer: ({ yesStraight, asWritten }, truth) =>
    (truth && yesStraight) || (asWritten ? truth : !truth),
  instruction: ({ yesStraight, asWritten }) => {
    const spinner = asWritten ? "as_written" : "opposite";
    return [yesStraight ? `yes_or_${spinner}` : spinner];
  },
};

// --- Crosswise (Yu, Tian & Tang 2008): whether the answer and a hidden statement agree ------

function checkCrosswise({ p }) {
  checkOpen("p", p);
  if (!(p > 0.5)) {
    throw new RangeError(`p must be in (1/2, 1), got ${p}`);
  }
}

/**
 * Crosswise: the device draws a hidden statement, true with probability p, and reports whether
 * the answer agrees with it (both true or both false). P(yes | yes) = p, P(yes | no) = 1 - p.
 */
export function randomizeCrosswise(truth, { p }, randomSource) {
  checkTruth(truth);
  checkCrosswise({ p });
  return truth === bernoulli(p, randomSource);
}

const crosswise = {
  check: checkCrosswise,
  probabilities: ({ p }) => [p, 1 - p],
  randomize: randomizeCrosswise,
  draw: ({ p }, rs) => {
    checkCrosswise({ p });
    return { hidden: bernoulli(p, rs) };
  },
  answer: ({ hidden }, truth) => truth === hidden,
  instruction: ({ hidden }) => [hidden ? "true" : "false"],
};

/** The yes/no designs by dpengine kind (the design table's rows, surveys/designs.py). */
export const YES_NO_DESIGNS = Object.freeze({
  forced_response: forcedResponse,
  warner,
  unrelated_question: unrelatedQuestion,
  kuk,
  mangat,
  crosswise,
});
