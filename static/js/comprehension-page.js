// The comprehension check on the respondent page: only the wiring (comprehension.js holds
// the rounds, the feedback and what is sent). Each round is a radio group; a choice shows
// right or wrong and why at once, and the first choice of each round is what counts.

import {
  practiceFeedback,
  practiceRounds,
  practiceScenario,
  recordTry,
  scenarioMessage,
} from "./comprehension.js";
import { messageText } from "./messages.js";

/**
 * Draws each round's made-up answer, writes its question and binds its radios. Returns
 * `{rounds, records, sentItems(answers)}`: the rounds, their records (read when sending),
 * and the thank-you's lines for what was sent about them.
 */
export function setUpComprehension(survey) {
  const section = document.getElementById("respond-practice");
  const secure = typeof globalThis.crypto?.getRandomValues === "function";
  const rounds = section && secure ? practiceRounds(survey) : [];
  const records = new Map();
  for (const round of rounds) {
    const scenario = practiceScenario({
      design: round.design,
      procedure: round.procedure,
      practice: round.practice,
      randomSource: globalThis.crypto,
    });
    const fieldset = document.getElementById(round.domId);
    if (!fieldset) continue;
    fieldset.querySelector(".practice-scenario").textContent = messageText(
      scenarioMessage(scenario),
    );
    const verdict = document.getElementById(`${round.domId}-feedback`);
    fieldset.addEventListener("change", (event) => {
      if (event.target?.type !== "radio") return;
      const choice = event.target.value === "yes";
      records.set(round.id, recordTry(records.get(round.id), scenario, choice));
      const feedback = practiceFeedback(scenario, choice);
      verdict.textContent = `${messageText(feedback.verdict)} ${messageText(feedback.why)}`;
      verdict.className = `practice-feedback practice-feedback--${feedback.right ? "right" : "wrong"}`;
    });
  }
  if (rounds.length > 0) {
    section.hidden = section.hasAttribute("data-needs-consent");
    document
      .getElementById("respond-consent-accept")
      ?.addEventListener("change", (event) => {
        section.hidden = !event.target.checked;
      });
  }
  return {
    rounds,
    records,
    hide() {
      if (section) section.hidden = true;
    },
    sentItems(answers) {
      return rounds.map((round, index) => ({
        term: messageText({ key: "practiceSentTerm", values: { number: index + 1 } }),
        message:
          round.id in answers
            ? {
                key: "asGiven",
                values: { label: { key: answers[round.id] ? "practiceUnderstood" : "practiceNotUnderstood" } },
              }
            : { key: "skipped" },
      }));
    },
  };
}
