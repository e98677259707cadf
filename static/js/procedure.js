// The respondent procedure (issue 33): the respondent, not the browser, carries out a yes/no
// design. The browser draws the design's chance step as it would for the device procedure, but
// before and regardless of any answer, and shows its outcome as an instruction ("The coin says:
// press Yes, whatever the truth"); the respondent presses the answer it gives, and that answer
// is the report. The true answer is never entered. This is how randomized response is run and
// published (Warner 1965; Clark & Desharnais 1998; Moshagen, Musch & Erdfelder 2012), and the
// only way a respondent can disobey the instruction, which CDM and SLD measure.
//
// An outcome is a plain object `{kind, ...}`, drawn by `drawOutcome` with the design's exact
// probabilities (coins.js `bernoulli`), so a respondent who follows it (`compliantAnswer`)
// reports "yes" with P(yes | yes) and P(yes | no) of the design, as dpengine assumes. The page
// derives it from the question's memo secret (coins.js `memoOutcome`): the same instruction on
// a retake, and never sent.
//
// Pure functions, the random source passed in (a fake in tests/js/procedure.test.mjs).

import { CHEATING_CODES, INSTRUCTIONS } from "./constants.js";
import { checkCheatingDesign, isCheatingDesign } from "./cheating.js";
import { bernoulli } from "./coins.js";
import { YES_NO_DESIGNS } from "./yes-no-designs.js";

/** The procedures, as Question.Procedure names them. */
export const DEVICE = "device";
export const RESPONDENT = "respondent";

function checkBoolean(name, value) {
  if (typeof value !== "boolean") {
    throw new TypeError(`${name} must be a boolean, got ${value}`);
  }
}

// Each design's chance step, drawn without the truth, and what a respondent who follows it
// presses for a true answer: a yes/no design's `draw` and `answer` in yes-no-designs.js (they
// mirror its device sampler), and here the cheating-detection designs, which mirror
// cheating.js: CDM (group, then "press yes" with p_g) and SLD (group, then a non-carrier
// answers truthfully with p_g, else presses yes).
const OUTCOMES = {
  ...YES_NO_DESIGNS,
  cdm: {
    draw: (design, rs) => {
      checkCheatingDesign(design);
      const group = bernoulli(design.group_share, rs) ? 1 : 2;
      return { group, pressYes: bernoulli(design.p[group - 1], rs) };
    },
    answer: ({ pressYes }, truth) => pressYes || truth,
  },
  sld: {
    draw: (design, rs) => {
      checkCheatingDesign(design);
      const group = bernoulli(design.group_share, rs) ? 1 : 2;
      return { group, truthful: bernoulli(design.p[group - 1], rs) };
    },
    answer: ({ truthful }, truth) => truth || !truthful,
  },
};

/** The design kinds the respondent procedure can carry out (every yes/no design). */
export const RESPONDENT_KINDS = Object.freeze(Object.keys(OUTCOMES));

function outcomes(kind) {
  const entry = OUTCOMES[kind];
  if (!entry) {
    throw new RangeError(`no respondent procedure for design kind ${kind}`);
  }
  return entry;
}

/**
 * The outcome of `design`'s chance step (`{kind, ...parameters}`, kind as dpengine), drawn
 * from `randomSource` without any answer: `{kind, ...}` as listed above.
 */
export function drawOutcome(design, randomSource) {
  const kind = design?.kind ?? "forced_response";
  return { kind, ...outcomes(kind).draw(design, randomSource) };
}

/** What a respondent whose true answer is `truth` presses when following `outcome`. */
export function compliantAnswer(outcome, truth) {
  checkBoolean("truth", truth);
  return outcomes(outcome?.kind).answer(outcome, truth);
}

/**
 * The report for the answer pressed: the answer itself (a boolean), or for CDM and SLD the
 * code 2 × (group − 1) + bit of the group the outcome drew (cheating.js).
 */
export function pressedReport(outcome, pressed) {
  checkBoolean("pressed", pressed);
  outcomes(outcome?.kind);
  if (outcome.kind === "cdm" || outcome.kind === "sld") {
    const code = 2 * (outcome.group - 1) + (pressed ? 1 : 0);
    if (!(code >= 0 && code < CHEATING_CODES)) {
      throw new RangeError(`group must be 1 or 2, got ${outcome.group}`);
    }
    return code;
  }
  return pressed;
}

// The text the design's row gives the outcome `name` (constants.js INSTRUCTIONS), as a message.
function instruction(outcome, name, values) {
  const format = INSTRUCTIONS[outcome.kind]?.[name];
  if (typeof format !== "string") {
    throw new RangeError(`no instruction ${name} in the row of ${outcome.kind}`);
  }
  return values === undefined ? { format } : { format, values };
}

/**
 * The instruction the page shows for `outcome`, as a message (messages.js): for a yes/no
 * design, the text its row of the design table gives the outcome (constants.js
 * `INSTRUCTIONS`, through the JavaScript catalog); for CDM and SLD, their rows' (the design
 * table's sibling), with the group drawn.
 */
export function instructionMessage(outcome) {
  switch (outcome?.kind) {
    case "cdm":
      return instruction(outcome, outcome.pressYes ? "yes" : "truth", { group: outcome.group });
    case "sld":
      return instruction(outcome, outcome.truthful ? "truth" : "yes", { group: outcome.group });
    default: {
      const entry = YES_NO_DESIGNS[outcome?.kind];
      if (!entry) {
        throw new RangeError(`no instruction for design kind ${outcome?.kind}`);
      }
      const [name, values] = entry.instruction(outcome);
      return instruction(outcome, name, values);
    }
  }
}

/**
 * A respondent-procedure question's randomizer for coins.js `memoReports`: `outcome(rs)` draws
 * the instruction from the question's secret (its own stream, apart from the answers'), and
 * `report(pressed, outcome)` is what is sent. `cheating` marks CDM and SLD codes for the page.
 */
export function respondentRandomizer(design) {
  const kind = design?.kind ?? "forced_response";
  outcomes(kind);
  if (isCheatingDesign(design)) checkCheatingDesign(design);
  return {
    size: 2,
    procedure: RESPONDENT,
    cheating: isCheatingDesign(design),
    outcome: (randomSource) => drawOutcome({ ...design, kind }, randomSource),
    report: (pressed, outcome) => pressedReport(outcome, pressed),
    // Only to fit memoReports' shape: a pressed answer's report never needs a draw.
    draw: () => {
      throw new TypeError("a respondent-procedure report is the answer pressed, not a draw");
    },
    indexOf: (pressed) => {
      checkBoolean("pressed", pressed);
      return pressed ? 0 : 1;
    },
  };
}
