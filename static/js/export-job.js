// The export job page (templates/surveys/export_job.html): polls the job's status while the
// worker writes the file and moves the progress bar; once the job ends, reloads the page,
// which then shows the download link, the row count and the checksum.

const gettext = globalThis.gettext ?? ((text) => text);
const interpolate =
  globalThis.interpolate ??
  ((format, values) => format.replace(/%\((\w+)\)s/g, (_match, name) => String(values[name])));

export const POLL_MS = 1000;

/** The progress in whole percent (0-100), or null while unknown. */
export function percentOf(state) {
  if (state.progress === null || state.progress === undefined) return null;
  return Math.max(0, Math.min(100, Math.round(100 * state.progress)));
}

/** The sentence under the title for a job's state. */
export function statusText(state, language) {
  const number = new Intl.NumberFormat(language || undefined);
  if (state.status === "queued") return gettext("Waiting for the worker to start…");
  if (state.status === "running") {
    return interpolate(
      gettext("Writing: %(written)s of %(total)s rows."),
      { written: number.format(state.rows_written), total: number.format(state.rows_total) },
      true,
    );
  }
  if (state.status === "done") return gettext("Ready.");
  return gettext("The export failed. Nothing was kept; download again to retry.");
}

/** Whether polling should stop: the job ended one way or the other. */
export function finished(state) {
  return state.status === "done" || state.status === "failed";
}

/** Show `state` on the page's status line and progress bar. */
export function render(state, { status, bar, language }) {
  status.textContent = statusText(state, language);
  const percent = percentOf(state);
  if (percent === null) {
    bar.removeAttribute("value");
    bar.removeAttribute("aria-valuenow");
  } else {
    bar.value = percent;
    bar.setAttribute("aria-valuenow", String(percent));
  }
}

/** Poll `url` with `fetchJson` until the job ends, rendering each state; then `onFinished`. */
export async function follow({ url, fetchJson, show, onFinished, wait }) {
  for (;;) {
    let state = null;
    try {
      state = await fetchJson(url);
    } catch {
      state = null; // a dropped poll is retried; the page keeps what it showed
    }
    if (state) {
      show(state);
      if (finished(state)) {
        onFinished(state);
        return state;
      }
    }
    await wait(POLL_MS);
  }
}

const root = globalThis.document?.querySelector("[data-export-job]");
if (root && !finished({ status: root.dataset.status })) {
  const status = root.querySelector("[data-export-status]");
  const bar = root.querySelector("[data-export-progress]");
  const language = globalThis.document.documentElement.lang;
  follow({
    url: root.dataset.statusUrl,
    fetchJson: async (url) => {
      const response = await fetch(url, { headers: { Accept: "application/json" } });
      if (!response.ok) throw new Error(String(response.status));
      return response.json();
    },
    show: (state) => render(state, { status, bar, language }),
    onFinished: () => globalThis.location.reload(),
    wait: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  });
}
