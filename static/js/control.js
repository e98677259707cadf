// A direct-questioning control group (split ballot; docs/researchers.md, "A direct-questioning
// control group"). With the survey's `control_share`, this browser asks the questions marked
// `compare_direct` directly (the control group) instead of with coins, and says which it did:
// each such question's report is one code, 0/1 the randomized report no/yes, 2/3 the answer
// no/yes as given (surveys/selectors/mechanisms.py COMPARE_CODES).
//
// The assignment is drawn once per respondent, before any answer is read, exactly with the
// published probability (exact.js `bernoulliRational` on the decimal the server prints), from
// a random secret kept in the memo (coins.js) beside the questions' secrets and read as they
// are (`derivedReport`: the HMAC stream of the secret), so a reload or a retake on this device
// gets the same version: nobody can redraw until they get the version they prefer. On a
// shared device the memo lives in the page only, so the next person draws afresh.

import { derivedReport, memoReports, newSecret, secretBytes } from "./coins.js";
import { COMPARE_CODES } from "./constants.js";
import { bernoulliRational, parseRational } from "./exact.js";

export const RANDOMIZED = "randomized";
export const DIRECT = "direct";
// The memo's secret the assignment is derived from (`secrets.control`); question ids are
// numbers, so it names no question.
export const ARM_KEY = "control";
// A compared question's codes (surveys/selectors/mechanisms.py COMPARE_CODES, through the
// generated constants.js): 0/1 randomized no/yes, then 2/3 direct no/yes.
const FIRST_DIRECT_CODE = COMPARE_CODES.indexOf("direct_no");

/** The ids (strings) of the definition's questions compared with asking directly. */
export function comparedIds(survey) {
  return new Set(
    (survey.questions ?? [])
      .filter((question) => question.compare_direct === true)
      .map((question) => String(question.id)),
  );
}

/**
 * The chance of the control group as the exact decimal the server sent, or null when
 * nobody is asked directly (no share, a share of 0, or no compared question).
 */
export function controlShare(survey) {
  const share = survey.control_share;
  if (share === undefined || share === null || comparedIds(survey).size === 0) return null;
  const { num } = parseRational(share);
  return num === 0n ? null : share;
}

/** One draw of the assignment: DIRECT with exactly probability `share`, else RANDOMIZED. */
export function drawArm(share, randomSource) {
  return bernoulliRational(share, randomSource) ? DIRECT : RANDOMIZED;
}

/** The assignment as a randomizer of one "answer" (coins.js): what a secret derives. */
export function armRandomizer(share) {
  return { size: 1, draw: (_index, randomSource) => drawArm(share, randomSource), indexOf: () => 0 };
}

/** The version `memo`'s secret fixes at `share`, or null when it keeps no secret for it. */
export function memoArm(memo, share) {
  const secret = memo?.secrets?.[ARM_KEY];
  if (secretBytes(secret) === null) return null;
  return derivedReport({ randomizer: armRandomizer(share), questionId: ARM_KEY, secret, index: 0 });
}

/** `memo` (a new one when null) with a new secret for the assignment. */
export function withArmSecret(memo, randomSource) {
  const base = memo ?? memoReports({ randomizers: {}, truths: {}, memo: null, randomSource }).memo;
  return { ...base, secrets: { ...(base.secrets ?? {}), [ARM_KEY]: newSecret(randomSource) } };
}

/**
 * This respondent's version of the survey: the one the memo's secret fixes, else a secret
 * drawn now and kept (memory.js `update`) before the questions are shown. RANDOMIZED, drawing
 * nothing, on a survey without a control group.
 */
export function assignArm({ survey, memory, randomSource }) {
  const share = controlShare(survey);
  if (share === null) return RANDOMIZED;
  if (memoArm(memory.memo, share) === null) {
    memory.update(withArmSecret(memory.memo, randomSource));
  }
  return memoArm(memory.memo, share);
}

/** The code a compared question's direct answer is sent as: 2 for no, 3 for yes. */
export function directCode(answer) {
  return FIRST_DIRECT_CODE + (answer ? 1 : 0);
}

/** A yes/no randomizer whose report is sent as its code: 0 for no, 1 for yes. */
export function codeRandomizer(randomizer) {
  return { ...randomizer, draw: (index, randomSource) => (randomizer.draw(index, randomSource) ? 1 : 0) };
}

/**
 * The page's questions (questions.js `surveyQuestions`) in `arm`: a compared question is
 * asked directly in the control group (no coins, its answer sent as a code 2/3) and with its
 * design otherwise (its report sent as a code 0/1); `comparedArm` says which. The others are
 * unchanged.
 */
export function armedQuestions(questions, survey, arm) {
  const compared = comparedIds(survey);
  return questions.map((question) => {
    if (!compared.has(question.id)) return question;
    if (arm === DIRECT) {
      return { ...question, direct: true, randomizer: null, comparedArm: DIRECT };
    }
    return {
      ...question,
      comparedArm: RANDOMIZED,
      randomizer: codeRandomizer(question.randomizer),
    };
  });
}

/**
 * Show this respondent's version on the page (`doc`: the document): in the control group,
 * each compared question says at the question that its answer is sent as given (its note
 * revealed, its coins' explanation hidden), and the thank-you says so too.
 */
export function showArm(doc, questions, arm) {
  if (arm !== DIRECT) return;
  for (const question of questions) {
    if (question.comparedArm !== DIRECT) continue;
    const fieldset = doc.getElementById(question.domId);
    const note = doc.getElementById(`${question.domId}-control`);
    if (!fieldset || !note) continue;
    note.hidden = false;
    fieldset.classList.add("question--direct");
    fieldset.dataset.direct = "";
    const how = doc.getElementById(`${question.domId}-how`);
    if (how) how.hidden = true;
    fieldset.setAttribute("aria-describedby", note.id);
  }
  // The sentences that would say only the coins' results leave: their control-group twins.
  for (const [coins, asGiven] of [
    ["respond-done-coins", "respond-done-control"],
    ["respond-submit-hint", "respond-submit-hint-control"],
  ]) {
    const shown = doc.getElementById(asGiven);
    const replaced = doc.getElementById(coins);
    if (shown && replaced) {
      replaced.hidden = true;
      shown.hidden = false;
    }
  }
}
