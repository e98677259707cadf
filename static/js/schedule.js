// The builder's schedule: while the survey has no time zone yet, propose the browser's, so
// that the times typed mean what the researcher's clock says. Nothing is saved until the
// researcher saves the schedule; without this script the zone stays UTC until chosen.

/** The zone to select: the browser's when none is chosen and the list offers it, else null. */
export function proposedZone(chosen, offered, browserZone) {
  if (chosen !== "" || !browserZone) return null;
  return offered.includes(browserZone) ? browserZone : null;
}

const select = globalThis.document?.getElementById("id_time_zone");
if (select) {
  const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const offered = [...select.options].map((option) => option.value);
  const zone = proposedZone(select.value, offered, browserZone);
  if (zone) {
    select.value = zone;
  }
}
