// The respondent page: read the true answers from the page, turn them into randomized
// reports, and send only those. Everything but the page itself lives in modules tested with
// node --test: questions.js (the questions, their answers, what keeps them from being sent),
// payload.js (the reports drawn and the one body sent), submit.js (one press of the button:
// drawing, keeping, sending, the server's answer), memory.js (what the browser keeps),
// messages.js (every string shown), and under them coins.js, designs.js and exact.js (the
// randomization). This file reads and writes the page and binds its events, nothing else.

import { armedQuestions, assignArm, showArm } from "./control.js";
import {
  CodeState,
  Outcome,
  checkCode,
  forgetCode,
  invitationView,
  keepCode,
  obtainToken,
  takeCode,
} from "./invitation.js";
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
import { memoOutcome } from "./coins.js";
import { instructionMessage } from "./procedure.js";

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
  showInstructions(randomized, memory);
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
  const consent = setUpConsent(questionsSection);
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

  // An invitation survey (docs/invitations.md, invitation.js): the page asks what the code in
  // the link can still do before it shows any question, and trades the code for a token only
  // when the invitee first acts (ticks consent, or gives a first answer), so that opening the
  // link on one device does not use it up for another; the token is kept in the memo (in
  // memory only on a shared device).
  const invited = survey.access === "invitation" || survey.access === "both";
  const invitationBox = document.getElementById("respond-invitation");
  const invitationStatus = document.getElementById("respond-invitation-status");
  const codeForm = document.getElementById("respond-code-form");
  // What shows only once the invitation allows it: the consent, then (once ticked, if there
  // is one) the practice and the questions. The questions of an invitation-only survey come
  // hidden from the server, so that none shows before the code's state is known.
  const consentBox = document.getElementById("respond-consent-accept");
  const gated = ["respond-consent", "respond-practice", "respond-questions"]
    .map((id) => document.getElementById(id))
    .filter(Boolean);
  const shownBefore = new Map(
    gated.map((section) => [
      section,
      section.id !== "respond-practice" || practice.rounds.length > 0,
    ]),
  );
  let pendingCode = null; // a code that can obtain its token, until it has
  let obtaining = null;

  function showInvitation(key, tone, { askCode = false } = {}) {
    if (!invitationBox) return;
    invitationBox.hidden = false;
    invitationStatus.textContent = messageText({ key });
    invitationStatus.dataset.tone = tone ?? "";
    codeForm.hidden = !askCode;
  }

  function showView(view) {
    if (!view) return;
    showInvitation(view.key, view.tone, { askCode: view.askCode });
    for (const section of gated) {
      const waitsForConsent = section.hasAttribute("data-needs-consent") && !consentBox?.checked;
      section.hidden = !view.questions || !shownBefore.get(section) || waitsForConsent;
    }
  }

  function viewFor(state, checking = false) {
    return invitationView({
      access: survey.access,
      token: memory.token,
      sent: memory.alreadySent,
      state,
      checking,
    });
  }

  // The first act: the token for the pending code (once; resolves when it is kept or refused).
  function obtainOnFirstAct() {
    if (!pendingCode || memory.token) return obtaining ?? Promise.resolve();
    obtaining ??= useCode(pendingCode).finally(() => {
      obtaining = null;
    });
    return obtaining;
  }

  async function useCode(code) {
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
    }
    if (result.outcome === Outcome.OK || result.outcome === Outcome.USED) {
      pendingCode = null;
      forgetCode(globalThis.history);
    }
    if (result.outcome !== Outcome.OK) {
      // Used meanwhile on another device, unknown since (a reset), or no answer.
      const state =
        { [Outcome.USED]: CodeState.ISSUED, [Outcome.UNKNOWN]: CodeState.INVALID }[
          result.outcome
        ] ?? CodeState.FAILED;
      showView(viewFor(state));
      return;
    }
    showInvitation("invitationReady", "info");
  }

  async function askAbout(code) {
    showView(viewFor(null, true));
    const state = await checkCode({
      statusUrl: definition.invitation_status_url,
      code,
      fetcher: (...args) => globalThis.fetch(...args),
    });
    pendingCode = state === CodeState.UNUSED ? code : null;
    if (state === CodeState.UNUSED) {
      keepCode(globalThis.history, code);
    } else if (state !== CodeState.FAILED) {
      forgetCode(globalThis.history);
    }
    showView(viewFor(state));
  }

  function setUpInvitation() {
    if (!invited || preview) return;
    // Read and removed from the address bar at once, used or not.
    const code = takeCode(globalThis.location, globalThis.history);
    if (memory.token) {
      forgetCode(globalThis.history);
      showView(viewFor(null));
    } else if (code && globalThis.crypto?.subtle) {
      askAbout(code);
    } else {
      showView(viewFor(null));
    }
    codeForm?.addEventListener("submit", (event) => {
      event.preventDefault();
      const typed = document.getElementById("respond-code").value.trim();
      if (typed && !memory.token && globalThis.crypto?.subtle) askAbout(typed);
    });
    // The first act on the page: ticking consent, or any answer (practice rounds included).
    const acted = (event) => {
      if (event.target?.closest?.("#respond-consent, #respond-practice, #respond-questions")) {
        obtainOnFirstAct();
      }
    };
    document.addEventListener("change", acted);
    document.addEventListener("input", acted);
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
    consent.sent();
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
    if (invited && !preview && memory.token && memory.alreadySent) {
      return; // sent with this token already (no Send is offered; invitationView)
    }
    (invited && !preview ? obtainOnFirstAct() : Promise.resolve()).then(() => {
      if (survey.access === "invitation" && !memory.token) {
        setStatus({ key: "invitationNeeded" }, "error");
        return;
      }
      send(read);
    });
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

// The respondent procedure (procedure.js): each such question shows the instruction its memo
// secret fixes, drawn now, before any answer, and the same on a retake. Without secure
// randomness nothing is drawn and the question cannot be answered (sending refuses anyway).
function showInstructions(questions, memory) {
  const following = questions.filter((question) => question.randomizer?.outcome);
  if (following.length === 0 || typeof globalThis.crypto?.getRandomValues !== "function") {
    return;
  }
  const randomizers = Object.fromEntries(
    questions.filter((question) => !question.direct).map((q) => [q.id, q.randomizer]),
  );
  const secrets = memory.drawSecrets(randomizers, globalThis.crypto);
  for (const question of following) {
    const outcome = memoOutcome({
      randomizer: question.randomizer,
      questionId: question.id,
      secret: secrets[question.id],
    });
    const text = document.getElementById(`${question.domId}-instruction-text`);
    if (text) text.textContent = messageText(instructionMessage(outcome));
  }
}

// A consent text, when the survey has one, comes first: the questions stay hidden until the
// respondent ticks that they agree. Only the page changes; nothing about it is sent or kept.
function setUpConsent(questionsSection) {
  const box = document.getElementById("respond-consent-accept");
  if (!box || !questionsSection.hasAttribute("data-needs-consent")) {
    return { sent() {} };
  }
  const status = document.getElementById("respond-consent-status");
  box.checked = false;
  box.disabled = false;
  box.addEventListener("change", () => {
    questionsSection.hidden = !box.checked;
    status.textContent = messageText({ key: box.checked ? "consentGiven" : "consentWithdrawn" });
  });
  return {
    // Once the answers are sent there are no questions below any more, and unticking the
    // box would take back nothing: it stays ticked, fixed, and its note says so.
    sent() {
      box.disabled = true;
      status.textContent = messageText({ key: "consentSent" });
    },
  };
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
