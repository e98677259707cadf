// The respondent page's "try it" control: one round of the survey's two coins for a practice
// answer, shown on screen only. It draws with coins.js's `bernoulli`, as the real answers are
// drawn, so the practice behaves exactly as the coins that will randomize the answers; the
// page passes `crypto` as the random source and sends nothing (nothing here can send).

import { bernoulli } from "./coins.js";

/**
 * One practice round of the forced-response design `{p_truth, p_forced_yes}` for `truth`.
 *
 * Returns `{heads, sent}`: whether coin 1 landed heads (the true answer is sent) and the
 * answer that would be sent. The draws are those of coins.randomizeAnswer, in the same order,
 * so for the same random source both give the same answer.
 */
export function practiceRound({ truth, design, randomSource }) {
  if (typeof truth !== "boolean") {
    throw new TypeError(`truth must be a boolean, got ${truth}`);
  }
  const heads = bernoulli(design.p_truth, randomSource);
  const sent = heads ? truth : bernoulli(design.p_forced_yes, randomSource);
  return { heads, sent };
}

/** Which message announces a round (messages.js turns it into the page's language). */
export function practiceMessage({ round, count }) {
  return {
    key: round.heads ? "practiceHeads" : "practiceTails",
    values: { count, sent: { key: round.sent ? "yes" : "no" } },
  };
}
