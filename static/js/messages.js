// Every string the respondent page's scripts show, in one place, translated by Django's
// JavaScript catalog (/jsi18n/, loaded by base.html before the modules; locale/*/djangojs.po).
// Should it fail to load, the page still works in English rather than not at all.
//
// The page's other modules (questions.js, submit.js) say *which* message to show as a plain
// object, `{key, values}` (or `{text}` for the survey's own words, `{format, values}` for a
// text the definition carries in the survey's language, such as a design's practice round),
// so they stay pure and testable; `messageText` turns that into the text in the page's
// language.

const gettext = globalThis.gettext ?? ((text) => text);
const interpolate =
  globalThis.interpolate ??
  ((format, values) => format.replace(/%\((\w+)\)s/g, (_match, name) => String(values[name])));

export const STRINGS = Object.freeze({
  summary: gettext("Please answer every question before sending:"),
  summaryRequired: gettext("Please answer the required questions before sending:"),
  skipped: gettext("Skipped: nothing sent"),
  preferNotToSay: gettext("Prefer not to say"),
  unansweredItem: gettext("Question %(number)s has no answer yet"),
  chooseOne: gettext("Choose Yes or No."),
  enterNumber: gettext("Enter a whole number."),
  wholeNumber: gettext("Enter a whole number, without decimals or other characters."),
  notWhole: gettext("Question %(number)s needs a whole number"),
  outOfRange: gettext("Enter a whole number from %(min)s to %(max)s."),
  outOfRangeItem: gettext("Question %(number)s needs a number from %(min)s to %(max)s"),
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
  inGroup: gettext("Group %(group)s: %(answer)s"),
  enterText: gettext("Write an answer."),
  tooLong: gettext("This answer is too long: at most %(max)s bytes (about a third as many characters in Korean or Chinese)."),
  tooLongItem: gettext("Question %(number)s has too long an answer"),
  consentGiven: gettext("Thank you. The questions are shown below."),
  consentWithdrawn: gettext("The questions are hidden until you tick the box."),
  consentSent: gettext("You agreed to take part, and your answers have been sent."),
  pilotEnded: gettext(
    "The pilot has ended and the real study has opened, so nothing was sent. The page is reloading; please answer again.",
  ),
  practiceHeads: gettext(
    "Practice %(count)s: coin 1 landed heads, so your true answer, “%(sent)s”, would be sent. Nothing was sent.",
  ),
  practiceTails: gettext(
    "Practice %(count)s: coin 1 landed tails, so coin 2 chose “%(sent)s”, which would be sent whatever your answer. Nothing was sent.",
  ),
  practiceRed: gettext("red"),
  practiceBlack: gettext("black"),
  practiceRight: gettext("Right: your device sends “%(sent)s”."),
  practiceWrong: gettext("Not quite: your device sends “%(sent)s”."),
  practiceFollow: gettext(
    "Suppose your true answer is “%(truth)s”, and the question shows: %(instruction)s What do you choose?",
  ),
  practiceFollowRight: gettext("Right: you choose “%(sent)s”, and that is what is sent."),
  practiceFollowWrong: gettext("Not quite: following the instruction, you choose “%(sent)s”."),
  practiceWhyFollow: gettext(
    "What you choose is sent as it is; what the coin said stays on this device. So an answer does not show your true answer.",
  ),
  practiceSentTerm: gettext("Practice round %(number)s"),
  practiceUnderstood: gettext("first try right"),
  practiceNotUnderstood: gettext("first try not right"),
  designChanged: gettext(
    "This survey changed since the page was opened, so nothing was sent. The page is reloading with the current survey; please answer again.",
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
  invitationValid: gettext(
    "Your invitation is valid. It is used when you begin: your answers will then go with an anonymous token that cannot be traced back to your invitation.",
  ),
  invitationElsewhere: gettext(
    "This invitation was opened on another device or browser. Finish there; if you cannot, ask the researcher for a new link.",
  ),
  invitationRevoked: gettext(
    "This invitation was withdrawn by the researcher, so it cannot be used to answer. If you think it should still work, ask the researcher for a new link.",
  ),
  invitationAnswered: gettext("You have already answered; thank you."),
});

/**
 * The text of a message: `{key, values}` names one of STRINGS (its `%(name)s` filled from
 * `values`, which may themselves be messages), `{text}` is shown as it is. Throws on a key
 * STRINGS lacks, so a module cannot ask for a message nobody wrote (or translated).
 */
export function messageText(message) {
  if (typeof message?.text === "string") {
    return message.text;
  }
  const given = typeof message?.format === "string";
  if (!given && !Object.hasOwn(STRINGS, message?.key ?? "")) {
    throw new RangeError(`no message ${message?.key}`);
  }
  const format = given ? message.format : STRINGS[message.key];
  if (message.values === undefined) {
    return format;
  }
  const values = Object.fromEntries(
    Object.entries(message.values).map(([name, value]) => [
      name,
      value !== null && typeof value === "object" ? messageText(value) : value,
    ]),
  );
  return interpolate(format, values, true);
}
