// The respondent page: read the true answers from the page, turn them into randomized
// reports, and send only those. The randomization lives in coins.js (the coins and the memo
// of pre-drawn reports), designs.js (every yes/no design, multiple choice) and exact.js
// (numeric noise), all tested with node --test; this file is the page glue.

import { paddedBody } from "./body.js";
import { answeredOnly, memoReports } from "./coins.js";
import { questionRandomizer, wholeNumber } from "./designs.js";
import { Outcome, obtainToken, takeCode } from "./invitation.js";
import { forgetSurvey, loadMemo, storeMemo } from "./memory.js";

// Every string this script shows, in one place, translated by Django's JavaScript catalog
// (/jsi18n/, loaded by base.html before the modules; locale/*/djangojs.po). Should it fail to
// load, the page still works in English rather than not at all.
const gettext = globalThis.gettext ?? ((text) => text);
const interpolate =
  globalThis.interpolate ??
  ((format, values) => format.replace(/%\((\w+)\)s/g, (_match, name) => String(values[name])));
const STRINGS = {
  summary: gettext("Please answer every question before sending:"),
  summaryRequired: gettext("Please answer the required questions before sending:"),
  skipped: gettext("Skipped: nothing sent"),
  preferNotToSay: gettext("Prefer not to say"),
  unansweredItem: gettext("Question %(number)s has no answer yet"),
  chooseOne: gettext("Choose Yes or No."),
  enterNumber: gettext("Enter a whole number."),
  wholeNumber: gettext("Enter a whole number, without decimals or other characters."),
  notWhole: gettext("Question %(number)s needs a whole number"),
  sending: gettext("Flipping the coins and sending…"),
  refused: gettext("Your answers were not accepted: %(detail)s"),
  serverError: gettext(
    "The server could not take your answers just now (error %(status)s). Please press the button again in a moment; they will not be counted twice.",
  ),
  networkError: gettext(
    "Your answers could not be sent because the connection failed. Check your connection and press the button again; they will not be counted twice.",
  ),
  noCrypto: gettext(
    "This browser cannot flip the coins securely, so nothing can be sent. Please use an up-to-date browser.",
  ),
  preview: gettext(
    "Preview: every question is answered. In the live survey the randomized answers would be sent now; here nothing was sent or stored.",
  ),
  previewOptional: gettext(
    "Preview: every required question is answered. In the live survey the randomized answers would be sent now, with nothing for the questions left blank; here nothing was sent or stored.",
  ),
  yes: gettext("Yes"),
  no: gettext("No"),
  unansweredGroup: gettext("About you %(number)s has no answer yet"),
  chooseOption: gettext("Choose one option."),
  asGiven: gettext("%(label)s (sent as given, not randomized)"),
  consentGiven: gettext("Thank you. The questions are shown below."),
  consentWithdrawn: gettext("The questions are hidden until you tick the box."),
  pilotEnded: gettext(
    "The pilot has ended and the real study has opened, so nothing was sent. The page is reloading; please answer again.",
  ),
  invitationBusy: gettext("Checking your invitation…"),
  invitationReady: gettext(
    "Your invitation is confirmed. Your answers will go with an anonymous token that cannot be traced back to your invitation.",
  ),
  invitationUsed: gettext(
    "This invitation has already been used: each invitation answers once. If it is yours and you have not answered, ask the researcher for a new code.",
  ),
  invitationUnknown: gettext(
    "This invitation code is not valid. Check the link or the code, or ask the researcher for a new one.",
  ),
  invitationNeeded: gettext(
    "This survey is by invitation only. Open the personal link from your invitation, or enter the code printed on your slip.",
  ),
  invitationFailed: gettext(
    "Your invitation could not be checked just now. Please reload the page to try again.",
  ),
  designChanged: gettext(
    "This survey changed since the page was opened, so nothing was sent. The page is reloading with the current survey; please answer again.",
  ),
};

function browserStorage() {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    // Reading localStorage throws when the browser blocks site data: carry on without it.
    return null;
  }
}

// What a grouping question answered "Prefer not to say" sends (surveys.models.PREFER_NOT_TO_SAY,
// written to constants.js by `make constants`).
import { PREFER_NOT_TO_SAY } from "./constants.js";

function setupPage(definition) {
  const { survey, preview } = definition;
  const surveyCoins = { p_truth: survey.p_truth, p_forced_yes: survey.p_forced_yes };
  const fingerprint = survey.design_fingerprint;
  const sharedDevice = survey.shared_devices === true;
  // The preview touches no storage at all; a shared device keeps nothing between people and
  // clears what an earlier visit left; a personal device keeps this design's memo only.
  const storage = preview ? null : browserStorage();
  forgetSurvey(storage, survey.slug, sharedDevice ? null : fingerprint);
  // This person's memo (coins.js): kept in storage on a personal device, only here otherwise.
  // A pilot's design has a fingerprint of its own (surveys/models.py, design_fingerprint_of):
  // at the real opening the pilot's memo is dropped above, so the study gets a fresh
  // submission id and fresh coins that nothing joins to the pilot's row.
  let memo = sharedDevice ? null : loadMemo(storage, survey.slug, fingerprint);
  const pilot = survey.pilot === true;
  // An invitation survey's token (invitation.js): in the memo on a personal device, only here
  // on a shared one. Without one, an invitation-only survey takes no answers.
  const invited = survey.access === "invitation" || survey.access === "both";
  let token = memo?.token ?? null;
  const questions = survey.questions.map((question, index) => {
    // Absent in an older definition: every question was yes/no then.
    const type = question.type ?? "yes_no";
    const fieldset = document.getElementById(`q-${question.id}`);
    return {
      id: String(question.id),
      text: question.text,
      type,
      number: index + 1,
      // Absent in an older definition: every question was required then.
      required: question.required !== false,
      options: question.options ?? [],
      randomizer: questionRandomizer(question, surveyCoins),
      // Where the error summary's link and the focus go: the first input of the question.
      anchor: `q-${question.id}-${{ yes_no: "yes", choice: "o0" }[type] ?? "value"}`,
      fieldset,
      describedBy: fieldset.getAttribute("aria-describedby"),
      error: document.getElementById(`q-${question.id}-error`),
    };
  });
  const randomizers = Object.fromEntries(
    questions.map((question) => [question.id, question.randomizer]),
  );
  // Grouping questions (age band, department): no coins, the chosen option id is sent as
  // given, in "groups" — the page says so next to each of them.
  const groupingQuestions = (survey.grouping_questions ?? []).map((question, index) => ({
    id: String(question.id),
    key: `g-${question.id}`,
    text: question.text,
    required: question.required !== false,
    labels: {
      ...Object.fromEntries(question.options.map((option) => [option.id, option.label])),
      [PREFER_NOT_TO_SAY]: STRINGS.preferNotToSay,
    },
    anchor: `g-${question.id}-o${question.options[0]?.id}`,
    summary: interpolate(STRINGS.unansweredGroup, { number: index + 1 }, true),
    choose: STRINGS.chooseOption,
    fieldset: document.getElementById(`g-${question.id}`),
    error: document.getElementById(`g-${question.id}-error`),
  }));
  const allRequired = [...questions, ...groupingQuestions].every((question) => question.required);
  const button = document.getElementById("respond-submit");
  const errors = document.getElementById("respond-errors");
  const status = document.getElementById("respond-status");
  const questionsSection = document.getElementById("respond-questions");
  const done = document.getElementById("respond-done");
  const sentList = document.getElementById("respond-sent");
  const alreadyNote = document.getElementById("respond-already");
  const replayedNote = document.getElementById("respond-done-replayed");
  const sharedNote = document.getElementById("respond-done-shared");
  const nextPersonButton = document.getElementById("respond-next-person");
  if (memo?.sent) {
    alreadyNote.hidden = false;
  }
  setUpConsent(questionsSection);
  // The survey's own text keeps the language the researcher wrote it in (BCP 47, from the page).
  const surveyLanguage =
    document.querySelector(".respond-header [lang]")?.lang || survey.language;
  // Error messages from the API in the page's language: no cookie rides along (credentials are
  // omitted), so the header is the only way to say which language the respondent reads.
  const pageLanguage = document.documentElement.lang || "en";

  function checkedValue(question) {
    const name = question.key ?? `q-${question.id}`;
    const input = document.querySelector(`input[name="${name}"]:checked`);
    return input ? input.value : null;
  }

  // A numeric question's input as designs.js `wholeNumber` reads it (the browser empties
  // `value` for text it cannot read as a number, and says so in validity.badInput).
  function typedNumber(question) {
    const input = document.getElementById(`q-${question.id}-value`);
    return wholeNumber(input.value, { badInput: input.validity?.badInput === true });
  }

  // The true answer to one question as the randomizers take it: a boolean (yes/no), an option
  // index (choice), an integer (numeric; kept within the range by the randomizer), NaN for a
  // numeric answer that is not a whole number, or null when there is none.
  function trueAnswer(question) {
    if (question.type === "numeric") {
      return typedNumber(question);
    }
    const value = checkedValue(question);
    if (value === null) return null;
    return question.type === "choice" ? Number(value) : value === "yes";
  }

  function clearQuestionError(question) {
    question.error.hidden = true;
    question.error.textContent = "";
    question.fieldset.removeAttribute("aria-invalid");
    if (question.describedBy) {
      question.fieldset.setAttribute("aria-describedby", question.describedBy);
    } else {
      question.fieldset.removeAttribute("aria-describedby");
    }
  }

  function showErrors(unanswered) {
    errors.replaceChildren();
    if (unanswered.length === 0) {
      errors.classList.remove("error-summary--active");
      return;
    }
    const heading = document.createElement("p");
    heading.className = "error-summary__title";
    heading.textContent = allRequired ? STRINGS.summary : STRINGS.summaryRequired;
    const list = document.createElement("ul");
    for (const question of unanswered) {
      const item = document.createElement("li");
      item.dataset.questionId = question.key ?? question.id;
      const link = document.createElement("a");
      link.href = `#${question.anchor}`;
      const notWhole = question.type === "numeric" && Number.isNaN(trueAnswer(question));
      link.textContent =
        question.summary ??
        interpolate(
          notWhole ? STRINGS.notWhole : STRINGS.unansweredItem,
          { number: question.number },
          true,
        );
      item.append(link);
      list.append(item);
      question.error.textContent =
        question.choose ??
        {
          yes_no: STRINGS.chooseOne,
          choice: STRINGS.chooseOption,
          numeric: notWhole ? STRINGS.wholeNumber : STRINGS.enterNumber,
        }[question.type];
      question.error.hidden = false;
      question.fieldset.setAttribute("aria-invalid", "true");
      question.fieldset.setAttribute(
        "aria-describedby",
        [question.error.id, question.describedBy].filter(Boolean).join(" "),
      );
    }
    errors.append(heading, list);
    errors.classList.add("error-summary--active");
  }

  function setStatus(message, tone) {
    status.textContent = message;
    status.dataset.tone = tone ?? "";
  }

  function showDone(answers, groups, { replayed }) {
    replayedNote.hidden = !replayed;
    sharedNote.hidden = !sharedDevice;
    sentList.replaceChildren();
    for (const question of questions) {
      const term = document.createElement("dt");
      term.textContent = `${question.number}. ${question.text}`;
      term.lang = surveyLanguage;
      const value = document.createElement("dd");
      if (question.id in answers) {
        value.textContent = sentText(question, answers[question.id]);
      } else {
        value.textContent = STRINGS.skipped;
      }
      sentList.append(term, value);
    }
    for (const question of groupingQuestions) {
      const term = document.createElement("dt");
      term.textContent = question.text;
      term.lang = surveyLanguage;
      const value = document.createElement("dd");
      if (question.id in groups) {
        const label = question.labels[groups[question.id]] ?? "";
        value.textContent = interpolate(STRINGS.asGiven, { label }, true);
      } else {
        value.textContent = STRINGS.skipped;
      }
      sentList.append(term, value);
    }
    // The true answers have done their job: do not leave them on screen or in the page.
    for (const input of questionsSection.querySelectorAll("input[type=radio]")) {
      input.checked = false;
    }
    for (const input of questionsSection.querySelectorAll("input[type=number]")) {
      input.value = "";
    }
    questionsSection.hidden = true;
    done.hidden = false;
    // Show the thank-you with the survey's title above it, then hand it the focus.
    globalThis.scrollTo(0, 0);
    done.scrollIntoView({ block: "nearest" });
    done.focus({ preventScroll: true });
  }

  // What was sent for one question, in words: yes or no, the label of the option the
  // randomization picked, or the noisy number.
  function sentText(question, report) {
    if (question.type === "choice") {
      return question.options[report] ?? String(report);
    }
    if (question.type === "numeric") {
      return String(report);
    }
    return report ? STRINGS.yes : STRINGS.no;
  }

  function remember() {
    if (!sharedDevice) {
      storeMemo(storage, survey.slug, fingerprint, memo);
    }
  }

  const invitationBox = document.getElementById("respond-invitation");
  const invitationStatus = document.getElementById("respond-invitation-status");
  const codeForm = document.getElementById("respond-code-form");

  function showInvitation(message, tone, { askCode = false } = {}) {
    if (!invitationBox) return;
    invitationBox.hidden = false;
    invitationStatus.textContent = message;
    invitationStatus.dataset.tone = tone ?? "";
    codeForm.hidden = !askCode;
  }

  // Trade the code for a token now, when the link is opened, not when the answers are sent:
  // the two requests are apart in time, and nothing the server keeps joins them.
  async function useCode(code) {
    showInvitation(STRINGS.invitationBusy, "busy");
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
      token = result.token;
      if (!sharedDevice) {
        // A memo with no draws yet: its submission id and the token, kept together.
        memo ??= memoReports({
          randomizers: {},
          truths: {},
          memo: null,
          randomSource: globalThis.crypto,
        }).memo;
        memo.token = token;
        remember();
      }
      showInvitation(STRINGS.invitationReady, "info");
      return;
    }
    const message = {
      [Outcome.USED]: STRINGS.invitationUsed,
      [Outcome.UNKNOWN]: STRINGS.invitationUnknown,
    }[result.outcome];
    showInvitation(message ?? STRINGS.invitationFailed, "error", {
      askCode: result.outcome === Outcome.UNKNOWN && survey.access === "invitation",
    });
  }

  function setUpInvitation() {
    if (!invited || preview) return;
    // Read and removed from the address bar at once, used or not.
    const code = takeCode(globalThis.location, globalThis.history);
    if (token) {
      showInvitation(STRINGS.invitationReady, "info");
    } else if (code && globalThis.crypto?.subtle) {
      useCode(code);
    } else if (survey.access === "invitation") {
      showInvitation(STRINGS.invitationNeeded, "error", { askCode: true });
    }
    codeForm?.addEventListener("submit", (event) => {
      event.preventDefault();
      const typed = document.getElementById("respond-code").value.trim();
      if (typed) useCode(typed);
    });
  }

  // The memo's submission id is this person's for good: a retry after a lost response, or a
  // retake on this device, is stored once (the server deduplicates on the id).
  // A page loaded during the pilot must not add its answers to the real study: the pilot's
  // responses are discarded when the study opens, and this one would arrive after that.
  // Only pilot pages pay for this request; the page reloads into the study if it opened.
  async function pilotHasEnded() {
    if (!pilot || !definition.definition_url) return false;
    const response = await fetch(definition.definition_url, {
      headers: { Accept: "application/json" },
      credentials: "omit",
      cache: "no-store",
      redirect: "error",
    });
    if (!response.ok) return response.status === 404;
    const current = await response.json();
    return current.pilot !== true;
  }

  async function send(answers, groups) {
    try {
      if (await pilotHasEnded()) {
        setStatus(STRINGS.pilotEnded, "error");
        globalThis.location.reload();
        return;
      }
    } catch {
      setStatus(STRINGS.networkError, "error");
      return;
    }
    const replayed = memo.sent;
    const payload = { submission_id: memo.submissionId, answers, design_fingerprint: fingerprint };
    if (groupingQuestions.length > 0) payload.groups = groups;
    if (invited && token) payload.token = token;
    // One length for every body of the survey, whatever was answered or skipped.
    const body = paddedBody(payload, survey.submission_length);
    button.disabled = true;
    questionsSection.setAttribute("aria-busy", "true");
    setStatus(STRINGS.sending, "busy");
    try {
      const response = await fetch(definition.submit_url, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          Accept: "application/json",
          "Accept-Language": pageLanguage,
        },
        body,
        credentials: "omit", // no session cookie rides along with the answers
        cache: "no-store",
        redirect: "error",
      });
      if (response.status === 201) {
        if (sharedDevice) {
          memo = null; // the next person starts from nothing
          token = null; // and brings their own invitation
        } else {
          memo.sent = true;
          remember();
        }
        setStatus("", "");
        showDone(answers, groups, { replayed });
        return;
      }
      let detail = "";
      let fields = {};
      try {
        ({ detail = "", errors: fields = {} } = await response.json());
      } catch {
        detail = "";
      }
      if (response.status === 409 && fields.design_fingerprint) {
        // Answers randomized with other coins must not be sent: start over with the survey
        // as it is now (the memo of the old design is dropped when the page loads).
        setStatus(STRINGS.designChanged, "error");
        globalThis.location.reload();
        return;
      }
      if (fields.token && (response.status === 409 || response.status === 403)) {
        const message =
          response.status === 409 ? STRINGS.invitationUsed : STRINGS.invitationNeeded;
        setStatus(message, "error");
        showInvitation(message, "error", {
          askCode: response.status === 403 && survey.access === "invitation",
        });
        return;
      }
      if (response.status >= 400 && response.status < 500 && detail) {
        setStatus(interpolate(STRINGS.refused, { detail }, true), "error");
      } else {
        setStatus(interpolate(STRINGS.serverError, { status: response.status }, true), "error");
      }
    } catch {
      setStatus(STRINGS.networkError, "error");
    } finally {
      questionsSection.removeAttribute("aria-busy");
      button.disabled = false;
    }
  }

  function onSubmit() {
    // A skipped optional question gets no key at all: nothing about it is sent or drawn.
    const truths = answeredOnly(
      questions.map((question) => [question.id, trueAnswer(question)]),
    );
    const groups = answeredOnly(
      groupingQuestions.map((question) => [question.id, checkedValue(question)]),
      (value) => value,
    );
    // Required and unanswered, or a numeric answer that is not a whole number (even on an
    // optional question: it is an answer, just not one that can be sent).
    const unanswered = [
      ...questions.filter((question) => {
        const truth = trueAnswer(question);
        return Number.isNaN(truth) || (question.required && truth === null);
      }),
      ...groupingQuestions.filter(
        (question) => question.required && checkedValue(question) === null,
      ),
    ];
    setStatus("", "");
    showErrors(unanswered);
    if (unanswered.length > 0) {
      document.getElementById(unanswered[0].anchor).focus();
      return;
    }
    if (preview) {
      setStatus(allRequired ? STRINGS.preview : STRINGS.previewOptional, "info");
      return;
    }
    if (!globalThis.crypto?.getRandomValues) {
      // Never fall back to a predictable generator: the coins are the privacy.
      setStatus(STRINGS.noCrypto, "error");
      return;
    }
    if (survey.access === "invitation" && !token) {
      setStatus(STRINGS.invitationNeeded, "error");
      showInvitation(STRINGS.invitationNeeded, "error", { askCode: true });
      return;
    }
    const drawn = memoReports({ randomizers, truths, memo, randomSource: globalThis.crypto });
    memo = drawn.memo;
    remember(); // before sending: a reload while it is on its way reuses the same draws and id
    send(drawn.answers, groups);
  }

  // "Clear answer" on an optional question: back to no answer, so that nothing is sent for it.
  for (const clear of questionsSection.querySelectorAll("button[data-clear]")) {
    clear.addEventListener("click", () => {
      for (const input of document.querySelectorAll(`input[name="${clear.dataset.clear}"]`)) {
        if (input.type === "number") {
          input.value = "";
        } else {
          input.checked = false;
        }
      }
    });
  }
  for (const question of [...questions, ...groupingQuestions]) {
    question.fieldset.addEventListener(question.type === "numeric" ? "input" : "change", () => {
      clearQuestionError(question);
      errors.querySelector(`li[data-question-id="${question.key ?? question.id}"]`)?.remove();
      if (!errors.querySelector("li")) {
        showErrors([]);
      }
    });
  }
  button.addEventListener("click", onSubmit);
  setUpInvitation();
  nextPersonButton?.addEventListener("click", () => globalThis.location.reload());
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
    status.textContent = box.checked ? STRINGS.consentGiven : STRINGS.consentWithdrawn;
  });
}

const definitionElement = document.getElementById("respond-definition");
if (definitionElement) {
  setupPage(JSON.parse(definitionElement.textContent));
}
