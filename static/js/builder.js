// Survey builder: keeps the coin inputs in step with the preset buttons and refreshes the
// privacy numbers from the server (the maths lives in one place: the design-preview endpoint).
const DEBOUNCE_MS = 300;

/** The preset whose coins equal (pTruth, pForcedYes), or "custom". */
export function matchingPreset(presets, pTruth, pForcedYes) {
  const key = Object.keys(presets).find(
    (name) => presets[name].p_truth === pTruth && presets[name].p_forced_yes === pForcedYes,
  );
  return key ?? "custom";
}

/** The design-preview URL for the current coins. */
export function previewUrl(base, { pTruth, pForcedYes, questions }) {
  const query = new URLSearchParams({
    p_truth: pTruth,
    p_forced_yes: pForcedYes,
    questions: String(questions),
  });
  return `${base}?${query}`;
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
}
