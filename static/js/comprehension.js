// The comprehension check (survey.comprehension_check; issue 27 item 4): before the real
// questions, one practice round of each yes/no design the survey uses ("suppose your true
// answer is no; coin 1 lands tails and coin 2 says yes: what does your device send?"), with
// feedback. Only whether the FIRST try at each round was right is sent, as a direct yes/no
// answer to the round's hidden question (definition.survey.comprehension[i].id); the made-up
// answer, the choice, later tries and the feedback stay on this page. A wrong first try does
// not stop anyone: the feedback explains, and the survey goes on.
//
// Pure functions, the random source passed in (crypto on the page, a fake in tests); the
// messages are `{key, values}` objects that messages.js turns into text.

import { bernoulli } from "./coins.js";
import { PRACTICE_KINDS } from "./constants.js";
import {
  RESPONDENT,
  RESPONDENT_KINDS,
  compliantAnswer,
  drawOutcome,
  instructionMessage,
} from "./procedure.js";

/** The designs with a practice round (the design table's, surveys/designs.py). */
export { PRACTICE_KINDS };

// How each design's chance step is told, and why its result is what is sent, is its row of
// the design table: the definition's round carries both texts (`practice: {question, why}`),
// in the survey's language.

function checkPractice(practice) {
  if (typeof practice?.question !== "string" || typeof practice?.why !== "string") {
    throw new TypeError("a device-procedure round needs its practice texts {question, why}");
  }
  return practice;
}

/**
 * One practice round of `design` (`{kind, ...parameters}`): a made-up true answer drawn at
 * random (even odds), and the outcome of the design's chance step under which the device
 * sends the other answer, the case that shows what randomization does. `{kind, practice,
 * truth, sent}`, `practice` the round's texts; `sent` is always `!truth`. The real coins are
 * not used: nothing here is anyone's answer.
 */
export function practiceScenario({ design, procedure, practice, randomSource }) {
  const kind = design?.kind;
  if (procedure === RESPONDENT) {
    return followingScenario({ design, randomSource });
  }
  if (!PRACTICE_KINDS.includes(kind)) {
    throw new RangeError(`no practice round for design kind ${kind}`);
  }
  checkPractice(practice);
  const truth = bernoulli(0.5, randomSource);
  return { kind, practice, truth, sent: !truth };
}

/**
 * The respondent procedure's round: a made-up true answer (even odds) and an instruction
 * drawn as a question draws its own (procedure.js `drawOutcome`), shown exactly as the
 * question shows it; the right choice is what following it gives. `{kind, procedure, truth,
 * outcome, sent}`.
 */
function followingScenario({ design, randomSource }) {
  const kind = design?.kind;
  if (!RESPONDENT_KINDS.includes(kind)) {
    throw new RangeError(`no practice round for design kind ${kind}`);
  }
  const truth = bernoulli(0.5, randomSource);
  const outcome = drawOutcome(design, randomSource);
  return { kind, procedure: RESPONDENT, truth, outcome, sent: compliantAnswer(outcome, truth) };
}

const yesNo = (answer) => ({ key: answer ? "yes" : "no" });

/** The round's question: "Practice: suppose your true answer is “no”. … What is sent?" */
export function scenarioMessage(scenario) {
  if (scenario.procedure === RESPONDENT) {
    return {
      key: "practiceFollow",
      values: { truth: yesNo(scenario.truth), instruction: instructionMessage(scenario.outcome) },
    };
  }
  return {
    format: checkPractice(scenario.practice).question,
    values: {
      truth: yesNo(scenario.truth),
      sent: yesNo(scenario.sent),
      colour: { key: scenario.sent ? "practiceRed" : "practiceBlack" },
    },
  };
}

/**
 * What the page says after a choice (`true` for "yes"): `{right, verdict, why}`, right or
 * wrong and why, the same whether it is the first try or a later one.
 */
export function practiceFeedback(scenario, choice) {
  if (typeof choice !== "boolean") {
    throw new TypeError(`choice must be a boolean, got ${choice}`);
  }
  const right = choice === scenario.sent;
  if (scenario.procedure === RESPONDENT) {
    return {
      right,
      verdict: {
        key: right ? "practiceFollowRight" : "practiceFollowWrong",
        values: { sent: yesNo(scenario.sent) },
      },
      why: { key: "practiceWhyFollow" },
    };
  }
  return {
    right,
    verdict: { key: right ? "practiceRight" : "practiceWrong", values: { sent: yesNo(scenario.sent) } },
    why: {
      format: checkPractice(scenario.practice).why,
      values: { truth: yesNo(scenario.truth), sent: yesNo(scenario.sent) },
    },
  };
}

/**
 * A round's record after one more try: `firstRight` is set by the first try and never
 * changed (a respondent who tries again after the feedback has not thereby shown they
 * understood the first time); `tries` counts them, on this page only.
 */
export function recordTry(record, scenario, choice) {
  const { right } = practiceFeedback(scenario, choice);
  return {
    firstRight: record?.firstRight ?? right,
    tries: (record?.tries ?? 0) + 1,
  };
}

/**
 * What is sent for the rounds: `{[hidden question id]: firstRight}` for each round tried;
 * nothing at all for a round not tried. `rounds` is `[{id}]` (the definition's
 * `comprehension`), `records` maps a round's id to its `recordTry` record.
 */
export function comprehensionAnswers(rounds, records) {
  const answers = {};
  for (const { id } of rounds) {
    const record = records.get(String(id));
    if (record !== undefined && typeof record.firstRight === "boolean") {
      answers[String(id)] = record.firstRight;
    }
  }
  return answers;
}

/**
 * The rounds the page shows: the definition's `comprehension` entries whose design has a
 * practice round under its procedure, each as `{id, design, procedure, practice, domId}`
 * (`practice` the device procedure's texts; `practice-<id>` names its fieldset and radios).
 */
export function practiceRounds(survey) {
  return (survey.comprehension ?? [])
    .filter(({ design, procedure }) =>
      (procedure === RESPONDENT ? RESPONDENT_KINDS : PRACTICE_KINDS).includes(design?.kind),
    )
    .map(({ id, design, procedure, practice }) => ({
      id: String(id),
      design,
      procedure: procedure === RESPONDENT ? RESPONDENT : "device",
      ...(procedure === RESPONDENT ? {} : { practice }),
      domId: `practice-${id}`,
    }));
}

/**
 * The hidden questions as payload.js takes direct questions: yes/no, sent as given, never
 * required. Added to the page's questions only when sending, so they are never numbered.
 */
export function comprehensionQuestions(rounds) {
  return rounds.map(({ id }) => ({
    id: String(id),
    type: "yes_no",
    direct: true,
    required: false,
    comprehension: true,
    randomizer: null,
  }));
}
