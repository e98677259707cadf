// questions.js: the survey's questions as the respondent page reads, checks and describes
// them. The messages are read in English through messages.js (no catalog loaded in node), the
// texts tests/e2e/test_respondent.py and test_question_types.py see in the page.

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { PREFER_NOT_TO_SAY } from "../../static/js/constants.js";
import { messageText } from "../../static/js/messages.js";
import {
  answerProblem,
  answerProblems,
  everyQuestionRequired,
  fieldMessage,
  groupingQuestions,
  previewMessage,
  sentItems,
  summaryHeading,
  summaryMessage,
  surveyQuestions,
  trueAnswer,
  typingMessage,
} from "../../static/js/questions.js";
import { definition } from "./definition.mjs";

const { survey } = definition();
const [yesNo, warner, choice, numeric] = surveyQuestions(survey);
const [age] = groupingQuestions(survey);
const text = (message) => (message === null ? null : messageText(message));

describe("the questions of a definition", () => {
  it("are numbered in page order with the ids the page's inputs carry", () => {
    assert.deepEqual(
      surveyQuestions(survey).map(({ id, type, number, domId, itemId, anchor }) => [
        id,
        type,
        number,
        domId,
        itemId,
        anchor,
      ]),
      [
        ["11", "yes_no", 1, "q-11", "11", "q-11-yes"],
        ["12", "yes_no", 2, "q-12", "12", "q-12-yes"],
        ["13", "choice", 3, "q-13", "13", "q-13-o0"],
        ["14", "numeric", 4, "q-14", "14", "q-14-value"],
      ],
    );
    assert.deepEqual(
      [yesNo, warner, choice, numeric].map((question) => question.required),
      [true, false, true, false],
    );
  });

  it("carry each question's randomizer: one report per possible answer", () => {
    assert.deepEqual(
      [yesNo, warner, choice, numeric].map(({ randomizer }) => randomizer.size),
      [2, 2, 3, 6],
    );
  });

  it("read a definition from before types and optional questions as yes/no and required", () => {
    const [old] = surveyQuestions({ ...survey, questions: [{ id: 5, text: "Old?" }] });
    assert.equal(old.type, "yes_no");
    assert.equal(old.required, true);
    assert.equal(old.randomizer.size, 2);
    assert.equal(old.randomizer.indexOf(false), 1);
    assert.deepEqual(groupingQuestions({ ...survey, grouping_questions: undefined }), []);
  });

  it("keep grouping questions apart, with their labels and anchors", () => {
    assert.deepEqual(age, {
      id: "7",
      type: "grouping",
      number: 1,
      text: "Your age",
      required: false,
      labels: { 70: "Under 30", 71: "30 or over" },
      domId: "g-7",
      itemId: "g-7",
      anchor: "g-7-o70",
    });
  });

  it("are all required only when no question, grouping ones included, may be skipped", () => {
    assert.equal(everyQuestionRequired([yesNo, choice]), true);
    assert.equal(everyQuestionRequired([yesNo, choice, age]), false);
    assert.equal(text(summaryHeading(true)), "Please answer every question before sending:");
    assert.equal(
      text(summaryHeading(false)),
      "Please answer the required questions before sending:",
    );
    assert.match(text(previewMessage(true)), /^Preview: every question is answered\./);
    assert.match(text(previewMessage(false)), /^Preview: every required question is answered\./);
  });
});

describe("reading an answer", () => {
  it("reads radios as a boolean, an option index or the option id as given", () => {
    assert.equal(trueAnswer(yesNo, { checked: "yes" }), true);
    assert.equal(trueAnswer(yesNo, { checked: "no" }), false);
    assert.equal(trueAnswer(yesNo, { checked: null }), null);
    assert.equal(trueAnswer(choice, { checked: "0" }), 0);
    assert.equal(trueAnswer(choice, { checked: "2" }), 2);
    assert.equal(trueAnswer(age, { checked: "71" }), "71");
    assert.equal(trueAnswer(age, { checked: PREFER_NOT_TO_SAY }), PREFER_NOT_TO_SAY);
    assert.equal(trueAnswer(age, {}), null);
  });

  it("reads a number field as a whole number, NaN for anything else, null when empty", () => {
    assert.equal(trueAnswer(numeric, { text: "3" }), 3);
    assert.equal(trueAnswer(numeric, { text: " -2 " }), -2);
    assert.equal(trueAnswer(numeric, { text: "" }), null);
    assert.ok(Number.isNaN(trueAnswer(numeric, { text: "17.5" })));
    // The browser empties `value` for text it cannot read as a number, and says so.
    assert.ok(Number.isNaN(trueAnswer(numeric, { text: "", badInput: true })));
  });
});

describe("what keeps an answer from being sent", () => {
  it("names a required question without an answer, never an optional one", () => {
    assert.equal(answerProblem(yesNo, null), "unanswered");
    assert.equal(answerProblem(yesNo, false), null);
    assert.equal(answerProblem(choice, 0), null);
    assert.equal(answerProblem(warner, null), null);
    assert.equal(answerProblem(age, null), null);
    assert.equal(answerProblem({ ...age, required: true }, null), "unanswered");
    assert.equal(answerProblem({ ...numeric, required: true }, null), "unanswered");
  });

  it("refuses a number that is not whole or is outside the range, optional or not", () => {
    assert.equal(answerProblem(numeric, Number.NaN), "not_whole");
    assert.equal(answerProblem(numeric, 6), "out_of_range");
    assert.equal(answerProblem(numeric, -1), "out_of_range");
    assert.equal(answerProblem(numeric, 0), null);
    assert.equal(answerProblem(numeric, 5), null);
    assert.equal(answerProblem(numeric, null), null);
  });

  it("lists the problems in page order, keeping what the page attached", () => {
    const entries = [
      { question: yesNo, answer: null, element: "a" },
      { question: warner, answer: null, element: "b" },
      { question: choice, answer: 1, element: "c" },
      { question: numeric, answer: 45, element: "d" },
    ];
    assert.deepEqual(
      answerProblems(entries).map(({ element, problem }) => [element, problem]),
      [
        ["a", "unanswered"],
        ["d", "out_of_range"],
      ],
    );
    assert.deepEqual(answerProblems([]), []);
  });

  it("is said in the summary by question number, and next to each question", () => {
    const said = [
      [yesNo, "unanswered", "Question 1 has no answer yet", "Choose Yes or No."],
      [choice, "unanswered", "Question 3 has no answer yet", "Choose one option."],
      [numeric, "unanswered", "Question 4 has no answer yet", "Enter a whole number."],
      [
        numeric,
        "not_whole",
        "Question 4 needs a whole number",
        "Enter a whole number, without decimals or other characters.",
      ],
      [
        numeric,
        "out_of_range",
        "Question 4 needs a number from 0 to 5",
        "Enter a whole number from 0 to 5.",
      ],
      [age, "unanswered", "About you 1 has no answer yet", "Choose one option."],
    ];
    for (const [question, problem, summary, field] of said) {
      assert.equal(text(summaryMessage(question, problem)), summary);
      assert.equal(text(fieldMessage(question, problem)), field);
    }
  });

  it("names a number outside the range while it is typed, and nothing else", () => {
    assert.equal(text(typingMessage(numeric, 45)), "Enter a whole number from 0 to 5.");
    assert.equal(text(typingMessage(numeric, -1)), "Enter a whole number from 0 to 5.");
    assert.equal(typingMessage(numeric, 4), null);
    assert.equal(typingMessage(numeric, null), null);
    assert.equal(typingMessage(numeric, Number.NaN), null); // said on sending
    assert.equal(typingMessage(yesNo, null), null);
    assert.equal(typingMessage({ ...age, required: true }, null), null);
  });
});

describe("the list of what was sent", () => {
  it("shows each report in words, skipped questions, and grouping answers as given", () => {
    const items = sentItems({
      questions: [yesNo, warner, choice, numeric],
      groupingQuestions: [age],
      answers: { 11: true, 12: false, 13: 2, 14: -7 },
      groups: { 7: "70" },
    });
    assert.deepEqual(
      items.map(({ term, message }) => [term, text(message)]),
      [
        ["1. Have you cheated?", "Yes"],
        ["2. Have you lied to your manager?", "No"],
        ["3. Which did you take most?", "Paper"],
        ["4. Drinks in a week?", "-7"],
        ["Your age", "Under 30 (sent as given, not randomized)"],
      ],
    );
  });

  it("says nothing was sent for a skipped question, and names Prefer not to say", () => {
    const items = sentItems({
      questions: [yesNo, warner, choice, numeric],
      groupingQuestions: [age],
      answers: { 11: false, 13: 0 },
      groups: { 7: PREFER_NOT_TO_SAY },
    });
    assert.deepEqual(
      items.map(({ message }) => text(message)),
      [
        "No",
        "Skipped: nothing sent",
        "None",
        "Skipped: nothing sent",
        "Prefer not to say (sent as given, not randomized)",
      ],
    );
    const skipped = sentItems({
      questions: [],
      groupingQuestions: [age],
      answers: {},
      groups: {},
    });
    assert.equal(text(skipped[0].message), "Skipped: nothing sent");
  });
});
