// What one attempt at the survey sends: the reports drawn from the memo (coins.js) and the
// submission body, padded to the survey's one length (body.js). `submissionPayload` is the one
// place that names the body's members; the server's side is surveys/api/ and
// surveys/selectors/submission_length.py (the widest body, which the padding reaches).

import { paddedBody } from "./body.js";
import { answeredOnly, memoReports } from "./coins.js";
import { directReport } from "./direct.js";

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
 * plus `groups` on a survey with grouping questions (null: none) and `order`, the question
 * ids in the order the page showed them (null: not sent). Nothing else is sent.
 */
export function submissionPayload({
  submissionId,
  answers,
  fingerprint,
  groups = null,
  order = null,
}) {
  // The answers in question-id order, whatever order the page showed them in: the order is
  // sent once, as `order`, so that the researcher can test order effects.
  const canonical = Object.fromEntries(
    Object.entries(answers).sort(([a], [b]) => Number(a) - Number(b)),
  );
  const payload = {
    submission_id: submissionId,
    answers: canonical,
    design_fingerprint: fingerprint,
  };
  if (groups !== null) {
    payload.groups = groups;
  }
  if (order !== null) {
    payload.order = order;
  }
  return payload;
}

/**
 * One attempt at `survey` (the public definition): the reports for `truths` drawn from
 * `memo` (a table for every randomized question of `questions`, answered or not; a new memo
 * when it is null), and the body to send. A direct question's answer is sent as given
 * (`directReport`), and nothing about it enters the memo. Returns `{answers, groups, memo,
 * replayed, body}`: `answers` what each question sent (a direct text as written),
 * `replayed` when this memo's submission was already stored (the server keeps it once),
 * `body` the JSON text, `survey.submission_length` bytes whatever was answered or skipped.
 */
export function prepareSubmission({ survey, questions, truths, groups, memo, randomSource }) {
  const direct = new Map(
    questions.filter((question) => question.direct).map((question) => [question.id, question]),
  );
  const randomizers = Object.fromEntries(
    questions
      .filter((question) => !question.direct)
      .map((question) => [question.id, question.randomizer]),
  );
  const entries = truths instanceof Map ? [...truths] : Object.entries(truths ?? {});
  const randomized = entries.filter(([id]) => !direct.has(String(id)));
  const drawn = memoReports({
    randomizers,
    truths: Object.fromEntries(randomized),
    memo,
    randomSource,
  });
  const sent = { ...drawn.answers };
  const shown = { ...drawn.answers };
  for (const [id, answer] of entries) {
    const question = direct.get(String(id));
    if (question !== undefined) {
      sent[question.id] = directReport(question, answer);
      shown[question.id] = answer;
    }
  }
  const grouped = (survey.grouping_questions ?? []).length > 0;
  const payload = submissionPayload({
    submissionId: drawn.memo.submissionId,
    answers: sent,
    fingerprint: survey.design_fingerprint,
    groups: grouped ? groups : null,
    // `survey.questions` in the order shown (respond.js applyQuestionOrder): the same ids
    // whatever the order, so the body keeps its one length.
    order: (survey.questions ?? []).map((question) => Number(question.id)),
  });
  if (drawn.memo.token) {
    // An invitation survey's token (invitation.js), obtained when the link was opened.
    payload.token = drawn.memo.token;
  }
  return {
    answers: shown,
    groups,
    memo: drawn.memo,
    replayed: drawn.memo.sent,
    body: paddedBody(payload, survey.submission_length),
  };
}
