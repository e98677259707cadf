// The respondent page writes its times in the survey's time zone, with the zone's name. When
// the respondent's browser is in another zone, this adds the same moment in theirs. It only
// reads the browser's clock settings; nothing is sent or kept.

const gettext = globalThis.gettext ?? ((text) => text);
const interpolate =
  globalThis.interpolate ??
  ((format, values) => format.replace(/%\((\w+)\)s/g, (_match, name) => String(values[name])));

/**
 * "Your time: …" for the moment `iso` in `browserZone`, written for `language`; null when the
 * browser is in the survey's zone (the page already says it) or the moment cannot be read.
 */
export function localTimeText({ iso, surveyZone, browserZone, language }) {
  if (!iso || !browserZone || browserZone === surveyZone) return null;
  const moment = new Date(iso);
  if (Number.isNaN(moment.getTime())) return null;
  const when = new Intl.DateTimeFormat(language || undefined, {
    dateStyle: "medium",
    timeStyle: "short",
    timeZone: browserZone,
  }).format(moment);
  return interpolate(gettext("Your time: %(when)s (%(zone)s)."), { when, zone: browserZone }, true);
}

const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
for (const element of globalThis.document?.querySelectorAll("[data-local-time]") ?? []) {
  const text = localTimeText({
    iso: element.dataset.localTime,
    surveyZone: element.dataset.surveyZone,
    browserZone,
    language: document.documentElement.lang,
  });
  if (text) {
    element.textContent = ` ${text}`;
    element.hidden = false;
  }
}
