// The respondent page: read the true answers from the page, turn them into randomized
// reports, and send only those. Everything but the page itself lives in modules tested with
// node --test: questions.js (the questions, their answers, what keeps them from being sent),
// payload.js (the reports drawn and the one body sent), submit.js (one press of the button:
// drawing, keeping, sending, the server's answer), memory.js (what the browser keeps),
// messages.js (every string shown), and under them coins.js, designs.js and exact.js (the
// randomization). This file reads and writes the page and binds its events, nothing else.

import { armedQuestions, assignArm, showArm } from "./control.js";
import { Outcome, obtainToken, takeCode } from "./invitation.js";
import { messageText } from "./messages.js";
import { surveyMemory } from "./memory.js";
import {
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
} from "./questions.js";
import { shuffledInPlace } from "./order.js";
import { practiceMessage, practiceRound } from "./practice.js";
import { comprehensionAnswers, comprehensionQuestions } from "./comprehension.js";
import { setUpComprehension } from "./comprehension-page.js";
import { outcomeMessage, reloads, sendAnswers } from "./submit.js";

function browserStorage() {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    // Reading localStorage throws when the browser blocks site data: carry on without it.
    return null;
  }
}

function setupPage(definition) {
  const { survey, preview } = definition;
  const sharedDevice = survey.shared_devices === true;
  // The preview touches no storage at all (memory.js says what is kept on each device).
  const memory = surveyMemory({
    storage: preview ? null : browserStorage(),
    slug: survey.slug,
    fingerprint: survey.design_fingerprint,
    sharedDevice,
  });
  // The control group (control.js): this respondent's version, drawn once and kept.
  const arm = assignArm({ survey, memory, randomSource: globalThis.crypto });
  const randomized = armedQuestions(surveyQuestions(survey), survey, arm);
  showArm(document, randomized, arm);
  const grouping = groupingQuestions(survey);
  const allQuestions = [...randomized, ...grouping].map((question) => {
    const fieldset = document.getElementById(question.domId);
    return {
      question,
      fieldset,
      describedBy: fieldset.getAttribute("aria-describedby"),
      error: document.getElementById(`${question.domId}-error`),
    };
  });
  const allRequired = everyQuestionRequired(allQuestions.map(({ question }) => question));
  const button = document.getElementById("respond-submit");
  const errors = document.getElementById("respond-errors");
  const status = document.getElementById("respond-status");
  const questionsSection = document.getElementById("respond-questions");
  const done = document.getElementById("respond-done");
  const sentList = document.getElementById("respond-sent");
  if (memory.alreadySent) {
    document.getElementById("respond-already").hidden = false;
  }
  setUpConsent(questionsSection);
  // The comprehension check's practice rounds (none unless the survey asks for them).
  const practice = setUpComprehension(survey);
  // The survey's own text keeps the language the researcher wrote it in (BCP 47, from the page).
  const surveyLanguage =
    document.querySelector(".respond-header [lang]")?.lang || survey.language;
  // Error messages from the API in the page's language (submit.js says why it is a header).
  const pageLanguage = document.documentElement.lang || "en";

  // What one question's inputs hold, as questions.js `trueAnswer` reads it (the browser
  // empties a number field's `value` for text it cannot read, and says so in badInput).
  function answerOf(question) {
    if (question.type === "text") {
      return trueAnswer(question, {
        text: document.getElementById(`${question.domId}-value`).value,
      });
    }
    if (question.type === "numeric") {
      const input = document.getElementById(`${question.domId}-value`);
      return trueAnswer(question, {
        text: input.value,
        badInput: input.validity?.badInput === true,
      });
    }
    const input = document.querySelector(`input[name="${question.domId}"]:checked`);
    return trueAnswer(question, { checked: input ? input.value : null });
  }

  function showQuestionError(entry, message) {
    entry.error.textContent = messageText(message);
    entry.error.hidden = false;
    entry.fieldset.setAttribute("aria-invalid", "true");
    entry.fieldset.setAttribute(
      "aria-describedby",
      [entry.error.id, entry.describedBy].filter(Boolean).join(" "),
    );
  }

  function clearQuestionError(entry) {
    entry.error.hidden = true;
    entry.error.textContent = "";
    entry.fieldset.removeAttribute("aria-invalid");
    if (entry.describedBy) {
      entry.fieldset.setAttribute("aria-describedby", entry.describedBy);
    } else {
      entry.fieldset.removeAttribute("aria-describedby");
    }
  }

  function showErrors(problems) {
    errors.replaceChildren();
    if (problems.length === 0) {
      errors.classList.remove("error-summary--active");
      return;
    }
    const heading = document.createElement("p");
    heading.className = "error-summary__title";
    heading.textContent = messageText(summaryHeading(allRequired));
    const list = document.createElement("ul");
    for (const { entry, problem } of problems) {
      const item = document.createElement("li");
      item.dataset.questionId = entry.question.itemId;
      const link = document.createElement("a");
      link.href = `#${entry.question.anchor}`;
      link.textContent = messageText(summaryMessage(entry.question, problem));
      item.append(link);
      list.append(item);
      showQuestionError(entry, fieldMessage(entry.question, problem));
    }
    errors.append(heading, list);
    errors.classList.add("error-summary--active");
  }

  function setStatus(message, tone) {
    status.textContent = message ? messageText(message) : "";
    status.dataset.tone = tone ?? "";
  }

  // An invitation survey (docs/invitations.md): the code in the link's fragment is traded for
  // a token when the page opens, not when the answers are sent, so the two requests are apart
  // in time; the token is kept in the memo (in memory only on a shared device).
  const invited = survey.access === "invitation" || survey.access === "both";
  const invitationBox = document.getElementById("respond-invitation");
  const invitationStatus = document.getElementById("respond-invitation-status");
  const codeForm = document.getElementById("respond-code-form");

  function showInvitation(key, tone, { askCode = false } = {}) {
    if (!invitationBox) return;
    invitationBox.hidden = false;
    invitationStatus.textContent = messageText({ key });
    invitationStatus.dataset.tone = tone ?? "";
    codeForm.hidden = !askCode;
  }

  async function useCode(code) {
    showInvitation("invitationBusy", "busy");
    let result;
    try {
      result = await obtainToken({
        tokenKey: survey.token_key,
        scheme: survey.token_scheme,
        tokensUrl: definition.tokens_url,
        code,
        fetcher: (...args) => globalThis.fetch(...args),
        randomSource: globalThis.crypto,
      });
    } catch {
      result = { outcome: Outcome.REFUSED };
    }
    if (result.outcome === Outcome.OK) {
      memory.keepToken(result.token, globalThis.crypto);
      showInvitation("invitationReady", "info");
      return;
    }
    const key =
      { [Outcome.USED]: "invitationUsed", [Outcome.UNKNOWN]: "invitationUnknown" }[
        result.outcome
      ] ?? "invitationFailed";
    showInvitation(key, "error", {
      askCode: result.outcome === Outcome.UNKNOWN && survey.access === "invitation",
    });
  }

  function setUpInvitation() {
    if (!invited || preview) return;
    // Read and removed from the address bar at once, used or not.
    const code = takeCode(globalThis.location, globalThis.history);
    if (memory.token) {
      showInvitation("invitationReady", "info");
    } else if (code && globalThis.crypto?.subtle) {
      useCode(code);
    } else if (survey.access === "invitation") {
      showInvitation("invitationNeeded", "error", { askCode: true });
    }
    codeForm?.addEventListener("submit", (event) => {
      event.preventDefault();
      const typed = document.getElementById("respond-code").value.trim();
      if (typed) useCode(typed);
    });
  }

  function setBusy(busy) {
    button.disabled = busy;
    if (busy) {
      questionsSection.setAttribute("aria-busy", "true");
    } else {
      questionsSection.removeAttribute("aria-busy");
    }
  }

  function showDone({ answers, groups, replayed }) {
    document.getElementById("respond-done-replayed").hidden = !replayed;
    document.getElementById("respond-done-shared").hidden = !sharedDevice;
    sentList.replaceChildren();
    for (const { term, message } of sentItems({
      questions: randomized,
      groupingQuestions: grouping,
      answers,
      groups,
    }).concat(practice.sentItems(answers))) {
      const title = document.createElement("dt");
      title.textContent = term;
      title.lang = surveyLanguage;
      const value = document.createElement("dd");
      value.textContent = messageText(message);
      sentList.append(title, value);
    }
    // The true answers have done their job: do not leave them on screen or in the page.
    for (const input of questionsSection.querySelectorAll("input[type=radio]")) {
      input.checked = false;
    }
    for (const input of questionsSection.querySelectorAll("input[type=number]")) {
      input.value = "";
    }
    questionsSection.hidden = true;
    practice.hide();
    done.hidden = false;
    // Show the thank-you with the survey's title above it, then hand it the focus.
    globalThis.scrollTo(0, 0);
    done.scrollIntoView({ block: "nearest" });
    done.focus({ preventScroll: true });
  }

  async function send(entries) {
    // Only whether each practice round's first try was right; a round not tried sends nothing.
    const understood = comprehensionAnswers(practice.rounds, practice.records);
    const hidden = comprehensionQuestions(practice.rounds);
    const { attempt, outcome } = await sendAnswers({
      page: definition,
      questions: [...randomized, ...hidden],
      entries: [
        ...entries,
        ...hidden.map((question) => ({ question, answer: understood[question.id] ?? null })),
      ],
      memory,
      randomSource: globalThis.crypto,
      fetch: (...request) => globalThis.fetch(...request),
      language: pageLanguage,
      onSending: () => {
        setBusy(true);
        setStatus({ key: "sending" }, "busy");
      },
    });
    if (outcome.kind === "stored") {
      setStatus(null, "");
      showDone(attempt);
    } else {
      setStatus(outcomeMessage(outcome), "error");
      if (outcome.kind === "invitation_used" || outcome.kind === "invitation_needed") {
        showInvitation(outcomeMessage(outcome).key, "error", {
          askCode: outcome.kind === "invitation_needed" && survey.access === "invitation",
        });
      }
      if (reloads(outcome)) {
        globalThis.location.reload();
      }
    }
    setBusy(false);
  }

  function onSubmit() {
    const read = allQuestions.map((entry) => ({
      entry,
      question: entry.question,
      answer: answerOf(entry.question),
    }));
    const problems = answerProblems(read);
    setStatus(null, "");
    showErrors(problems);
    if (problems.length > 0) {
      document.getElementById(problems[0].entry.question.anchor).focus();
      return;
    }
    if (preview) {
      setStatus(previewMessage(allRequired), "info");
      return;
    }
    if (!globalThis.crypto?.getRandomValues) {
      // Never fall back to a predictable generator: the coins are the privacy.
      setStatus({ key: "noCrypto" }, "error");
      return;
    }
    if (survey.access === "invitation" && !memory.token) {
      setStatus({ key: "invitationNeeded" }, "error");
      showInvitation("invitationNeeded", "error", { askCode: true });
      return;
    }
    send(read);
  }

  // "Clear answer" on an optional question: back to no answer, so that nothing is sent for it.
  for (const clear of questionsSection.querySelectorAll("button[data-clear]")) {
    clear.addEventListener("click", () => {
      const named = `[name="${clear.dataset.clear}"]`;
      for (const input of document.querySelectorAll(`input${named}, textarea${named}`)) {
        if (input.type === "number" || input.type === "textarea") {
          input.value = "";
        } else {
          input.checked = false;
        }
      }
    });
  }
  for (const entry of allQuestions) {
    const { question } = entry;
    const typed = question.type === "numeric" || question.type === "text";
    entry.fieldset.addEventListener(typed ? "input" : "change", () => {
      clearQuestionError(entry);
      errors.querySelector(`li[data-question-id="${question.itemId}"]`)?.remove();
      if (!errors.querySelector("li")) {
        showErrors([]);
      }
      const message = typingMessage(question, answerOf(question));
      if (message) {
        showQuestionError(entry, message);
      }
    });
  }
  button.addEventListener("click", onSubmit);
  setUpInvitation();
  document
    .getElementById("respond-next-person")
    ?.addEventListener("click", () => globalThis.location.reload());
  button.disabled = false;
}

// A consent text, when the survey has one, comes first: the questions stay hidden until the
// respondent ticks that they agree. Only the page changes; nothing about it is sent or kept.
function setUpConsent(questionsSection) {
  const box = document.getElementById("respond-consent-accept");
  if (!box || !questionsSection.hasAttribute("data-needs-consent")) {
    return;
  }
  const status = document.getElementById("respond-consent-status");
  box.checked = false;
  box.disabled = false;
  box.addEventListener("change", () => {
    questionsSection.hidden = !box.checked;
    status.textContent = messageText({ key: box.checked ? "consentGiven" : "consentWithdrawn" });
  });
}

// Random question order (survey.shuffle_questions): this browser's own order, drawn here with
// crypto.getRandomValues and applied to the page; the body sends it as `order` (payload.js),
// so that the researcher can test order effects, and nothing keeps it. The grouping questions
// and the pinned ones keep their places; "Question k of n" and the "Clear answer to question
// k of n" labels follow the order shown. Returns the definition's survey with its questions in
// the order shown, so messages number them as the page does and the body sends that order.
function applyQuestionOrder(survey) {
  const secure = typeof globalThis.crypto?.getRandomValues === "function";
  if (survey.shuffle_questions !== true || !secure) {
    return survey;
  }
  const byId = new Map(survey.questions.map((question) => [`q-${question.id}`, question]));
  const fieldsets = [...document.querySelectorAll("#respond-questions fieldset.question")];
  const numberTexts = fieldsets.map(
    (fieldset) => fieldset.querySelector(".question-number")?.firstChild?.data,
  );
  const movable = (fieldset) => byId.has(fieldset.id) && byId.get(fieldset.id).pinned !== true;
  const order = shuffledInPlace(fieldsets, movable, globalThis.crypto);
  // Each place is marked, then filled with the fieldset drawn for it.
  const places = fieldsets.map((fieldset) => {
    const place = document.createComment("");
    fieldset.replaceWith(place);
    return place;
  });
  order.forEach((fieldset, index) => {
    places[index].replaceWith(fieldset);
    const number = fieldset.querySelector(".question-number")?.firstChild;
    if (number && byId.has(fieldset.id) && numberTexts[index] !== undefined) {
      number.data = numberTexts[index];
    }
  });
  const placed = order.filter((fieldset) => byId.has(fieldset.id));
  placed.forEach((fieldset, index) => {
    const clear = fieldset.querySelector(".clear-number");
    if (clear) {
      clear.textContent = String(index + 1);
    }
  });
  return { ...survey, questions: placed.map((fieldset) => byId.get(fieldset.id)) };
}

// The "try it" control: the survey's coins for a practice "yes", on screen only. Without
// secure randomness it stays hidden, as nothing could be drawn honestly.
function setUpPractice(survey) {
  const box = document.getElementById("try-coins");
  if (!box || typeof globalThis.crypto?.getRandomValues !== "function") {
    return;
  }
  const result = document.getElementById("try-coins-result");
  const design = { p_truth: survey.p_truth, p_forced_yes: survey.p_forced_yes };
  let count = 0;
  document.getElementById("try-coins-button").addEventListener("click", () => {
    count += 1;
    const round = practiceRound({ truth: true, design, randomSource: globalThis.crypto });
    result.textContent = messageText(practiceMessage({ round, count }));
  });
  box.hidden = false;
}

const definitionElement = document.getElementById("respond-definition");
if (definitionElement) {
  const definition = JSON.parse(definitionElement.textContent);
  setUpPractice(definition.survey);
  setupPage({ ...definition, survey: applyQuestionOrder(definition.survey) });
}
