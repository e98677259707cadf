// Results page: re-fetch the results fragment while the survey is open, announce changes
// politely, and let the reader pause (WCAG 2.2.2: moving/updating content can be paused).
const DEFAULT_SECONDS = 30;

function setUp(region) {
  const status = document.getElementById("refresh-status");
  const toggle = document.getElementById("refresh-toggle");
  const seconds = Number(region.dataset.refreshSeconds) || DEFAULT_SECONDS;
  let timer = null;
  let paused = false;

  function say(text) {
    if (status) status.textContent = text;
  }

  async function refresh() {
    try {
      const response = await fetch(region.dataset.refreshUrl, {
        credentials: "same-origin",
        headers: { Accept: "text/html" },
      });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      // Parse the same way the page was parsed, so only real changes count as updates.
      const fresh = document.createElement("div");
      fresh.innerHTML = await response.text();
      // The time in the page's language; the sentence around it comes translated (word order
      // differs between languages, so the template gives the whole sentence with a slot).
      const time = new Date().toLocaleTimeString(document.documentElement.lang || [], {
        hour: "2-digit",
        minute: "2-digit",
      });
      const checked = status.dataset.textChecked.replace("%(time)s", time);
      if (fresh.innerHTML.trim() !== region.innerHTML.trim()) {
        region.replaceChildren(...fresh.childNodes);
        say(`${status.dataset.textUpdated} ${checked}`);
      } else {
        say(checked);
      }
    } catch {
      say(status.dataset.textFailed);
    }
    schedule();
  }

  function schedule() {
    clearTimeout(timer);
    if (!paused) timer = setTimeout(refresh, seconds * 1000);
  }

  if (toggle) {
    toggle.hidden = false;
    toggle.addEventListener("click", () => {
      paused = !paused;
      toggle.textContent = paused ? toggle.dataset.labelResume : toggle.dataset.labelPause;
      if (paused) say(status.dataset.textPaused);
      schedule();
    });
  }
  // No refresh while the tab is hidden; catch up when it becomes visible again.
  document.addEventListener("visibilitychange", () => {
    if (document.hidden) clearTimeout(timer);
    else if (!paused) refresh();
  });
  schedule();
}

const region = document.getElementById("results-live");
if (region?.dataset.refreshUrl) setUp(region);
