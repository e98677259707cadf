// Survey builder: keeps the coin inputs in step with the preset buttons and refreshes the
// privacy numbers from the server (the maths lives in one place: the design-preview endpoint).
// Adding, moving and deleting questions post the same forms with fetch and swap in the
// re-rendered question block, so the page does not reload and focus stays where the user
// works; without a script (or when the server answers otherwise) the forms post as pages.
// A question's type fields show only those of the chosen type and design, with the ε they give
// (designs.js, whose formulas a test holds to dpengine's; the server checks again on saving).
import { CHEATING_KINDS } from "./constants.js";
import { designEpsilon } from "./designs.js";

const DEBOUNCE_MS = 300;

/**
 * An ε rounded UP to `digits` decimals, as the server's `epsilon` filter does: 1.0986 → "1.10",
 * 0.5049 → "0.51". The number is read as the decimal it prints as (1.1 → "1.10").
 */
export function epsilonText(value, digits = 2) {
  const text = String(value);
  if (!(value >= 0) || !Number.isFinite(value) || /e/i.test(text)) {
    // Exponent notation: a tiny positive ε rounds up to the smallest step shown.
    const tiny = Number.isFinite(value) && value > 0 && value < 1;
    return tiny ? (10 ** -digits).toFixed(digits) : "—";
  }
  const [whole, fraction = ""] = text.split(".");
  let kept = BigInt(whole + fraction.slice(0, digits).padEnd(digits, "0"));
  if (/[1-9]/.test(fraction.slice(digits))) kept += 1n;
  const padded = kept.toString().padStart(digits + 1, "0");
  return digits === 0 ? padded : `${padded.slice(0, -digits)}.${padded.slice(-digits)}`;
}

/** The ε a choice or numeric question's ε box holds, or null when it is not a positive number. */
export function enteredEpsilon(text) {
  const value = Number(String(text).trim());
  return String(text).trim() !== "" && Number.isFinite(value) && value > 0 ? value : null;
}

/** Whether a block marked for ``forTypes`` (space-separated types) shows for ``type``. */
export function showsFor(forTypes, type) {
  return forTypes.split(/\s+/).includes(type);
}

/** The preset whose coins equal (pTruth, pForcedYes), or "custom". */
export function matchingPreset(presets, pTruth, pForcedYes) {
  const key = Object.keys(presets).find(
    (name) => presets[name].p_truth === pTruth && presets[name].p_forced_yes === pForcedYes,
  );
  return key ?? "custom";
}

/** The design-preview URL for the current coins (and the saved survey's questions, if any). */
export function previewUrl(base, { pTruth, pForcedYes, questions, survey }) {
  const query = new URLSearchParams({
    p_truth: pTruth,
    p_forced_yes: pForcedYes,
    questions: String(questions),
  });
  if (survey) query.set("survey", String(survey));
  return `${base}?${query}`;
}

/** What to focus once the question block is replaced: the add box, or the moved button. */
export function focusSelector(kind, { question, direction } = {}) {
  if (kind === "move") {
    return `form[data-async="move"][data-question="${question}"][data-direction="${direction}"] button`;
  }
  return "#id_text";
}

/** The replies the question block can be swapped in from; anything else posts as a page. */
export function swappable(status, reply) {
  return (status === 200 || status === 400) && typeof reply?.html === "string";
}

function focusAfter(body, kind, form) {
  const detail = { question: form.dataset.question, direction: form.dataset.direction };
  let target = body.querySelector(focusSelector(kind, detail));
  if (kind === "move" && (!target || target.disabled)) {
    // Moved to the top or the bottom: its button that still works.
    const other = detail.direction === "up" ? "down" : "up";
    target = body.querySelector(focusSelector(kind, { ...detail, direction: other }));
  }
  (target ?? body.querySelector(focusSelector("add")))?.focus();
}

function setUpQuestionType(container) {
  const form = container.closest("form");
  if (!form) return;
  const coins = {
    p_truth: Number(container.dataset.surveyPTruth),
    p_forced_yes: Number(container.dataset.surveyPForcedYes),
  };
  const radios = [...form.querySelectorAll('input[name="question_type"]')];
  const designSelect = form.elements.namedItem("design");
  const epsilonInput = form.elements.namedItem("epsilon");
  const live = container.querySelector("[data-live-epsilon]");
  const liveValue = container.querySelector("[data-live-epsilon-value]");
  const liveInvalid = container.querySelector("[data-live-epsilon-invalid]");

  let first = true;

  function show(block, visible) {
    // A block that appears (or is there at the start) gets its defaults in empty boxes; a box
    // the researcher empties while typing stays empty.
    const appearing = visible && (first || block.hidden);
    block.hidden = !visible;
    // A hidden field is not sent, so a stale value there cannot stop the form.
    for (const input of block.querySelectorAll("input, select, textarea")) {
      input.disabled = !visible;
      if (appearing && input.value === "" && input.dataset.default) {
        input.value = input.dataset.default;
      }
    }
  }

  function epsilonNow(type, design) {
    if (type !== "yes_no") return enteredEpsilon(epsilonInput?.value ?? "");
    if (design === "survey") return designEpsilon({ kind: "forced_response", ...coins });
    const parameters = { kind: design };
    for (const input of container.querySelectorAll(`[data-design="${design}"]`)) {
      const text = input.value.trim();
      parameters[input.dataset.parameter] = text === "" ? Number.NaN : Number(text);
    }
    return designEpsilon(parameters);
  }

  function update() {
    const type = radios.find((radio) => radio.checked)?.value ?? "yes_no";
    const design = designSelect?.value || "survey";
    for (const block of container.querySelectorAll("[data-for-type]")) {
      show(block, showsFor(block.dataset.forType, type));
    }
    for (const block of container.querySelectorAll("[data-for-design]")) {
      show(block, type === "yes_no" && block.dataset.forDesign.split(" ").includes(design));
    }
    first = false;
    // Cheating detection has no ε (its confirmation box says why): nothing to show live.
    const cheating = type === "yes_no" && CHEATING_KINDS.includes(design);
    const epsilon = cheating ? null : epsilonNow(type, design);
    live.hidden = cheating;
    liveValue.textContent = epsilon === null ? "—" : epsilonText(epsilon, 2);
    liveInvalid.hidden = epsilon !== null;
  }

  container.addEventListener("input", update);
  container.addEventListener("change", update);
  update();
}

function setUpQuestionTypes(root) {
  for (const container of root.querySelectorAll("[data-question-type]")) {
    setUpQuestionType(container);
  }
}

function setUpQuestions(body, status) {
  body.addEventListener("submit", async (event) => {
    const form = event.target;
    const kind = form.dataset?.async;
    if (!kind) return;
    event.preventDefault();
    if (form.getAttribute("aria-busy") === "true") return;
    form.setAttribute("aria-busy", "true");
    let response;
    let reply = null;
    try {
      response = await fetch(form.action, {
        method: "POST",
        body: new FormData(form),
        credentials: "same-origin",
        headers: { Accept: "application/json" },
      });
      reply = await response.json();
    } catch {
      reply = null;
    }
    form.removeAttribute("aria-busy");
    if (!response || !swappable(response.status, reply)) {
      form.submit(); // the page the server renders explains (a frozen survey, a lost session)
      return;
    }
    body.innerHTML = reply.html;
    setUpQuestionTypes(body);
    focusAfter(body, reply.errors ? "add" : kind, form);
    status.textContent = reply.message ?? "";
    document.dispatchEvent(
      new CustomEvent("builder:questions", { detail: { questions: reply.questions } }),
    );
  });
}

function setUp(panel) {
  const form = panel.closest("form");
  const presetsNode = document.getElementById("builder-presets");
  if (!form || !presetsNode) return;
  const presets = JSON.parse(presetsNode.textContent);
  const pTruth = form.elements.namedItem("p_truth");
  const pForcedYes = form.elements.namedItem("p_forced_yes");
  if (!pTruth || !pForcedYes || pTruth.disabled) return; // frozen survey: nothing can change
  const radios = [...form.querySelectorAll('input[name="preset"]')];
  const title = document.getElementById(panel.getAttribute("aria-labelledby"));
  let timer = null;
  let inFlight = null;

  async function refresh() {
    inFlight?.abort();
    inFlight = new AbortController();
    const url = previewUrl(panel.dataset.previewUrl, {
      pTruth: pTruth.value.trim(),
      pForcedYes: pForcedYes.value.trim(),
      questions: panel.dataset.questions,
      survey: panel.dataset.survey,
    });
    panel.setAttribute("aria-busy", "true");
    try {
      const response = await fetch(url, {
        credentials: "same-origin",
        headers: { Accept: "application/json" },
        signal: inFlight.signal,
      });
      const data = await response.json();
      panel.innerHTML = data.html;
      if (title && panel.dataset.liveTitle) title.textContent = panel.dataset.liveTitle;
    } catch (error) {
      if (error.name === "AbortError") return;
      const note = document.createElement("p");
      note.className = "notice notice--warn";
      note.textContent = panel.dataset.errorText;
      panel.replaceChildren(note);
    } finally {
      panel.removeAttribute("aria-busy");
    }
  }

  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(refresh, DEBOUNCE_MS);
  }

  document.addEventListener("builder:questions", (event) => {
    const count = String(event.detail.questions);
    // A refused paste or a move leaves the count as it was: nothing to recompute (and no
    // dimmed, busy panel for a moment).
    if (panel.dataset.questions === count) return;
    panel.dataset.questions = count;
    schedule();
  });

  for (const radio of radios) {
    radio.addEventListener("change", () => {
      const coins = presets[radio.value];
      if (coins) {
        pTruth.value = coins.p_truth;
        pForcedYes.value = coins.p_forced_yes;
      }
      schedule();
    });
  }
  for (const input of [pTruth, pForcedYes]) {
    input.addEventListener("input", () => {
      const key = matchingPreset(presets, Number(pTruth.value), Number(pForcedYes.value));
      const radio = radios.find((candidate) => candidate.value === key);
      if (radio) radio.checked = true;
      schedule();
    });
  }
}

if (typeof document !== "undefined") {
  const panel = document.getElementById("privacy-numbers");
  if (panel) setUp(panel);
  const body = document.getElementById("questions-body");
  const status = document.getElementById("questions-status");
  if (body && status) setUpQuestions(body, status);
  setUpQuestionTypes(document);
}
