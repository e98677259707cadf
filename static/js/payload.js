// What one attempt at the survey sends: the reports drawn from the memo (coins.js) and the
// submission body, padded to the survey's one length (body.js). `submissionPayload` is the one
// place that names the body's members; the server's side is surveys/api/ and
// surveys/selectors/submission_length.py (the widest body, which the padding reaches).

import { paddedBody } from "./body.js";
import { answeredOnly, memoReports } from "./coins.js";

/**
 * The answers given, from `[{question, answer}]` (answer null when there is none): `{truths,
 * groups}`, each mapping question id to the answer, for the questions answered only. A
 * skipped optional question gets no key at all: nothing about it is sent (its table is
 * drawn all the same, see `memoReports`).
 */
export function givenAnswers(entries) {
  const pick = (grouping) =>
    answeredOnly(
      entries
        .filter(({ question }) => (question.type === "grouping") === grouping)
        .map(({ question, answer }) => [question.id, answer]),
    );
  return { truths: pick(false), groups: pick(true) };
}

/**
 * The submission as the public API takes it: `{submission_id, answers, design_fingerprint}`,
 * plus `groups` on a survey with grouping questions (null: none). Nothing else is sent.
 */
export function submissionPayload({ submissionId, answers, fingerprint, groups = null }) {
  const payload = { submission_id: submissionId, answers, design_fingerprint: fingerprint };
  if (groups !== null) {
    payload.groups = groups;
  }
  return payload;
}

/**
 * One attempt at `survey` (the public definition): the reports for `truths` drawn from
 * `memo` (a table for every question of `questions`, answered or not; a new memo when it is
 * null), and the body to send. Returns `{answers, groups, memo, replayed, body}`: `replayed`
 * when this memo's submission was already stored (the server keeps it once), `body` the JSON
 * text, `survey.submission_length` bytes whatever was answered or skipped.
 */
export function prepareSubmission({ survey, questions, truths, groups, memo, randomSource }) {
  const randomizers = Object.fromEntries(
    questions.map((question) => [question.id, question.randomizer]),
  );
  const drawn = memoReports({ randomizers, truths, memo, randomSource });
  const grouped = (survey.grouping_questions ?? []).length > 0;
  const payload = submissionPayload({
    submissionId: drawn.memo.submissionId,
    answers: drawn.answers,
    fingerprint: survey.design_fingerprint,
    groups: grouped ? groups : null,
  });
  return {
    answers: drawn.answers,
    groups,
    memo: drawn.memo,
    replayed: drawn.memo.sent,
    body: paddedBody(payload, survey.submission_length),
  };
}
