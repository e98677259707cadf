// The survey's questions as the respondent page reads, checks and describes them: pure
// functions of the public definition and of what the inputs hold, so node --test reaches them
// (tests/js/questions.test.mjs); respond.js only reads the inputs and writes the results.
//
// Messages are returned as `{key, values}` objects that messages.js turns into text.

import { PREFER_NOT_TO_SAY } from "./constants.js";
import { decodeCheatingReport } from "./cheating.js";
import { outsideRange, questionRandomizer, wholeNumber } from "./designs.js";
import { utf8Length } from "./direct.js";

/**
 * The questions of the definition's `survey`: `{id, type, number, text, required, direct,
 * options, min, max, maxBytes, randomizer, procedure, domId, itemId, anchor}`. `direct`: asked directly,
 * the answer sent as given (`randomizer` null; `type` "text" only so). `domId` names the fieldset and the
 * radios (`q-<id>`), `itemId` the error summary's entry, `anchor` the input the summary links
 * to and the focus goes to (the question's first input).
 */
export function surveyQuestions(survey) {
  const surveyCoins = { p_truth: survey.p_truth, p_forced_yes: survey.p_forced_yes };
  return survey.questions.map((question, index) => {
    // Absent in an older definition: every question was yes/no then.
    const type = question.type ?? "yes_no";
    const direct = question.direct === true;
    return {
      id: String(question.id),
      type,
      number: index + 1,
      text: question.text,
      // Absent in an older definition: every question was required then.
      required: question.required !== false,
      direct,
      options: question.options ?? [],
      min: question.min,
      max: question.max,
      maxBytes: question.max_bytes,
      randomizer: direct ? null : questionRandomizer(question, surveyCoins),
      // "respondent": the page shows the coin's instruction and sends the answer pressed.
      procedure: question.procedure ?? "device",
      domId: `q-${question.id}`,
      itemId: String(question.id),
      anchor: `q-${question.id}-${{ yes_no: "yes", choice: "o0" }[type] ?? "value"}`,
    };
  });
}

/**
 * The grouping questions (age band, department): no coins, the chosen option id is sent as
 * given, in "groups" (the page says so next to each). `{id, type: "grouping", number, text,
 * required, labels, domId, itemId, anchor}`, `labels` mapping option id to its label.
 */
export function groupingQuestions(survey) {
  return (survey.grouping_questions ?? []).map((question, index) => ({
    id: String(question.id),
    type: "grouping",
    number: index + 1,
    text: question.text,
    required: question.required !== false,
    labels: Object.fromEntries(question.options.map((option) => [option.id, option.label])),
    domId: `g-${question.id}`,
    itemId: `g-${question.id}`,
    anchor: `g-${question.id}-o${question.options[0]?.id}`,
  }));
}

/** Whether every question, grouping ones included, must be answered. */
export function everyQuestionRequired(questions) {
  return questions.every((question) => question.required);
}

/**
 * The answer to one question as the randomizers take it, from what its inputs hold
 * (`checked`: the checked radio's value or null; `text` and `badInput`: a number field's
 * value and validity.badInput): a boolean (yes/no), an option index (choice), an integer
 * (numeric), NaN for a numeric answer that is not a whole number, the option id as given
 * (grouping), or null when there is none.
 */
export function trueAnswer(question, { checked = null, text = "", badInput = false } = {}) {
  if (question.type === "text") {
    // As written; only an empty answer is none.
    return text === "" ? null : text;
  }
  if (question.type === "numeric") {
    return wholeNumber(text, { badInput });
  }
  if (checked === null) return null;
  if (question.type === "grouping") return checked;
  return question.type === "choice" ? Number(checked) : checked === "yes";
}

/**
 * What keeps one answer from being sent: "not_whole" or "out_of_range" for a number that
 * cannot be sent (even on an optional question: it is an answer, just not one that can be
 * sent; the randomizer would otherwise keep it within the range, sending a number nobody
 * typed), "unanswered" for a required question without an answer, else null.
 */
export function answerProblem(question, answer) {
  if (question.type === "numeric") {
    if (Number.isNaN(answer)) return "not_whole";
    if (outsideRange(answer, question)) return "out_of_range";
  }
  if (question.type === "text" && answer !== null && utf8Length(answer) > question.maxBytes) {
    return "too_long";
  }
  return question.required && answer === null ? "unanswered" : null;
}

/**
 * The entries of `[{question, answer, ...}]` whose answer cannot be sent, in page order, each
 * with its `problem` added.
 */
export function answerProblems(entries) {
  return entries
    .map((entry) => ({ ...entry, problem: answerProblem(entry.question, entry.answer) }))
    .filter(({ problem }) => problem !== null);
}

/** The error summary's heading. */
export function summaryHeading(allRequired) {
  return { key: allRequired ? "summary" : "summaryRequired" };
}

/** The error summary's link for one question: "Question 2 has no answer yet". */
export function summaryMessage(question, problem) {
  if (question.type === "grouping") {
    return { key: "unansweredGroup", values: { number: question.number } };
  }
  const key =
    { out_of_range: "outOfRangeItem", not_whole: "notWhole", too_long: "tooLongItem" }[problem] ??
    "unansweredItem";
  const values = { number: question.number };
  if (problem === "out_of_range") Object.assign(values, { min: question.min, max: question.max });
  return { key, values };
}

/** The message next to one question: "Choose Yes or No.", "Enter a whole number." */
export function fieldMessage(question, problem) {
  if (question.type === "text") {
    if (problem === "too_long") {
      return { key: "tooLong", values: { max: question.maxBytes } };
    }
    return { key: "enterText" };
  }
  if (question.type === "numeric") {
    if (problem === "out_of_range") {
      return { key: "outOfRange", values: { min: question.min, max: question.max } };
    }
    return { key: problem === "not_whole" ? "wholeNumber" : "enterNumber" };
  }
  return { key: question.type === "yes_no" ? "chooseOne" : "chooseOption" };
}

/**
 * What to say while the respondent types, not only on sending: 45 for a question from 0 to
 * 30 is named at once. Null when there is nothing to say yet.
 */
export function typingMessage(question, answer) {
  const problem = answerProblem(question, answer);
  return problem === "out_of_range" || problem === "too_long"
    ? fieldMessage(question, problem)
    : null;
}

/** What the preview says when every answer could be sent (nothing is sent from it). */
export function previewMessage(allRequired) {
  return { key: allRequired ? "preview" : "previewOptional" };
}

/**
 * The thank-you's list of what was sent: `[{term, message}]`, one per question in page
 * order, `term` in the survey's own words. A randomized question shows its report (yes or
 * no, the label of the option the randomization picked, the noisy number), a direct or
 * grouping question its answer as given (said so), a skipped one that nothing was sent.
 */
export function sentItems({ questions, groupingQuestions: grouping, answers, groups }) {
  const items = questions.map((question) => ({
    term: `${question.number}. ${question.text}`,
    message: !(question.id in answers)
      ? { key: "skipped" }
      : question.direct
        ? { key: "asGiven", values: { label: reportMessage(question, answers[question.id]) } }
        : reportMessage(question, answers[question.id]),
  }));
  for (const question of grouping) {
    items.push({
      term: question.text,
      message:
        question.id in groups
          ? { key: "asGiven", values: { label: groupLabel(question, groups[question.id]) } }
          : { key: "skipped" },
    });
  }
  return items;
}

function reportMessage(question, report) {
  if (question.type === "text") {
    return { text: report };
  }
  if (question.type === "choice") {
    return { text: question.options[report] ?? String(report) };
  }
  if (question.type === "numeric") {
    return { text: String(report) };
  }
  if (question.randomizer?.cheating) {
    // A cheating-detection code: the group the browser drew and the answer it sent.
    const { group, yes } = decodeCheatingReport(report);
    return { key: "inGroup", values: { group, answer: { key: yes ? "yes" : "no" } } };
  }
  return { key: report ? "yes" : "no" };
}

function groupLabel(question, value) {
  if (value === PREFER_NOT_TO_SAY) {
    return { key: "preferNotToSay" };
  }
  return { text: question.labels[value] ?? "" };
}
